/**
 * Gemini `finishReason` ↔ IR stop reasons. Gemini says `STOP` for a natural
 * stop, a stop sequence and function calls alike; a `STOP` candidate with
 * `functionCall` parts is unified as `tool_calls` (raw stays `STOP`).
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
import type { LossCollector } from '../../core/losses.ts';
import type { StopReason, UnifiedStopReason } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { FinishReason } from '@google/genai';
import { BLOCK_REASON_NAMES, FINISH_REASON_NAMES, readGeminiEnum, writeGeminiEnum } from './enums.ts';
import { lookupTable } from '../../core/wire.ts';

/**
 * Finish reasons of newer SDKs (@google/genai 3.x) than the one this
 * project builds with: a spread, so the check below neither refuses them as
 * unknown keys with the older enum nor misses them with the newer one.
 */
const NEWER_FINISH_REASONS = {
  // The request lacked the thought signature of an earlier function call: the caller's fault, as a malformed call is the model's.
  MISSING_THOUGHT_SIGNATURE: 'error',
  MALFORMED_RESPONSE: 'error',
  // Filtered by an escalation rule; the account limited or disabled for breaking the Prohibited Use Policy.
  ESCALATION: 'content_filter',
  PUP_LIMITED_DISABLED: 'content_filter',
  // Blocked by Model Armor (Vertex AI).
  MODEL_ARMOR: 'content_filter',
} as const satisfies Record<string, UnifiedStopReason>;

/** Gemini finish reasons (every value of the SDK's enum) and their neutral meaning. */
const FROM_GEMINI: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  ...({
  ...NEWER_FINISH_REASONS,
  CONTINUATION: 'pause',
  STOP: 'end_turn',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  LANGUAGE: 'other',
  OTHER: 'other',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  IMAGE_OTHER: 'other',
  NO_IMAGE: 'other',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'pause',
  FINISH_REASON_UNSPECIFIED: 'other',
  } satisfies Record<`${FinishReason}`, UnifiedStopReason>),
  // Vertex AI only (not in the SDK's enum yet).
  JAILBREAK: 'content_filter',
});


/**
 * Decode a `finishReason`, spelled as a name or a proto number (kept raw as
 * its digits); `hasToolCalls` turns `STOP` into `tool_calls`.
 */
export function decodeGeminiFinishReason(value: unknown, path: string, hasToolCalls: boolean): StopReason {
  const { name, raw } = readGeminiEnum(value, FINISH_REASON_NAMES, path);
  const unified = name === 'STOP' && hasToolCalls ? 'tool_calls' : ((name === undefined ? undefined : FROM_GEMINI[name]) ?? 'other');
  return { unified, raw, format: 'gemini' };
}

/**
 * The stop reason of a prompt blocked before generation, from
 * `promptFeedback.blockReason` (name or number); `undefined` when the value
 * is not an enum at all. Every block reason is a content filter.
 */
export function decodeGeminiBlockReason(value: unknown, path: string): StopReason | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  // SAFETY, OTHER, BLOCKLIST, PROHIBITED_CONTENT, IMAGE_SAFETY, MODEL_ARMOR, JAILBREAK and values yet unknown alike: the prompt was refused.
  return { unified: 'content_filter', raw: readGeminiEnum(value, BLOCK_REASON_NAMES, path).raw, format: 'gemini' };
}

/** The Gemini `finishReason` for an IR stop reason (the raw value when it is Gemini's own). */
export function encodeGeminiFinishReason(stopReason: StopReason, losses: LossCollector, path: string): string | number {
  if (stopReason.format === 'gemini' && stopReason.raw !== undefined) return writeGeminiEnum(stopReason.raw);
  const unified = stopReason.unified;
  switch (unified) {
    case 'end_turn':
    case 'stop_sequence':
    case 'tool_calls':
      return 'STOP';
    case 'max_tokens':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'refusal':
      losses.add('approximated', path, 'Gemini has no refusal finish reason; sent as SAFETY');
      return 'SAFETY';
    case 'context_overflow':
      losses.add('approximated', path, 'Gemini has no context-overflow finish reason; sent as MAX_TOKENS');
      return 'MAX_TOKENS';
    case 'pause':
      losses.add('approximated', path, 'Gemini has no pause finish reason; sent as TOO_MANY_TOOL_CALLS');
      return 'TOO_MANY_TOOL_CALLS';
    case 'error':
      losses.add('approximated', path, 'Gemini has no generic error finish reason; sent as OTHER');
      return 'OTHER';
    case 'other':
      return 'OTHER';
    default:
      return unreachable(unified);
  }
}
