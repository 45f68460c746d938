/**
 * Parallel tool results in the order of their calls for the formats that
 * pair them by position (Gemini, Ollama): an agent returns results in the
 * order they finish, with the right ids (src/core/result-order.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest } from '../../src/formats/convert.ts';
import { resolves } from '../support/pointers.ts';

const test = suite('tool results in call order');

/** Claude Code's second turn: two parallel calls, the results in the order they finished (B first). */
function anthropicTurn(results: { id: string; text: string }[]) {
  return {
    model: 'claude-test',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'Where is order A-18, and is item B in stock?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_A', name: 'lookup_order', input: { order_id: 'A-18' } },
          { type: 'tool_use', id: 'toolu_B', name: 'lookup_stock', input: { item: 'B' } },
        ],
      },
      { role: 'user', content: results.map((result) => ({ type: 'tool_result', tool_use_id: result.id, content: result.text })) },
    ],
  };
}

const FINISHED = [
  { id: 'toolu_B', text: 'in stock' },
  { id: 'toolu_A', text: 'shipped' },
];

test('Gemini: the function responses follow the calls, whatever order the results came in', () => {
  const { body, losses } = convertRequest(anthropicTurn(FINISHED), { from: 'anthropic', to: 'gemini' });
  const contents = (body as { contents: { role: string; parts: Record<string, { name: string; response: unknown }>[] }[] }).contents;
  const responses = contents[2]?.parts.map((part) => part['functionResponse']);
  assert.equal(responses?.map((response) => response?.name), ['lookup_order', 'lookup_stock']);
  assert.match(JSON.stringify(responses?.[0]?.response), 'shipped');
  assert.match(JSON.stringify(responses?.[1]?.response), 'in stock');
  assert.equal(losses.filter((loss) => loss.code === 'approximated'), []);
});

test('Ollama: the tool messages follow the calls, whatever order the results came in', () => {
  const { body } = convertRequest(anthropicTurn(FINISHED), { from: 'anthropic', to: 'ollama' });
  const messages = (body as { messages: { role: string; content: string; tool_name?: string }[] }).messages.filter((message) => message.role === 'tool');
  assert.equal(messages.map((message) => [message.tool_name, message.content]), [
    ['lookup_order', 'shipped'],
    ['lookup_stock', 'in stock'],
  ]);
});

test('Chat results, one tool message each, are ordered too', () => {
  const chat = {
    model: 'gpt-test',
    messages: [
      { role: 'user', content: 'Where is order A-18, and is item B in stock?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_A', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-18"}' } },
          { id: 'call_B', type: 'function', function: { name: 'lookup_stock', arguments: '{"item":"B"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_B', content: 'in stock' },
      { role: 'tool', tool_call_id: 'call_A', content: 'shipped' },
    ],
  };
  const gemini = convertRequest(chat, { from: 'openai-chat', to: 'gemini' }).body as { contents: { parts: { functionResponse?: { name: string } }[] }[] };
  assert.equal(gemini.contents[2]?.parts.map((part) => part.functionResponse?.name), ['lookup_order', 'lookup_stock']);
});

for (const to of ['gemini', 'ollama'] as const) {
  test(`${to}: a result that answers no call, and a call without a result, are reported where they stand in the input`, () => {
    // A second answer to a call of an earlier turn (Anthropic itself would refuse it; a converter still says what it cannot pair).
    const input = anthropicTurn([
      { id: 'toolu_B', text: 'in stock' },
      { id: 'toolu_X', text: 'stray' },
    ]);
    input.messages.splice(1, 0, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_X', name: 'lookup_order', input: { order_id: 'X' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_X', content: 'lost' }] });
    const { losses } = convertRequest(input, { from: 'anthropic', to });
    const reported = losses.filter((loss) => loss.code === 'approximated');
    assert.equal(reported.map((loss) => loss.path).sort(), ['/messages/3/content/0', '/messages/4/content/1']);
    for (const loss of reported) assert.ok(resolves(input, loss.path), loss.path);
  });
}

test.run();
