/**
 * OpenAI-compatible dialects of openai-chat (DeepSeek, OpenRouter, Gemini's
 * OpenAI endpoint, vLLM and Ollama's `reasoning`): decoded into reasoning
 * state owned by the dialect, written back only to that dialect (the golden
 * round trips live in golden/openai-chat/dialect-*), reported as losses
 * elsewhere, written when the caller names the dialect, and kept across the
 * turns of a tool loop through the proxy by clients of other formats.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { suite } from 'uvu';
import { ConverseCommand, ConverseStreamCommand, type ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { bedrockClient } from '../support/clients.ts';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { convertRequest, convertResponse, decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import type { ReasoningPart, Response } from '../../src/core/ir.ts';
import { LossCollector } from '../../src/core/losses.ts';
import { codecFor } from '../../src/formats/registry.ts';
import { createProxy } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { GOLDEN_DIR, readJson, REPO_ROOT } from '../support/fixtures.ts';
import { decodeEvents, encodeEvents, messagesAsBytes, wireEventsFromBytes } from '../support/streams.ts';
import { startUpstream, type FakeUpstream } from '../support/strict/index.ts';

const golden = (name: string, kind: 'request' | 'response') => readJson(join(GOLDEN_DIR, 'openai-chat', name, `${kind}.json`)) as Record<string, unknown>;
const reasoningOf = (parts: { type: string }[]) => parts.filter((part): part is ReasoningPart => part.type === 'reasoning');
const codes = (losses: { code: string }[]) => losses.map((loss) => loss.code);

const decode = suite('dialects: decode');

decode('DeepSeek reasoning_content is reasoning text that goes back to DeepSeek', () => {
  const { ir } = decodeResponse('openai-chat', golden('dialect-deepseek-tools', 'response'));
  const [reasoning] = reasoningOf(ir.candidates[0]?.message.parts ?? []);
  assert.is(reasoning?.text, 'Today is 2025-12-01, so tomorrow is 2025-12-02. Now ask for the forecast.');
  assert.equal(reasoning?.state, { format: 'openai-chat', kind: 'text', value: '', dialect: 'deepseek' });
  assert.is(ir.extensions?.['openai-chat']?.['$dialect'], 'deepseek');
});

decode('OpenRouter reasoning and reasoning_details: text plus the details array, unmodified, as its state', () => {
  const body = golden('dialect-openrouter-reasoning', 'request');
  const { ir } = decodeRequest('openai-chat', body);
  const [reasoning] = reasoningOf(ir.messages[1]?.parts ?? []);
  assert.is(reasoning?.text, 'I should call the weather tool for Boston.');
  assert.is(reasoning?.state?.dialect, 'openrouter');
  assert.equal(JSON.parse(reasoning?.state?.value ?? 'null'), (body['messages'] as { reasoning_details?: unknown }[])[1]?.reasoning_details);
  assert.equal(ir.extensions?.['openai-chat']?.['provider'], body['provider'], 'provider routing travels for openai-chat');
  const response = decodeResponse('openai-chat', golden('dialect-openrouter-reasoning', 'response')).ir;
  assert.is(response.usage?.extensions?.['openai-chat']?.['cost'], 0.00225, 'usage.cost is kept');
});

decode('Gemini thought signatures on tool calls become reasoning state right before the call', () => {
  const { ir } = decodeResponse('openai-chat', golden('dialect-gemini-openai-signature', 'response'));
  const parts = ir.candidates[0]?.message.parts ?? [];
  assert.equal(parts.map((part) => part.type), ['reasoning', 'tool_call']);
  assert.equal((parts[0] as ReasoningPart).state, { format: 'openai-chat', kind: 'thought_signature', value: 'CiUBjz1rX2bq8vTYQm0Nn7Ap', dialect: 'gemini-openai' });
  assert.is(parts[1]?.extensions?.['openai-chat']?.['extra_content'], undefined, 'the signature is not also left on the call');
});

decode('vLLM and Ollama spell reasoning text `reasoning`', () => {
  const { ir } = decodeResponse('openai-chat', golden('dialect-vllm-reasoning', 'response'));
  assert.is(reasoningOf(ir.candidates[0]?.message.parts ?? [])[0]?.text, 'Compare the decimals: 0.11 < 0.80.');
  const ollama = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'qwen3', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', reasoning: 'Greet back.' }, finish_reason: 'stop' }] };
  const chat = convertResponse(ollama, { from: 'openai-chat', to: 'openai-chat', dialect: 'ollama-openai' });
  assert.equal(chat.body, ollama);
});

decode.run();

const cross = suite('dialects: other formats and plain OpenAI');

cross('dialect state never reaches another vendor: declared losses', () => {
  for (const name of ['dialect-deepseek-tools', 'dialect-openrouter-reasoning', 'dialect-gemini-openai-signature', 'dialect-ollama-openai-reasoning']) {
    for (const kind of ['request', 'response'] as const) {
      const convert = kind === 'request' ? convertRequest : convertResponse;
      for (const to of ['anthropic', 'gemini', 'openai-responses', 'ollama'] as const) {
        const result = convert(golden(name, kind), { from: 'openai-chat', to, model: 'test-model' });
        const text = JSON.stringify(result.body);
        for (const secret of ['CiQBjz1rX8oFGmK5w3aZT2Lm', 'CiUBjz1rX2bq8vTYQm0Nn7Ap', 'eyJlbmNyeXB0ZWQiOiJ0cnVlIn0=', 'ErUBCkYIBRgCIkDq3F']) {
          assert.not.ok(text.includes(secret), `${name} ${kind} → ${to} carries no ${secret}`);
        }
        const hasState = JSON.stringify(decodeRequest('openai-chat', golden(name, 'request')).ir).includes('"dialect"');
        if (hasState && to !== 'ollama') assert.ok(codes(result.losses).includes('reasoning_state_dropped'), `${name} ${kind} → ${to}: ${codes(result.losses).join(',')}`);
      }
    }
  }
});

cross('plain OpenAI output (dialect "openai") has no dialect field, and says what it dropped', () => {
  for (const name of ['dialect-deepseek-tools', 'dialect-openrouter-reasoning', 'dialect-gemini-openai-signature', 'dialect-ollama-openai-reasoning']) {
    const result = convertResponse(golden(name, 'response'), { from: 'openai-chat', to: 'openai-chat', dialect: 'openai' });
    const message = (result.body as { choices: { message: Record<string, unknown> }[] }).choices[0]?.message ?? {};
    for (const key of ['reasoning_content', 'reasoning', 'reasoning_details']) assert.not.ok(key in message, `${name}: ${key}`);
    assert.not.ok(JSON.stringify(message).includes('thought_signature'), name);
    assert.ok(codes(result.losses).includes('reasoning_state_dropped'), `${name}: ${codes(result.losses).join(',')}`);
  }
});

cross('naming a dialect writes its fields for IR from another format', () => {
  const ollama = { model: 'qwen3', created_at: '2025-06-01T10:00:00Z', message: { role: 'assistant', content: 'Four.', thinking: 'Two plus two.' }, done: true, done_reason: 'stop' };
  const deepseek = convertResponse(ollama, { from: 'ollama', to: 'openai-chat', dialect: 'deepseek' }).body as { choices: { message: Record<string, unknown> }[] };
  assert.is(deepseek.choices[0]?.message['reasoning_content'], 'Two plus two.');
  const vllm = convertResponse(ollama, { from: 'ollama', to: 'openai-chat', dialect: 'vllm' }).body as { choices: { message: Record<string, unknown> }[] };
  assert.is(vllm.choices[0]?.message['reasoning'], 'Two plus two.');
  // An Ollama caller's history keeps its `thinking`, which a DeepSeek upstream gets back as reasoning_content.
  const history = { model: 'qwen3', stream: false, messages: [{ role: 'user', content: 'Weather?' }, { role: 'assistant', content: '', thinking: 'Need the tool.', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] }, { role: 'tool', content: '4°C', tool_name: 'get_weather' }] };
  const upstream = convertRequest(history, { from: 'ollama', to: 'openai-chat', dialect: 'deepseek' }).body as { messages: Record<string, unknown>[] };
  assert.is(upstream.messages[1]?.['reasoning_content'], 'Need the tool.');
  const plain = convertResponse(ollama, { from: 'ollama', to: 'openai-chat' });
  assert.not.ok('reasoning_content' in ((plain.body as { choices: { message: object }[] }).choices[0]?.message ?? {}));
  assert.ok(codes(plain.losses).includes('unsupported_part'));
});

cross('OpenRouter reasoning settings: the request `reasoning` object is the IR reasoning config, both ways', () => {
  const request = golden('dialect-openrouter-reasoning', 'request');
  const question = { ...request, messages: (request['messages'] as unknown[]).slice(0, 1) };
  const anthropic = convertRequest(question, { from: 'openai-chat', to: 'anthropic' }).body as { thinking?: unknown };
  assert.equal(anthropic.thinking, { type: 'enabled', budget_tokens: 2000 });
  // The whole golden ends in a tool loop whose thinking (OpenRouter's state) cannot go to Anthropic, which then refuses thinking.
  const loop = convertRequest(request, { from: 'openai-chat', to: 'anthropic' });
  assert.is((loop.body as { thinking?: unknown }).thinking, undefined);
  assert.ok(loop.losses.some((loss) => loss.code === 'dropped_field' && loss.path === '/reasoning'));
  const claude = readJson(join(GOLDEN_DIR, 'cross', 'thinking', 'anthropic.request.json'));
  const openrouter = convertRequest(claude, { from: 'anthropic', to: 'openai-chat', dialect: 'openrouter' }).body as Record<string, unknown>;
  const budget = decodeRequest('anthropic', claude).ir.reasoning?.budgetTokens;
  assert.ok(budget !== undefined && budget > 0);
  assert.equal(openrouter['reasoning'], { max_tokens: budget });
  assert.not.ok('reasoning_effort' in openrouter);
  const plain = convertRequest(claude, { from: 'anthropic', to: 'openai-chat' }).body as Record<string, unknown>;
  assert.ok('reasoning_effort' in plain && !('reasoning' in plain));
});

cross('dialect streams: DeepSeek reasoning deltas decode with their state and encode back in the named dialect', () => {
  const response = decodeResponse('openai-chat', golden('dialect-deepseek-tools', 'response')).ir;
  const encoded = encodeEvents('openai-chat', responseToEvents(response), 'test-model');
  assert.ok(encoded.losses.losses.some((loss) => loss.code === 'unsupported_part'), 'plain OpenAI streams drop reasoning');
  const deepseek = dialectStream(response);
  const text = new TextDecoder().decode(deepseek);
  assert.match(text, '"reasoning_content":"Today is 2025-12-01');
  return wireEventsFromBytes(deepseek).then((wire) => {
    const back = accumulate(decodeEvents('openai-chat', wire).events).response;
    const [reasoning] = reasoningOf(back.candidates[0]?.message.parts ?? []);
    assert.equal(reasoning?.state, { format: 'openai-chat', kind: 'text', value: '', dialect: 'deepseek' });
    assert.is(reasoning?.text, 'Today is 2025-12-01, so tomorrow is 2025-12-02. Now ask for the forecast.');
  });
});

cross.run();

/** The SSE bytes of `response` as a stream in `dialect`, with the stream encoder `convertStream(…, { dialect })` uses. */
function dialectStream(response: Response, dialect = 'deepseek'): Uint8Array {
  const encoder = codecFor('openai-chat').createStreamEncoder!({ losses: new LossCollector(), model: 'test-model', dialect });
  const events = responseToEvents(response);
  return messagesAsBytes([...events.flatMap((event) => encoder.encode(event)), ...encoder.flush()]);
}

// ---------------------------------------------------------------------------
// The proxy: a tool loop through a client of another format keeps the dialect's state.

async function withProxy<T>(upstream: FakeUpstream, dialect: string, run: (url: string) => Promise<T>): Promise<T> {
  const handler = createProxy({ upstream: { format: 'openai-chat', baseUrl: upstream.url, apiKey: 'upstream-secret', dialect }, modelMap: { '*': 'test-model' } });
  const server: Server = await serve(handler, { port: 0 });
  try {
    return await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The assistant message with a tool call that the upstream received on the second turn. */
function secondTurnAssistant(upstream: FakeUpstream): Record<string, unknown> | undefined {
  const messages = (upstream.received[1]?.body['messages'] ?? []) as Record<string, unknown>[];
  return messages.find((message) => message['role'] === 'assistant' && Array.isArray(message['tool_calls']));
}

const WEATHER_TOOL = { name: 'get_weather', description: 'Get the weather of a city on a date', parameters: { type: 'object', properties: { location: { type: 'string' }, date: { type: 'string' } }, required: ['location', 'date'] } };
const final = { id: 'done-1', object: 'chat.completion', created: 1764547300, model: 'deepseek-reasoner', choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny, 12°C.' }, finish_reason: 'stop' }] };

const proxy = suite('dialects: proxy tool loops keep the reasoning state across turns');

for (const stream of [false, true]) {
  proxy(`Anthropic SDK → proxy → DeepSeek: reasoning_content comes back on the second turn${stream ? ' (streamed)' : ''}`, async () => {
    const upstream = await startUpstream('openai-chat');
    const first = golden('dialect-deepseek-tools', 'response');
    const firstIr = decodeResponse('openai-chat', first).ir;
    upstream.behaviour = { kind: 'answer', body: first, ...(stream ? { stream: dialectStream(firstIr) } : {}) };
    try {
      await withProxy(upstream, 'deepseek', async (url) => {
        const client = new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 });
        const tools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters as Anthropic.Tool.InputSchema }];
        const question: Anthropic.MessageParam = { role: 'user', content: 'What is the weather in Hangzhou tomorrow?' };
        const params = { model: 'claude-test', max_tokens: 1024, tools, messages: [question] };
        const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
        const call = message.content.find((block) => block.type === 'tool_use');
        assert.ok(call?.type === 'tool_use', 'the client sees the tool call');
        assert.ok(message.content.some((block) => block.type === 'thinking'), 'the reasoning reaches the client as a thinking block');
        upstream.behaviour = { kind: 'answer', body: final };
        await client.messages.create({
          ...params,
          messages: [question, { role: 'assistant', content: message.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny, 12°C' }] }],
        });
        const assistant = secondTurnAssistant(upstream);
        assert.is(assistant?.['reasoning_content'], 'Today is 2025-12-01, so tomorrow is 2025-12-02. Now ask for the forecast.');
        assert.not.ok(JSON.stringify(upstream.received[1]?.body).includes('interlingua.'), 'nothing of the wrapping reaches DeepSeek');
      });
    } finally {
      await upstream.close();
    }
  });
}

for (const stream of [false, true]) {
  proxy(`AWS SDK (Bedrock Converse) → proxy → DeepSeek: reasoning_content comes back through reasoningText.signature${stream ? ' (streamed)' : ''}`, async () => {
    const upstream = await startUpstream('openai-chat');
    const first = golden('dialect-deepseek-tools', 'response');
    const firstIr = decodeResponse('openai-chat', first).ir;
    upstream.behaviour = { kind: 'answer', body: first, ...(stream ? { stream: dialectStream(firstIr) } : {}) };
    try {
      await withProxy(upstream, 'deepseek', async (url) => {
        const client = bedrockClient(url);
        const modelId = 'us.deepseek.r1-v1:0';
        const toolConfig = { tools: [{ toolSpec: { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, inputSchema: { json: WEATHER_TOOL.parameters } } }] };
        const question = { role: 'user' as const, content: [{ text: 'What is the weather in Hangzhou tomorrow?' }] };
        let content: ContentBlock[] = [];
        if (stream) {
          const output = await client.send(new ConverseStreamCommand({ modelId, messages: [question], toolConfig }));
          const blocks: { text?: string; signature?: string; toolUseId?: string; name?: string; input?: string }[] = [];
          for await (const event of output.stream ?? []) {
            const start = event.contentBlockStart;
            if (start?.start?.toolUse !== undefined) blocks[start.contentBlockIndex ?? 0] = { toolUseId: start.start.toolUse.toolUseId ?? '', name: start.start.toolUse.name ?? '', input: '' };
            const delta = event.contentBlockDelta;
            if (delta === undefined) continue;
            const block = (blocks[delta.contentBlockIndex ?? 0] ??= {});
            if (delta.delta?.reasoningContent?.text !== undefined) block.text = (block.text ?? '') + delta.delta.reasoningContent.text;
            if (delta.delta?.reasoningContent?.signature !== undefined) block.signature = delta.delta.reasoningContent.signature;
            if (delta.delta?.toolUse?.input !== undefined) block.input = (block.input ?? '') + delta.delta.toolUse.input;
          }
          content = blocks.map((block): ContentBlock =>
            block.toolUseId !== undefined
              ? { toolUse: { toolUseId: block.toolUseId, name: block.name ?? '', input: JSON.parse(block.input || '{}') } }
              : block.signature !== undefined
                ? { reasoningContent: { reasoningText: { text: block.text ?? '', signature: block.signature } } }
                : { text: block.text ?? '' },
          );
        } else {
          content = (await client.send(new ConverseCommand({ modelId, messages: [question], toolConfig }))).output?.message?.content ?? [];
        }
        const call = content.find((block) => block.toolUse !== undefined)?.toolUse;
        assert.ok(call !== undefined, 'the client sees the tool call');
        assert.ok(content.some((block) => block.reasoningContent?.reasoningText?.signature !== undefined), 'the reasoning reaches the client with a signature to send back');
        upstream.behaviour = { kind: 'answer', body: final };
        await client.send(
          new ConverseCommand({
            modelId,
            toolConfig,
            messages: [question, { role: 'assistant', content }, { role: 'user', content: [{ toolResult: { toolUseId: call.toolUseId ?? '', content: [{ text: 'Sunny, 12°C' }] } }] }],
          }),
        );
        const assistant = secondTurnAssistant(upstream);
        assert.is(assistant?.['reasoning_content'], 'Today is 2025-12-01, so tomorrow is 2025-12-02. Now ask for the forecast.');
        assert.not.ok(JSON.stringify(upstream.received[1]?.body).includes('interlingua.'), 'nothing of the wrapping reaches DeepSeek');
      });
    } finally {
      await upstream.close();
    }
  });
}

proxy('Gemini SDK → proxy → OpenRouter: reasoning_details go back unmodified', async () => {
  const upstream = await startUpstream('openai-chat');
  const first = golden('dialect-openrouter-reasoning', 'request');
  const firstMessage = (first['messages'] as Record<string, unknown>[])[1] as Record<string, unknown>;
  const answer = { id: 'gen-1', object: 'chat.completion', created: 1764547200, model: 'anthropic/claude-sonnet-4.5', choices: [{ index: 0, message: { role: 'assistant', content: null, ...firstMessage }, finish_reason: 'tool_calls' }] };
  upstream.behaviour = { kind: 'answer', body: answer };
  try {
    await withProxy(upstream, 'openrouter', async (url) => {
      const client = new GoogleGenAI({ apiKey: 'caller-key', httpOptions: { baseUrl: url } });
      const config = { tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Current weather', parametersJsonSchema: { type: 'object', properties: { location: { type: 'string' } } } }] }] };
      const question = { role: 'user', parts: [{ text: 'What is the weather in Boston?' }] };
      const response = await client.models.generateContent({ model: 'gemini-test', contents: [question], config });
      const content = response.candidates?.[0]?.content;
      const call = content?.parts?.find((part) => part.functionCall !== undefined)?.functionCall;
      assert.is(call?.name, 'get_weather');
      upstream.behaviour = { kind: 'answer', body: final };
      await client.models.generateContent({
        model: 'gemini-test',
        contents: [question, content as never, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '45F, rainy' } } }] }],
        config,
      });
      const assistant = secondTurnAssistant(upstream);
      assert.equal(assistant?.['reasoning_details'], firstMessage['reasoning_details']);
      assert.is(assistant?.['reasoning'], firstMessage['reasoning']);
    });
  } finally {
    await upstream.close();
  }
});

proxy('OpenAI Responses SDK → proxy → Gemini OpenAI endpoint: the thought signature comes back on its tool call', async () => {
  const upstream = await startUpstream('openai-chat');
  upstream.behaviour = { kind: 'answer', body: golden('dialect-gemini-openai-signature', 'response') };
  try {
    await withProxy(upstream, 'gemini-openai', async (url) => {
      const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
      const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'book_taxi', description: 'Book a taxi', parameters: { type: 'object', properties: { time: { type: 'string' } } }, strict: false }];
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Book a taxi at 10 AM.' }];
      const response = await client.responses.create({ model: 'gpt-test', input, tools });
      const call = response.output.find((item) => item.type === 'function_call');
      assert.ok(call?.type === 'function_call');
      upstream.behaviour = { kind: 'answer', body: final };
      await client.responses.create({
        model: 'gpt-test',
        tools,
        input: [...input, ...(response.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'booked' }],
      });
      const assistant = secondTurnAssistant(upstream);
      const sent = (assistant?.['tool_calls'] as { extra_content?: { google?: { thought_signature?: string } } }[] | undefined)?.[0];
      assert.is(sent?.extra_content?.google?.thought_signature, 'CiUBjz1rX2bq8vTYQm0Nn7Ap');
    });
  } finally {
    await upstream.close();
  }
});

proxy.run();

const cli = suite('dialects: CLI and options');

cli('--dialect on convert; an unknown dialect is a usage mistake, and an InterlinguaError in the library', () => {
  const bin = join(REPO_ROOT, 'bin', 'interlingua.js');
  const body = JSON.stringify({ model: 'qwen3', created_at: '2025-06-01T10:00:00Z', message: { role: 'assistant', content: 'Four.', thinking: 'Two plus two.' }, done: true, done_reason: 'stop' });
  const run = (args: string[]) => spawnSync(process.execPath, [bin, 'convert', '--from', 'ollama', '--to', 'openai-chat', ...args, '-'], { input: body, encoding: 'utf8' });
  const deepseek = run(['--dialect', 'deepseek']);
  assert.is(deepseek.status, 0, deepseek.stderr);
  assert.match(deepseek.stdout, '"reasoning_content": "Two plus two."');
  const wrong = run(['--dialect', 'mistral']);
  assert.is(wrong.status, 2);
  assert.match(wrong.stderr, 'deepseek, openrouter');
  assert.throws(() => convertResponse(JSON.parse(body), { from: 'ollama', to: 'openai-chat', dialect: 'mistral' }), /unknown dialect "mistral"/);
  assert.throws(() => convertResponse(JSON.parse(body), { from: 'ollama', to: 'anthropic', dialect: 'deepseek' }), /anthropic has no dialects/);
  assert.throws(() => createProxy({ upstream: { format: 'openai-chat', baseUrl: 'http://127.0.0.1:1', dialect: 'mistral' } }), /unknown dialect/);
});

cli.run();
