/**
 * Thinking budgets and effort levels, for a format that has one where the
 * request has the other: Chat and Responses take an effort, Anthropic's
 * manual thinking and Claude on Bedrock a budget in tokens. The same
 * thresholds both ways, so a budget sent as an effort comes back as a
 * budget of its band.
 */
import { lookupTable } from './wire.ts';

const BUDGET_BY_EFFORT = lookupTable<number>({ minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 32768 });

/** The thinking budget in tokens of effort `effort`; `undefined` for `none` or an effort of no known band. */
export function budgetForEffort(effort: string): number | undefined {
  return BUDGET_BY_EFFORT[effort];
}

/** The nearest effort for a thinking budget in tokens. */
export function effortForBudget(budget: number): string {
  if (budget <= 0) return 'none';
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}
