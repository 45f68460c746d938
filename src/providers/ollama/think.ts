/**
 * `think` ↔ IR reasoning settings. `true`/`false` switch thinking on or off;
 * `"low"`, `"medium"`, `"high"` set an effort (models such as gpt-oss).
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-thinking
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { ReasoningConfig } from '../../core/ir.ts';
import { FORMAT } from './shape.ts';

const EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high']);

/** Decode `think`. */
export function decodeOllamaThink(value: unknown, path: string): ReasoningConfig {
  if (value === true) return { mode: 'enabled' };
  if (value === false) return { mode: 'disabled' };
  if (typeof value === 'string' && EFFORTS.has(value)) return { effort: value };
  throw new InterlinguaError('invalid_value', `"think" must be true, false, "low", "medium" or "high", got ${JSON.stringify(value)}`, { path, format: FORMAT });
}

/** Encode IR reasoning settings as `think` (undefined when Ollama should use its default). */
export function encodeOllamaThink(reasoning: ReasoningConfig, losses: LossCollector): boolean | string | undefined {
  if (reasoning.mode === 'disabled' || reasoning.effort === 'none') return false;
  if (reasoning.budgetTokens !== undefined && reasoning.budgetTokens > 0) {
    losses.add('approximated', '/reasoning/budgetTokens', 'Ollama has no thinking budget; thinking was switched on without one');
  }
  if (reasoning.summary !== undefined) losses.add('dropped_field', '/reasoning/summary', 'Ollama has no reasoning summaries; dropped', 'info');
  if (reasoning.effort !== undefined) {
    if (EFFORTS.has(reasoning.effort)) return reasoning.effort;
    const nearest = reasoning.effort === 'minimal' ? 'low' : 'high';
    losses.add('approximated', '/reasoning/effort', `effort "${reasoning.effort}" is not an Ollama think level; sent "${nearest}"`);
    return nearest;
  }
  if (reasoning.mode === 'enabled' || reasoning.mode === 'adaptive' || reasoning.includeThoughts === true || (reasoning.budgetTokens ?? 0) !== 0) return true;
  return undefined;
}
