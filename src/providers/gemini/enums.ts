/**
 * Gemini enums as numbers. The proto3 JSON mapping lets a sender spell an
 * enum by name (`"STOP"`) or by number (`1`), and parsers must take both.
 * The decoder maps a number to the name through the proto's numbering (for
 * meaning) and keeps the number as the raw wire value, so a same-format trip
 * writes it back unchanged. A number the tables do not know keeps its raw
 * value and has no name.
 *
 * Numbering from `google/ai/generativelanguage/v1beta/generative_service.proto`
 * and `content.proto` (test/corpus/spec has no protos; ../shared/corpus/spec has).
 * @see https://protobuf.dev/programming-guides/json/
 */
import { InterlinguaError } from '../../core/errors.ts';
import { jsonType } from '../../core/wire.ts';

/** `Candidate.FinishReason` by number. */
export const FINISH_REASON_NAMES: readonly string[] = numbered({
  FINISH_REASON_UNSPECIFIED: 0, STOP: 1, MAX_TOKENS: 2, SAFETY: 3, RECITATION: 4, OTHER: 5, LANGUAGE: 6, BLOCKLIST: 7,
  PROHIBITED_CONTENT: 8, SPII: 9, MALFORMED_FUNCTION_CALL: 10, IMAGE_SAFETY: 11, UNEXPECTED_TOOL_CALL: 12,
  TOO_MANY_TOOL_CALLS: 13, IMAGE_PROHIBITED_CONTENT: 14, IMAGE_OTHER: 15, NO_IMAGE: 16, IMAGE_RECITATION: 17,
});

/** `PromptFeedback.BlockReason` by number. */
export const BLOCK_REASON_NAMES: readonly string[] = numbered({
  BLOCK_REASON_UNSPECIFIED: 0, SAFETY: 1, OTHER: 2, BLOCKLIST: 3, PROHIBITED_CONTENT: 4, IMAGE_SAFETY: 5,
});

/** `FunctionCallingConfig.Mode` by number. */
export const CALLING_MODE_NAMES: readonly string[] = numbered({ MODE_UNSPECIFIED: 0, AUTO: 1, ANY: 2, NONE: 3, VALIDATED: 4 });

/** `Schema.Type` by number. */
export const SCHEMA_TYPE_NAMES: readonly string[] = numbered({
  TYPE_UNSPECIFIED: 0, STRING: 1, NUMBER: 2, INTEGER: 3, BOOLEAN: 4, ARRAY: 5, OBJECT: 6, NULL: 7,
});

function numbered(entries: Record<string, number>): readonly string[] {
  const names: string[] = [];
  for (const name in entries) names[entries[name] as number] = name;
  return Object.freeze(names);
}

/** An enum value as the wire spelled it: its name (when known) and the raw text to keep. */
export interface EnumValue {
  /** The enum name, when the value is a name or a known number. */
  name: string | undefined;
  /** The wire value as text: the name, or the number's digits. */
  raw: string;
}

/** Read an enum value spelled as a name or a proto number; anything else is an `invalid_type` error. */
export function readGeminiEnum(value: unknown, names: readonly string[], path: string): EnumValue {
  if (typeof value === 'string') return { name: value, raw: value };
  if (typeof value === 'number' && Number.isInteger(value)) return { name: value >= 0 ? names[value] : undefined, raw: String(value) };
  throw new InterlinguaError('invalid_type', `expected an enum name or number, got ${jsonType(value)}`, {
    path,
    format: 'gemini',
  });
}

/** The wire spelling of a raw enum value: digits go back as the number they were. */
export function writeGeminiEnum(raw: string): string | number {
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}
