/**
 * GenAI `finish_reason` ↔ IR stop reasons. The conventions list `stop`,
 * `length`, `content_filter`, `tool_call` and `error`; instrumentations
 * also pass their vendor's own value through (`tool_calls`, `end_turn`,
 * `max_tokens`, `STOP`, …), which keep their raw spelling.
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-output-messages.json
 */
import type { StopReason, UnifiedStopReason } from '../../core/ir.ts';
import { lookupTable } from '../../core/wire.ts';

const FROM_WIRE: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  stop: 'end_turn',
  end_turn: 'end_turn',
  STOP: 'end_turn',
  length: 'max_tokens',
  max_tokens: 'max_tokens',
  MAX_TOKENS: 'max_tokens',
  content_filter: 'content_filter',
  SAFETY: 'content_filter',
  tool_call: 'tool_calls',
  tool_calls: 'tool_calls',
  tool_use: 'tool_calls',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
  error: 'error',
});

const TO_WIRE: Readonly<Record<UnifiedStopReason, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  context_overflow: 'length',
  tool_calls: 'tool_call',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
  error: 'error',
  other: 'stop',
};

/** The IR stop reason of a `finish_reason` (the raw value kept). */
export function decodeOtelGenAiFinishReason(raw: string): StopReason {
  return { unified: FROM_WIRE[raw] ?? 'other', raw };
}

/** The `finish_reason` of an IR stop reason: its raw value when that is one of the conventions' own, else the nearest. */
export function encodeOtelGenAiFinishReason(reason: StopReason | undefined): { value: string; exact: boolean } {
  if (reason === undefined) return { value: 'stop', exact: true };
  const value = TO_WIRE[reason.unified];
  return { value, exact: reason.raw === undefined || reason.raw === value || FROM_WIRE[reason.raw] === reason.unified };
}
