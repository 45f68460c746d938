/**
 * Anthropic streaming: focused decoder and encoder cases (arguments split
 * across deltas, signatures as their own delta, late and partial usage,
 * errors, truncation, unknown deltas, interleaved parallel tool calls from
 * another format, foreign reasoning, several candidates), and the official
 * `@anthropic-ai/sdk` reading the encoder's output from a local server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import { decodeResponse } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { SseMessage, StreamEvent } from '../../src/core/stream-events.ts';
import { createAnthropicStreamDecoder, createAnthropicStreamEncoder } from '../../src/providers/anthropic/stream.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { messagesAsBytes } from '../support/streams.ts';

const test = suite('anthropic stream');

type Data = Record<string, unknown>;

function decode(payloads: Data[]): { events: StreamEvent[]; losses: LossCollector } {
  const losses = new LossCollector();
  const decoder = createAnthropicStreamDecoder({ losses });
  const events: StreamEvent[] = [];
  for (const data of payloads) events.push(...decoder.decode({ event: String(data['type']), data }));
  events.push(...decoder.flush());
  return { events, losses };
}

function encode(events: StreamEvent[], model?: string): { payloads: Data[]; messages: SseMessage[]; losses: LossCollector } {
  const losses = new LossCollector();
  const encoder = createAnthropicStreamEncoder(model === undefined ? { losses } : { losses, model });
  const messages: SseMessage[] = [];
  for (const event of events) messages.push(...encoder.encode(event));
  messages.push(...encoder.flush());
  return { payloads: messages.map((message) => JSON.parse(message.data) as Data), messages, losses };
}

const messageStart = (usage: Data = { input_tokens: 10, output_tokens: 1 }): Data => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage },
});
const blockStart = (index: number, block: Data): Data => ({ type: 'content_block_start', index, content_block: block });
const blockDelta = (index: number, delta: Data): Data => ({ type: 'content_block_delta', index, delta });
const blockStop = (index: number): Data => ({ type: 'content_block_stop', index });
const messageDelta = (stop: string, usage: Data): Data => ({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage });
const messageStop: Data = { type: 'message_stop' };

/** Assert the wire stream is one an Anthropic client accepts: message_start first, blocks strictly nested with contiguous indexes, message_delta then message_stop last. */
function assertValid(payloads: Data[]): void {
  assert.is(payloads[0]?.['type'], 'message_start');
  assert.is(payloads.at(-1)?.['type'], 'message_stop');
  assert.is(payloads.at(-2)?.['type'], 'message_delta');
  let open: number | undefined;
  let next = 0;
  for (const payload of payloads) {
    const type = payload['type'];
    if (type === 'content_block_start') {
      assert.is(open, undefined, 'no block is open when another starts');
      assert.is(payload['index'], next, 'block indexes are contiguous');
      open = next++;
    } else if (type === 'content_block_delta') {
      assert.is(payload['index'], open, 'deltas go to the open block');
    } else if (type === 'content_block_stop') {
      assert.is(payload['index'], open, 'the open block stops');
      open = undefined;
    }
  }
  assert.is(open, undefined, 'every block stops');
}

function roundTrips(payloads: Data[]): void {
  const decoded = decode(payloads);
  const encoded = encode(decoded.events);
  assert.equal(decoded.losses.losses.concat(encoded.losses.losses), []);
  assert.equal(encoded.payloads, payloads);
}

test('tool arguments split across deltas accumulate to the parsed input', () => {
  const payloads = [
    messageStart(),
    blockStart(0, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }),
    blockDelta(0, { type: 'input_json_delta', partial_json: '' }),
    blockDelta(0, { type: 'input_json_delta', partial_json: '{"city": "Pa' }),
    blockDelta(0, { type: 'input_json_delta', partial_json: 'ris"}' }),
    blockStop(0),
    messageDelta('tool_use', { output_tokens: 21 }),
    messageStop,
  ];
  const { events } = decode(payloads);
  const result = accumulate(events);
  assert.ok(result.complete);
  assert.equal(result.response.candidates[0]?.message.parts, [{ type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }]);
  assert.is(result.response.candidates[0]?.stopReason?.unified, 'tool_calls');
  roundTrips(payloads);
});

test('a signature arrives as its own delta and becomes the reasoning state', () => {
  const payloads = [
    messageStart(),
    blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
    blockDelta(0, { type: 'thinking_delta', thinking: 'Let me think.' }),
    blockDelta(0, { type: 'signature_delta', signature: 'EqQBsig' }),
    blockStop(0),
    messageDelta('end_turn', { output_tokens: 5 }),
    messageStop,
  ];
  const { events } = decode(payloads);
  assert.ok(events.some((event) => event.type === 'reasoning_signature' && event.state.value === 'EqQBsig'));
  const part = accumulate(events).response.candidates[0]?.message.parts[0];
  assert.equal(part?.type === 'reasoning' ? [part.text, part.state] : undefined, ['Let me think.', { format: 'anthropic', kind: 'signature', value: 'EqQBsig' }]);
  roundTrips(payloads);
});

test('message_delta usage is cumulative: absent and null fields keep the message_start values', () => {
  const payloads = [
    messageStart({ input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 1 }),
    blockStart(0, { type: 'text', text: '' }),
    blockDelta(0, { type: 'text_delta', text: 'Hi' }),
    blockStop(0),
    messageDelta('end_turn', { input_tokens: null, output_tokens: 7 }),
    messageStop,
  ];
  const usage = accumulate(decode(payloads).events).response.usage;
  assert.equal([usage?.inputTokens, usage?.cacheReadTokens, usage?.outputTokens], [100, 90, 7]);
  roundTrips(payloads);
});

test('an error event mid-stream becomes an IR error, and nothing is reported truncated', () => {
  const { events } = decode([messageStart(), blockStart(0, { type: 'text', text: '' }), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]);
  const errors = events.filter((event) => event.type === 'error');
  assert.is(errors.length, 1);
  assert.equal(errors[0]?.type === 'error' ? [errors[0].error.type, errors[0].error.status] : undefined, ['overloaded', 529]);
  assert.not.ok(accumulate(events).complete);
});

test('a truncated stream ends with a server error from flush, never a hang or a throw', () => {
  const { events } = decode([messageStart(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text: 'Hel' })]);
  const last = events.at(-1);
  assert.is(last?.type, 'error');
  assert.ok(last?.type === 'error' && last.error.type === 'server' && last.error.message.includes('truncated'));
  assert.is(decode([]).events[0]?.type, 'error');
});

test('unknown fields of wire events come back exactly', () => {
  roundTrips([
    { ...messageStart(), trace: 'a' },
    { ...blockStart(0, { type: 'text', text: '' }), trace: 'b' },
    { ...blockDelta(0, { type: 'text_delta', text: 'Hi' }), trace: 'c' },
    { ...blockStop(0), trace: 'd' },
    { ...messageDelta('end_turn', { output_tokens: 1 }), context_management: { applied_edits: [] } },
    { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 3 } },
  ]);
});

test('an unknown delta type is carried for Anthropic with a loss', () => {
  const payloads = [messageStart(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'sparkle_delta', sparkle: 1 }), blockStop(0), messageDelta('end_turn', { output_tokens: 1 }), messageStop];
  const decoded = decode(payloads);
  assert.is(decoded.losses.losses[0]?.code, 'unknown_block');
  assert.equal(encode(decoded.events).payloads, payloads);
});

test('bad shapes are InterlinguaErrors', () => {
  const decoder = createAnthropicStreamDecoder({ losses: new LossCollector() });
  decoder.decode({ data: messageStart() });
  try {
    decoder.decode({ data: { type: 'content_block_delta', delta: { type: 'text_delta', text: 'x' } } });
    assert.unreachable('a delta without index throws');
  } catch (error) {
    assert.ok(isInterlinguaError(error));
  }
});

/** IR events as an OpenAI Chat decoder gives them for two parallel calls whose fragments interleave. */
function interleavedToolCalls(): StreamEvent[] {
  const call = (index: number, id: string): StreamEvent => ({ type: 'part_start', candidate: 0, index, part: { type: 'tool_call', id, name: 'get_weather', arguments: undefined, rawArguments: '' } });
  const args = (index: number, text: string): StreamEvent => ({ type: 'tool_call_delta', candidate: 0, index, arguments: text });
  return [
    { type: 'start', id: 'chatcmpl-1', model: 'gpt-x', created: 1 },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 0, text: 'Checking both.' },
    call(1, 'call_a'),
    args(1, '{"city":'),
    call(2, 'call_b'),
    args(2, '{"city":"Oslo"}'),
    args(1, '"Paris"}'),
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_end', candidate: 0, index: 2 },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_calls', format: 'openai-chat' } },
    { type: 'usage', usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 } },
    { type: 'end' },
  ];
}

test('interleaved parallel tool calls from another format are written strictly nested, nothing lost', () => {
  const encoded = encode(interleavedToolCalls());
  assertValid(encoded.payloads);
  assert.equal(encoded.losses.losses, []);
  const parts = accumulate(decode(encoded.payloads).events).response.candidates[0]?.message.parts ?? [];
  assert.equal(
    parts.map((part) => (part.type === 'tool_call' ? [part.id, part.arguments] : part.type === 'text' ? part.text : part.type)),
    ['Checking both.', ['call_a', { city: 'Paris' }], ['call_b', { city: 'Oslo' }]],
  );
});

test('usage that arrives after finish, and no usage at start: a 0 placeholder, then the real numbers in message_delta', () => {
  const encoded = encode(interleavedToolCalls());
  const start = encoded.payloads[0]?.['message'] as Data;
  assert.equal(start['usage'], { input_tokens: 0, output_tokens: 0 });
  const delta = encoded.payloads.at(-2) ?? {};
  assert.equal(delta['delta'], { stop_reason: 'tool_use', stop_sequence: null });
  assert.equal(delta['usage'], { input_tokens: 30, output_tokens: 12 });
});

test('another format gets one ping after the first block starts', () => {
  const types = encode(interleavedToolCalls()).payloads.map((payload) => payload['type']);
  assert.equal(types.slice(0, 3), ['message_start', 'content_block_start', 'ping']);
  assert.is(types.filter((type) => type === 'ping').length, 1);
});

test('tool arguments that arrive whole in part_end are sent as one input_json_delta', () => {
  const encoded = encode([
    { type: 'start', id: 'r1', model: 'gemini-x' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'tool_call', id: 'fc_1', name: 'lookup', arguments: undefined, rawArguments: '' } },
    { type: 'part_end', candidate: 0, index: 0, part: { type: 'tool_call', id: 'fc_1', name: 'lookup', arguments: { q: 'x' } } },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls' } },
    { type: 'end' },
  ]);
  assertValid(encoded.payloads);
  assert.equal(encoded.payloads.filter((payload) => payload['type'] === 'content_block_delta').map((payload) => payload['delta']), [{ type: 'input_json_delta', partial_json: '{"q":"x"}' }]);
});

test('reasoning of other vendors is dropped with a loss; reasoning that turns out Anthropic-signed is streamed', () => {
  const encoded = encode([
    { type: 'start', id: 'r1' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', candidate: 0, index: 0, text: 'thoughts' },
    { type: 'reasoning_signature', candidate: 0, index: 0, state: { format: 'openai-responses', kind: 'encrypted', value: 'gAAA' } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', candidate: 0, index: 1, text: 'Gemini thought' },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'part_start', candidate: 0, index: 2, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', candidate: 0, index: 2, text: 'signed' },
    { type: 'reasoning_signature', candidate: 0, index: 2, state: { format: 'anthropic', kind: 'signature', value: 'EqQB' } },
    { type: 'part_end', candidate: 0, index: 2 },
    { type: 'part_start', candidate: 0, index: 3, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 3, text: 'Answer.' },
    { type: 'part_end', candidate: 0, index: 3 },
    { type: 'end' },
  ]);
  assertValid(encoded.payloads);
  assert.equal(encoded.losses.losses.map((loss) => [loss.code, loss.path]).slice(0, 2), [
    ['reasoning_state_dropped', '/candidates/0/message/parts/0'],
    ['unsupported_part', '/candidates/0/message/parts/1'],
  ]);
  const parts = accumulate(decode(encoded.payloads).events).response.candidates[0]?.message.parts ?? [];
  assert.equal(parts.map((part) => (part.type === 'reasoning' ? [part.text, part.state?.value] : part.type === 'text' ? part.text : part.type)), [['signed', 'EqQB'], 'Answer.']);
});

test('parts an Anthropic stream cannot carry and other candidates are reported once and skipped', () => {
  const encoded = encode([
    { type: 'start', id: 'r1' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'audio', source: { kind: 'base64', data: 'UklGR', mediaType: 'audio/wav' } } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 1, text: 'one' },
    { type: 'part_start', candidate: 1, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 1, index: 0, text: 'two' },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'part_end', candidate: 1, index: 0 },
    { type: 'finish', candidate: 1, stopReason: { unified: 'end_turn' } },
    { type: 'end' },
  ]);
  assertValid(encoded.payloads);
  assert.equal(encoded.losses.losses.map((loss) => [loss.code, loss.path]), [
    ['unsupported_part', '/candidates/0/message/parts/0'],
    ['dropped_field', '/candidates/1'],
    ['defaulted', '/candidates/0/stopReason'],
  ]);
  assert.equal(encoded.payloads[1], { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
});

test('an IR error becomes an Anthropic error event and ends the stream', () => {
  const encoded = encode([{ type: 'start', id: 'r1' }, { type: 'error', error: { type: 'rate_limit', message: 'Slow down' } }, { type: 'end' }]);
  assert.equal(encoded.messages.at(-1), { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }) });
});

/** Serve SSE messages as an Anthropic upstream would, and read them with the official SDK. */
async function sdkFinalMessage(messages: SseMessage[]): Promise<Anthropic.Message> {
  const body = Buffer.from(messagesAsBytes(messages));
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const client = new Anthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    return await stream.finalMessage();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test('the official SDK accumulates a synthetic stream of a golden response to that response', async () => {
  for (const name of ['stream-tools', 'stream-thinking', 'stream-web-search']) {
    const wire = readJson(join(GOLDEN_DIR, 'anthropic', name, 'response.json')) as Data;
    const ir = decodeResponse('anthropic', wire).ir;
    const encoded = encode(responseToEvents(ir));
    assert.equal(encoded.losses.losses, [], name);
    const message = await sdkFinalMessage(encoded.messages);
    // The SDK takes only token counts from message_delta; service_tier can only ride on message_start,
    // which a synthetic stream writes before the usage is known.
    const { service_tier: _tier, ...usage } = wire['usage'] as Data;
    assert.equal(
      { id: message.id, model: message.model, content: message.content, stop_reason: message.stop_reason, usage: message.usage },
      { id: wire['id'], model: wire['model'], content: wire['content'], stop_reason: wire['stop_reason'], usage },
      name,
    );
  }
});

test('the official SDK reads interleaved tool calls from another format as whole tool_use blocks', async () => {
  const message = await sdkFinalMessage(encode(interleavedToolCalls()).messages);
  assert.equal(
    message.content.map((block) => (block.type === 'tool_use' ? [block.id, block.input] : block.type === 'text' ? block.text : block.type)),
    ['Checking both.', ['call_a', { city: 'Paris' }], ['call_b', { city: 'Oslo' }]],
  );
  assert.is(message.stop_reason, 'tool_use');
  assert.equal([message.usage.input_tokens, message.usage.output_tokens], [30, 12]);
});

test.run();
