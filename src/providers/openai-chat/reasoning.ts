/**
 * `reasoning_effort` ↔ IR reasoning settings. Chat has no token budget and
 * never returns reasoning text, so budgets map to the nearest effort.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort
 */
import type { LossCollector } from '../../core/losses.ts';
import type { ReasoningConfig } from '../../core/ir.ts';
import { effortForBudget } from '../../core/reasoning-levels.ts';

/** The efforts Chat Completions knows. */
const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

/** Decode `reasoning_effort`; `none` also means reasoning is disabled. */
export function decodeOpenaiChatReasoningEffort(effort: string): ReasoningConfig {
  return effort === 'none' ? { effort, mode: 'disabled' } : { effort };
}


/** Encode IR reasoning settings as `reasoning_effort` (undefined when Chat should use its default). */
export function encodeOpenaiChatReasoningEffort(reasoning: ReasoningConfig, losses: LossCollector): string | undefined {
  if (reasoning.includeThoughts === true) {
    losses.add('dropped_field', '/reasoning/includeThoughts', 'Chat Completions never returns reasoning text; only reasoning token counts');
  }
  if (reasoning.summary !== undefined) {
    losses.add('dropped_field', '/reasoning/summary', 'Chat Completions has no reasoning summaries');
  }
  if (reasoning.effort !== undefined) {
    if (EFFORTS.has(reasoning.effort)) return reasoning.effort;
    losses.add('approximated', '/reasoning/effort', `effort "${reasoning.effort}" is not a Chat Completions effort; sent "medium"`);
    return 'medium';
  }
  if (reasoning.mode === 'disabled') return 'none';
  if (reasoning.budgetTokens !== undefined && reasoning.budgetTokens < 0) {
    // A negative budget (Gemini -1) means "the model decides": Chat's default effort.
    losses.add('approximated', '/reasoning/budgetTokens', 'a dynamic thinking budget was sent as the default reasoning effort', 'info');
    return undefined;
  }
  if (reasoning.budgetTokens !== undefined) {
    const effort = effortForBudget(reasoning.budgetTokens);
    losses.add('approximated', '/reasoning/budgetTokens', `a budget of ${reasoning.budgetTokens} tokens was sent as reasoning_effort "${effort}"`);
    return effort;
  }
  return undefined;
}
