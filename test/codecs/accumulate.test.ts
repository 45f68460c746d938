/** accumulate and responseToEvents are inverses: a whole response → synthetic events → the same response. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import type { Response } from '../../src/core/ir.ts';

const test = suite('accumulate');

const response: Response = {
  id: 'resp_1',
  model: 'some-model',
  candidates: [
    {
      index: 0,
      message: {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Think.', state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
          { type: 'text', text: 'Checking.', citations: [{ kind: 'url_citation', url: 'https://example.com' }] },
          { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' }, rawArguments: '{"city":"Oslo"}' },
          { type: 'tool_call', id: 'call_2', name: 'get_time', arguments: {} },
          { type: 'image', source: { kind: 'base64', data: 'iVBORw0KGgo=', mediaType: 'image/png' } },
        ],
      },
      stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' },
    },
    { index: 1, message: { role: 'assistant', parts: [{ type: 'refusal', text: 'No.' }] }, stopReason: { unified: 'refusal' } },
  ],
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
};

test('a synthetic stream accumulates to the response it came from', () => {
  const events = responseToEvents(response);
  assert.is(events[0]?.type, 'start');
  assert.is(events.at(-1)?.type, 'end');
  const result = accumulate(events);
  assert.ok(result.complete);
  assert.is(result.error, undefined);
  assert.equal(result.response, response);
});

test('argument deltas are joined and parsed at part end; usage is cumulative; errors are kept', () => {
  const result = accumulate([
    { type: 'start', id: 'x', usage: { inputTokens: 3 } },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'tool_call', id: 'c', name: 'f', arguments: undefined, rawArguments: '' } },
    { type: 'tool_call_delta', candidate: 0, index: 0, arguments: '{"a":' },
    { type: 'tool_call_delta', candidate: 0, index: 0, arguments: '1}' },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'usage', usage: { outputTokens: 7 } },
    { type: 'error', error: { type: 'overloaded', message: 'busy' } },
  ]);
  assert.equal(result.response.candidates[0]?.message.parts[0], { type: 'tool_call', id: 'c', name: 'f', arguments: { a: 1 }, rawArguments: '{"a":1}' });
  assert.equal(result.response.usage, { inputTokens: 3, outputTokens: 7 });
  assert.equal(result.error, { type: 'overloaded', message: 'busy' });
  assert.not.ok(result.complete);
});

test.run();
