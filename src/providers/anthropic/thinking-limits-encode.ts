/**
 * What Anthropic refuses beside thinking, for a request from another
 * format (whose settings were chosen for a model without these rules):
 * a temperature other than 1 and a `top_k` are dropped, a `top_p` under
 * 0.95 is raised to 0.95, a thinking budget that is not under `max_tokens`
 * (which counts thinking too) gets `max_tokens` raised by the budget, and a
 * forced tool choice (`any`, `tool`) leaves manual thinking off, since
 * Claude cannot think before a forced call. So does a tool loop whose last
 * assistant turn has no thinking block to send (a Chat or Ollama caller
 * cannot keep one's signature): with thinking on, Anthropic refuses that
 * turn ("a final `assistant` message must start with a thinking block …
 * To avoid this requirement, disable `thinking`"), and its documentation
 * advises sending the request without thinking. Each is reported.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 * @see https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
import type { LossCollector } from '../../core/losses.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';

/** The lowest `top_p` Anthropic takes with thinking. */
const THINKING_TOP_P = 0.95;

/** Bring `body`'s sampling settings, `max_tokens` and tool choice within what Anthropic takes beside its `thinking`. */
export function fitThinking(body: JsonObject, losses: LossCollector): void {
  const thinking = body['thinking'];
  if (!isObject(thinking) || (thinking['type'] !== 'enabled' && thinking['type'] !== 'adaptive')) return;
  if (!toolTurnStartsWithThinking(body['messages'])) {
    delete body['thinking'];
    losses.add('dropped_field', '/reasoning', "Anthropic refuses thinking when the assistant turn whose tool calls the last message answers does not start with a thinking block, and this one has none it can send (its signature did not come back through the caller's format); the request was sent without thinking, as Anthropic advises");
    return;
  }
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

/** False when the last message answers tool calls of an assistant message that does not start with a thinking block. */
function toolTurnStartsWithThinking(messages: unknown): boolean {
  if (!Array.isArray(messages) || messages.length < 2) return true;
  const last = messages[messages.length - 1] as unknown;
  const previous = messages[messages.length - 2] as unknown;
  if (!isObject(last) || last['role'] !== 'user' || !Array.isArray(last['content'])) return true;
  if (!last['content'].some((block) => isObject(block) && block['type'] === 'tool_result')) return true;
  if (!isObject(previous) || previous['role'] !== 'assistant' || !Array.isArray(previous['content'])) return true;
  const first = previous['content'][0] as unknown;
  return isObject(first) && (first['type'] === 'thinking' || first['type'] === 'redacted_thinking');
}
