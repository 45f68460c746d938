/**
 * What the proxy logs of each request (issue 40 item 4; issue 37's stream
 * losses): request ids, the upstream's own id, streams measured to their end,
 * a stream's error event, tokens whole and streamed, every loss's code, a
 * stream's own losses; and escaped log lines (issue 38 item 12). The proxy
 * runs on the Node adapter on 127.0.0.1 in front of scripted vendors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertStream } from '../../src/formats/stream.ts';
import type { FormatId } from '../../src/core/ir.ts';
import type { ProxyConfig, ProxyLogEntry } from '../../src/proxy/index.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { formatJsonLine, formatTextLine, logValue } from '../../src/telemetry/log-line.ts';
import { withProxy } from '../support/proxy-server.ts';
import { GOLDEN_DIR } from '../support/fixtures.ts';
import { ANTHROPIC_ANSWER, anthropicStream, startScripted, type Script } from '../support/scripted-upstream.ts';

const CHAT_BODY = { model: 'gpt-caller', messages: [{ role: 'user', content: 'hi' }] };
const ANTHROPIC_BODY = { model: 'claude-caller', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };

/** The proxy in front of a scripted upstream of `format`, every request's log entry collected. */
async function logged(format: FormatId, script: Script, run: (url: string, entries: ProxyLogEntry[]) => Promise<void>, extra: Partial<ProxyConfig> = {}): Promise<void> {
  const upstream = await startScripted(script);
  const entries: ProxyLogEntry[] = [];
  try {
    const baseUrl = format === 'openai-chat' || format === 'openai-responses' ? `${upstream.origin}/v1` : upstream.origin;
    await withProxy({ upstream: { format, baseUrl, apiKey: 'sk-upstream-secret' }, fetch: createNodeFetch(), log: (entry) => entries.push(entry), ...extra }, (url) => run(url, entries));
  } finally {
    await upstream.close();
  }
}

/** Wait until `entries` has `count` entries (a stream's is written at its end, after the caller read it). */
async function entriesOf(entries: ProxyLogEntry[], count: number): Promise<ProxyLogEntry[]> {
  for (let tries = 0; entries.length < count && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.is(entries.length, count, 'one log entry per request');
  return entries;
}

function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** An Anthropic upstream: whole answers with its `request-id`, streams cut in two with `pauseMs` between (and an error event in place of the rest when `error`). */
function anthropicScript(options: { pauseMs?: number; error?: boolean } = {}): Script {
  return ({ body }, response) => {
    if (body['stream'] !== true) {
      response.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_anthropic_whole' });
      response.end(JSON.stringify(ANTHROPIC_ANSWER));
      return;
    }
    const [first, rest] = anthropicStream(['Hel', 'lo'], { error: options.error === true });
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_anthropic_stream' });
    response.write(first);
    setTimeout(() => response.end(rest), options.pauseMs ?? 0);
  };
}

const ids = suite('request ids');

ids('the caller’s x-request-id is echoed and logged; without one (or with an unusable one) a new id is', async () => {
  await logged('anthropic', anthropicScript(), async (url, entries) => {
    const own = await post(url, '/v1/chat/completions', CHAT_BODY, { 'x-request-id': 'caller-id-42' });
    assert.is(own.status, 200);
    assert.is(own.headers.get('x-request-id'), 'caller-id-42');
    await own.arrayBuffer();
    const none = await post(url, '/v1/chat/completions', CHAT_BODY);
    const fresh = none.headers.get('x-request-id') ?? '';
    assert.match(fresh, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await none.arrayBuffer();
    const spaced = await post(url, '/v1/chat/completions', CHAT_BODY, { 'x-request-id': 'two words' });
    const replaced = spaced.headers.get('x-request-id') ?? '';
    assert.is.not(replaced, 'two words');
    await spaced.arrayBuffer();
    const logs = await entriesOf(entries, 3);
    assert.equal(
      logs.map((entry) => entry.requestId),
      ['caller-id-42', fresh, replaced],
    );
    assert.is.not(fresh, replaced);
  });
});

ids('the upstream’s own request id goes back to the caller and into the log, whole and streamed', async () => {
  await logged('anthropic', anthropicScript(), async (url, entries) => {
    const whole = await post(url, '/v1/chat/completions', CHAT_BODY);
    assert.is(whole.headers.get('x-interlingua-upstream-request-id'), 'req_anthropic_whole');
    await whole.arrayBuffer();
    const streamed = await post(url, '/v1/chat/completions', { ...CHAT_BODY, stream: true });
    assert.is(streamed.headers.get('x-interlingua-upstream-request-id'), 'req_anthropic_stream');
    await streamed.text();
    const logs = await entriesOf(entries, 2);
    assert.equal(
      logs.map((entry) => entry.upstreamRequestId),
      ['req_anthropic_whole', 'req_anthropic_stream'],
    );
    assert.is(logs[0]?.attempts?.[0]?.upstreamRequestId, 'req_anthropic_whole');
  });
});

ids.run();

const streams = suite('streams are logged at their end');

for (const [caller, path, body] of [
  ['openai-chat (converted)', '/v1/chat/completions', CHAT_BODY],
  ['anthropic (passed through)', '/v1/messages', ANTHROPIC_BODY],
] as const) {
  streams(`${caller}: the duration runs to the stream's last byte, the first byte comes before; tokens and stop reason from the stream`, async () => {
    await logged('anthropic', anthropicScript({ pauseMs: 500 }), async (url, entries) => {
      const response = await post(url, path, { ...body, stream: true });
      assert.is(response.status, 200);
      const text = await response.text();
      assert.match(text, 'lo');
      const [entry] = await entriesOf(entries, 1);
      assert.ok(entry !== undefined);
      assert.ok(entry.durationMs >= 480, `duration ${entry.durationMs} ms, the stream took 500 ms`);
      assert.ok(entry.firstByteMs !== undefined && entry.firstByteMs < entry.durationMs - 250, `first byte at ${entry.firstByteMs} ms of ${entry.durationMs}`);
      assert.is(entry.stream, true);
      assert.is(entry.streamError, undefined);
      assert.equal(entry.usage, { inputTokens: 16, cachedTokens: 4, outputTokens: 7 });
      assert.equal(entry.finishReasons, ['end_turn']);
      assert.is(entry.responseModel, 'claude-served');
      assert.match(formatTextLine('T', entry), / stream 200 \d+ms ttfb=\d+ms /);
    });
  });

  streams(`${caller}: a stream that ends with the upstream's error event is logged as such`, async () => {
    await logged('anthropic', anthropicScript({ error: true }), async (url, entries) => {
      const response = await post(url, path, { ...body, stream: true });
      assert.is(response.status, 200);
      await response.text();
      const [entry] = await entriesOf(entries, 1);
      assert.is(entry?.streamError, true);
      assert.match(formatTextLine('T', entry!), / stream_error/);
      assert.match(formatJsonLine('T', entry!), /"stream_error":true/);
    });
  });
}

streams('a whole answer: tokens (cached ones too) and stop reasons, converted and passed back as it came', async () => {
  await logged('anthropic', anthropicScript(), async (url, entries) => {
    await (await post(url, '/v1/chat/completions', CHAT_BODY)).arrayBuffer();
    await (await post(url, '/v1/messages', ANTHROPIC_BODY)).arrayBuffer();
    const logs = await entriesOf(entries, 2);
    for (const entry of logs) {
      assert.equal(entry.usage, { inputTokens: 11, cachedTokens: 2, outputTokens: 3 });
      assert.equal(entry.finishReasons, ['end_turn']);
      assert.is(entry.firstByteMs, entry.durationMs);
    }
    assert.match(formatTextLine('T', logs[0]!), / tokens=in:11,out:3,cached:2 finish=end_turn /);
  });
});

streams.run();

const losses = suite('losses in the log');

const OLLAMA_STREAM = readFileSync(join(GOLDEN_DIR, 'ollama', 'tool-loop', 'stream.ndjson'));

for (const [caller, path, format] of [
  ['openai-chat', '/v1/chat/completions', 'openai-chat'],
  ['openai-responses', '/v1/responses', 'openai-responses'],
  ['bedrock-converse', '/model/m/converse-stream', 'bedrock-converse'],
] as const) {
  losses(`an Ollama stream to ${caller}: the log counts what the stream's whole conversion reports, codes included; the header the request side`, async () => {
    const script: Script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.end(OLLAMA_STREAM);
    };
    const converted = convertStream(new Response(OLLAMA_STREAM).body!, { from: 'ollama', to: format, model: 'llama3.2' });
    await new Response(converted).arrayBuffer();
    const streamCodes = (await converted.losses).map((loss) => loss.code);
    assert.ok(streamCodes.filter((code) => code === 'dropped_field').length >= 4, `the timings are reported: ${streamCodes.join(', ')}`);
    await logged('ollama', script, async (url, entries) => {
      const body = format === 'openai-chat' ? { ...CHAT_BODY, stream: true } : format === 'openai-responses' ? { model: 'gpt-caller', input: 'hi', stream: true } : { messages: [{ role: 'user', content: [{ text: 'hi' }] }] };
      const response = await post(url, path, body);
      assert.is(response.status, 200);
      const requestSide = Number(response.headers.get('x-interlingua-losses'));
      await response.arrayBuffer();
      const [entry] = await entriesOf(entries, 1);
      assert.ok(entry !== undefined);
      assert.is(entry.losses, requestSide + streamCodes.length, `${entry.losses} losses logged: ${requestSide} on the request side and ${streamCodes.length} in the stream`);
      assert.equal([...(entry.lossCodes ?? []).slice(requestSide)].sort(), [...streamCodes].sort());
      assert.match(formatTextLine('T', entry), /loss_codes=\S*dropped_field\*[4-9]/);
    }, { modelMap: { '*': 'llama3.2' } });
  });
}

losses.run();

const escaping = suite('log lines are escaped');

const HOSTILE = 'gpt-5\n2026-12-01T00:00:00.000Z POST /v1/messages anthropic→openai-chat 200 1ms losses=0\u2028\u202e"';

escaping('a value that could end a line or forge one is written as an escaped string, in text and in JSON', () => {
  const entry: ProxyLogEntry = { requestId: 'r1', startedAt: 0, method: 'POST', path: '/v1/messages', ingress: 'anthropic', upstream: 'openai-chat', model: HOSTILE, upstreamModel: HOSTILE, stream: false, status: 200, durationMs: 3, losses: 0, error: `upstream said\r\n${HOSTILE}` };
  const text = formatTextLine('2026-12-01T00:00:00.000Z', entry);
  assert.is(text.split('\n').length, 2, 'one line and its newline');
  assert.not.match(text, /[\r\u2028\u2029\u202e]/);
  assert.match(text, 'model="gpt-5\\n2026');
  const json = formatJsonLine('2026-12-01T00:00:00.000Z', entry);
  assert.is(json.split('\n').length, 2);
  assert.not.match(json, /[\u2028\u2029]/);
  const parsed = JSON.parse(json) as Record<string, unknown>;
  assert.is(parsed['model'], HOSTILE, 'the JSON line reads back as the value');
  assert.is(logValue('llama3.2:latest'), 'llama3.2:latest', 'plain names stay bare');
  assert.is(logValue('two words'), '"two words"');
});

escaping('a hostile model name through the proxy gives one escaped log line, and neither key reaches it', async () => {
  await logged(
    'anthropic',
    (_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key sk-upstream-secret' } }));
    },
    async (url, entries) => {
      const response = await post(url, '/v1/chat/completions', { ...CHAT_BODY, model: HOSTILE }, { authorization: 'Bearer inbound-secret' });
      assert.is(response.status, 401);
      await response.arrayBuffer();
      const [entry] = await entriesOf(entries, 1);
      for (const line of [formatTextLine('T', entry!), formatJsonLine('T', entry!)]) {
        assert.is(line.split('\n').length, 2);
        assert.not.match(line, 'sk-upstream-secret');
        assert.not.match(line, 'inbound-secret');
      }
    },
    { inboundToken: 'inbound-secret' },
  );
});

escaping.run();

const library = suite("a library user's OpenTelemetry SDK");

library('picks up the proxy’s spans through @opentelemetry/api: the request span with its attempt as a child, message content only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT asks; telemetry: false makes none', async () => {
  const { trace } = await import('@opentelemetry/api');
  const { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  try {
    await logged('anthropic', anthropicScript(), async (url, entries) => {
      await (await post(url, '/v1/chat/completions', CHAT_BODY)).arrayBuffer();
      await entriesOf(entries, 1);
    });
    const spans = exporter.getFinishedSpans();
    assert.is(spans.length, 2);
    const request = spans.find((span) => span.kind === 1)!;
    const attempt = spans.find((span) => span.kind === 2)!;
    assert.is(attempt.parentSpanContext?.spanId, request.spanContext().spanId);
    assert.is(request.attributes['gen_ai.request.model'], 'gpt-caller');
    assert.is(attempt.attributes['gen_ai.provider.name'], 'anthropic');
    assert.is(attempt.attributes['gen_ai.usage.input_tokens'], 11);
    assert.is(attempt.attributes['gen_ai.input.messages'], undefined, 'no message content unless asked for');
    assert.is(attempt.attributes['gen_ai.output.messages'], undefined);
    exporter.reset();
    const env = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
    await logged('anthropic', anthropicScript(), async (url, entries) => {
      await (await post(url, '/v1/chat/completions', { ...CHAT_BODY, messages: [{ role: 'system', content: 'Be brief.' }, ...CHAT_BODY.messages] })).arrayBuffer();
      await (await post(url, '/v1/chat/completions', { ...CHAT_BODY, stream: true })).text();
      await entriesOf(entries, 2);
    }, { env });
    const captured = exporter.getFinishedSpans().filter((span) => span.kind === 2);
    assert.is(captured.length, 2);
    for (const span of captured) {
      assert.equal(JSON.parse(String(span.attributes['gen_ai.input.messages'])), [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]);
    }
    assert.equal(JSON.parse(String(captured[0]!.attributes['gen_ai.system_instructions'])), [{ type: 'text', content: 'Be brief.' }]);
    assert.equal(JSON.parse(String(captured[0]!.attributes['gen_ai.output.messages'])), [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'end_turn' }]);
    assert.equal(JSON.parse(String(captured[1]!.attributes['gen_ai.output.messages'])), [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'end_turn' }], 'a stream’s answer, accumulated');
    exporter.reset();
    await logged('anthropic', anthropicScript(), async (url, entries) => {
      await (await post(url, '/v1/chat/completions', CHAT_BODY)).arrayBuffer();
      await entriesOf(entries, 1);
    }, { telemetry: false });
    assert.is(exporter.getFinishedSpans().length, 0);
  } finally {
    trace.disable();
    await provider.shutdown();
  }
});

library.run();
