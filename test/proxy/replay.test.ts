/**
 * The replay (issue 16, item 8): every recorded response and stream of every
 * format in test/corpus (and the goldens) is served by a fake upstream on
 * 127.0.0.1, through the proxy (`createProxy` behind the Node adapter, with
 * the node:http upstream client `interlingua serve` uses), to the official
 * SDK of every format: `@anthropic-ai/sdk`, `openai` (chat and responses),
 * `@google/genai`. What the SDK hands its caller must mean what the
 * recording meant: text, tool calls and arguments, stop class, token counts,
 * as read by test/support/meaning-reader.ts, which shares no code with the
 * codecs. Inherent exceptions are listed with reasons in
 * test/replay-exceptions.json, keyed by recording (every caller) or by
 * `recording → caller`. The fake upstream refuses what its vendor would
 * (test/support/strict) before it serves the recording. Hand-written
 * Anthropic and Gemini answers calling the function that stands for an
 * OpenAI custom tool replay the proxy's restoring of custom calls: each
 * caller declares the tool in its own format's shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { createParser } from 'eventsource-parser';
import { createProxy } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { corpusFixtures, fixtureBody, goldenFixtures, REPO_ROOT } from '../support/fixtures.ts';
import { streamFixtures } from '../support/streams.ts';
import { readStream, readWhole, type Meaning, type WireFormat } from '../support/meaning-reader.ts';
import { sendRefusal, strictCheck } from '../support/strict/index.ts';

const FORMATS: readonly WireFormat[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];
const EXCEPTIONS = JSON.parse(readFileSync(join(REPO_ROOT, 'test/proxy/replay-exceptions.json'), 'utf8')) as Record<string, string>;

/** One recording to replay. */
interface Recording {
  format: WireFormat;
  name: string;
  stream: boolean;
  /** The whole body, or the stream's bytes as the upstream sends them. */
  body: unknown;
  bytes: Uint8Array;
  expected: Meaning;
  /** The custom (free-text) tools the callers declare, each in its format's shape (see {@link declared}); the recording calls them as functions taking `{"input": text}`. */
  customTools?: readonly string[];
}

// ---------------------------------------------------------------------------
// Recordings

/** The data payloads of an SSE byte stream (`[DONE]` and non-JSON data left out). */
function ssePayloads(text: string): unknown[] {
  const payloads: unknown[] = [];
  const parser = createParser({
    onEvent: (event) => {
      try {
        payloads.push(JSON.parse(event.data));
      } catch {
        // [DONE] and the like carry no meaning here.
      }
    },
  });
  parser.feed(text);
  return payloads;
}

/** A JSONL recording (payloads without framing) as the SSE its vendor sends. */
function frame(format: WireFormat, lines: unknown[]): string {
  const named = format === 'anthropic' || format === 'openai-responses';
  let text = '';
  for (const payload of lines) {
    const type = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>)['type'] : undefined;
    text += named && typeof type === 'string' ? `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n` : `data: ${JSON.stringify(payload)}\n\n`;
  }
  if (format === 'openai-chat') text += 'data: [DONE]\n\n';
  return text;
}

function recordings(): Recording[] {
  const list: Recording[] = [];
  const encoder = new TextEncoder();
  for (const fixture of [...corpusFixtures(), ...goldenFixtures()]) {
    if (fixture.kind !== 'response' || !FORMATS.includes(fixture.format as WireFormat)) continue;
    const format = fixture.format as WireFormat;
    const body = fixtureBody(fixture).body;
    list.push({ format, name: fixture.name, stream: false, body, bytes: encoder.encode(JSON.stringify(body)), expected: readWhole(format, body) });
  }
  for (const fixture of streamFixtures()) {
    if (!FORMATS.includes(fixture.format as WireFormat)) continue;
    const format = fixture.format as WireFormat;
    const raw = readFileSync(fixture.file, 'utf8');
    const lines = fixture.framing === 'sse' ? ssePayloads(raw) : raw.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
    const text = fixture.framing === 'sse' ? raw : frame(format, lines);
    list.push({ format, name: fixture.name, stream: true, body: undefined, bytes: encoder.encode(text), expected: readStream(format, lines) });
  }
  list.push(...customToolRecordings());
  return list;
}

// ---------------------------------------------------------------------------
// Custom (free-text) tools: answers of vendors whose tools take objects, calling the function that
// stands for an OpenAI custom tool (src/core/custom-tools.ts), in each vendor's documented shape.

const PATCH = '*** Begin Patch\n*** Update File: a.txt\n-"old" \\ é\n+{"new": 1} 🙂\n*** End Patch';

/** The meaning of an answer to callers that declared `tools` custom: their calls with `{"input": text}` are custom calls of that text. */
function asCustom(meaning: Meaning, tools: readonly string[]): Meaning {
  const calls = meaning.calls.map((call) => {
    const args = call.arguments as Record<string, unknown>;
    const text = typeof args === 'object' && args !== null && Object.keys(args).length === 1 ? args['input'] : undefined;
    return tools.includes(call.name) && typeof text === 'string' ? { name: call.name, arguments: text, custom: true as const } : call;
  });
  return { ...meaning, calls };
}

function customToolRecordings(): Recording[] {
  const tools = ['apply_patch'];
  const encoder = new TextEncoder();
  const json = JSON.stringify({ input: PATCH });
  const anthropic = {
    id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'tool_use', stop_sequence: null,
    content: [{ type: 'text', text: 'Patching.' }, { type: 'tool_use', id: 'toolu_01', name: 'apply_patch', input: { input: PATCH } }],
    usage: { input_tokens: 30, output_tokens: 40 },
  };
  const anthropicEvents = [
    { type: 'message_start', message: { ...anthropic, content: [], stop_reason: null, usage: { input_tokens: 30, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Patching.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01', name: 'apply_patch', input: {} } },
    ...[json.slice(0, 4), json.slice(4, 30), json.slice(30, 47), json.slice(47)].map((partial_json) => ({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json } })),
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } },
    { type: 'message_stop' },
  ];
  const gemini = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Patching.' }, { functionCall: { name: 'apply_patch', args: { input: PATCH } } }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 40, totalTokenCount: 70 },
    modelVersion: 'gemini-2.5-pro',
  };
  const geminiChunks = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Patching.' }] }, index: 0 }], modelVersion: 'gemini-2.5-pro' },
    { ...gemini, candidates: [{ ...gemini.candidates[0], content: { role: 'model', parts: [{ functionCall: { name: 'apply_patch', args: { input: PATCH } } }] } }] },
  ];
  const sse = (events: Record<string, unknown>[], named: boolean) => events.map((event) => `${named ? `event: ${String(event['type'])}\n` : ''}data: ${JSON.stringify(event)}\n\n`).join('');
  return [
    { format: 'anthropic', name: 'custom-tools/anthropic', stream: false, body: anthropic, bytes: encoder.encode(JSON.stringify(anthropic)), expected: asCustom(readWhole('anthropic', anthropic), tools), customTools: tools },
    { format: 'anthropic', name: 'custom-tools/anthropic', stream: true, body: undefined, bytes: encoder.encode(sse(anthropicEvents, true)), expected: asCustom(readStream('anthropic', anthropicEvents), tools), customTools: tools },
    { format: 'gemini', name: 'custom-tools/gemini', stream: false, body: gemini, bytes: encoder.encode(JSON.stringify(gemini)), expected: asCustom(readWhole('gemini', gemini), tools), customTools: tools },
    { format: 'gemini', name: 'custom-tools/gemini', stream: true, body: undefined, bytes: encoder.encode(sse(geminiChunks, false)), expected: asCustom(readStream('gemini', geminiChunks), tools), customTools: tools },
  ];
}

/** The tools a caller of `format` declares for custom tools `names`: OpenAI custom tools, else (no free-text tools there) the function taking `input` that stands for each. */
function declared(format: WireFormat, names: readonly string[] | undefined): Record<string, unknown> {
  if (names === undefined) return {};
  const input = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] };
  switch (format) {
    case 'openai-chat':
      return { tools: names.map((name) => ({ type: 'custom', custom: { name } })) };
    case 'openai-responses':
      return { tools: names.map((name) => ({ type: 'custom', name })) };
    case 'anthropic':
      return { tools: names.map((name) => ({ name, input_schema: input })) };
    case 'gemini':
      return { config: { tools: [{ functionDeclarations: names.map((name) => ({ name, parameters: { type: 'OBJECT', properties: { input: { type: 'STRING' } }, required: ['input'] } })) }] } };
  }
}

// ---------------------------------------------------------------------------
// The fake upstream and the proxy, one pair per caller format and upstream format

interface Lane {
  url: string;
  next: Recording | undefined;
  close(): Promise<void>;
}

async function startLane(caller: WireFormat, upstream: WireFormat): Promise<Lane> {
  const sockets = new Set<Socket>();
  const lane: Lane = { url: '', next: undefined, close: async () => {} };
  const fake: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // What the vendor would refuse is refused, as the vendor does.
      const refusal = strictCheck(upstream, { url: request.url ?? '', headers: request.headers, text: Buffer.concat(chunks).toString('utf8') });
      if (refusal !== undefined) return sendRefusal(response, refusal);
      const recording = lane.next;
      if (recording === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"no recording queued"}}');
        return;
      }
      response.writeHead(200, { 'content-type': recording.stream ? 'text/event-stream' : 'application/json' });
      response.end(recording.bytes);
    });
  });
  fake.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const baseUrl = upstream === 'openai-chat' || upstream === 'openai-responses' ? `${root}/v1` : root;
  const handler = createProxy({ upstream: { format: upstream, baseUrl, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, fetch: createNodeFetch() });
  const proxy = await serve(handler, { port: 0 });
  lane.url = `http://127.0.0.1:${portOf(proxy)}`;
  lane.close = async () => {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  };
  void caller;
  return lane;
}

// ---------------------------------------------------------------------------
// The official SDKs, asking one short question

const KEY = 'caller-key';
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

async function askAnthropic(url: string, stream: boolean, tools: Record<string, unknown>): Promise<Meaning> {
  const client = new Anthropic({ apiKey: KEY, baseURL: url, maxRetries: 0 });
  const params = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }], ...tools };
  const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
  return readWhole('anthropic', plain(message));
}

async function askChat(url: string, stream: boolean, tools: Record<string, unknown>): Promise<Meaning> {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
  const params = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hi' }], ...tools };
  if (!stream) return readWhole('openai-chat', plain(await client.chat.completions.create(params)));
  const chunks: unknown[] = [];
  // The raw chunk iterator: the SDK's ChatCompletionStream helper knows function calls only.
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } })) chunks.push(plain(chunk));
  return readStream('openai-chat', chunks);
}

async function askResponses(url: string, stream: boolean, tools: Record<string, unknown>): Promise<Meaning> {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
  const params = { model: 'gpt-test', input: 'hi', ...tools };
  if (!stream) return readWhole('openai-responses', plain(await client.responses.create(params)));
  // The raw event iterator: the SDK's ResponseStream helper (openai 6.30.1) replaces its snapshot on
  // response.completed only, so an incomplete or failed stream's status and usage never reach finalResponse().
  const events: unknown[] = [];
  for await (const event of await client.responses.create({ ...params, stream: true })) events.push(plain(event));
  return readStream('openai-responses', events);
}

async function askGemini(url: string, stream: boolean, tools: Record<string, unknown>): Promise<Meaning> {
  const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
  const params = { model: 'gemini-test', contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...tools };
  if (!stream) return readWhole('gemini', plain(await client.models.generateContent(params)));
  const chunks: unknown[] = [];
  for await (const chunk of await client.models.generateContentStream(params)) chunks.push(plain(chunk));
  return readStream('gemini', chunks);
}

const ASK: Record<WireFormat, (url: string, stream: boolean, tools: Record<string, unknown>) => Promise<Meaning>> = {
  anthropic: askAnthropic,
  'openai-chat': askChat,
  'openai-responses': askResponses,
  gemini: askGemini,
};

/** The listed reason a recording does not replay to `caller`, if any (keys: a name, `name → caller`, or `re:` and a pattern). */
function exceptionFor(name: string, caller: WireFormat): string | undefined {
  const direct = EXCEPTIONS[name] ?? EXCEPTIONS[`${name} → ${caller}`];
  if (direct !== undefined) return direct;
  for (const [key, reason] of Object.entries(EXCEPTIONS)) if (key.startsWith('re:') && new RegExp(key.slice(3)).test(`${name} → ${caller}`)) return reason;
  return undefined;
}

/** The formats whose callers have custom (free-text) tools; the others' tools take JSON objects. */
const CUSTOM_TOOL_FORMATS: ReadonlySet<WireFormat> = new Set(['openai-chat', 'openai-responses']);

/**
 * The parts of a meaning a recording can vouch for, as `caller` must get
 * them: counts and stop only where the recording has them. A custom call
 * stays one, its text as it came, for a caller whose format has custom
 * tools; a caller whose tools take objects gets it as the call of the
 * function that stands for the tool (src/core/custom-tools.ts), its text
 * as `{"input": text}` and nothing else.
 */
function comparable(expected: Meaning, actual: Meaning, caller: WireFormat): [Meaning, Meaning] {
  const want: Meaning = { ...expected };
  if (!CUSTOM_TOOL_FORMATS.has(caller)) want.calls = expected.calls.map((call) => (call.custom === true ? { name: call.name, arguments: { input: call.arguments } } : call));
  const got: Meaning = { ...actual };
  if (expected.inputTokens === undefined) got.inputTokens = undefined;
  if (expected.outputTokens === undefined) got.outputTokens = undefined;
  if (expected.stop === undefined) got.stop = undefined;
  return [want, got];
}

// ---------------------------------------------------------------------------

const replay = suite('replay: recordings through the proxy to every official SDK');
const lanes = new Map<string, Lane>();
let calls = 0;
let excepted = 0;

replay.before(async () => {
  for (const caller of FORMATS) for (const upstream of FORMATS) lanes.set(`${caller}|${upstream}`, await startLane(caller, upstream));
});
replay.after(async () => {
  for (const lane of lanes.values()) await lane.close();
  console.log(`\n  replay: ${calls} SDK calls compared, ${excepted} listed exceptions`);
});

for (const recording of recordings()) {
  replay(`${recording.name}${recording.stream ? ' (stream)' : ''}`, async () => {
    const failures: string[] = [];
    await Promise.all(
      FORMATS.map(async (caller) => {
        if (exceptionFor(recording.name, caller) !== undefined) {
          excepted++;
          return;
        }
        const lane = lanes.get(`${caller}|${recording.format}`) as Lane;
        lane.next = recording;
        let answer: Meaning;
        try {
          answer = await ASK[caller](lane.url, recording.stream, declared(caller, recording.customTools));
        } catch (error) {
          // A recording that fails (an error event, a stream cut short) must fail for the caller too: its SDK throws.
          if (recording.expected.stop !== 'error') failures.push(`${caller} SDK threw: ${(error as Error).message.split('\n')[0]?.slice(0, 300)}`);
          calls++;
          return;
        }
        if (recording.expected.stop === 'error' && answer.stop !== undefined && answer.stop !== 'error') {
          failures.push(`${caller} SDK got a normal end (${answer.stop}) for a recording that fails`);
          return;
        }
        if (recording.expected.stop === 'error') {
          calls++;
          return;
        }
        try {
          const [expected, actual] = comparable(recording.expected, answer, caller);
          calls++;
          const differs = (Object.keys(expected) as (keyof Meaning)[]).filter((key) => JSON.stringify(expected[key]) !== JSON.stringify(actual[key]));
          if (differs.length > 0) {
            const detail = differs.map((key) => `${key}: expected ${JSON.stringify(expected[key]).slice(0, 160)}, got ${JSON.stringify(actual[key]).slice(0, 160)}`);
            failures.push(`${caller} SDK differs on ${detail.join('; ')}`);
          }
        } catch (error) {
          failures.push(`${caller} SDK threw: ${(error as Error).message.split('\n')[0]?.slice(0, 300)}`);
        }
      }),
    );
    if (failures.length > 0) assert.unreachable(failures.join('\n'));
  });
}

replay.run();
