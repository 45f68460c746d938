/**
 * `done_reason` ↔ IR stop reasons. Ollama says `stop` also when the model
 * called tools; `length` at `num_predict`; `load` and `unload` for the
 * empty requests that load or unload a model.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#load-a-model-1
 */
import type { LossCollector } from '../../core/losses.ts';
import type { StopReason, UnifiedStopReason } from '../../core/ir.ts';
import { lookupTable } from '../../core/wire.ts';
import { FORMAT } from './shape.ts';

const DECODE: Readonly<Record<string, UnifiedStopReason>> = lookupTable({ stop: 'end_turn', length: 'max_tokens', load: 'other', unload: 'other' });

/** Decode `done_reason`; `stop` with tool calls is `tool_calls`. */
export function decodeOllamaDoneReason(raw: string, hasToolCalls: boolean): StopReason {
  const unified = DECODE[raw] ?? 'other';
  return { unified: unified === 'end_turn' && hasToolCalls ? 'tool_calls' : unified, raw, format: FORMAT };
}

const ENCODE: Readonly<Record<UnifiedStopReason, string>> = {
  end_turn: 'stop',
  tool_calls: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  context_overflow: 'length',
  content_filter: 'stop',
  refusal: 'stop',
  pause: 'stop',
  error: 'stop',
  other: 'stop',
};

/** Encode a stop reason as `done_reason`. */
export function encodeOllamaDoneReason(reason: StopReason, losses: LossCollector, path: string): string {
  if (reason.format === FORMAT && reason.raw !== undefined) return reason.raw;
  const raw = ENCODE[reason.unified];
  const exact = reason.unified === 'end_turn' || reason.unified === 'tool_calls' || reason.unified === 'max_tokens' || reason.unified === 'stop_sequence';
  if (!exact) losses.add('approximated', path, `Ollama has no stop reason "${reason.unified}"; sent "${raw}"`);
  return raw;
}
