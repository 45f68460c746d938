/**
 * The benchmark workloads, generated deterministically: each is built once as
 * Anthropic wire JSON and converted once into every other format, so every
 * format starts from the same meaning. The stream is generated as Anthropic
 * SSE and transcoded once into every format whose codec streams.
 */
import { Buffer } from 'node:buffer';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { codecFor, implementedFormats } from '../../src/formats/registry.ts';
import { fixedAnswerIds } from '../../src/core/answer-ids.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { FormatId } from '../../src/core/ir.ts';
import type { SseMessage, WireEvent } from '../../src/core/stream-events.ts';

/** The model every workload names (Gemini carries it outside the body). */
export const BENCH_MODEL = 'bench-model';

/** A body workload: its kind and its wire text in each implemented format. */
export interface BodyWorkload {
  name: string;
  title: string;
  kind: 'request' | 'response';
  /** Wire JSON text by format. */
  texts: Partial<Record<FormatId, string>>;
}

/** The stream workload: each streaming format's messages, and the SSE text of those framed as SSE. */
export interface StreamWorkload {
  name: string;
  title: string;
  /** SSE text by format (only the formats whose framing is SSE; the proxy benchmark replays these). */
  texts: Partial<Record<FormatId, string>>;
  /** The stream's messages (event name and data text) by format, for every streaming format whatever its framing. */
  messages: Partial<Record<FormatId, SseMessage[]>>;
  /** The number of events (SSE messages, NDJSON lines, event-stream frames) in each format's stream. */
  events: Partial<Record<FormatId, number>>;
}

/** A deterministic pseudo-random generator (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'the', 'weather', 'in', 'paris', 'is', 'mild', 'today', 'with', 'light', 'rain', 'expected', 'later', 'ticker', 'price',
  'above', 'below', 'order', 'shipped', 'tomorrow', 'please', 'check', 'inventory', 'for', 'warehouse', 'north', 'south',
  'customer', 'asked', 'about', 'refund', 'policy', 'and', 'delivery', 'window', 'é', 'naïve', 'café', '数据', '🙂',
];

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  return `${out.join(' ')}.`;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Anthropic function tools used by the tool workloads. */
function anthropicTools(): unknown[] {
  return [
    {
      name: 'get_weather',
      description: 'Current weather for a city.',
      input_schema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city'],
      },
    },
    {
      name: 'get_stock_price',
      description: 'Latest trade price for a ticker.',
      input_schema: { type: 'object', properties: { ticker: { type: 'string' } }, required: ['ticker'] },
    },
    {
      name: 'lookup_order',
      description: 'Order status by id.',
      input_schema: {
        type: 'object',
        properties: { order_id: { type: 'string' }, include_items: { type: 'boolean' } },
        required: ['order_id'],
      },
    },
  ];
}

function toolInput(random: () => number, name: string): Record<string, unknown> {
  switch (name) {
    case 'get_weather':
      return { city: pick(random, ['Paris', 'Tokyo', 'Lima', 'Oslo', 'Cairo']), unit: pick(random, ['celsius', 'fahrenheit']) };
    case 'get_stock_price':
      return { ticker: pick(random, ['AAPL', 'MSFT', 'NVDA', 'GOOG']) };
    default:
      return { order_id: `ord_${Math.floor(random() * 1e9)}`, include_items: random() < 0.5 };
  }
}

/** A small chat request (Anthropic). */
export function smallChatRequest(): Record<string, unknown> {
  return {
    model: BENCH_MODEL,
    max_tokens: 1024,
    temperature: 0.7,
    system: 'You are a helpful assistant.',
    messages: [{ role: 'user', content: 'Hello! What can you do?' }],
  };
}

/** A 50-turn conversation with parallel tool calls and their results (Anthropic). */
export function longConversationRequest(turns = 50): Record<string, unknown> {
  const random = prng(50);
  const names = ['get_weather', 'get_stock_price', 'lookup_order'];
  const messages: unknown[] = [];
  let pending: unknown[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: [...pending, { type: 'text', text: sentence(random, 12 + Math.floor(random() * 20)) }] });
    const calls = 2 + (turn % 2);
    const blocks: unknown[] = [{ type: 'text', text: sentence(random, 10 + Math.floor(random() * 15)) }];
    pending = [];
    for (let call = 0; call < calls; call++) {
      const name = names[(turn + call) % names.length]!;
      const id = `toolu_${String(turn).padStart(3, '0')}${String(call).padStart(2, '0')}${'x'.repeat(17)}`;
      blocks.push({ type: 'tool_use', id, name, input: toolInput(random, name) });
      pending.push({ type: 'tool_result', tool_use_id: id, content: JSON.stringify({ ok: true, result: sentence(random, 8) }) });
    }
    messages.push({ role: 'assistant', content: blocks });
  }
  messages.push({ role: 'user', content: [...pending, { type: 'text', text: 'Summarise everything above.' }] });
  return {
    model: BENCH_MODEL,
    max_tokens: 4096,
    system: 'You are an operations assistant. Use the tools when needed; call them in parallel.',
    tools: anthropicTools(),
    tool_choice: { type: 'auto' },
    messages,
  };
}

/** Base64 of `size` characters encoding a PNG-signed, pseudo-random image. */
export function base64Image(size: number): string {
  const bytes = Buffer.alloc(Math.floor((size / 4) * 3));
  const random = prng(10);
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  for (let index = 0; index < bytes.length; index += 4) {
    const value = Math.floor(random() * 4294967296);
    bytes.writeUInt32LE(value >>> 0, index > bytes.length - 4 ? bytes.length - 4 : index);
  }
  signature.forEach((byte, index) => (bytes[index] = byte));
  return bytes.toString('base64');
}

/** A request with one base64 image of `size` base64 characters (default 10 MiB) (Anthropic). */
export function imageRequest(size = 10 * 1024 * 1024): Record<string, unknown> {
  return {
    model: BENCH_MODEL,
    max_tokens: 1024,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64Image(size) } },
          { type: 'text', text: 'Describe this image.' },
        ],
      },
    ],
  };
}

/** A response with thinking, text and parallel tool calls (Anthropic). */
export function thinkingToolsResponse(): Record<string, unknown> {
  const random = prng(4);
  const thinking: string[] = [];
  for (let index = 0; index < 40; index++) thinking.push(sentence(random, 14));
  return {
    id: 'msg_01BenchThinkingTools0000001',
    type: 'message',
    role: 'assistant',
    model: BENCH_MODEL,
    content: [
      { type: 'thinking', thinking: thinking.join(' '), signature: `Eq${'A'.repeat(300)}==` },
      { type: 'text', text: sentence(random, 30) },
      { type: 'tool_use', id: 'toolu_01BenchCall00000000000001', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
      { type: 'tool_use', id: 'toolu_01BenchCall00000000000002', name: 'get_stock_price', input: { ticker: 'AAPL' } },
      { type: 'tool_use', id: 'toolu_01BenchCall00000000000003', name: 'lookup_order', input: { order_id: 'ord_42', include_items: true } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 2048, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 812 },
  };
}

/** The Anthropic SSE messages of a stream of exactly `total` events: thinking, text and two tool calls, all in small deltas. */
export function anthropicStreamMessages(total = 10_000): SseMessage[] {
  const random = prng(10_000);
  const fixed = 13; // message_start, 4 × (block start + stop), signature, message_delta, message_stop, ping
  const deltas = total - fixed;
  const thinkingDeltas = Math.floor(deltas * 0.3);
  const textDeltas = Math.floor(deltas * 0.4);
  const firstToolDeltas = Math.floor((deltas - thinkingDeltas - textDeltas) / 2);
  const secondToolDeltas = deltas - thinkingDeltas - textDeltas - firstToolDeltas;
  const messages: SseMessage[] = [];
  const add = (event: string, data: Record<string, unknown>) => messages.push({ event, data: JSON.stringify({ type: event, ...data }) });
  add('message_start', {
    message: {
      id: 'msg_01BenchStream000000000001',
      type: 'message',
      role: 'assistant',
      model: BENCH_MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 512, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  });
  add('ping', {});
  add('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
  for (let index = 0; index < thinkingDeltas; index++) add('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: `${sentence(random, 3)} ` } });
  add('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: `Eq${'B'.repeat(200)}==` } });
  add('content_block_stop', { index: 0 });
  add('content_block_start', { index: 1, content_block: { type: 'text', text: '' } });
  for (let index = 0; index < textDeltas; index++) add('content_block_delta', { index: 1, delta: { type: 'text_delta', text: `${sentence(random, 2)} ` } });
  add('content_block_stop', { index: 1 });
  const tool = (index: number, id: string, name: string, count: number) => {
    add('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } });
    const argument = JSON.stringify({ notes: Array.from({ length: count }, () => pick(random, ['ab', 'cd', 'ef', 'gh'])).join('') });
    const step = argument.length / count;
    for (let delta = 0; delta < count; delta++) {
      add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: argument.slice(Math.round(delta * step), Math.round((delta + 1) * step)) } });
    }
    add('content_block_stop', { index });
  };
  tool(2, 'toolu_01BenchStreamCall000000001', 'get_weather', firstToolDeltas);
  tool(3, 'toolu_01BenchStreamCall000000002', 'lookup_order', secondToolDeltas);
  add('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9000 } });
  add('message_stop', {});
  return messages;
}

/** SSE messages as text with the blank-line framing. */
export function sseText(messages: readonly SseMessage[]): string {
  let text = '';
  for (const message of messages) text += `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`;
  return text;
}

/** Formats whose codec decodes and encodes streams (discovered at run time), whatever their framing (SSE, Ollama's NDJSON, Bedrock's event stream). */
export function streamingFormats(): FormatId[] {
  return implementedFormats().filter((format) => {
    const codec = codecFor(format);
    return codec.createStreamDecoder !== undefined && codec.createStreamEncoder !== undefined;
  });
}

/** True when `format` streams Server-Sent Events (its codec names no other framing). */
export function isSseFormat(format: FormatId): boolean {
  return codecFor(format).streamFraming === undefined;
}

/** Transcode wire events from one format to SSE messages of another with the codecs alone (no Web streams). */
export function transcodeEvents(events: readonly WireEvent[], from: FormatId, to: FormatId): SseMessage[] {
  const losses = new LossCollector();
  const context = { losses, model: BENCH_MODEL };
  const decoder = codecFor(from).createStreamDecoder!(context);
  const encoder = codecFor(to).createStreamEncoder!(context);
  const out: SseMessage[] = [];
  const put = (irEvents: Iterable<Parameters<typeof encoder.encode>[0]>) => {
    for (const irEvent of irEvents) for (const message of encoder.encode(irEvent)) out.push(message);
  };
  for (const event of events) put(decoder.decode(event));
  put(decoder.flush());
  for (const message of encoder.flush()) out.push(message);
  return out;
}

/** SSE messages as wire events, the way `sseToWireEvents` yields them. */
export function wireEventsOf(messages: readonly SseMessage[]): WireEvent[] {
  return messages.map((message) => {
    const data: unknown = message.data === '[DONE]' ? '[DONE]' : JSON.parse(message.data);
    return message.event === undefined ? { data } : { event: message.event, data };
  });
}

function bodyWorkload(name: string, title: string, kind: 'request' | 'response', source: Record<string, unknown>): BodyWorkload {
  const text = JSON.stringify(source);
  const texts: Partial<Record<FormatId, string>> = { anthropic: text };
  const convert = kind === 'request' ? convertRequest : convertResponse;
  for (const format of implementedFormats()) {
    if (format === 'anthropic') continue;
    // Fixed made-up ids and time: the workloads are the same on every run.
    texts[format] = JSON.stringify(convert(text, { from: 'anthropic', to: format, model: BENCH_MODEL, ids: fixedAnswerIds }).body);
  }
  return { name, title, kind, texts };
}

/** Options of {@link bodyWorkloads}. */
export interface WorkloadOptions {
  /** Base64 characters of the image workload (default 10 MiB). */
  imageSize?: number;
  /** Turns of the long conversation (default 50). */
  turns?: number;
}

/** Every body workload, in each implemented format. */
export function bodyWorkloads(options: WorkloadOptions = {}): BodyWorkload[] {
  const imageSize = options.imageSize ?? 10 * 1024 * 1024;
  const turns = options.turns ?? 50;
  return [
    bodyWorkload('small-chat', 'Small chat request', 'request', smallChatRequest()),
    bodyWorkload('conversation-50', `${turns}-turn conversation with parallel tool calls and results (request)`, 'request', longConversationRequest(turns)),
    bodyWorkload('image-10mb', `Request with a ${(imageSize / 1024 / 1024).toFixed(imageSize >= 1024 * 1024 ? 0 : 2)} MiB base64 image`, 'request', imageRequest(imageSize)),
    bodyWorkload('thinking-tools-response', 'Response with thinking and parallel tool calls', 'response', thinkingToolsResponse()),
  ];
}

/** The stream workload, in each streaming format. */
export function streamWorkload(total = 10_000): StreamWorkload {
  const source = anthropicStreamMessages(total);
  const texts: Partial<Record<FormatId, string>> = {};
  const messages: Partial<Record<FormatId, SseMessage[]>> = {};
  const events: Partial<Record<FormatId, number>> = {};
  const formats = streamingFormats();
  if (formats.includes('anthropic')) {
    const wire = wireEventsOf(source);
    for (const format of formats) {
      const own = format === 'anthropic' ? source : transcodeEvents(wire, 'anthropic', format);
      messages[format] = own;
      if (isSseFormat(format)) texts[format] = sseText(own);
      events[format] = own.length;
    }
  }
  return { name: 'stream-10k', title: `${total.toLocaleString('en-US')}-event stream (thinking, text, two tool calls)`, texts, messages, events };
}

/** A small chat response (Anthropic), as the proxy benchmark's upstream answers. */
export function smallChatResponse(): Record<string, unknown> {
  return {
    id: 'msg_01BenchSmallChat000000001',
    type: 'message',
    role: 'assistant',
    model: BENCH_MODEL,
    content: [{ type: 'text', text: 'Hello! I can answer questions, write and review code, and help you plan.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 21, output_tokens: 19 },
  };
}

/** The small chat request and response in each implemented format, for the proxy benchmark. */
export function smallChatBodies(): { requests: Partial<Record<FormatId, string>>; responses: Partial<Record<FormatId, string>> } {
  return {
    requests: bodyWorkload('small-chat', '', 'request', smallChatRequest()).texts,
    responses: bodyWorkload('small-chat-response', '', 'response', smallChatResponse()).texts,
  };
}
