/**
 * A `function_call_output` sent without its call and without
 * `previous_response_id` (issue 39, class 7): with a store, Gemini's
 * `functionResponse` takes the function's name from the call the proxy
 * stored (in the caller's own scope only), so the request reaches Gemini,
 * whose own rules then judge it; without a store, or for another
 * credential, it stays the typed 400 that names what is missing. (With
 * `previous_response_id` or `conversation` the call is in the history the
 * chain prepends, and the whole turn is accepted: responses-chain.test.ts.)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import type { FormatId } from '../../src/core/ir.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream } from '../support/strict/index.ts';

const test = suite('results without their call take it from the store');

const TOOLS: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }, strict: false },
];

async function orphanResult(format: FormatId, withStore: boolean, secondKey = 'caller-key'): Promise<{ result: OpenAI.Responses.Response | Error; received: Record<string, unknown>[]; refusals: unknown[] }> {
  const upstream = await startStrictUpstream({ format, script: [{ kind: 'tool_calls', calls: [{ name: 'lookup_order', arguments: { order_id: 'A-18' } }] }, { kind: 'text', text: 'Shipped.' }] });
  try {
    return await withProxy({ upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, fetch: createNodeFetch(), ...(withStore ? { store: createMemoryStore() } : {}) }, async (url) => {
      const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
      const first = await client.responses.create({ model: 'gpt-test', tools: TOOLS, input: 'Where is order A-18?' });
      const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
      assert.ok(call !== undefined);
      const second = new OpenAI({ apiKey: secondKey, baseURL: `${url}/v1`, maxRetries: 0 });
      const result = await second.responses
        .create({ model: 'gpt-test', tools: TOOLS, input: [{ type: 'function_call_output', call_id: call.call_id, output: 'shipped on Monday' }] })
        .catch((error: Error) => error);
      return { result, received: upstream.received.map((request) => request.body as Record<string, unknown>), refusals: upstream.refusals() };
    });
  } finally {
    await upstream.close();
  }
}

test('Gemini: the stored call gives the result its function name; what Gemini then says of a result after no call is its own', async () => {
  const { result, received } = await orphanResult('gemini', true);
  // The name is no longer what is missing: Gemini's own rule (a function response follows a function call turn) answers, in its words.
  assert.ok(result instanceof OpenAI.BadRequestError, String(result));
  assert.match(result.message, /function response turn comes immediately after a function call turn/);
  const contents = received[1]?.['contents'] as { role: string; parts: { functionResponse?: { name: string; response: unknown } }[] }[];
  assert.equal(contents.map((content) => content.role), ['user']);
  assert.equal(contents[0]?.parts[0]?.functionResponse, { name: 'lookup_order', response: { output: 'shipped on Monday' } });
});

test('Gemini, a second credential: the first one\'s stored call names nothing for it', async () => {
  const { result, received } = await orphanResult('gemini', true, 'someone-else');
  assert.ok(result instanceof OpenAI.BadRequestError, String(result));
  assert.equal(received.length, 1, 'nothing went upstream');
});

test('Gemini without a store: a 400 that says the function name is missing', async () => {
  const { result } = await orphanResult('gemini', false);
  assert.ok(result instanceof OpenAI.BadRequestError, String(result));
  assert.match(result.message, /no tool name and answers no earlier tool call; Gemini needs the function name/);
});

test.run();
