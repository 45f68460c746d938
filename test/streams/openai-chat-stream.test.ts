/**
 * The openai-chat stream codec: decoding chunks into IR events, encoding IR
 * events from any decoder into the chunks OpenAI sends, and the official
 * `openai` SDK reading what the encoder writes.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import { decodeResponse } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import { LossCollector } from '../../src/core/losses.ts';
import { convertStream } from '../../src/formats/stream.ts';
import type { SseMessage, StreamEvent, WireEvent } from '../../src/core/stream-events.ts';
import { createOpenaiChatStreamDecoder, createOpenaiChatStreamEncoder } from '../../src/providers/openai-chat/stream.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { chunked, collect, messagesAsBytes, wireEventsFromBytes } from '../support/streams.ts';


/** An `openai` client against a local server that answers every request with the SSE `body`. */
async function openaiAgainst(body: Uint8Array): Promise<{ client: OpenAI; server: Server }> {
  const server = createServer((request, reply) => {
    request.resume();
    request.on('end', () => {
      reply.writeHead(200, { 'content-type': 'text/event-stream' });
      reply.end(Buffer.from(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { client: new OpenAI({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 }), server };
}
const test = suite('openai-chat stream');

const base = { id: 'chatcmpl-t1', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-test' };

function chunk(choices: unknown[], extra: Record<string, unknown> = {}): WireEvent {
  return { data: { ...base, choices, ...extra } };
}

function decode(events: WireEvent[]): { events: StreamEvent[]; losses: LossCollector } {
  const losses = new LossCollector();
  const decoder = createOpenaiChatStreamDecoder({ losses });
  const out: StreamEvent[] = [];
  for (const event of events) out.push(...decoder.decode(event));
  out.push(...decoder.flush());
  return { events: out, losses };
}

function encode(events: StreamEvent[], streamUsage?: boolean): { messages: SseMessage[]; data: unknown[]; losses: LossCollector } {
  const losses = new LossCollector();
  const encoder = createOpenaiChatStreamEncoder(streamUsage === undefined ? { losses } : { losses, streamUsage });
  const messages: SseMessage[] = [];
  for (const event of events) messages.push(...encoder.encode(event));
  messages.push(...encoder.flush());
  return { messages, data: messages.map((message) => (message.data === '[DONE]' ? '[DONE]' : JSON.parse(message.data))), losses };
}

/** The `choices[0].delta` of every chunk that has a choice. */
function deltas(data: unknown[]): Record<string, unknown>[] {
  return data.flatMap((item) => {
    const choices = (item as { choices?: { delta: Record<string, unknown> }[] }).choices;
    return choices !== undefined && choices.length > 0 && choices[0] !== undefined ? [choices[0].delta] : [];
  });
}

test('interleaved parallel tool calls keep their own parts and arguments', () => {
  const fragment = (index: number, text: string) => ({ index, function: { arguments: text } });
  const { events, losses } = decode([
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Checking.', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{"tz"' } }] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [fragment(0, '{"city":'), fragment(1, ':"UTC"}')] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [fragment(0, '"Oslo"}')] }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
    { data: '[DONE]' },
  ]);
  assert.equal(losses.losses, []);
  const result = accumulate(events);
  assert.ok(result.complete);
  const parts = result.response.candidates[0]?.message.parts ?? [];
  assert.equal(parts.map((part) => part.type), ['text', 'tool_call', 'tool_call']);
  assert.equal(parts[1], { type: 'tool_call', id: 'call_a', name: 'weather', arguments: { city: 'Oslo' }, rawArguments: '{"city":"Oslo"}' });
  assert.equal(parts[2], { type: 'tool_call', id: 'call_b', name: 'time', arguments: { tz: 'UTC' }, rawArguments: '{"tz":"UTC"}' });
  // The text part closes when the first tool call opens; the calls stay open until the finish.
  const order = events.filter((event) => event.type === 'part_start' || event.type === 'part_end').map((event) => `${event.type}:${'index' in event ? event.index : ''}`);
  assert.equal(order, ['part_start:0', 'part_end:0', 'part_start:1', 'part_start:2', 'part_end:1', 'part_end:2']);
  assert.equal(result.response.candidates[0]?.stopReason, { unified: 'tool_calls', raw: 'tool_calls', format: 'openai-chat' });
});

test('a mid-stream error chunk becomes an error event and comes back as the same chunk', () => {
  const source: WireEvent[] = [
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }]),
    { data: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } },
  ];
  const { events } = decode(source);
  const error = events.at(-1);
  assert.equal(error?.type, 'error');
  if (error?.type === 'error') assert.equal([error.error.type, error.error.message], ['server', 'The server had an error']);
  assert.equal(encode(events).data, source.map((event) => event.data));
});

test('logprobs and odd vendor fields come back exactly, and name themselves for other encoders', () => {
  const logprobs = { content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }], refusal: null };
  const source: WireEvent[] = [
    { data: { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0 }] } },
    chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], { usage: null, obfuscation: 'x1' }),
    chunk([{ index: 0, delta: { content: 'Hi', reasoning_content: null }, logprobs, finish_reason: null, matched_stop: null }], { usage: null, created: 1767225601 }),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop', content_filter_results: {} }], { usage: null }),
    chunk([], { usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, reasoning_tokens: 0 } }),
    { data: '[DONE]' },
  ];
  const { events, losses } = decode(source);
  assert.equal(losses.losses, []);
  // The first event the choice made (here the text part's start) names the logprobs, so other encoders report them.
  const carrier = events.find((event) => event.extensions?.['openai-chat']?.['logprobs'] !== undefined);
  assert.equal([carrier?.type, carrier?.extensions?.['openai-chat']?.['logprobs']], ['part_start', logprobs]);
  assert.equal(encode(events).data, source.map((event) => event.data));
  const result = accumulate(events);
  assert.equal([result.response.id, result.response.created, result.response.usage?.totalTokens], ['chatcmpl-t1', 1767225600, 4]);
});

test('a stream without data: [DONE] reports a truncation and closes its parts', () => {
  const { events } = decode([
    chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }, finish_reason: null }]),
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, finish_reason: null }]),
  ]);
  const result = accumulate(events);
  assert.not.ok(result.complete);
  assert.equal(result.error?.type, 'server');
  assert.match(result.error?.message ?? '', /truncated/);
  const part = result.response.candidates[0]?.message.parts[0];
  assert.equal(part?.type === 'tool_call' ? part.arguments : undefined, { a: 1 });
  // Re-encoded, the stream is as truncated as its source: no error chunk, no [DONE].
  assert.equal(encode(events).data.length, 2);
});

test('bad shapes are InterlinguaErrors, never crashes of another kind', () => {
  for (const data of [42, 'text', { ...base, choices: 'no' }, { ...base, choices: [7] }, { ...base, choices: [{ index: 0, delta: { tool_calls: {} } }] }]) {
    try {
      decode([{ data }]);
      assert.unreachable(`decoded ${JSON.stringify(data)}`);
    } catch (error) {
      assert.ok(isInterlinguaError(error), String(error));
    }
  }
});

test('events from another decoder: role chunk first, tool indices 0..k, usage before [DONE], [DONE] last', () => {
  const at = { candidate: 0 };
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude-test', usage: { inputTokens: 30 } },
    { type: 'part_start', ...at, index: 0, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', ...at, index: 0, text: 'Let me think.' },
    { type: 'reasoning_signature', ...at, index: 0, state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
    { type: 'part_end', ...at, index: 0 },
    { type: 'part_start', ...at, index: 1, part: { type: 'text', text: '' } },
    { type: 'text_delta', ...at, index: 1, text: 'Looking up.' },
    { type: 'part_end', ...at, index: 1 },
    { type: 'part_start', ...at, index: 2, part: { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } } },
    { type: 'part_end', ...at, index: 2 },
    { type: 'part_start', ...at, index: 3, part: { type: 'tool_call', id: 'toolu_1', name: 'weather', arguments: undefined, rawArguments: '' } },
    { type: 'tool_call_delta', ...at, index: 3, arguments: '{"city":' },
    { type: 'tool_call_delta', ...at, index: 3, arguments: '"Oslo"}' },
    { type: 'part_end', ...at, index: 3 },
    // Gemini-style: the whole call at once, arguments only in the final part.
    { type: 'part_start', ...at, index: 4, part: { type: 'tool_call', id: 'call_2', name: 'time', arguments: undefined, rawArguments: '' } },
    { type: 'part_end', ...at, index: 4, part: { type: 'tool_call', id: 'call_2', name: 'time', arguments: { tz: 'UTC' } } },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' } },
    { type: 'usage', usage: { outputTokens: 12 } },
    { type: 'end' },
  ];
  const { data, losses } = encode(events);
  assert.equal(deltas(data)[0], { role: 'assistant', content: '', refusal: null });
  const calls = deltas(data).flatMap((delta) => (delta['tool_calls'] as { index: number; id?: string }[] | undefined) ?? []);
  assert.equal(calls.filter((call) => call.id !== undefined).map((call) => call.index), [0, 1]);
  assert.equal(data.at(-1), '[DONE]');
  const usage = data.at(-2) as { choices: unknown[]; usage: Record<string, unknown> };
  assert.equal(usage.choices, []);
  assert.equal([usage.usage['prompt_tokens'], usage.usage['completion_tokens'], usage.usage['total_tokens']], [30, 12, 42]);
  assert.equal(
    losses.losses.map((loss) => `${loss.code} ${loss.path}`),
    ['unsupported_part /candidates/0/message/parts/0', 'reasoning_state_dropped /candidates/0/message/parts/0', 'unsupported_part /candidates/0/message/parts/2'],
  );
  // What the encoder wrote decodes to the same meaning.
  const back = accumulate(decode(data.map((item) => ({ data: item }))).events).response;
  const parts = back.candidates[0]?.message.parts ?? [];
  assert.equal(parts.map((part) => (part.type === 'tool_call' ? [part.name, part.arguments] : part.type)), ['text', ['weather', { city: 'Oslo' }], ['time', { tz: 'UTC' }]]);
  assert.equal(back.candidates[0]?.stopReason?.raw, 'tool_calls');
});

test('without include_usage (streamUsage false) no chunk has empty choices: OpenAI sends the usage chunk only when asked', () => {
  const at = { candidate: 0 };
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude-test', usage: { inputTokens: 30 } },
    { type: 'part_start', ...at, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', ...at, index: 0, text: 'Hello.' },
    { type: 'part_end', ...at, index: 0 },
    { type: 'finish', candidate: 0, stopReason: { unified: 'end_turn', raw: 'end_turn', format: 'anthropic' } },
    { type: 'usage', usage: { outputTokens: 12 } },
    { type: 'end' },
  ];
  const without = encode(events, false).data;
  assert.equal(without.at(-1), '[DONE]');
  for (const chunk of without.slice(0, -1)) assert.is((chunk as { choices: unknown[] }).choices.length, 1, JSON.stringify(chunk));
  assert.equal(without.length, encode(events).data.length - 1, 'only the usage chunk is left out');
  const asked = encode(events, true).data.at(-2) as { choices: unknown[]; usage: unknown };
  assert.equal(asked.choices, []);
});

test('foreign events: several candidates, usage late, an error in the target form', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'r1', model: 'gemini-test' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'text', text: '' } },
    { type: 'part_start', candidate: 1, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 1, index: 0, text: 'B' },
    { type: 'text_delta', candidate: 0, index: 0, text: 'A' },
    { type: 'finish', candidate: 0, stopReason: { unified: 'end_turn', raw: 'STOP', format: 'gemini' } },
    { type: 'finish', candidate: 1, stopReason: { unified: 'max_tokens', raw: 'MAX_TOKENS', format: 'gemini' } },
    { type: 'error', error: { type: 'overloaded', message: 'try later', status: 503 } },
  ];
  const { data } = encode(events);
  const response = accumulate(decode(data.map((item) => ({ data: item }))).events);
  assert.equal(response.response.candidates.map((candidate) => [candidate.message.parts, candidate.stopReason?.raw]), [
    [[{ type: 'text', text: 'A' }], 'stop'],
    [[{ type: 'text', text: 'B' }], 'length'],
  ]);
  assert.equal(data.at(-1), { error: { message: 'try later', type: 'server_error', param: null, code: null } });
});

test('events from another decoder: a dropped reasoning part sends the role chunk at once, as OpenAI reasoning models do', async () => {
  const at = { candidate: 0 };
  const losses = new LossCollector();
  const encoder = createOpenaiChatStreamEncoder({ losses });
  assert.equal(encoder.encode({ type: 'start', id: 'msg_r', model: 'claude-test' }), []);
  const first = encoder.encode({ type: 'part_start', ...at, index: 0, part: { type: 'reasoning', text: '' } });
  assert.equal(first.map((message) => (JSON.parse(message.data) as { choices: { delta: unknown }[] }).choices[0]?.delta), [{ role: 'assistant', content: '', refusal: null }]);
  const events: StreamEvent[] = [
    { type: 'reasoning_delta', ...at, index: 0, text: 'Thinking it over.' },
    { type: 'part_end', ...at, index: 0 },
    { type: 'part_start', ...at, index: 1, part: { type: 'tool_call', id: 'toolu_1', name: 'weather', arguments: undefined, rawArguments: '' } },
    { type: 'tool_call_delta', ...at, index: 1, arguments: '{"city":"Oslo"}' },
    { type: 'part_end', ...at, index: 1 },
    { type: 'part_start', ...at, index: 2, part: { type: 'text', text: '' } },
    { type: 'text_delta', ...at, index: 2, text: 'Checking.' },
    { type: 'part_end', ...at, index: 2 },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' } },
    { type: 'end' },
  ];
  const messages = [...first];
  for (const event of events) messages.push(...encoder.encode(event));
  messages.push(...encoder.flush());
  const data = messages.map((message) => (message.data === '[DONE]' ? '[DONE]' : JSON.parse(message.data)));
  // One role chunk, and no role in the chunks after it.
  assert.equal(deltas(data).filter((delta) => 'role' in delta).length, 1);
  const body = messagesAsBytes(messages);
  const { client, server } = await openaiAgainst(body);
  try {
    const final = await client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    const message = final.choices[0]?.message;
    assert.is(message?.role, 'assistant');
    assert.is(message?.content, 'Checking.');
    assert.equal(message?.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, call.function.arguments] : [])), [['toolu_1', 'weather', '{"city":"Oslo"}']]);
    assert.is(final.choices[0]?.finish_reason, 'tool_calls');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('convertStream openai-chat → openai-chat reproduces a golden stream', async () => {
  const bytes = new Uint8Array(readFileSync(join(GOLDEN_DIR, 'openai-chat', 'stream-tools', 'stream.sse')));
  const converted = convertStream(chunked(bytes, [7, 300, 301, 900]), { from: 'openai-chat', to: 'openai-chat' });
  const output = Buffer.concat(await collect(converted));
  assert.equal(await converted.losses, []);
  assert.equal(await wireEventsFromBytes(new Uint8Array(output)), await wireEventsFromBytes(bytes));
});

test('the official openai SDK accumulates what the encoder writes', async () => {
  const whole = decodeResponse('openai-chat', readJson(join(GOLDEN_DIR, 'openai-chat', 'stream-tools', 'response.json'))).ir;
  const text = decodeResponse('openai-chat', readJson(join(GOLDEN_DIR, 'openai-chat', 'stream-text', 'response.json'))).ir;
  // A response from another format's point of view: text and tool calls in one candidate, no Chat extensions.
  const parts = [...(text.candidates[0]?.message.parts ?? []), ...(whole.candidates[0]?.message.parts ?? [])];
  const response = { id: 'msg_sdk', model: 'claude-test', candidates: [{ index: 0, message: { role: 'assistant' as const, parts }, stopReason: { unified: 'tool_calls' as const } }], usage: { inputTokens: 10, outputTokens: 4 } };
  const body = messagesAsBytes(encode(responseToEvents(response)).messages);
  const { client, server } = await openaiAgainst(body);
  try {
    const stream = client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]?.message;
    assert.equal(final.id, 'msg_sdk');
    assert.equal(message?.content, 'The capital of Norway is Oslo.');
    assert.equal(
      message?.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, call.function.arguments] : [])),
      [
        ['call_Oslo7xWq2', 'get_weather', '{"city":"Oslo","unit":"c"}'],
        ['call_Bergen3Kp', 'get_weather', '{"city":"Bergen","unit":"c"}'],
        ['call_Time9Lm4', 'get_time', ''],
      ],
    );
    assert.equal(final.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(final.usage?.total_tokens, 14);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test.run();
