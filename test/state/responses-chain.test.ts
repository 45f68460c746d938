/**
 * Stateful Responses through the proxy with a store, driven by the official
 * `openai` client against the strict vendor emulators (test/support/strict)
 * of the five other formats: a three-turn conversation with a tool call in
 * the middle, chained by `previous_response_id` and by `conversation`,
 * whole and streamed. Each turn the upstream must receive the whole
 * history in its own format, and accept it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import type { FormatId } from '../../src/core/ir.ts';
import type { ProxyConfig } from '../../src/proxy/index.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream, type ScriptedAnswer, type StrictUpstream } from '../support/strict/index.ts';

const test = suite('stateful Responses in front of every format');

const TOOLS: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }, strict: false },
];
const SCRIPT: ScriptedAnswer[] = [
  { kind: 'tool_calls', calls: [{ name: 'lookup_order', arguments: { order_id: 'A-18' } }], reasoning: 'The order needs a lookup.' },
  { kind: 'text', text: 'Order A-18 shipped on Monday.' },
  { kind: 'text', text: 'It should arrive on Thursday.' },
];
const QUESTION = 'Where is order A-18?';
const FOLLOW_UP = 'When will it arrive?';

/** The conversation's turns as the upstream's body holds them (its messages or contents, the system prompt aside). */
function turnsOf(format: FormatId, body: Record<string, unknown>): number {
  const list = (format === 'gemini' ? body['contents'] : format === 'openai-responses' ? body['input'] : body['messages']) as { role?: string; type?: string }[] | undefined;
  // Responses reasoning items are items of their own; the other formats hold reasoning inside the assistant turn.
  return (list ?? []).filter((entry) => entry.role !== 'system' && entry.type !== 'reasoning').length;
}

/** A strict `format` upstream answering the script, behind a proxy with a memory store, for the length of `run`. */
async function statefulProxy(format: FormatId, run: (url: string, upstream: StrictUpstream) => Promise<void>, extra: Partial<ProxyConfig> = {}): Promise<void> {
  const upstream = await startStrictUpstream({ format, script: SCRIPT });
  try {
    const config: ProxyConfig = { upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, fetch: createNodeFetch(), store: createMemoryStore(), ...extra };
    await withProxy(config, (url) => run(url, upstream));
  } finally {
    await upstream.close();
  }
}

/** One turn through the SDK, whole or streamed; the response as the SDK reads it. */
async function turn(client: OpenAI, params: OpenAI.Responses.ResponseCreateParamsNonStreaming, stream: boolean): Promise<OpenAI.Responses.Response> {
  if (!stream) return client.responses.create(params);
  return client.responses.stream({ ...params, stream: true }).finalResponse();
}

/** The text of a response's output messages (the SDK's `output_text` is its own addition, not on every path). */
function textOf(response: OpenAI.Responses.Response): string {
  return response.output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')) : [])).join('');
}

/** The three turns, chained by `previous_response_id` or by `conversation`; checks the upstream's view after each. */
async function threeTurns(client: OpenAI, upstream: StrictUpstream, format: FormatId, how: 'previous' | 'conversation', stream: boolean): Promise<OpenAI.Responses.Response[]> {
  const conversation = how === 'conversation' ? (await client.conversations.create({ metadata: { topic: 'orders' } })).id : undefined;
  const base = { model: 'gpt-test', tools: TOOLS, reasoning: { effort: 'medium' as const }, ...(conversation === undefined ? {} : { conversation }) };
  const first = await turn(client, { ...base, input: QUESTION }, stream);
  assert.match(first.id, /^resp_[A-Za-z0-9]{20,}$/);
  const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
  assert.ok(call !== undefined, 'the first turn calls the tool');
  assert.equal(call.name, 'lookup_order');
  const chain = (previous: OpenAI.Responses.Response) => (conversation === undefined ? { previous_response_id: previous.id } : {});
  const second = await turn(client, { ...base, ...chain(first), input: [{ type: 'function_call_output', call_id: call.call_id, output: 'shipped on Monday' }] }, stream);
  assert.equal(textOf(second), 'Order A-18 shipped on Monday.');
  const third = await turn(client, { ...base, ...chain(second), input: FOLLOW_UP }, stream);
  assert.equal(textOf(third), 'It should arrive on Thursday.');
  if (conversation === undefined) assert.equal(third.previous_response_id, second.id);
  assert.equal(upstream.refusals(), [], 'the upstream accepted every turn');
  const bodies = upstream.received.map((request) => request.body as Record<string, unknown>);
  assert.equal(bodies.map((body) => turnsOf(format, body)), [1, 3, 5], 'each turn carries the whole history');
  const last = JSON.stringify(bodies[2]);
  for (const text of [QUESTION, 'shipped on Monday', 'Order A-18 shipped on Monday.', FOLLOW_UP]) assert.ok(last.includes(text), `the third turn carries ${JSON.stringify(text)}`);
  assert.ok(!last.includes('previous_response_id') && !last.includes('conv_'), 'no state field goes upstream');
  assert.equal(new Set([first.id, second.id, third.id]).size, 3, 'every response has its own id');
  return [first, second, third];
}

/** The five other formats, and OpenAI Responses itself: with a store the proxy keeps the state for it too, so a chain may cross a fallback. */
const FORMATS = ['anthropic', 'openai-chat', 'gemini', 'bedrock-converse', 'ollama', 'openai-responses'] as const;

for (const format of FORMATS) {
  for (const how of ['previous', 'conversation'] as const) {
    for (const stream of [false, true]) {
      test(`${format}, by ${how === 'previous' ? 'previous_response_id' : 'conversation'}${stream ? ', streamed' : ''}: three turns with a tool call carry the whole history upstream`, () =>
        statefulProxy(format, async (url, upstream) => {
          const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
          await threeTurns(client, upstream, format, how, stream);
        }),
      );
    }
  }
}

test('GET, input_items and DELETE through the SDK; a second credential gets 404 for each and cannot chain', () =>
  statefulProxy('anthropic', async (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    const other = new OpenAI({ apiKey: 'someone-else', baseURL: `${url}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-test', tools: TOOLS, reasoning: { effort: 'medium' }, input: QUESTION });
    const fetched = await client.responses.retrieve(first.id, { include: ['reasoning.encrypted_content'] });
    assert.equal(fetched.id, first.id);
    assert.equal(fetched.output, first.output);
    const reasoning = (await client.responses.retrieve(first.id)).output.find((item) => item.type === 'reasoning');
    assert.ok(reasoning !== undefined && reasoning.encrypted_content === undefined, 'without include, no encrypted reasoning (as OpenAI)');
    assert.ok(first.output.some((item) => item.type === 'reasoning' && typeof item.encrypted_content === 'string'), 'the answer carried it');
    const items = await client.responses.inputItems.list(first.id);
    assert.equal(items.data.length, 1);
    const item = items.data[0];
    assert.ok(item?.type === 'message' && item.role === 'user');
    assert.match(item.id, /^msg_/);
    for (const attempt of [() => other.responses.retrieve(first.id), () => other.responses.delete(first.id), () => other.responses.inputItems.list(first.id)]) {
      const error = await attempt().then(() => undefined, (caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.NotFoundError, 'another credential gets 404');
      assert.equal((error as InstanceType<typeof OpenAI.APIError>).message, `404 Response with id '${first.id}' not found.`);
    }
    const chained = await other.responses.create({ model: 'gpt-test', previous_response_id: first.id, input: 'Go on.' }).then(() => undefined, (caught: unknown) => caught);
    assert.ok(chained instanceof OpenAI.BadRequestError);
    assert.equal((chained as InstanceType<typeof OpenAI.APIError>).code, 'previous_response_not_found');
    await client.responses.delete(first.id);
    const gone = await client.responses.retrieve(first.id).then(() => undefined, (caught: unknown) => caught);
    assert.ok(gone instanceof OpenAI.NotFoundError, 'deleted');
  }),
);

test('store: false stores nothing, and an unknown id is OpenAI\'s 404', () =>
  statefulProxy('openai-chat', async (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    const unstored = await client.responses.create({ model: 'gpt-test', input: QUESTION, store: false });
    assert.match(unstored.id, /^resp_/);
    const error = await client.responses.retrieve(unstored.id).then(() => undefined, (caught: unknown) => caught);
    assert.ok(error instanceof OpenAI.NotFoundError);
    const response = await fetch(`${url}/v1/responses/resp_unknown`, { headers: { authorization: 'Bearer caller-key' } });
    assert.equal(response.status, 404);
    assert.equal(await response.json(), { error: { message: "Response with id 'resp_unknown' not found.", type: 'invalid_request_error', param: null, code: null } });
    for (const path of ['/v1/responses/resp_%E0%A4%A', '/v1/conversations/conv_%zz/items/%']) {
      assert.equal((await fetch(`${url}${path}`, { headers: { authorization: 'Bearer caller-key' } })).status, 404, `${path}: a stray % is an unknown id, not a crash`);
    }
  }),
);

test('with an inbound token: the stateful endpoints refuse a wrong one (401) before reading the store, and callers presenting the token share its scope', () =>
  statefulProxy(
    'anthropic',
    async (url) => {
      const client = new OpenAI({ apiKey: 'proxy-token', baseURL: `${url}/v1`, maxRetries: 0 });
      const first = await client.responses.create({ model: 'gpt-test', input: QUESTION });
      for (const [method, path] of [['GET', `/v1/responses/${first.id}`], ['DELETE', `/v1/responses/${first.id}`], ['GET', `/v1/responses/${first.id}/input_items`], ['POST', '/v1/conversations']] as const) {
        const response = await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer wrong-token' } });
        assert.equal(response.status, 401, `${method} ${path}`);
      }
      assert.equal((await client.responses.retrieve(first.id)).id, first.id);
    },
    { inboundToken: 'proxy-token' },
  ),
);

test.run();
