/**
 * Losses: what a conversion could not carry. Data, not log lines: every
 * conversion returns its losses beside its body, and an empty list is a
 * promise the tests check.
 */
import { InterlinguaError } from './errors.ts';
import type { Extensions, FormatId } from './ir.ts';

/** The closed set of loss codes. */
export type LossCode =
  /** A field the target has no slot for was dropped. */
  | 'dropped_field'
  /** A part (content block) the target cannot carry was dropped. */
  | 'unsupported_part'
  /** A wire block of a type interlingua does not know; kept as an opaque part for a same-format trip. */
  | 'unknown_block'
  /** A value was mapped to the nearest thing the target has (a stop reason, an effort level, a role). */
  | 'approximated'
  /** Content was moved to another place to fit the target (images out of a tool result, a system message into user text). */
  | 'moved_content'
  /** An id the source lacked was synthesised deterministically. */
  | 'synthesised_id'
  /** Opaque reasoning state (signature, encrypted content) of another vendor was dropped. */
  | 'reasoning_state_dropped'
  /** Tool-call arguments were not a JSON object; kept as text. */
  | 'invalid_arguments'
  /** The request refers to state held by the vendor (previous response, conversation) that cannot travel. */
  | 'stateful_reference'
  /** A JSON Schema keyword the target does not support was dropped or rewritten. */
  | 'schema_downgraded'
  /** A value the target requires was filled with a documented default. */
  | 'defaulted';

/** How much a loss matters: `info` changes only form, `warning` drops or changes meaning. */
export type LossSeverity = 'info' | 'warning';

/** One thing a conversion could not carry. */
export interface Loss {
  code: LossCode;
  /**
   * JSON pointer. Decode losses point into the source body; encode losses
   * point into the IR (`/messages/3/parts/1`), whose messages and parts follow
   * the source's order.
   */
  path: string;
  message: string;
  severity: LossSeverity;
}

/** Extension keys that hold opaque reasoning state (reported as `reasoning_state_dropped`). */
const REASONING_STATE_KEYS: ReadonlySet<string> = new Set(['thoughtSignature', 'thought_signature', 'signature', 'encrypted_content']);

/** Collects losses during one conversion. Codecs receive one and report into it. */
export class LossCollector {
  readonly losses: Loss[] = [];

  /** Record a loss. */
  add(code: LossCode, path: string, message: string, severity: LossSeverity = 'warning'): void {
    this.losses.push({ code, path, message, severity });
  }

  /**
   * Report every extension key meant for a format other than `target`
   * (except `$`-prefixed shape hints): the target cannot carry them.
   */
  foreignExtensions(extensions: Extensions | undefined, target: FormatId, path: string): void {
    if (extensions === undefined) return;
    for (const format in extensions) {
      if (format === target) continue;
      const fields = extensions[format as FormatId];
      if (fields === undefined) continue;
      for (const key in fields) {
        if (key.charCodeAt(0) === 36 /* $ */) continue;
        if (REASONING_STATE_KEYS.has(key)) {
          this.add('reasoning_state_dropped', path, `${format} "${key}" only goes back to ${format}; dropped for ${target}`);
        } else {
          this.add('dropped_field', path, `${format} field "${key}" has no equivalent in ${target}`);
        }
      }
    }
  }
}

/** Throw an `InterlinguaError` listing the losses, for `strict: true`. */
export function throwIfStrict(losses: readonly Loss[], strict: boolean | undefined): void {
  const first = losses[0];
  if (!strict || first === undefined) return;
  const list = losses.map((loss) => `${loss.code} at ${loss.path || '/'}: ${loss.message}`).join('; ');
  throw new InterlinguaError(
    'strict_loss',
    `the conversion would lose information (${losses.length} loss${losses.length === 1 ? '' : 'es'}: ${list}); convert without strict to accept these losses`,
    { path: first.path },
  );
}
