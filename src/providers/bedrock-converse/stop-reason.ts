/**
 * Converse `stopReason` ↔ IR stop reasons.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
import type { StopReason as BedrockStopReason } from '@aws-sdk/client-bedrock-runtime';
import type { LossCollector } from '../../core/losses.ts';
import type { StopReason, UnifiedStopReason } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { lookupTable } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';

/** Every stop reason of the SDK's enum and its neutral meaning. */
const FROM_BEDROCK: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  end_turn: 'end_turn',
  tool_use: 'tool_calls',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  model_context_window_exceeded: 'context_overflow',
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
} satisfies Record<BedrockStopReason, UnifiedStopReason>);

/** Decode a `stopReason`. */
export function decodeBedrockStopReason(raw: string): StopReason {
  return { unified: FROM_BEDROCK[raw] ?? 'other', raw, format: BEDROCK };
}

/** The Converse `stopReason` for an IR stop reason (the raw value when it is Bedrock's own). */
export function encodeBedrockStopReason(stopReason: StopReason, losses: LossCollector, path: string): string {
  if (stopReason.format === BEDROCK && stopReason.raw !== undefined) return stopReason.raw;
  const unified = stopReason.unified;
  switch (unified) {
    case 'end_turn':
      return 'end_turn';
    case 'tool_calls':
      return 'tool_use';
    case 'max_tokens':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'content_filter':
      return 'content_filtered';
    case 'context_overflow':
      return 'model_context_window_exceeded';
    case 'refusal':
      losses.add('approximated', path, 'Converse has no refusal stop reason; sent as content_filtered');
      return 'content_filtered';
    case 'pause':
      losses.add('approximated', path, 'Converse has no pause stop reason; sent as end_turn');
      return 'end_turn';
    case 'error':
      losses.add('approximated', path, 'Converse says malformed_model_output for a generation that failed');
      return 'malformed_model_output';
    case 'other':
      losses.add('approximated', path, `Converse has no stop reason like "${stopReason.raw ?? 'other'}"; sent as end_turn`);
      return 'end_turn';
    default:
      return unreachable(unified);
  }
}
