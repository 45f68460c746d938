/** Dialects of a format (`Codec.dialects`): the check every entry point makes before it encodes one. */
import { InterlinguaError } from './errors.ts';
import type { Codec } from './codec.ts';

/**
 * `dialect` when `codec` writes it, else an `invalid_value` error that lists
 * the dialects there are. A partial codec without `format` (a bundle's
 * single function) is not checked: its encoder ignores what it does not know.
 */
export function checkDialect(codec: object, dialect: string | undefined): string | undefined {
  const { format, dialects: known } = codec as Partial<Pick<Codec, 'format' | 'dialects'>>;
  if (dialect === undefined || format === undefined) return dialect;
  const dialects = known ?? [];
  if (dialects.includes(dialect)) return dialect;
  const choice = dialects.length === 0 ? `${format} has no dialects` : `use one of ${dialects.join(', ')}`;
  throw new InterlinguaError('invalid_value', `unknown dialect ${JSON.stringify(dialect)} for ${format}; ${choice}`, { format });
}
