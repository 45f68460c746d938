/**
 * Reasoning state kept for callers that cannot carry it (issue 41 part 3):
 * the official `openai` (Chat) and `ollama` clients through the proxy with
 * a memory store, in front of the strict Anthropic with thinking and the
 * strict Gemini 3, tool loops of three turns, whole and streamed. Every
 * turn is accepted with reasoning on, and the upstream gets its own state
 * back; without a store the same loop shows today's loss.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import type { FormatId } from '../../src/core/ir.ts';
import type { ProxyConfig, ProxyLogEntry } from '../../src/proxy/index.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream, type Behaviour, type StrictUpstream } from '../support/strict/index.ts';
import { startServe } from './serve-process.ts';

const test = suite('reasoning state kept for Chat and Ollama callers');

type Json = Record<string, unknown>;

/** A strict `format` upstream answering `script`, behind the proxy (with a memory store unless `store` is false), for the length of `run`. */
async function throughProxy(format: FormatId, script: Behaviour[], store: boolean, run: (url: string, upstream: StrictUpstream, log: ProxyLogEntry[]) => Promise<void>, extra: Partial<ProxyConfig> = {}): Promise<void> {
  const upstream = await startStrictUpstream({ format, script });
  const log: ProxyLogEntry[] = [];
  try {
    const config: ProxyConfig = {
      upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' },
      modelMap: { '*': format === 'gemini' ? 'gemini-3-pro-preview' : 'claude-sonnet-4-5' },
      fetch: createNodeFetch(),
      telemetry: false,
      log: (entry) => log.push(entry),
      ...(store ? { store: createMemoryStore() } : {}),
      ...extra,
    };
    await withProxy(config, (url) => run(url, upstream, log));
  } finally {
    await upstream.close();
  }
}

const CHAT_TOOLS: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } } },
  { type: 'function', function: { name: 'lookup_stock', description: 'Look up stock.', parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } } },
];
const OUTPUT: Record<string, string> = { lookup_order: 'shipped on Monday', lookup_stock: 'in stock' };

/** Three turns: one call, then two parallel calls, then the final text. */
const LOOP: Behaviour[] = [
  { kind: 'tool_calls', reasoning: 'I should look the order up.', calls: [{ name: 'lookup_order', arguments: { order_id: 'A-18' } }] },
  { kind: 'tool_calls', reasoning: 'Now the stock, and the order again.', text: 'Checking two things.', calls: [{ name: 'lookup_stock', arguments: { item: 'B' } }, { name: 'lookup_order', arguments: { order_id: 'A-19' } }] },
  { kind: 'text', reasoning: 'All known.', text: 'A-18 shipped on Monday; B is in stock.' },
];

/** A Chat client's tool loop to its final text, echoing each assistant message as a Python client re-serialises it (arguments with spaces, content "" for none). */
async function chatLoop(url: string, stream: boolean): Promise<string | null | undefined> {
  const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is order A-18, and is item B in stock?' }];
  for (let turn = 0; turn < 3; turn++) {
    const params = { model: 'gpt-test', reasoning_effort: 'high' as const, tools: CHAT_TOOLS, messages };
    const answer = (stream ? await client.chat.completions.stream(params).finalChatCompletion() : await client.chat.completions.create(params)).choices[0]?.message;
    const calls = (answer?.tool_calls ?? []).filter((call) => call.type === 'function');
    if (calls.length === 0) return answer?.content;
    const echoed = calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: JSON.stringify(JSON.parse(call.function.arguments)).replaceAll(':', ': ').replaceAll(',', ', ') } }));
    messages.push({ role: 'assistant', content: answer?.content ?? '', tool_calls: echoed });
    // Results in the order they finished: the last call first.
    for (const call of [...calls].reverse()) messages.push({ role: 'tool', tool_call_id: call.id, content: OUTPUT[call.function.name] ?? '' });
  }
  return undefined;
}

/** An Ollama client's tool loop to its final text, sending each answer's message back as the client returned it. */
async function ollamaLoop(url: string, stream: boolean): Promise<string | undefined> {
  const client = new Ollama({ host: url });
  const tools = CHAT_TOOLS.map((tool) => (tool.type === 'function' ? { type: 'function', function: tool.function } : tool)) as NonNullable<Parameters<typeof client.chat>[0]['tools']>;
  const messages: { role: string; content: string; tool_calls?: unknown[]; tool_name?: string; thinking?: string }[] = [{ role: 'user', content: 'Where is order A-18, and is item B in stock?' }];
  for (let turn = 0; turn < 3; turn++) {
    let message: { content: string; thinking?: string; tool_calls?: { function: { name: string; arguments: Record<string, unknown> } }[] };
    if (stream) {
      message = { content: '', tool_calls: [] };
      for await (const chunk of await client.chat({ model: 'llama-test', think: true, tools, messages: messages as never, stream: true })) {
        message.content += chunk.message.content;
        message.tool_calls?.push(...(chunk.message.tool_calls ?? []));
      }
    } else {
      message = (await client.chat({ model: 'llama-test', think: true, tools, messages: messages as never, stream: false })).message;
    }
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return message.content;
    messages.push({ role: 'assistant', content: message.content, tool_calls: calls, ...(message.thinking === undefined ? {} : { thinking: message.thinking }) });
    for (const call of [...calls].reverse()) messages.push({ role: 'tool', content: OUTPUT[call.function.name] ?? '', tool_name: call.function.name });
  }
  return undefined;
}

/** The assistant turns the upstream received in its last request. */
function anthropicAssistantTurns(upstream: StrictUpstream): Json[][] {
  const messages = (upstream.received.at(-1)?.body['messages'] ?? []) as { role: string; content: Json[] | string }[];
  return messages.filter((message) => message.role === 'assistant').map((message) => (typeof message.content === 'string' ? [] : message.content));
}

const lossCodes = (log: ProxyLogEntry[]) => log.flatMap((entry) => entry.lossCodes ?? []);

for (const stream of [false, true]) {
  const how = stream ? ', streamed' : '';
  test(`openai Chat client, thinking on, in front of the strict Anthropic${how}: a three-turn tool loop, every turn accepted with thinking and its signatures back`, () =>
    throughProxy('anthropic', LOOP, true, async (url, upstream, log) => {
      assert.is(await chatLoop(url, stream), 'A-18 shipped on Monday; B is in stock.');
      assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
      assert.is(upstream.received.length, 3);
      assert.not.ok(lossCodes(log).includes('dropped_field'), `no turn went without thinking: ${lossCodes(log).join(' ')}`);
      for (const received of upstream.received) assert.ok(received.body['thinking'] !== undefined, 'every turn thinks');
      const turns = anthropicAssistantTurns(upstream);
      assert.equal(turns.map((blocks) => blocks.map((block) => block['type'])), [['thinking', 'tool_use'], ['thinking', 'text', 'tool_use', 'tool_use']]);
      assert.equal(turns.map((blocks) => blocks[0]?.['thinking']), ['I should look the order up.', 'Now the stock, and the order again.']);
    }),
  );

  test(`ollama client, think on, in front of the strict Anthropic${how}: a three-turn tool loop with thinking on every turn`, () =>
    throughProxy('anthropic', LOOP, true, async (url, upstream) => {
      assert.is(await ollamaLoop(url, stream), 'A-18 shipped on Monday; B is in stock.');
      assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
      for (const received of upstream.received) assert.ok(received.body['thinking'] !== undefined, 'every turn thinks');
      assert.equal(anthropicAssistantTurns(upstream).map((blocks) => blocks[0]?.['type']), ['thinking', 'thinking']);
    }),
  );

  test(`without a store, the Chat client's loop in front of Anthropic goes on without thinking, and says so${how}`, () =>
    throughProxy('anthropic', LOOP, false, async (url, upstream, log) => {
      assert.is(await chatLoop(url, stream), 'A-18 shipped on Monday; B is in stock.');
      assert.equal(upstream.refusals(), []);
      assert.equal(upstream.received.map((received) => received.body['thinking'] !== undefined), [true, false, false]);
      assert.ok(lossCodes(log).includes('dropped_field'), lossCodes(log).join(' '));
    }),
  );
}

for (const [what, change] of [
  ['from another credential', (params: OpenAI.ChatCompletionCreateParamsNonStreaming) => ({ params, apiKey: 'another-key' })],
  ['with the assistant message edited', (params: OpenAI.ChatCompletionCreateParamsNonStreaming) => ({ params: { ...params, messages: params.messages.map((message) => (message.role === 'assistant' ? { ...message, content: 'Edited.' } : message)) }, apiKey: 'caller-key' })],
] as const) {
  test(`with a store, the tool result turn ${what} finds nothing kept: it goes on without thinking, as without a store, and the loss says why`, () =>
    throughProxy('anthropic', LOOP, true, async (url, upstream, log) => {
      const first = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
      const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Where is order A-18?' };
      const params = { model: 'gpt-test', reasoning_effort: 'high' as const, tools: CHAT_TOOLS, messages: [question] };
      const answer = (await first.chat.completions.create(params)).choices[0]?.message;
      const call = answer?.tool_calls?.[0];
      assert.ok(call?.type === 'function');
      const next = change({ ...params, messages: [question, { role: 'assistant', content: answer?.content ?? null, tool_calls: answer?.tool_calls ?? [] }, { role: 'tool', tool_call_id: call.id, content: 'shipped' }] });
      const second = new OpenAI({ apiKey: next.apiKey, baseURL: `${url}/v1`, maxRetries: 0 });
      await second.chat.completions.create(next.params);
      assert.equal(upstream.refusals(), []);
      assert.is(upstream.received[1]?.body['thinking'], undefined);
      // Each answer's thinking is dropped for the Chat caller (and kept); the second request adds the miss and the thinking left off.
      const count = (entry: ProxyLogEntry | undefined, code: string) => entry?.lossCodes?.filter((each) => each === code).length ?? 0;
      assert.is(count(log[1], 'reasoning_state_dropped'), count(log[0], 'reasoning_state_dropped') + 1, String(log[1]?.lossCodes));
      assert.is(count(log[1], 'dropped_field'), count(log[0], 'dropped_field') + 1, String(log[1]?.lossCodes));
    }),
  );
}

/** What a Responses or Bedrock upstream received back of its reasoning in the assistant turn before the call. */
function reasoningSentBack(format: FormatId, upstream: StrictUpstream): unknown[] {
  const body = upstream.received.at(-1)?.body ?? {};
  if (format === 'openai-responses') return ((body['input'] ?? []) as Json[]).filter((item) => item['type'] === 'reasoning');
  const messages = (body['messages'] ?? []) as { role: string; content: Json[] }[];
  return messages.filter((message) => message.role === 'assistant').flatMap((message) => message.content.filter((block) => block['reasoningContent'] !== undefined));
}

for (const [format, model] of [['openai-responses', 'gpt-5'], ['bedrock-converse', 'anthropic.claude-sonnet-4-5-20250929-v1:0']] as const) {
  test(`a Chat client in front of the strict ${format} with reasoning gets its ${format === 'openai-responses' ? 'reasoning item' : 'signed reasoning block'} back into the tool result turn with a store, and not without`, async () => {
    for (const store of [true, false]) {
      await throughProxy(format, LOOP, store, async (url, upstream) => {
        assert.is(await chatLoop(url, false), 'A-18 shipped on Monday; B is in stock.');
        assert.equal(upstream.refusals(), []);
        const sent = reasoningSentBack(format, upstream);
        assert.is(sent.length, store ? 2 : 0, JSON.stringify(sent));
        if (store && format === 'openai-responses') for (const item of sent as Json[]) assert.ok(upstream.issued.has('responses.reasoning_id', String(item['id'])));
        if (store && format === 'bedrock-converse') for (const block of sent as Json[]) assert.ok(upstream.issued.has('bedrock.signature', String((block['reasoningContent'] as { reasoningText: Json }).reasoningText['signature'])));
      }, { modelMap: { '*': model } });
    }
  });
}

for (const stream of [false, true]) {
  test(`interlingua serve --store memory (the compiled process): the openai Chat client's three-turn loop in front of the strict Anthropic keeps thinking on every turn${stream ? ', streamed' : ''}`, async () => {
    const upstream = await startStrictUpstream({ format: 'anthropic', script: [...LOOP] });
    const proxy = await startServe(['--upstream', 'anthropic', '--upstream-url', upstream.url, '--api-key-env', 'STATE_KEY', '--model-map', '*=claude-sonnet-4-5', '--store', 'memory']);
    try {
      assert.is(await chatLoop(proxy.url, stream), 'A-18 shipped on Monday; B is in stock.');
      assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
      for (const received of upstream.received) assert.ok(received.body['thinking'] !== undefined, 'every turn thinks');
      assert.equal(anthropicAssistantTurns(upstream).map((blocks) => blocks[0]?.['type']), ['thinking', 'thinking']);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
}

/** A Gemini 3 answer: thought summaries, then text and calls; the emulator signs the first call of each step. */
function geminiAnswer(parts: Json[]): Behaviour {
  return { kind: 'body', body: { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 10, totalTokenCount: 30 }, modelVersion: 'gemini-3-pro-preview' } };
}

const GEMINI_LOOP: Behaviour[] = [
  geminiAnswer([{ text: 'Both lookups at once.', thought: true }, { functionCall: { name: 'lookup_order', args: { order_id: 'A-18' } } }, { functionCall: { name: 'lookup_stock', args: { item: 'B' } } }]),
  geminiAnswer([{ text: 'One more order.', thought: true }, { text: 'Checking the second order.' }, { functionCall: { name: 'lookup_order', args: { order_id: 'A-19' } } }]),
  geminiAnswer([{ text: 'A-18 shipped on Monday; B is in stock.' }]),
];

/** The model turns the upstream received in its last request, each part as its keys (and `thought` parts' text). */
function geminiModelTurns(upstream: StrictUpstream): Json[][] {
  const contents = (upstream.received.at(-1)?.body['contents'] ?? []) as { role: string; parts: Json[] }[];
  return contents.filter((content) => content.role === 'model').map((content) => content.parts);
}

const shapeOf = (parts: Json[]) => parts.map((part) => (part['thought'] === true ? `thought:${String(part['text'])}` : Object.keys(part).sort().join('+')));

for (const stream of [false, true]) {
  const how = stream ? ', streamed' : '';
  for (const client of ['openai', 'ollama'] as const) {
    test(`${client} client in front of the strict Gemini 3${how}: parallel signed calls, three turns, each accepted; Gemini gets its model turns back whole, thoughts included`, () =>
      throughProxy('gemini', GEMINI_LOOP, true, async (url, upstream) => {
        assert.is(await (client === 'openai' ? chatLoop(url, stream) : ollamaLoop(url, stream)), 'A-18 shipped on Monday; B is in stock.');
        assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
        const turns = geminiModelTurns(upstream);
        assert.equal(turns.map(shapeOf), [
          ['thought:Both lookups at once.', 'functionCall+thoughtSignature', 'functionCall'],
          ['thought:One more order.', 'text', 'functionCall+thoughtSignature'],
        ]);
        for (const parts of turns) assert.ok(upstream.issued.has('gemini.thought_signature', String(parts.find((part) => part['thoughtSignature'] !== undefined)?.['thoughtSignature'])));
      }),
    );
  }

  test(`without a store, a Chat client's Gemini 3 loop is accepted (the call's signature rides in its id) but the thoughts do not go back${how}`, () =>
    throughProxy('gemini', GEMINI_LOOP, false, async (url, upstream) => {
      assert.is(await chatLoop(url, stream), 'A-18 shipped on Monday; B is in stock.');
      assert.equal(upstream.refusals(), []);
      const turns = geminiModelTurns(upstream);
      assert.is(turns.length, 2);
      for (const parts of turns) assert.not.ok(parts.some((part) => part['thought'] === true), JSON.stringify(parts));
      for (const parts of turns) assert.ok(parts.some((part) => part['thoughtSignature'] !== undefined));
    }),
  );
}

test.run();
