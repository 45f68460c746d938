/**
 * What Anthropic refuses beside thinking, for a request from another
 * format (whose settings were chosen for a model without these rules):
 * a temperature other than 1 and a `top_k` are dropped, a `top_p` under
 * 0.95 is raised to 0.95, a thinking budget that is not under `max_tokens`
 * (which counts thinking too) gets `max_tokens` raised by the budget, and a
 * forced tool choice (`any`, `tool`) leaves manual thinking off, since
 * Claude cannot think before a forced call. Each is reported.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
import type { LossCollector } from '../../core/losses.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';

/** The lowest `top_p` Anthropic takes with thinking. */
const THINKING_TOP_P = 0.95;

/** Bring `body`'s sampling settings, `max_tokens` and tool choice within what Anthropic takes beside its `thinking`. */
export function fitThinking(body: JsonObject, losses: LossCollector): void {
  const thinking = body['thinking'];
  if (!isObject(thinking) || (thinking['type'] !== 'enabled' && thinking['type'] !== 'adaptive')) return;
  const choice = body['tool_choice'];
  if (thinking['type'] === 'enabled' && isObject(choice) && (choice['type'] === 'any' || choice['type'] === 'tool')) {
    delete body['thinking'];
    losses.add('dropped_field', '/reasoning', 'Anthropic cannot think before a forced tool call (tool_choice any or tool); thinking was left off');
    return;
  }
  const temperature = body['temperature'];
  if (temperature !== undefined && temperature !== 1) {
    delete body['temperature'];
    losses.add('dropped_field', '/generation/temperature', `Anthropic takes no temperature but 1 with thinking; ${String(temperature)} dropped`);
  }
  if (body['top_k'] !== undefined) {
    delete body['top_k'];
    losses.add('dropped_field', '/generation/topK', 'Anthropic takes no top_k with thinking; dropped');
  }
  const topP = body['top_p'];
  if (typeof topP === 'number' && topP < THINKING_TOP_P) {
    body['top_p'] = THINKING_TOP_P;
    losses.add('approximated', '/generation/topP', `Anthropic takes a top_p of at least ${THINKING_TOP_P} with thinking; ${topP} was sent as ${THINKING_TOP_P}`);
  }
  const budget = thinking['budget_tokens'];
  const maxTokens = body['max_tokens'];
  if (typeof budget === 'number' && typeof maxTokens === 'number' && budget >= maxTokens) {
    body['max_tokens'] = budget + maxTokens;
    losses.add(
      'approximated',
      '/generation/maxTokens',
      `Anthropic counts thinking inside max_tokens, which must exceed the thinking budget (${budget}); max_tokens ${maxTokens} was sent as ${budget + maxTokens}, the budget plus the answer's ${maxTokens}`,
    );
  }
}
