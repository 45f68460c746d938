/**
 * The Ollama codec beyond the shared round-trip suites: `/api/generate`
 * payloads round-trip, images get a sniffed media type, id-less tool calls
 * and results pair up, `stream` defaults to true, detection by body and
 * path, the normalizer reassembles NDJSON streams, and the CLI converts an
 * NDJSON stream.
 */
import { spawn, spawnSync } from 'node:child_process';
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest, convertResponse, decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import { detectFormat } from '../../src/core/detect.ts';
import type { ImagePart, ToolCallPart, ToolResultPart } from '../../src/core/ir.ts';
import { normalizeFiles } from '../../src/normalize/run.ts';
import type { NormalizedRecord } from '../../src/normalize/types.ts';
import { CORPUS_DIR, corpusDirectory, GOLDEN_DIR, readJson, REPO_ROOT } from '../support/fixtures.ts';
import { startUpstream } from '../support/strict/index.ts';
import { createProxy } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { Ollama } from 'ollama';
import { decodeEvents, encodeEvents, wireEvents } from '../support/streams.ts';
import { accumulate } from '../../src/core/accumulate.ts';

const GENERATE = join(CORPUS_DIR, 'ollama', 'generate');
const test = suite('ollama');

for (const kind of ['request', 'response'] as const) {
  for (const file of corpusDirectory('ollama', 'generate', kind)) {
    test(`corpus/ollama/generate/${kind}/${file} round-trips`, () => {
      const body = readJson(join(GENERATE, kind, file));
      const convert = kind === 'request' ? convertRequest : convertResponse;
      const result = convert(body, { from: 'ollama', to: 'ollama' });
      assert.equal(result.losses, []);
      assert.equal(result.body, body);
    });
  }
}

for (const file of corpusDirectory('ollama', 'generate', 'stream')) {
  test(`corpus/ollama/generate/stream/${file} round-trips line by line`, async () => {
    const source = await wireEvents({ format: 'ollama', name: file, file: join(GENERATE, 'stream', file), framing: 'ndjson' });
    const decoded = decodeEvents('ollama', source);
    const encoded = encodeEvents('ollama', decoded.events);
    assert.equal([...decoded.losses.losses, ...encoded.losses.losses], []);
    assert.equal(encoded.messages.map((message) => JSON.parse(message.data) as unknown), source.map((event) => event.data));
  });
}

test('format "" (no format, as langchaingo sends it) is no loss for other formats, and goes back to Ollama as ""', () => {
  for (const body of [{ model: 'llama3', prompt: 'hi', format: '', stream: false }, { model: 'llama3', messages: [{ role: 'user', content: 'hi' }], format: '', stream: false }]) {
    assert.equal(convertRequest(body, { from: 'ollama', to: 'anthropic' }).losses.filter((loss) => loss.message.includes('format')), []);
    assert.equal(convertRequest(body, { from: 'ollama', to: 'ollama' }).body, body);
  }
  // Any other value than "", "json" or a schema stays Ollama's own, reported elsewhere.
  const odd = { model: 'llama3', messages: [{ role: 'user', content: 'hi' }], format: 'yaml', stream: false };
  assert.equal(convertRequest(odd, { from: 'ollama', to: 'anthropic' }).losses.filter((loss) => loss.message.includes('"format"')).map((loss) => loss.code), ['dropped_field']);
});

test('a generate request is a system and a user message for other formats', () => {
  const body = readJson(join(GENERATE, 'request', 'ollama-docs--generate--request_with_images.json'));
  const { ir } = decodeRequest('ollama', body);
  assert.is(ir.messages.at(-1)?.role, 'user');
  const image = ir.messages.at(-1)?.parts.find((part): part is ImagePart => part.type === 'image');
  assert.is(image?.source.kind === 'base64' && image.source.mediaType, 'image/png');
  const anthropic = convertRequest(body, { from: 'ollama', to: 'anthropic' }).body as { messages: { content: { type: string }[] }[] };
  assert.ok(anthropic.messages[0]?.content.some((block) => block.type === 'image'));
});

test('images: bare base64 with the media type sniffed from the first bytes, and back as bare base64', () => {
  const body = readJson(join(CORPUS_DIR, 'ollama', 'request', 'ollama-docs--chat--chat_request_with_images.json')) as { messages: { images: string[] }[] };
  const chat = convertRequest(body, { from: 'ollama', to: 'openai-chat' }).body as { messages: { content: { type: string; image_url?: { url: string } }[] }[] };
  const url = chat.messages[0]?.content.find((part) => part.type === 'image_url')?.image_url?.url ?? '';
  assert.ok(url.startsWith('data:image/png;base64,iVBORw0KGgo'), url.slice(0, 40));
  const back = convertRequest(chat, { from: 'openai-chat', to: 'ollama' }).body as { messages: { images: string[] }[] };
  assert.equal(back.messages[0]?.images, body.messages[0]?.images);
});

test('tool calls get deterministic ids; id-less results pair with the earliest unanswered call of their name', () => {
  const body = {
    model: 'llama3.2',
    stream: false,
    messages: [
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }, { function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] },
      { role: 'tool', content: '18°C', tool_name: 'get_weather' },
      { role: 'tool', content: '4°C', tool_name: 'get_weather' },
    ],
  };
  const first = decodeRequest('ollama', body).ir;
  const second = decodeRequest('ollama', body).ir;
  assert.equal(first, second, 'same input, same ids');
  const calls = first.messages.flatMap((message) => message.parts).filter((part): part is ToolCallPart => part.type === 'tool_call');
  const results = first.messages.flatMap((message) => message.parts).filter((part): part is ToolResultPart => part.type === 'tool_result');
  assert.equal(calls.map((call) => call.id), ['call_ollama_1_0', 'call_ollama_1_1']);
  assert.equal(results.map((result) => result.callId), ['call_ollama_1_0', 'call_ollama_1_1']);
  assert.ok(calls.every((call) => call.syntheticId === true));
  const anthropic = convertRequest(body, { from: 'ollama', to: 'anthropic' });
  assert.ok(anthropic.losses.some((loss) => loss.code === 'synthesised_id'), 'formats that need ids report the synthesised ones');
  // Back to Ollama: no ids are invented on the wire.
  assert.equal(convertRequest(anthropic.body, { from: 'anthropic', to: 'ollama' }).body, { ...body, options: { num_predict: 4096 } });
});

test('stream defaults to true: a request without it streams elsewhere, and a request that does not stream says stream:false', () => {
  const body = { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] };
  assert.is(decodeRequest('ollama', body).ir.stream, true);
  assert.is((convertRequest(body, { from: 'ollama', to: 'openai-chat' }).body as { stream?: boolean }).stream, true);
  const chat = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };
  assert.is((convertRequest(chat, { from: 'openai-chat', to: 'ollama' }).body as { stream?: boolean }).stream, false);
});

test('thinking, think levels, format, options and keep_alive', () => {
  const body = { model: 'qwen3', messages: [{ role: 'user', content: 'hi' }], think: 'high', format: 'json', keep_alive: '5m', options: { num_ctx: 8192, temperature: 0.2, num_predict: 64 }, stream: false };
  const { ir } = decodeRequest('ollama', body);
  assert.equal(ir.reasoning, { effort: 'high' });
  assert.equal(ir.output, { type: 'json' });
  assert.equal(ir.generation, { temperature: 0.2, maxTokens: 64 });
  const chat = convertRequest(body, { from: 'ollama', to: 'openai-chat' });
  assert.equal((chat.body as { reasoning_effort?: string }).reasoning_effort, 'high');
  assert.equal(chat.losses.map((loss) => loss.message).filter((message) => /keep_alive|options/.test(message)).length, 2, 'keep_alive and num_ctx are reported');
  const response = { model: 'qwen3', created_at: '2025-06-01T10:00:00.5Z', message: { role: 'assistant', content: 'Hello', thinking: 'The user greets me.' }, done: true, done_reason: 'stop' };
  const decoded = decodeResponse('ollama', response).ir;
  assert.equal(decoded.candidates[0]?.message.parts.map((part) => part.type), ['reasoning', 'text']);
  assert.is(decoded.created, 1748772000);
});

test('detection: by path, by response shape, by request fields; a plain messages body stays uncertain', () => {
  assert.equal(detectFormat({ model: 'm', messages: [] }, { path: '/api/chat' }), { format: 'ollama', kind: 'request', certain: true });
  assert.equal(detectFormat({ model: 'm', prompt: 'hi' }), { format: 'ollama', kind: 'request', certain: true });
  assert.equal(detectFormat(readJson(join(CORPUS_DIR, 'ollama', 'response', 'ollama-docs--chat--chat_request_with_tools.json'))), { format: 'ollama', kind: 'response', certain: true });
  // Every recorded request with an Ollama-only field (options, format, think, keep_alive, images, tool_name) is found;
  // the rest are bodies OpenAI Chat accepts as they are.
  for (const file of corpusDirectory('ollama', 'request')) {
    const body = readJson(join(CORPUS_DIR, 'ollama', 'request', file)) as Record<string, unknown>;
    const own = ['options', 'format', 'think', 'keep_alive'].some((key) => key in body) || JSON.stringify(body).includes('"images"') || JSON.stringify(body).includes('"tool_name"');
    if (own) assert.is(detectFormat(body)?.format, 'ollama', file);
  }
  assert.equal(detectFormat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], options: { temperature: 0 } })?.format, 'ollama');
  assert.equal(detectFormat({ model: 'm', messages: [{ role: 'user', content: 'hi', images: ['iVBORw0KGgo='] }] })?.format, 'ollama');
  assert.is(detectFormat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })?.certain, false);
  assert.equal(detectFormat({ error: 'model not found' }), { format: 'ollama', kind: 'error', certain: false });
});

test('normalize: an Ollama exchange with an NDJSON stream is reassembled into one record', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-ollama-'));
  const stream = readFileSync(join(CORPUS_DIR, 'ollama', 'stream', 'langchaingo--TestWithThink.ndjson'), 'utf8');
  const request = readJson(join(CORPUS_DIR, 'ollama', 'request', 'langchaingo--TestWithThink.json'));
  const lines = [
    { url: 'http://localhost:11434/api/chat', request: { body: request }, response: { status: 200, headers: [{ name: 'content-type', value: 'application/x-ndjson' }], body: stream } },
    // No URL and no content type: the bodies tell.
    { request: { body: request }, response: { status: 200, body: stream } },
    { url: 'http://localhost:11434/api/chat', request: { body: request }, response: { status: 404, body: { error: "model 'x' not found" } } },
  ];
  const input = join(dir, 'ollama.jsonl');
  writeFileSync(input, lines.map((line) => JSON.stringify(line)).join('\n'));
  const summary = await normalizeFiles({ inputs: [input], outDir: join(dir, 'out') });
  assert.equal([summary.read, summary.written, summary.errored], [3, 3, 0]);
  const records = readFileSync(join(dir, 'out', 'records.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as NormalizedRecord);
  const whole = accumulate(decodeEvents('ollama', await wireEvents({ format: 'ollama', name: 'think', file: join(CORPUS_DIR, 'ollama', 'stream', 'langchaingo--TestWithThink.ndjson'), framing: 'ndjson' })).events).response;
  for (const record of records.slice(0, 2)) {
    assert.is(record.format, 'ollama');
    assert.is(record.stream, true);
    assert.equal(record.response, JSON.parse(JSON.stringify(whole)));
  }
  assert.is(records[1]?.formatEvidence, 'body');
  assert.is(records[2]?.error === undefined ? undefined : (records[2].error as { message: string }).message, "model 'x' not found");
});

test('cli: convert an NDJSON stream to SSE and back', () => {
  const bin = join(REPO_ROOT, 'bin', 'interlingua.js');
  const file = join(CORPUS_DIR, 'ollama', 'stream', 'langchaingo--TestWithStreaming.ndjson');
  const toChat = spawnSync(process.execPath, [bin, 'convert', '--kind', 'stream', '--from', 'ollama', '--to', 'openai-chat', file], { encoding: 'utf8' });
  assert.is(toChat.status, 0, toChat.stderr);
  assert.match(toChat.stdout, /^data: \{/);
  assert.match(toChat.stdout, 'data: [DONE]');
  const back = spawnSync(process.execPath, [bin, 'convert', '--kind', 'stream', '--from', 'openai-chat', '--to', 'ollama', '-'], { encoding: 'utf8', input: toChat.stdout });
  assert.is(back.status, 0, back.stderr);
  const lines = back.stdout.trim().split('\n').map((line) => JSON.parse(line) as { done: boolean; message?: { content: string } });
  assert.is(lines.at(-1)?.done, true);
  const text = (source: string) => source.trim().split('\n').map((line) => (JSON.parse(line) as { message?: { content?: string } }).message?.content ?? '').join('');
  assert.is(text(back.stdout), text(readFileSync(file, 'utf8')));
  const detect = spawnSync(process.execPath, [bin, 'detect', join(CORPUS_DIR, 'ollama', 'response', 'ollama-docs--chat--chat_request_no_streaming.json')], { encoding: 'utf8' });
  assert.match(detect.stdout, 'ollama');
});

test.run();

const generate = suite('ollama: /api/generate through the proxy');

for (const stream of [false, true]) {
  generate(`the ollama client's generate() against an Anthropic upstream${stream ? ', streamed' : ''}`, async () => {
    const upstream = await startUpstream('anthropic');
    upstream.behaviour = { kind: 'answer', body: readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', 'anthropic.response.json')) };
    const handler = createProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'claude-test' } });
    const server = await serve(handler, { port: 0 });
    try {
      const client = new Ollama({ host: `http://127.0.0.1:${portOf(server)}` });
      let text = '';
      if (stream) {
        let done = false;
        for await (const part of await client.generate({ model: 'llama3.2', prompt: 'Say hello in French.', system: 'Be brief.', stream: true })) {
          text += part.response;
          done ||= part.done;
        }
        assert.ok(done, 'the last line says done');
      } else {
        const response = await client.generate({ model: 'llama3.2', prompt: 'Say hello in French.', system: 'Be brief.', stream: false });
        text = response.response ?? '';
        assert.is(response.done, true);
      }
      assert.is(text, 'Bonjour !');
      const sent = upstream.received[0]?.body as { system?: unknown; messages?: { content: unknown }[] };
      assert.equal(sent.system, 'Be brief.');
      assert.equal(sent.messages?.[0]?.content, 'Say hello in French.');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
    }
  });
}

generate('a generate body to an Ollama upstream passes through to /api/generate', async () => {
  const upstream = await startUpstream('ollama');
  upstream.behaviour = { kind: 'answer', body: readJson(join(GENERATE, 'response', 'ollama-docs--generate--request_no_streaming.json')) };
  const handler = createProxy({ upstream: { format: 'ollama', baseUrl: upstream.url } });
  const server = await serve(handler, { port: 0 });
  try {
    const client = new Ollama({ host: `http://127.0.0.1:${portOf(server)}` });
    const response = await client.generate({ model: 'llama3.2', prompt: 'Why is the sky blue?', stream: false });
    assert.ok((response.response ?? '').length > 0);
    assert.is(upstream.received[0]?.url, '/api/generate');
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await upstream.close();
  }
});

generate.run();

const cliServe = suite('ollama: interlingua serve --upstream ollama');

cliServe('the Anthropic SDK through `interlingua serve` to a fake Ollama upstream, whole and streamed', async () => {
  const upstream = await startUpstream('ollama');
  upstream.behaviour = { kind: 'answer', body: readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', 'ollama.response.json')) };
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'interlingua.js'), 'serve', '--upstream', 'ollama', '--upstream-url', upstream.url, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /listening on (http:\/\/[^ ]+)/.exec(text);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${text}`)));
    });
    const client = new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 });
    const params = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello in French.' }] };
    const whole = await client.messages.create(params);
    assert.is(whole.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), 'Bonjour !');
    const streamed = await client.messages.stream(params).finalMessage();
    assert.is(streamed.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), 'Bonjour !');
    assert.equal(upstream.received.map((request) => [request.url, request.body['stream']]), [['/api/chat', false], ['/api/chat', true]]);
  } finally {
    child.kill();
    await upstream.close();
  }
});

cliServe.run();
