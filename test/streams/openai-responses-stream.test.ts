/**
 * OpenAI Responses streaming: focused cases for the encoder fed by other
 * formats' events (interleaved parallel tool calls, arguments in many deltas
 * or one, signatures, late usage, errors, extra candidates, parts the format
 * cannot stream), the decoder on truncated and bad input, and the official
 * SDK reading the encoder's output from a local server.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { Response } from '../../src/core/ir.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { SseMessage, StreamEvent, WireEvent } from '../../src/core/stream-events.ts';
import { createOpenaiResponsesStreamDecoder, createOpenaiResponsesStreamEncoder } from '../../src/providers/openai-responses/stream.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { messagesAsBytes, wireEventsFromBytes } from '../support/streams.ts';

type Data = Record<string, any>;

function encode(events: StreamEvent[]): { messages: SseMessage[]; data: Data[]; losses: LossCollector } {
  const losses = new LossCollector();
  const encoder = createOpenaiResponsesStreamEncoder({ losses });
  const messages: SseMessage[] = [];
  for (const event of events) messages.push(...encoder.encode(event));
  messages.push(...encoder.flush());
  return { messages, data: messages.map((message) => JSON.parse(message.data) as Data), losses };
}

function decode(data: unknown[]): { events: StreamEvent[]; losses: LossCollector } {
  const losses = new LossCollector();
  const decoder = createOpenaiResponsesStreamDecoder({ losses });
  const events: StreamEvent[] = [];
  for (const item of data) events.push(...decoder.decode({ data: item } as WireEvent));
  events.push(...decoder.flush());
  return { events, losses };
}

function codes(losses: LossCollector): string[] {
  return losses.losses.map((loss) => `${loss.code} ${loss.path}`);
}

/** Parallel calls as an OpenAI Chat decoder emits them: opened together, arguments interleaved, usage after the finish. */
const INTERLEAVED: StreamEvent[] = [
  { type: 'start', id: 'chatcmpl-1', model: 'gpt-test', created: 1700000000 },
  { type: 'part_start', candidate: 0, index: 0, part: { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: undefined, rawArguments: '' } },
  { type: 'part_start', candidate: 0, index: 1, part: { type: 'tool_call', id: 'call_b', name: 'get_time', arguments: undefined, rawArguments: '' } },
  { type: 'tool_call_delta', candidate: 0, index: 0, arguments: '{"city":' },
  { type: 'tool_call_delta', candidate: 0, index: 1, arguments: '{"zone":"CET"}' },
  { type: 'tool_call_delta', candidate: 0, index: 0, arguments: '"Oslo"}' },
  { type: 'part_end', candidate: 0, index: 0 },
  { type: 'part_end', candidate: 0, index: 1 },
  { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_calls', format: 'openai-chat' } },
  { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
  { type: 'end' },
];

const encoder = suite('openai-responses stream encoder');

encoder('interleaved parallel tool calls: sequence numbers from 0, one item each, whole response at the end', () => {
  const { data } = encode(INTERLEAVED);
  assert.equal(data.map((event) => event['sequence_number']), data.map((_, index) => index));
  assert.equal(data[0]?.['type'], 'response.created');
  assert.equal(data[1]?.['type'], 'response.in_progress');
  const added = data.filter((event) => event['type'] === 'response.output_item.added');
  assert.equal(added.map((event) => [event['output_index'], event['item']['name'], event['item']['arguments'], event['item']['status']]), [
    [0, 'get_weather', '', 'in_progress'],
    [1, 'get_time', '', 'in_progress'],
  ]);
  const deltas = data.filter((event) => event['type'] === 'response.function_call_arguments.delta');
  assert.equal(deltas.map((event) => [event['output_index'], event['delta']]), [[0, '{"city":'], [1, '{"zone":"CET"}'], [0, '"Oslo"}']]);
  const done = data.filter((event) => event['type'] === 'response.function_call_arguments.done');
  assert.equal(done.map((event) => [event['arguments'], event['name']]), [['{"city":"Oslo"}', 'get_weather'], ['{"zone":"CET"}', 'get_time']]);
  const last = data.at(-1)!;
  assert.is(last['type'], 'response.completed');
  assert.equal(last['response']['output'].map((item: Data) => [item['type'], item['call_id'], item['arguments']]), [
    ['function_call', 'call_a', '{"city":"Oslo"}'],
    ['function_call', 'call_b', '{"zone":"CET"}'],
  ]);
  assert.equal(last['response']['usage'], { input_tokens: 10, output_tokens: 5, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 });
  assert.is(last['response']['id'], 'chatcmpl-1');
});

encoder('the decoder reads the encoder back: same calls, arguments, stop reason and usage', () => {
  const { data } = encode(INTERLEAVED);
  const { events, losses } = decode(data);
  const result = accumulate(events);
  assert.ok(result.complete);
  assert.equal(codes(losses), []);
  const parts = result.response.candidates[0]!.message.parts;
  assert.equal(parts.map((part) => (part.type === 'tool_call' ? [part.id, part.name, part.arguments] : part.type)), [
    ['call_a', 'get_weather', { city: 'Oslo' }],
    ['call_b', 'get_time', { zone: 'CET' }],
  ]);
  assert.is(result.response.candidates[0]!.stopReason?.unified, 'tool_calls');
  assert.is(result.response.usage?.totalTokens, 15);
});

encoder('arguments in one delta, text before the calls, no start usage', () => {
  const events: StreamEvent[] = [
    { type: 'start', model: 'claude-test' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 0, text: 'Let me check.' },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'tool_call', id: 'toolu_1', name: 'lookup', arguments: undefined, rawArguments: '' } },
    { type: 'tool_call_delta', candidate: 0, index: 1, arguments: '{"q":"x"}' },
    { type: 'part_end', candidate: 0, index: 1, part: { type: 'tool_call', id: 'toolu_1', name: 'lookup', arguments: { q: 'x' } } },
    { type: 'finish', candidate: 0, stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' } },
    { type: 'end' },
  ];
  const { data } = encode(events);
  const types = data.map((event) => event['type']);
  assert.equal(types, [
    'response.created', 'response.in_progress',
    'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done',
    'response.content_part.done', 'response.output_item.done',
    'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
    'response.completed',
  ]);
  const completed = data.at(-1)!['response'];
  assert.is(completed['usage'], undefined, 'no usage was known: none is invented');
  assert.is(completed['output'][0]['content'][0]['text'], 'Let me check.');
  assert.is(completed['output'][0]['id'], data[2]!['item']['id'], 'the message keeps its id from added to completed');
  assert.is(completed['output'][1]['arguments'], '{"q":"x"}');
});

encoder('reasoning of another vendor: text as summary, its signature dropped with a loss', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_1', model: 'claude-test' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'reasoning', text: '' } },
    { type: 'reasoning_delta', candidate: 0, index: 0, text: 'Think ' },
    { type: 'reasoning_delta', candidate: 0, index: 0, text: 'hard.' },
    { type: 'reasoning_signature', candidate: 0, index: 0, state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'end' },
  ];
  const { data, losses } = encode(events);
  const summary = data.filter((event) => event['type'] === 'response.reasoning_summary_text.delta').map((event) => event['delta']);
  assert.equal(summary, ['Think ', 'hard.']);
  const done = data.find((event) => event['type'] === 'response.output_item.done')!;
  assert.equal(done['item'], { type: 'reasoning', id: 'rs_interlingua_0', summary: [{ type: 'summary_text', text: 'Think hard.' }] });
  assert.ok(codes(losses).includes('reasoning_state_dropped /candidates/0/message/parts/0/state'));
});

encoder('own encrypted reasoning state arriving as its own event goes into the item', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'resp_1' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'reasoning', text: '', id: 'rs_1', summary: [] } },
    { type: 'reasoning_delta', candidate: 0, index: 0, text: 'Plan.', summaryIndex: 0 },
    { type: 'reasoning_signature', candidate: 0, index: 0, state: { format: 'openai-responses', kind: 'encrypted', value: 'gAAA' } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'end' },
  ];
  const { data, losses } = encode(events);
  const done = data.find((event) => event['type'] === 'response.output_item.done')!;
  assert.equal(done['item'], { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'gAAA' });
  assert.equal(codes(losses).filter((code) => code.startsWith('reasoning_state_dropped')), []);
});

encoder('error mid-stream: an error event, then response.failed', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_2', model: 'claude-test' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 0, text: 'Partial' },
    { type: 'error', error: { type: 'overloaded', message: 'Overloaded', code: 'overloaded_error' } },
    { type: 'end' },
  ];
  const { data } = encode(events);
  const error = data.find((event) => event['type'] === 'error')!;
  assert.equal(error['error'], { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded_error' });
  const failed = data.at(-1)!;
  assert.is(failed['type'], 'response.failed');
  assert.is(failed['response']['status'], 'failed');
  assert.equal(failed['response']['error'], { code: 'overloaded_error', message: 'Overloaded' });
  const decoded = accumulate(decode(data).events);
  assert.is(decoded.error?.type, 'overloaded');
  assert.is(decoded.error?.message, 'Overloaded');
});

encoder('extra candidates and parts the format cannot stream: one loss each, skipped', () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'gen-1' },
    { type: 'part_start', candidate: 0, index: 0, part: { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } } },
    { type: 'part_end', candidate: 0, index: 0 },
    { type: 'part_start', candidate: 0, index: 1, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 0, index: 1, text: 'one' },
    { type: 'part_start', candidate: 1, index: 0, part: { type: 'text', text: '' } },
    { type: 'text_delta', candidate: 1, index: 0, text: 'two' },
    { type: 'part_end', candidate: 1, index: 0 },
    { type: 'part_end', candidate: 0, index: 1 },
    { type: 'finish', candidate: 1, stopReason: { unified: 'end_turn' } },
    { type: 'finish', candidate: 0, stopReason: { unified: 'end_turn' } },
    { type: 'end' },
  ];
  const { data, losses } = encode(events);
  const deltas = data.filter((event) => event['type'] === 'response.output_text.delta');
  assert.equal(deltas.map((event) => [event['output_index'], event['delta']]), [[0, 'one']]);
  const lossCodes = codes(losses);
  assert.is(lossCodes.filter((code) => code === 'unsupported_part /candidates/0/message/parts/0').length, 1);
  assert.is(lossCodes.filter((code) => code === 'dropped_field /candidates/1').length, 1);
  assert.equal(data.at(-1)!['response']['output'].length, 1);
});

encoder('a synthetic stream of a whole response encodes to a terminal response equal to the non-stream body', () => {
  const response: Response = {
    id: 'resp_x', model: 'gpt-test', created: 1,
    candidates: [{ index: 0, message: { role: 'assistant', parts: [{ type: 'text', text: 'Hi' }, { type: 'refusal', text: 'No.' }] }, stopReason: { unified: 'end_turn' } }],
    usage: { inputTokens: 3, outputTokens: 2 },
  };
  const { data } = encode(responseToEvents(response));
  const output = data.at(-1)!['response']['output'] as Data[];
  assert.equal(output.map((item) => item['content'].map((part: Data) => part['type'])), [['output_text'], ['refusal']]);
  const refusal = data.filter((event) => event['type'] === 'response.refusal.delta');
  assert.equal(refusal.map((event) => event['delta']), ['No.']);
});

encoder.run();

const decoder = suite('openai-responses stream decoder');

const RECORDED: Data[] = [
  { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', model: 'gpt-test', output: [], usage: null, error: null, incomplete_details: null } },
  { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_1', name: 'f' } },
  { type: 'response.function_call_arguments.delta', sequence_number: 2, item_id: 'fc_1', output_index: 0, delta: '{"a":' },
  { type: 'response.function_call_arguments.delta', sequence_number: 3, item_id: 'fc_1', output_index: 0, delta: '1}' },
];

decoder('a stream cut before its terminal event ends in an error event, and never throws', () => {
  const { events } = decode(RECORDED);
  const last = events.at(-1)!;
  assert.is(last.type, 'error');
  assert.ok(last.type === 'error' && last.error.type === 'server' && /truncated/.test(last.error.message));
  const result = accumulate(events);
  assert.is(result.complete, false);
  const part = result.response.candidates[0]!.message.parts[0]!;
  assert.ok(part.type === 'tool_call' && part.rawArguments === '{"a":1}');
});

decoder('the same-format trip of a truncated stream writes the source events back', () => {
  const { events } = decode(RECORDED);
  assert.equal(encode(events).data, RECORDED);
});

decoder('an error event then response.failed: error, then end', () => {
  const data: Data[] = [
    RECORDED[0]!,
    { type: 'error', sequence_number: 1, error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'quota', param: null } },
    { type: 'response.failed', sequence_number: 2, response: { ...RECORDED[0]!['response'], status: 'failed', error: { code: 'insufficient_quota', message: 'quota' } } },
  ];
  const { events } = decode(data);
  assert.equal(events.map((event) => event.type), ['start', 'error', 'end']);
  assert.equal(encode(events).data, data);
});

decoder('response.failed alone: finish, error and end', () => {
  const data: Data[] = [
    RECORDED[0]!,
    { type: 'response.failed', sequence_number: 1, response: { ...RECORDED[0]!['response'], status: 'failed', error: { code: 'server_error', message: 'boom' } } },
  ];
  const { events } = decode(data);
  assert.equal(events.map((event) => event.type), ['start', 'finish', 'error', 'end']);
  const error = events.find((event) => event.type === 'error');
  assert.ok(error?.type === 'error' && error.error.type === 'server' && error.error.message === 'boom');
  assert.equal(encode(events).data, data);
});

decoder('unknown event types are kept verbatim and reported', () => {
  const data: Data[] = [RECORDED[0]!, { type: 'response.future_thing', sequence_number: 1, x: 1 }, ...RECORDED.slice(1).map((event) => ({ ...event, sequence_number: event['sequence_number'] + 1 }))];
  const { events, losses } = decode(data);
  assert.equal(codes(losses), ['unknown_block /1']);
  assert.equal(encode(events).data, data);
});

decoder('bad shapes are InterlinguaErrors', () => {
  const decoder = createOpenaiResponsesStreamDecoder({ losses: new LossCollector() });
  try {
    decoder.decode({ data: 'not an object' });
    assert.unreachable('should throw');
  } catch (error) {
    assert.ok(isInterlinguaError(error));
  }
  const second = createOpenaiResponsesStreamDecoder({ losses: new LossCollector() });
  second.decode({ data: RECORDED[0] });
  second.decode({ data: RECORDED[1] });
  assert.throws(() => second.decode({ data: { ...RECORDED[2], delta: 42 } }), (error: unknown) => isInterlinguaError(error));
});

decoder.run();

const sdk = suite('openai-responses stream with the official SDK');

function serve(body: Uint8Array): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(Buffer.from(body));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

sdk('client.responses.stream().finalResponse() reads the encoder output of another format', async () => {
  const response: Response = {
    id: 'msg_sdk', model: 'claude-test', created: 1763683200,
    candidates: [{
      index: 0,
      message: {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'The user wants weather.', state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
          { type: 'text', text: 'Checking both cities.' },
          { type: 'tool_call', id: 'toolu_a', name: 'get_weather', arguments: { city: 'Oslo' } },
          { type: 'tool_call', id: 'toolu_b', name: 'get_weather', arguments: { city: 'Paris' } },
        ],
      },
      stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' },
    }],
    usage: { inputTokens: 100, outputTokens: 40 },
  };
  const { messages } = encode(responseToEvents(response));
  const server = await serve(messagesAsBytes(messages));
  try {
    const port = (server.address() as AddressInfo).port;
    const client = new OpenAI({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const stream = client.responses.stream({ model: 'claude-test', input: 'Weather in Oslo and Paris?' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    assert.is(final.id, 'msg_sdk');
    assert.is(final.status, 'completed');
    const message = final.output.find((item) => item.type === 'message');
    const content = message?.type === 'message' ? message.content[0] : undefined;
    assert.equal(content?.type === 'output_text' ? content.text : undefined, 'Checking both cities.');
    assert.equal(deltas, ['Checking both cities.']);
    const calls = final.output.filter((item) => item.type === 'function_call');
    assert.equal(calls.map((call) => [call.call_id, call.name, JSON.parse(call.arguments)]), [
      ['toolu_a', 'get_weather', { city: 'Oslo' }],
      ['toolu_b', 'get_weather', { city: 'Paris' }],
    ]);
    const reasoning = final.output.find((item) => item.type === 'reasoning');
    assert.equal(reasoning?.type === 'reasoning' ? reasoning.summary : undefined, [{ type: 'summary_text', text: 'The user wants weather.' }]);
    assert.is(final.usage?.input_tokens, 100);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

sdk('a recorded stream, decoded and encoded again, reads as its recorded response', async () => {
  const directory = join(GOLDEN_DIR, 'openai-responses', 'stream-parallel-tools');
  const source = await wireEventsFromBytes(new Uint8Array(readFileSync(join(directory, 'stream.sse'))));
  const { messages } = encode(decode(source.map((event) => event.data)).events);
  const server = await serve(messagesAsBytes(messages));
  try {
    const port = (server.address() as AddressInfo).port;
    const client = new OpenAI({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const final = await client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse();
    const recorded = readJson(join(directory, 'response.json')) as Data;
    assert.is(final.id, recorded['id']);
    assert.equal(
      final.output.map((item) => (item.type === 'function_call' ? [item.call_id, item.name, item.arguments] : item.type)),
      (recorded['output'] as Data[]).map((item) => (item['type'] === 'function_call' ? [item['call_id'], item['name'], item['arguments']] : item['type'])),
    );
    assert.equal(final.usage, recorded['usage']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

sdk('an error in the stream makes the SDK throw', async () => {
  const events: StreamEvent[] = [
    { type: 'start', id: 'msg_err', model: 'claude-test' },
    { type: 'error', error: { type: 'overloaded', message: 'Overloaded', code: 'overloaded_error' } },
    { type: 'end' },
  ];
  const server = await serve(messagesAsBytes(encode(events).messages));
  try {
    const port = (server.address() as AddressInfo).port;
    const client = new OpenAI({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    let thrown: unknown;
    try {
      await client.responses.stream({ model: 'claude-test', input: 'hi' }).finalResponse();
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof OpenAI.APIError);
    assert.match(String((thrown as Error).message), /Overloaded/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

sdk.run();
