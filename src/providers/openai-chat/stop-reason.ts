/**
 * Chat Completions `finish_reason` ↔ the neutral stop reason.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
import type { LossCollector } from '../../core/losses.ts';
import type { StopReason, UnifiedStopReason } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { FORMAT } from './shape.ts';
import { lookupTable } from '../../core/wire.ts';

/** The `finish_reason` values Chat Completions sends. */
export type OpenaiChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

const DECODE: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
});

/**
 * The neutral stop reason of a wire `finish_reason`. OpenAI ends a refusal
 * with `stop`: a `stop` next to a refusal is a refusal (raw stays `stop`).
 */
export function decodeOpenaiChatFinishReason(raw: string, refused = false): StopReason {
  const unified = raw === 'stop' && refused ? 'refusal' : (DECODE[raw] ?? 'other');
  return { unified, raw, format: FORMAT };
}

/** The nearest `finish_reason` and whether it is exact. */
function nearest(unified: UnifiedStopReason): [OpenaiChatFinishReason, boolean] {
  switch (unified) {
    case 'end_turn':
      return ['stop', true];
    case 'stop_sequence':
      return ['stop', true];
    case 'max_tokens':
      return ['length', true];
    case 'tool_calls':
      return ['tool_calls', true];
    case 'content_filter':
      return ['content_filter', true];
    case 'refusal':
      return ['content_filter', false];
    case 'context_overflow':
      return ['length', false];
    case 'pause':
      return ['stop', false];
    case 'error':
      return ['stop', false];
    case 'other':
      return ['stop', false];
    default:
      return unreachable(unified);
  }
}

/**
 * The wire `finish_reason` for a stop reason: the raw value when it came from
 * Chat, else the nearest value (reported when inexact). `hasToolCalls` fixes
 * formats that report a plain stop next to tool calls (Gemini `STOP`).
 */
export function encodeOpenaiChatFinishReason(
  stopReason: StopReason,
  hasToolCalls: boolean,
  losses: LossCollector,
  path: string,
  hasRefusal = false,
): string {
  if (stopReason.format === FORMAT && stopReason.raw !== undefined) return stopReason.raw;
  if (hasToolCalls && stopReason.unified === 'end_turn') return 'tool_calls';
  // OpenAI ends a refusal message with `stop`; with the refusal part beside it, that says refusal exactly.
  if (hasRefusal && stopReason.unified === 'refusal') return 'stop';
  const [reason, exact] = nearest(stopReason.unified);
  if (!exact) {
    losses.add(
      'approximated',
      path,
      `stop reason "${stopReason.raw ?? stopReason.unified}" has no Chat Completions equivalent; sent as "${reason}"`,
    );
  }
  return reason;
}
