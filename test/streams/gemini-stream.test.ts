/**
 * Gemini streaming: focused decoder and encoder cases (part boundaries and
 * signatures, whole and Vertex-streamed function calls, events from other
 * formats, late usage, errors, truncation), and the official
 * `@google/genai` SDK reading the encoder's output from a local server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GoogleGenAI } from '@google/genai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import { decodeResponse } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import { convertStream } from '../../src/formats/stream.ts';
import type { Part, ToolCallPart } from '../../src/core/ir.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { SseMessage, StreamEvent } from '../../src/core/stream-events.ts';
import { createGeminiStreamDecoder, createGeminiStreamEncoder } from '../../src/providers/gemini/stream.ts';
import { idScope, syntheticCallId } from '../../src/providers/gemini/ids.ts';
import { chunked, collect, messagesAsBytes, neutral, wireEventsFromBytes } from '../support/streams.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';

const test = suite('gemini stream');

type Chunk = Record<string, unknown>;

function decode(chunks: unknown[], model?: string): { events: StreamEvent[]; losses: LossCollector } {
  const losses = new LossCollector();
  const decoder = createGeminiStreamDecoder(model === undefined ? { losses } : { losses, model });
  const events: StreamEvent[] = [];
  for (const data of chunks) events.push(...decoder.decode({ data }));
  events.push(...decoder.flush());
  return { events, losses };
}

function encode(events: StreamEvent[], model?: string): { chunks: Chunk[]; messages: SseMessage[]; losses: LossCollector } {
  const losses = new LossCollector();
  const encoder = createGeminiStreamEncoder(model === undefined ? { losses } : { losses, model });
  const messages: SseMessage[] = [];
  for (const event of events) messages.push(...encoder.encode(event));
  messages.push(...encoder.flush());
  return { chunks: messages.map((message) => JSON.parse(message.data) as Chunk), messages, losses };
}

/** A chunk of candidate 0 with these parts. */
function chunk(parts: unknown[], extra: Chunk = {}, candidate: Chunk = {}): Chunk {
  return { candidates: [{ content: { parts, role: 'model' }, index: 0, ...candidate }], modelVersion: 'gemini-x', responseId: 'r1', ...extra };
}

const last = (parts: unknown[]): Chunk => chunk(parts, { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } }, { finishReason: 'STOP' });

function parts(events: StreamEvent[]): Part[] {
  return accumulate(events).response.candidates[0]?.message.parts ?? [];
}

function roundTrips(chunks: Chunk[]): void {
  const decoded = decode(chunks);
  const encoded = encode(decoded.events);
  assert.equal(encoded.chunks, chunks, 'the same-format trip reproduces every chunk');
  assert.equal([...decoded.losses.losses, ...encoded.losses.losses], []);
}

test('text pieces extend one part; a signature ends its part', () => {
  const source = [chunk([{ text: 'Hel' }]), chunk([{ text: 'lo', thoughtSignature: 'sig-1' }]), chunk([{ text: ' again' }]), last([{ text: '.' }])];
  const result = parts(decode(source).events);
  assert.equal(
    result.map((part) => (part.type === 'text' ? part.text : part.type)),
    ['Hello', ' again.'],
  );
  assert.equal(result[0]?.extensions?.gemini?.['thoughtSignature'], 'sig-1');
  assert.is(result[1]?.extensions, undefined);
  roundTrips(source);
});

test('a trailing empty text with a signature signs the open part', () => {
  const source = [chunk([{ text: '4' }]), last([{ text: '', thoughtSignature: 'sig-2' }])];
  const result = parts(decode(source).events);
  assert.equal(result, [{ type: 'text', text: '4', extensions: { gemini: { thoughtSignature: 'sig-2' } } }]);
  roundTrips(source);
});

test('a thought signature as its own piece lands on the reasoning part', () => {
  const source = [
    chunk([{ text: 'Thinking', thought: true }]),
    chunk([{ text: ' hard', thought: true }]),
    chunk([{ text: '', thought: true, thoughtSignature: 'sig-3' }]),
    last([{ text: 'Done.' }]),
  ];
  const decoded = decode(source).events;
  assert.ok(decoded.some((event) => event.type === 'reasoning_signature'));
  const [reasoning, text] = parts(decoded);
  assert.equal(reasoning?.type === 'reasoning' ? [reasoning.text, reasoning.state] : undefined, [
    'Thinking hard',
    { format: 'gemini', kind: 'thought_signature', value: 'sig-3' },
  ]);
  assert.equal(text?.type === 'text' ? text.text : undefined, 'Done.');
  roundTrips(source);
});

test('whole functionCall parts become whole tool calls with deterministic ids', () => {
  const source = [
    chunk([{ text: 'Checking.' }]),
    last([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-4' },
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
      { functionCall: { id: 'fc-1', name: 'get_time' } },
    ]),
  ];
  const first = decode(source).events;
  assert.equal(
    first.filter((event) => event.type !== 'text_delta' && event.type !== 'usage').map((event) => event.type),
    ['start', 'part_start', 'part_end', 'part_start', 'tool_call_delta', 'part_end', 'part_start', 'tool_call_delta', 'part_end', 'part_start', 'tool_call_delta', 'part_end', 'finish', 'end'],
  );
  const firstParts = parts(first);
  const calls = firstParts.filter((part): part is ToolCallPart => part.type === 'tool_call');
  const scope = idScope('r1', 0);
  assert.equal(
    calls.map((call) => [call.id, call.name, call.arguments, call.syntheticId]),
    [
      [syntheticCallId(scope, 1), 'get_weather', { city: 'Paris' }, true],
      [syntheticCallId(scope, 2), 'get_weather', { city: 'Oslo' }, true],
      ['fc-1', 'get_time', {}, undefined],
    ],
  );
  assert.equal(parts(decode(source).events), firstParts, 'ids are the same on every decode');
  assert.is(accumulate(decode(source).events).response.candidates[0]?.stopReason?.unified, 'tool_calls');
  roundTrips(source);
});

test('Vertex partialArgs pieces fold into the call arguments', () => {
  const piece = (partialArgs: unknown[], willContinue = true): Chunk =>
    chunk([{ functionCall: willContinue ? { partialArgs, willContinue } : { partialArgs } }]);
  const source = [
    chunk([{ functionCall: { name: 'cook', willContinue: true }, thoughtSignature: 'sig-5' }]),
    piece([{ jsonPath: '$.recipe.items[0].name', stringValue: 'Lasa', willContinue: true }]),
    piece([{ jsonPath: '$.recipe.items[0].name', stringValue: 'gna' }]),
    piece([{ jsonPath: '$.recipe.items[0].grams', numberValue: 500 }]),
    piece([{ jsonPath: '$.recipe.vegan', boolValue: false }], false),
    last([{ text: '' }]),
  ];
  const decoded = decode(source).events;
  const [call] = parts(decoded);
  assert.equal(call?.type === 'tool_call' ? [call.name, call.arguments] : undefined, [
    'cook',
    { recipe: { items: [{ name: 'Lasagna', grams: 500 }], vegan: false } },
  ]);
  assert.equal(call?.extensions?.gemini?.['thoughtSignature'], 'sig-5');
  roundTrips(source);
});

test('interleaved parallel tool calls from another decoder, arguments in many deltas or one', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude-x' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'tool_call', id: 'toolu_a', name: 'get_weather', arguments: undefined, rawArguments: '' } },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'tool_call', id: 'toolu_b', name: 'get_time', arguments: undefined, rawArguments: '' } },
    { type: 'tool_call_delta', candidate: 0, index: 0, arguments: '{"ci' },
    { type: 'tool_call_delta', candidate: 0, index: 1, arguments: '{"zone":"CET"}' },
    { type: 'tool_call_delta', candidate: 0, index: 0, arguments: 'ty":"Oslo"}' },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' } },
    { type: 'end' },
  ];
  const { chunks, losses } = encode(events);
  assert.equal(losses.losses, []);
  assert.equal(chunks, [
    chunk([{ functionCall: { name: 'get_time', args: { zone: 'CET' } } }], { modelVersion: 'claude-x', responseId: 'msg_1' }),
    chunk([{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }], { modelVersion: 'claude-x', responseId: 'msg_1' }),
    chunk([], { modelVersion: 'claude-x', responseId: 'msg_1' }, { finishReason: 'STOP' }),
  ]);
});

test('no start usage, usage after finish: both land on the last chunk; the model comes from the URL', () => {
  const events: StreamEvent[] = [
    { type: 'start' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 0, text: 'Hi' },
    { type: 'text_delta', candidate: 0, index: 0, text: '' },
    { type: 'text_delta', candidate: 0, index: 0, text: ' there' },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'finish', candidate: 0, stopReason: { unified: 'max_tokens', raw: 'length', format: 'openai-chat' } },
    { type: 'usage', usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 } },
    { type: 'end' },
  ];
  const { chunks } = encode(events, 'gemini-url-model');
  const envelope = { modelVersion: 'gemini-url-model' };
  const strip = ({ responseId: _id, ...rest }: Chunk): Chunk => rest;
  assert.equal(chunks, [
    strip(chunk([{ text: 'Hi' }], envelope)),
    strip(chunk([{ text: ' there' }], envelope)),
    strip(chunk([], { ...envelope, usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 2, totalTokenCount: 9 } }, { finishReason: 'MAX_TOKENS' })),
  ]);
  const again = accumulate(decode(chunks).events).response;
  assert.equal(again.usage?.inputTokens, 7);
  assert.is(again.candidates[0]?.stopReason?.unified, 'max_tokens');
});

test('another vendor’s reasoning, refusals, blocks and candidates', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'chatcmpl-1', model: 'm', usage: { inputTokens: 4 } },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', candidate: 0, index: 0, text: 'secret thoughts' },
    { type: 'reasoning_signature', candidate: 0, index: 0, state: { format: 'anthropic', kind: 'signature', value: 'x' } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'opaque', format: 'anthropic', blockType: 'server_tool_use', value: {} } },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'part_start', candidate: 1, index: 0, part: { type: 'refusal', text: '' } },
    { type: 'text_delta', candidate: 1, index: 0, text: 'No.' },
    { type: 'part_end', candidate: 1, index: 0 },
    { type: 'finish', candidate: 1, stopReason: { unified: 'refusal' } },
    { type: 'finish', candidate: 0, stopReason: { unified: 'end_turn' } },
    { type: 'usage', usage: { outputTokens: 3 } },
    { type: 'end' },
  ];
  const { chunks, losses } = encode(events);
  assert.equal(losses.losses.map((loss) => [loss.code, loss.path]), [
    ['reasoning_state_dropped', '/candidates/0/message/parts/0'],
    ['unsupported_part', '/candidates/0/message/parts/1'],
    ['approximated', '/candidates/1/message/parts/0'],
    ['approximated', '/candidates/1/stopReason'],
  ]);
  const response = accumulate(decode(chunks).events).response;
  assert.equal(
    response.candidates.map((candidate) => [candidate.index, candidate.message.parts.map((part) => part.type), candidate.stopReason?.raw]),
    [
      [0, [], 'STOP'],
      [1, ['text'], 'SAFETY'],
    ],
  );
  assert.equal(response.usage?.inputTokens, 4);
  assert.equal(response.usage?.outputTokens, 3);
});

test('an error chunk mid-stream becomes an error event, and back', () => {
  const source = [chunk([{ text: 'Let me' }]), { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }];
  const decoded = decode(source);
  const error = decoded.events.at(-1);
  assert.equal(error?.type === 'error' ? [error.error.type, error.error.status] : undefined, ['overloaded', 503]);
  assert.ok(!accumulate(decoded.events).complete);
  roundTrips(source);
  const foreign = encode([{ type: 'start' }, { type: 'error', error: { type: 'rate_limit', message: 'Slow down.' } }]).chunks;
  assert.equal(foreign, [{ error: { code: 429, message: 'Slow down.', status: 'RESOURCE_EXHAUSTED' } }]);
});

test('a stream that stops before its finishReason is reported truncated, and stops the same way again', () => {
  const source = [chunk([{ text: 'Half a sen' }])];
  const { events } = decode(source);
  const error = events.at(-1);
  assert.ok(error?.type === 'error' && error.error.type === 'server' && error.error.message.includes('truncated'));
  roundTrips(source);
  assert.equal(decode([]).events.map((event) => event.type), ['error']);
});

test('bad shapes are InterlinguaErrors; unknown parts travel opaque with a loss', () => {
  const decoder = createGeminiStreamDecoder({ losses: new LossCollector() });
  for (const data of ['[DONE]', { candidates: 'none' }, { candidates: [{ content: { parts: [{ text: 7 }] } }] }]) {
    try {
      createGeminiStreamDecoder({ losses: new LossCollector() }).decode({ data });
      assert.unreachable('should throw');
    } catch (error) {
      assert.ok(isInterlinguaError(error), String(error));
    }
  }
  assert.throws(() => decoder.decode({ data: 'x', invalid: 'Unexpected token' }), isInterlinguaError);
  const source = [last([{ futurePart: { value: 1 } }])];
  const decoded = decode(source);
  assert.equal(decoded.losses.losses.map((loss) => loss.code), ['unknown_block']);
  assert.equal(encode(decoded.events).chunks, source);
});

test('chunk-level fields (grounding, createTime, feedback) round-trip; a prompt block finishes with content_filter', () => {
  roundTrips([
    { candidates: [{ content: { parts: [{ text: 'A' }] } }], createTime: '2025-12-01T21:58:25.986363Z', modelVersion: 'g', responseId: 'r' },
    { candidates: [{ content: { role: 'model' }, finishReason: 'STOP', groundingMetadata: { webSearchQueries: ['q'] } }], turnToken: 'tt' },
  ]);
  const blocked = [{ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 }, modelVersion: 'g', responseId: 'r' }];
  const decoded = decode(blocked);
  const result = accumulate(decoded.events);
  assert.ok(result.complete);
  assert.is(result.response.candidates[0]?.stopReason?.unified, 'content_filter');
  assert.equal(encode(decoded.events).chunks, blocked);
});

/** Adjacent unsigned text parts, which a Gemini stream cannot tell apart, merged. */
function mergeTexts(parts: Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const previous = merged.at(-1);
    if (part.type === 'text' && previous?.type === 'text' && previous.extensions === undefined) {
      merged[merged.length - 1] = { ...part, text: previous.text + part.text };
    } else merged.push(part);
  }
  return merged;
}

test('every golden Gemini response survives a synthetic stream through the encoder and decoder', async () => {
  let count = 0;
  for (const name of readdirSync(join(GOLDEN_DIR, 'gemini'))) {
    const file = join(GOLDEN_DIR, 'gemini', name, 'response.json');
    if (!existsSync(file)) continue;
    count++;
    const whole = decodeResponse('gemini', readJson(file), { model: 'test-model' }).ir;
    const { messages, losses } = encode(responseToEvents(structuredClone(whole)), 'test-model');
    assert.equal(losses.losses, [], name);
    const wire = await wireEventsFromBytes(messagesAsBytes(messages));
    const streamed = accumulate(decode(wire.map((event) => event.data), 'test-model').events);
    assert.ok(streamed.complete, name);
    for (const candidate of whole.candidates) candidate.message.parts = mergeTexts(candidate.message.parts);
    assert.equal(neutral(streamed.response), neutral(whole), name);
  }
  assert.ok(count >= 4);
});

/** Serve `body` as an SSE response once; resolves to the server's address and the request it saw. */
async function serve(body: Uint8Array): Promise<{ baseUrl: string; requests: { url: string; body: string }[]; close: () => Promise<void> }> {
  const requests: { url: string; body: string }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (piece: Buffer) => (text += piece.toString('utf8')));
    request.on('end', () => {
      requests.push({ url: request.url ?? '', body: text });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(Buffer.from(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** What the SDK's stream adds up to: text, thoughts, calls, the last finish reason and usage. */
async function readWithSdk(bytes: Uint8Array, model: string) {
  const server = await serve(bytes);
  try {
    const client = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.baseUrl } });
    const stream = await client.models.generateContentStream({ model, contents: 'Weather in Paris and Oslo?' });
    let text = '';
    let thoughts = '';
    const calls: unknown[] = [];
    let finishReason: string | undefined;
    let usage: unknown;
    for await (const response of stream) {
      for (const part of response.candidates?.[0]?.content?.parts ?? []) {
        if (part.functionCall !== undefined) calls.push({ name: part.functionCall.name, args: part.functionCall.args });
        else if (part.thought === true) thoughts += part.text ?? '';
        else text += part.text ?? '';
      }
      finishReason = response.candidates?.[0]?.finishReason ?? finishReason;
      usage = response.usageMetadata ?? usage;
    }
    assert.match(server.requests[0]?.url ?? '', `/models/${model}:streamGenerateContent?alt=sse`);
    return { text, thoughts, calls, finishReason, usage };
  } finally {
    await server.close();
  }
}

test('the official @google/genai SDK reads a synthetic stream of a golden Gemini response', async () => {
  const whole = decodeResponse('gemini', readJson(join(GOLDEN_DIR, 'gemini', 'stream-tools', 'response.json'))).ir;
  const { messages, losses } = encode(responseToEvents(whole), 'gemini-2.5-flash');
  assert.equal(losses.losses, []);
  const result = await readWithSdk(messagesAsBytes(messages), 'gemini-2.5-flash');
  assert.equal(result, {
    text: 'Checking both cities.',
    thoughts: '**Planning the lookups**\n\nThe user wants two cities, so I will call the tool twice.',
    calls: [
      { name: 'get_weather', args: { city: 'Paris', units: 'celsius' } },
      { name: 'get_weather', args: { city: 'Oslo', units: 'celsius' } },
    ],
    finishReason: 'STOP',
    usage: { promptTokenCount: 96, candidatesTokenCount: 44, totalTokenCount: 250, thoughtsTokenCount: 110 },
  });
});

test('the official @google/genai SDK reads a stream converted from another format’s events', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_9', model: 'claude-x', usage: { inputTokens: 20, cacheReadTokens: 0 } },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', candidate: 0, index: 0, text: 'hmm' },
    { type: 'reasoning_signature', candidate: 0, index: 0, state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 1, text: 'Let me ' },
    { type: 'text_delta', candidate: 0, index: 1, text: 'check.' },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'part_start', candidate: 0, index: 2, part: { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: undefined, rawArguments: '' } },
    { type: 'tool_call_delta', candidate: 0, index: 2, arguments: '{"city":' },
    { type: 'tool_call_delta', candidate: 0, index: 2, arguments: '"Paris"}' },
    { type: 'part_end', candidate: 0, index: 2 },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' } },
    { type: 'usage', usage: { inputTokens: 20, outputTokens: 11 } },
    { type: 'end' },
  ];
  const { messages } = encode(events, 'gemini-2.5-pro');
  const result = await readWithSdk(messagesAsBytes(messages), 'gemini-2.5-pro');
  assert.equal(result, {
    text: 'Let me check.',
    thoughts: '',
    calls: [{ name: 'get_weather', args: { city: 'Paris' } }],
    finishReason: 'STOP',
    usage: { promptTokenCount: 20, candidatesTokenCount: 11, totalTokenCount: 31 },
  });
});

test('golden streams convert to themselves byte for byte through convertStream', async () => {
  for (const name of ['stream-text', 'stream-tools', 'stream-candidates', 'stream-error']) {
    const bytes = new Uint8Array(readFileSync(join(GOLDEN_DIR, 'gemini', name, 'stream.sse')));
    const converted = convertStream(chunked(bytes, [5, 100, 101]), { from: 'gemini', to: 'gemini' });
    const out = Buffer.concat(await collect(converted)).toString('utf8');
    assert.equal(await converted.losses, []);
    const normal = (text: string) => text.split('\n\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
    assert.equal(normal(out), normal(Buffer.from(bytes).toString('utf8')), name);
  }
});

test.run();
