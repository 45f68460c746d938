/**
 * Tool loops as agents run them, through the proxy to the strict vendor
 * emulators (test/support/strict): parallel calls whose results come back
 * in the order they finished, reasoning state across turns, and what the
 * official SDKs' commonest loops read from a stream.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { GoogleGenAI } from '@google/genai';
import type { FormatId } from '../../src/core/ir.ts';
import type { ProxyConfig } from '../../src/proxy/index.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream, type ScriptedAnswer, type StrictUpstream } from '../support/strict/index.ts';

const test = suite('agent loops through the proxy to strict vendors');
const KEY = 'caller-key';

/** A strict `format` upstream answering `script`, behind the proxy, for the length of `run`. */
async function throughProxy(format: FormatId, script: ScriptedAnswer[], run: (url: string, upstream: StrictUpstream) => Promise<void>, extra: Partial<ProxyConfig> = {}): Promise<void> {
  const upstream = await startStrictUpstream({ format, script });
  try {
    const config: ProxyConfig = { upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, fetch: createNodeFetch(), ...extra };
    await withProxy(config, (url) => run(url, upstream));
  } finally {
    await upstream.close();
  }
}

const TOOLS: Anthropic.Tool[] = [
  { name: 'lookup_order', description: 'Look up an order.', input_schema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } },
  { name: 'lookup_stock', description: 'Look up stock.', input_schema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } },
];
const PARALLEL: ScriptedAnswer = {
  kind: 'tool_calls',
  text: 'Looking both up.',
  calls: [
    { name: 'lookup_order', arguments: { order_id: 'A-18' } },
    { name: 'lookup_stock', arguments: { item: 'B' } },
  ],
};
const OUTPUT: Record<string, string> = { lookup_order: 'shipped on Monday', lookup_stock: 'in stock' };

for (const upstreamFormat of ['gemini', 'ollama', 'anthropic', 'openai-chat', 'openai-responses'] as const) {
  for (const stream of [false, true]) {
    test(`Claude Code's parallel calls → ${upstreamFormat}${stream ? ', streamed' : ''}: results sent in the order they finished reach the upstream paired with their calls`, () =>
      throughProxy(upstreamFormat, [PARALLEL, { kind: 'text', text: 'Shipped, and B is in stock.' }], async (url, upstream) => {
        const client = new Anthropic({ apiKey: KEY, baseURL: url, maxRetries: 0 });
        const question: Anthropic.MessageParam = { role: 'user', content: 'Where is order A-18, and is item B in stock?' };
        const params = { model: 'claude-test', max_tokens: 256, tools: TOOLS, messages: [question] };
        const first = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
        const uses = first.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
        assert.equal(uses.map((use) => use.name), ['lookup_order', 'lookup_stock']);
        // The second call finished first: Claude Code returns results in the order they finish, with their ids.
        const results: Anthropic.ToolResultBlockParam[] = [...uses].reverse().map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: OUTPUT[use.name] ?? '' }));
        const next = { ...params, messages: [question, { role: 'assistant' as const, content: first.content }, { role: 'user' as const, content: results }] };
        const second = stream ? await client.messages.stream(next).finalMessage() : await client.messages.create(next);
        assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
        assert.equal(second.content.map((block) => (block.type === 'text' ? block.text : block.type)), ['Shipped, and B is in stock.']);
      }),
    );
  }
}

const CHAT_TOOLS: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } } }];
const ONE_CALL: ScriptedAnswer = { kind: 'tool_calls', calls: [{ name: 'lookup_order', arguments: { order_id: 'A-18' } }] };

for (const stream of [false, true]) {
  test(`a Chat caller with reasoning in front of Anthropic with thinking${stream ? ', streamed' : ''}: the tool result turn is sent without thinking, which Anthropic accepts`, () =>
    throughProxy('anthropic', [ONE_CALL, { kind: 'text', text: 'It shipped.' }], async (url, upstream) => {
      const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
      const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Where is order A-18?' };
      const params = { model: 'gpt-test', reasoning_effort: 'high' as const, tools: CHAT_TOOLS, messages: [question] };
      const first = (stream ? await client.chat.completions.stream(params).finalChatCompletion() : await client.chat.completions.create(params)).choices[0]?.message;
      const call = first?.tool_calls?.[0];
      assert.ok(call?.type === 'function', 'a tool call');
      assert.ok(upstream.received[0]?.body['thinking'] !== undefined, 'the first turn thinks');
      const next = { ...params, messages: [question, { role: 'assistant' as const, content: first?.content ?? null, tool_calls: first?.tool_calls ?? [] }, { role: 'tool' as const, tool_call_id: call.id, content: 'shipped' }] };
      const second = (stream ? await client.chat.completions.stream(next).finalChatCompletion() : await client.chat.completions.create(next)).choices[0]?.message;
      assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
      assert.is(second?.content, 'It shipped.');
      assert.is(upstream.received[1]?.body['thinking'], undefined);
    }),
  );
}

test('an Ollama caller with think in front of Anthropic with thinking: the tool result turn is sent without thinking, which Anthropic accepts', () =>
  throughProxy('anthropic', [ONE_CALL, { kind: 'text', text: 'It shipped.' }], async (url, upstream) => {
    const client = new Ollama({ host: url });
    const question = { role: 'user', content: 'Where is order A-18?' };
    const tools = [{ type: 'function', function: { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } } }];
    const first = await client.chat({ model: 'llama-test', think: true, tools, messages: [question], stream: false });
    assert.is(first.message.tool_calls?.[0]?.function.name, 'lookup_order');
    const second = await client.chat({ model: 'llama-test', think: true, tools, messages: [question, first.message, { role: 'tool', content: 'shipped', tool_name: 'lookup_order' }], stream: false });
    assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
    assert.is(second.message.content, 'It shipped.');
  }),
);

for (const stream of [false, true]) {
  test(`a Gemini caller that drops thought parts from its history (Gemini CLI) in front of Anthropic with thinking${stream ? ', streamed' : ''}: the thinking comes back on its function call, and Anthropic accepts the turn`, () =>
    throughProxy('anthropic', [{ ...ONE_CALL, reasoning: 'I should look the order up.' }, { kind: 'text', text: 'It shipped.' }], async (url, upstream) => {
      const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
      const config = {
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
        tools: [{ functionDeclarations: [{ name: 'lookup_order', description: 'Look up an order.', parametersJsonSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }] }],
      };
      const question = { role: 'user', parts: [{ text: 'Where is order A-18?' }] };
      const ask = async (contents: unknown[]) => {
        const params = { model: 'gemini-test', contents: contents as Parameters<typeof client.models.generateContent>[0]['contents'], config };
        if (!stream) return (await client.models.generateContent(params)).candidates?.[0]?.content?.parts ?? [];
        const parts: Record<string, unknown>[] = [];
        for await (const chunk of await client.models.generateContentStream(params)) parts.push(...((chunk.candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[]));
        return parts;
      };
      const first = (await ask([question])) as Record<string, unknown>[];
      assert.ok(first.some((part) => part['functionCall'] !== undefined), 'a function call');
      const history = first.filter((part) => part['thought'] !== true);
      const second = await ask([question, { role: 'model', parts: history }, { role: 'user', parts: [{ functionResponse: { name: 'lookup_order', response: { output: 'shipped' } } }] }]);
      assert.equal(upstream.refusals(), [], 'the upstream accepted every request');
      assert.match(JSON.stringify(second), 'It shipped.');
      const assistant = (upstream.received[1]?.body['messages'] as { role: string; content: { type: string }[] }[])[1];
      assert.is(assistant?.content[0]?.type, 'thinking');
    }),
  );
}

test('answers behind an upstream without ids (Ollama) get a fresh id each, in the caller format\'s shape, whole and streamed; Chat chunks carry created', () =>
  throughProxy('ollama', [{ kind: 'text', text: 'One.' }], async (url) => {
    const anthropic = new Anthropic({ apiKey: KEY, baseURL: url, maxRetries: 0 });
    const params = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
    const ids = [(await anthropic.messages.create(params)).id, (await anthropic.messages.create(params)).id, (await anthropic.messages.stream(params).finalMessage()).id];
    for (const id of ids) assert.match(id, /^msg_[A-Za-z0-9]{24}$/);
    assert.is(new Set(ids).size, 3, ids.join(' '));
    const chat = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    const whole = await chat.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    assert.match(whole.id, /^chatcmpl-[A-Za-z0-9]{24}$/);
    for await (const chunk of await chat.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
      assert.match(chunk.id, /^chatcmpl-/);
      assert.ok(chunk.created > 1_700_000_000, `created ${chunk.created}`);
    }
  }),
);

test('an OpenAI Chat stream without stream_options.include_usage has a choice in every chunk (the commonest loop reads chunk.choices[0].delta)', () =>
  throughProxy('anthropic', [{ kind: 'text', text: 'Hello there.' }, { kind: 'text', text: 'Hello again.' }], async (url) => {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    let text = '';
    for await (const chunk of await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
      const choice = chunk.choices[0];
      assert.ok(choice !== undefined, `a chunk without a choice: ${JSON.stringify(chunk)}`);
      text += choice.delta.content ?? '';
    }
    assert.is(text, 'Hello there.');
    // Asked for, the usage comes last, in the chunk whose choices is empty.
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
    assert.equal(chunks.at(-1)?.choices, []);
    assert.ok((chunks.at(-1)?.usage?.total_tokens ?? 0) > 0);
  }),
);

test.run();
