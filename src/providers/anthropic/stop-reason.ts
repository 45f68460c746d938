/**
 * Stop reasons: Anthropic `stop_reason` values and the IR's unified ones.
 *
 * @see https://docs.anthropic.com/en/api/messages#response-stop-reason
 */
import type { StopReason as AnthropicStopReason } from '@anthropic-ai/sdk/resources/messages/messages';
import type { StopReason, UnifiedStopReason } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { ANTHROPIC } from './shape.ts';
import { lookupTable } from '../../core/wire.ts';

/** Anthropic `stop_reason` → unified reason. Unknown values map to `other`. */
export const ANTHROPIC_TO_UNIFIED: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_calls',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'context_overflow',
  compaction: 'other',
});

/** Unified reason → nearest Anthropic `stop_reason`, and whether the mapping is exact. */
export const UNIFIED_TO_ANTHROPIC: Readonly<Record<UnifiedStopReason, readonly [AnthropicStopReason, boolean]>> = {
  end_turn: ['end_turn', true],
  max_tokens: ['max_tokens', true],
  stop_sequence: ['stop_sequence', true],
  tool_calls: ['tool_use', true],
  content_filter: ['refusal', false],
  refusal: ['refusal', true],
  pause: ['pause_turn', true],
  context_overflow: ['model_context_window_exceeded', true],
  error: ['end_turn', false],
  other: ['end_turn', false],
};

/** Decode a wire `stop_reason` string. */
export function decodeAnthropicStopReason(raw: string): StopReason {
  return { unified: ANTHROPIC_TO_UNIFIED[raw] ?? 'other', raw, format: ANTHROPIC };
}

/** Encode a stop reason: the raw value when it is Anthropic's own, else the nearest value (reported when inexact). */
export function encodeAnthropicStopReason(reason: StopReason, path: string, losses: LossCollector): string {
  if (reason.format === ANTHROPIC && reason.raw !== undefined) return reason.raw;
  const [value, exact] = UNIFIED_TO_ANTHROPIC[reason.unified];
  if (!exact) losses.add('approximated', path, `stop reason "${reason.raw ?? reason.unified}" has no Anthropic equivalent; sent "${value}"`);
  return value;
}
