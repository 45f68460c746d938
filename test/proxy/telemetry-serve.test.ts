/**
 * Telemetry of the real `interlingua serve` process (issue 40 items 4 and
 * 5): its OTLP/HTTP export to a receiver on 127.0.0.1 that decodes what it
 * gets (GenAI attributes, a request span with its attempt span, the token
 * and duration metrics), `GET /metrics` parsed as Prometheus text, and its
 * log lines, text and JSON: request ids, a stream's duration to its end, its
 * error event, tokens, loss codes, one escaped line per request, no key.
 * Runs the compiled build (`npm run build` first).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../support/fixtures.ts';
import { startServe as startServeProcess, type ServeProcess } from '../support/serve-process.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedPoint, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { ANTHROPIC_ANSWER, anthropicStream, startScripted, type Script, type ScriptedUpstream } from '../support/scripted-upstream.ts';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');
const KEY = 'sk-ant-telemetry-key-0123456789';
const TOKEN = 'inbound-telemetry-token-9876';
const HOSTILE = 'gpt-5\n2026-12-01T00:00:00.000Z POST /v1/messages anthropic→openai-chat 200 1ms losses=0';

/** `interlingua serve` in front of `upstream`, with the key and inbound token from the environment. */
function startServe(upstream: ScriptedUpstream, args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const flags = ['--upstream', 'anthropic', '--upstream-url', upstream.origin, '--api-key-env', 'TEL_KEY', '--inbound-token-env', 'TEL_TOKEN', '--model-map', '*=claude-mapped'];
  return startServeProcess([...flags, ...args], { TEL_KEY: KEY, TEL_TOKEN: TOKEN, ...env });
}

/** An Anthropic vendor: 529 for the model `fail-me`, streams in two parts 600 ms apart (an error event instead of the rest for `broken`), whole answers otherwise. */
const script: Script = ({ body }, response) => {
  const messages = body['messages'] as { content?: unknown }[] | undefined;
  const said = JSON.stringify(messages?.[0]?.content ?? '');
  if (said.includes('fail-me')) {
    response.writeHead(529, { 'content-type': 'application/json', 'request-id': 'req_overloaded' });
    response.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `Overloaded (key ${KEY})` } }));
    return;
  }
  if (body['stream'] === true) {
    const [first, rest] = anthropicStream(['Hel', 'lo'], { error: said.includes('broken') });
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_stream' });
    response.write(first);
    setTimeout(() => response.end(rest), 600);
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_whole' });
  response.end(JSON.stringify(ANTHROPIC_ANSWER));
};

/** A Chat request to the proxy, with the inbound token. */
async function chat(url: string, content: string, options: { stream?: boolean; model?: string; id?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
  if (options.id !== undefined) headers['x-request-id'] = options.id;
  const body = { model: options.model ?? 'gpt-caller', messages: [{ role: 'user', content }], ...(options.stream === true ? { stream: true, stream_options: { include_usage: true } } : {}) };
  const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response;
}

/** Send the test's four requests: whole, streamed, streamed with an error event, failing upstream. */
async function traffic(url: string): Promise<void> {
  assert.is((await chat(url, 'hello', { id: 'req-whole-1' })).status, 200);
  assert.is((await chat(url, 'hello', { stream: true, id: 'req-stream-1' })).status, 200);
  assert.is((await chat(url, 'broken', { stream: true, id: 'req-broken-1' })).status, 200);
  // Anthropic's 529 (overloaded) reaches a Chat caller as OpenAI's 503.
  assert.is((await chat(url, 'fail-me', { id: 'req-fail-1', model: HOSTILE })).status, 503);
}

async function until(what: string, test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const otlp = suite('serve --otlp-endpoint: spans and metrics to an OTLP/HTTP receiver');
let receiver: OtlpReceiver;
let upstream: ScriptedUpstream;

otlp.before(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startScripted(script);
});
otlp.after(async () => {
  await receiver.close();
  await upstream.close();
});

/** A span's request span (its parent) among `spans`. */
function parentOf(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan | undefined {
  return spans.find((candidate) => candidate.spanId === span.parentSpanId && candidate.traceId === span.traceId);
}

otlp.before.each(() => {
  receiver.spans.length = 0;
  receiver.points.length = 0;
  receiver.contentTypes.length = 0;
});

const EXPORT_ENV = { OTEL_METRIC_EXPORT_INTERVAL: '200', OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'proxy-under-test' };

otlp('GenAI spans, one per request with a child per attempt, and the client metrics, in OTLP/HTTP JSON', () => checkExport({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'application/json'));

otlp('the same in OTLP/HTTP protobuf, the default, decoded from protobuf', () => checkExport({}, 'application/x-protobuf'));

otlp('W3C trace context upstream: the request span’s own, a child of the caller’s, with its tracestate', async () => {
  const serve = await startServe(upstream, ['--otlp-endpoint', receiver.url], EXPORT_ENV);
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  try {
    const response = await fetch(`${serve.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, traceparent: `00-${callerTrace}-${callerSpan}-01`, tracestate: 'vendor=opaque' },
      body: JSON.stringify({ model: 'gpt-caller', messages: [{ role: 'user', content: 'traced' }] }),
    });
    assert.is(response.status, 200);
    await response.arrayBuffer();
    await until('the request span', () => receiver.spans.some((span) => span.kind === 2));
  } finally {
    await serve.stop();
  }
  const sent = upstream.requests.at(-1)!.headers;
  const request = receiver.spans.find((span) => span.kind === 2)!;
  assert.is(request.traceId, callerTrace, 'the request joins the caller’s trace');
  assert.is(request.parentSpanId, callerSpan);
  assert.is(sent['traceparent'], `00-${callerTrace}-${request.spanId}-01`, 'the upstream’s parent is the request span');
  assert.is(sent['tracestate'], 'vendor=opaque');
});

otlp('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is refused at start-up, naming the protocols there are', async () => {
  const child = spawn(process.execPath, [BIN, 'serve', '--upstream', 'anthropic', '--upstream-url', upstream.origin, '--port', '0', '--otlp-endpoint', receiver.url], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  assert.is.not(code, 0);
  assert.match(stderr, 'OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported');
  assert.match(stderr, 'http/protobuf (the default) or http/json');
  assert.not.match(stderr, '    at ', 'no stack trace');
});

async function checkExport(env: Record<string, string>, contentType: string): Promise<void> {
  const serve = await startServe(upstream, ['--otlp-endpoint', receiver.url], { ...EXPORT_ENV, ...env });
  try {
    await traffic(serve.url);
    await until('eight spans', () => receiver.spans.length >= 8);
    await until('token metrics', () => receiver.points.some((point) => point.metric === 'gen_ai.client.token.usage'));
  } finally {
    await serve.stop();
  }
  assert.ok(receiver.contentTypes.length > 0 && receiver.contentTypes.every((type) => type.startsWith(contentType)), receiver.contentTypes.join());
  const spans = receiver.spans;
  const requests = spans.filter((span) => span.kind === 2);
  const attempts = spans.filter((span) => span.kind === 3);
  assert.is(requests.length, 4, 'one SERVER span per request');
  assert.is(attempts.length, 4, 'one CLIENT span per upstream attempt');
  for (const attempt of attempts) {
    const parent = parentOf(attempt, spans);
    assert.ok(parent !== undefined && parent.kind === 2, 'each attempt is a child of its request span');
    assert.ok(attempt.startNs >= parent.startNs && attempt.endNs <= parent.endNs + 1_000_000n, 'within its request');
    assert.is(attempt.attributes['gen_ai.operation.name'], 'chat');
    assert.is(attempt.attributes['gen_ai.provider.name'], 'anthropic');
    assert.is(attempt.attributes['gen_ai.request.model'], 'claude-mapped');
    assert.is(attempt.attributes['server.address'], '127.0.0.1');
    assert.is(attempt.attributes['server.port'], Number(new URL(upstream.origin).port));
    assert.is(attempt.name, 'chat claude-mapped');
    assert.is(attempt.resource['service.name'], 'proxy-under-test');
    assert.is(attempt.scope, 'interlingua');
  }
  const byId = (id: string) => requests.find((span) => span.attributes['interlingua.request_id'] === id)!;
  const whole = byId('req-whole-1');
  assert.is(whole.attributes['gen_ai.operation.name'], 'chat');
  assert.is(whole.attributes['gen_ai.request.model'], 'gpt-caller', 'the request span has the model the caller named');
  assert.is(whole.attributes['http.response.status_code'], 200);
  assert.is(whole.attributes['error.type'], undefined);
  const wholeAttempt = attempts.find((span) => span.parentSpanId === whole.spanId)!;
  assert.is(wholeAttempt.attributes['gen_ai.response.model'], 'claude-served');
  assert.is(wholeAttempt.attributes['gen_ai.usage.input_tokens'], 11);
  assert.is(wholeAttempt.attributes['gen_ai.usage.output_tokens'], 3);
  assert.is(wholeAttempt.attributes['gen_ai.usage.cache_read.input_tokens'], 2);
  assert.equal(wholeAttempt.attributes['gen_ai.response.finish_reasons'], ['end_turn']);
  assert.is(wholeAttempt.attributes['interlingua.upstream_request_id'], 'req_whole');
  assert.is(wholeAttempt.attributes['gen_ai.input.messages'], undefined, 'no message content unless asked for');
  const streamed = byId('req-stream-1');
  const streamedAttempt = attempts.find((span) => span.parentSpanId === streamed.spanId)!;
  assert.is(streamedAttempt.attributes['gen_ai.usage.input_tokens'], 16);
  assert.is(streamedAttempt.attributes['gen_ai.usage.output_tokens'], 7);
  assert.ok(streamed.endNs - streamed.startNs >= 580_000_000n, 'the stream’s span runs to its end');
  const broken = byId('req-broken-1');
  assert.is(broken.attributes['error.type'], 'stream_error');
  assert.is(broken.status?.code, 2);
  const failed = byId('req-fail-1');
  assert.is(failed.attributes['error.type'], '503');
  assert.is(failed.attributes['gen_ai.request.model'], HOSTILE);
  const failedAttempt = attempts.find((span) => span.parentSpanId === failed.spanId)!;
  assert.is(failedAttempt.attributes['error.type'], '529');
  assert.is(failedAttempt.attributes['http.response.status_code'], 529);
  assert.not.match(JSON.stringify(spans, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)), KEY);

  const last = (metric: string, test: (point: ReceivedPoint) => boolean) => receiver.points.filter((point) => point.metric === metric && test(point)).at(-1);
  const input = last('gen_ai.client.token.usage', (point) => point.attributes['gen_ai.token.type'] === 'input');
  const output = last('gen_ai.client.token.usage', (point) => point.attributes['gen_ai.token.type'] === 'output');
  assert.is(input?.kind, 'histogram');
  assert.is(input?.unit, '{token}');
  assert.is(input?.attributes['gen_ai.provider.name'], 'anthropic');
  assert.is(input?.attributes['gen_ai.request.model'], 'claude-mapped');
  // The whole answer, the stream and the broken stream reported usage: 11 + 16 + 16 input, 3 + 7 + 1 output.
  assert.is(input?.sum, 43);
  assert.is(output?.sum, 11);
  const durations = receiver.points.filter((point) => point.metric === 'gen_ai.client.operation.duration');
  const durationCount = (test: (point: ReceivedPoint) => boolean) => durations.filter(test).reduce((max, point) => Math.max(max, point.count ?? 0), 0);
  assert.is(durationCount((point) => point.attributes['error.type'] === undefined), 2);
  assert.is(durationCount((point) => point.attributes['error.type'] === '503'), 1);
  assert.is(durationCount((point) => point.attributes['error.type'] === 'stream_error'), 1);
  assert.is(durations[0]?.unit, 's');
  const firstChunk = last('gen_ai.client.operation.time_to_first_chunk', () => true);
  assert.is(firstChunk?.count, 1, 'time to the first chunk of the one stream that ended well');
  assert.ok((firstChunk?.sum ?? 1) < 0.5, 'the first chunk came before the pause');
}

otlp.run();

/** Prometheus text: every line a comment or a sample `name{labels} value`; the samples by name and label text. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN)$/;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const match = sample.exec(line);
    assert.ok(match !== null, `not a Prometheus sample line: ${JSON.stringify(line)}`);
    const family = match[1]!.replace(/_(bucket|sum|count)$/, '');
    assert.ok(types.has(match[1]!) || types.get(family) === 'histogram', `${match[1]} has a TYPE line`);
    samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[3] === '+Inf' ? Infinity : match[3]));
  }
  return samples;
}

const scrape = suite('GET /metrics and the log lines of serve');
scrape.before(async () => {
  upstream = await startScripted(script);
});
scrape.after(async () => {
  await upstream.close();
});

scrape('/metrics is Prometheus text with the GenAI metrics, behind the inbound token; the text log has one escaped line per request, no key', async () => {
  const serve = await startServe(upstream, []);
  let metrics = '';
  try {
    await traffic(serve.url);
    const denied = await fetch(`${serve.url}/metrics`);
    assert.is(denied.status, 401);
    await denied.arrayBuffer();
    const response = await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.is(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', 'text/plain; version=0.0.4');
    metrics = await response.text();
  } finally {
    await serve.stop();
  }
  const samples = parsePrometheus(metrics);
  const labels = 'gen_ai_operation_name="chat",gen_ai_provider_name="anthropic",gen_ai_request_model="claude-mapped"';
  assert.is(samples.get(`gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="input"}`), 43);
  assert.is(samples.get(`gen_ai_client_token_usage_count{${labels},gen_ai_token_type="output"}`), 3);
  assert.is(samples.get(`gen_ai_client_token_usage_bucket{${labels},gen_ai_token_type="input",le="+Inf"}`), 3);
  assert.is(samples.get(`gen_ai_client_operation_duration_seconds_count{${labels},error_type=""}`), 2);
  assert.is(samples.get(`gen_ai_client_operation_duration_seconds_count{${labels},error_type="503"}`), 1);
  assert.is(samples.get(`gen_ai_client_operation_time_to_first_chunk_seconds_count{${labels}}`), 1);
  assert.is(samples.get('interlingua_requests_total{ingress="openai-chat",upstream="anthropic",status="503"}'), 1);
  assert.is(samples.get('interlingua_stream_errors_total{ingress="openai-chat",upstream="anthropic"}'), 1);
  assert.not.match(metrics, KEY);

  const lines = serve.stderr().split('\n').filter((line) => / POST \/v1\/chat\/completions /.test(line));
  assert.is(lines.length, 4, `one line per request:\n${serve.stderr()}`);
  const [whole, streamed, broken, failed] = lines as [string, string, string, string];
  assert.match(whole, / id=req-whole-1 /);
  assert.match(whole, / upstream_id=req_whole /);
  assert.match(whole, / tokens=in:11,out:3,cached:2 finish=end_turn /);
  assert.match(streamed, / stream 200 (\d+)ms ttfb=\d+ms id=req-stream-1 /);
  assert.ok(Number(/ stream 200 (\d+)ms/.exec(streamed)![1]) >= 580, `the stream is measured to its end: ${streamed}`);
  assert.match(broken, / stream_error/);
  assert.match(failed, / 503 /);
  assert.match(failed, /model="gpt-5\\n2026-12-01T00:00:00\.000Z POST/, 'the hostile model is one escaped value');
  assert.not.match(serve.stderr(), KEY);
  assert.not.match(serve.stderr(), TOKEN);
});

scrape('without export, the caller’s traceparent and tracestate go upstream as they came; a malformed one does not', async () => {
  const serve = await startServe(upstream, []);
  const send = (headers: Record<string, string>) =>
    fetch(`${serve.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers }, body: JSON.stringify({ model: 'gpt-caller', messages: [{ role: 'user', content: 'traced' }] }) }).then((response) => response.arrayBuffer());
  try {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await send({ traceparent, tracestate: 'vendor=opaque' });
    assert.is(upstream.requests.at(-1)!.headers['traceparent'], traceparent);
    assert.is(upstream.requests.at(-1)!.headers['tracestate'], 'vendor=opaque');
    await send({ traceparent: 'not-a-traceparent' });
    assert.is(upstream.requests.at(-1)!.headers['traceparent'], undefined);
    await send({});
    assert.is(upstream.requests.at(-1)!.headers['traceparent'], undefined);
  } finally {
    await serve.stop();
  }
});

scrape('--log-format json: one JSON object per request, with ids, the stream’s end, tokens and loss codes, no key', async () => {
  const serve = await startServe(upstream, ['--log-format', 'json']);
  try {
    await traffic(serve.url);
  } finally {
    await serve.stop();
  }
  const lines = serve.stderr().split('\n').filter((line) => line.startsWith('{'));
  assert.is(lines.length, 4, serve.stderr());
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(
    records.map((record) => record['request_id']),
    ['req-whole-1', 'req-stream-1', 'req-broken-1', 'req-fail-1'],
  );
  const [whole, streamed, broken, failed] = records as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  assert.is(whole['input_tokens'], 11);
  assert.is(whole['cached_tokens'], 2);
  assert.is(whole['upstream_request_id'], 'req_whole');
  assert.ok((streamed['duration_ms'] as number) >= 580);
  assert.ok((streamed['ttfb_ms'] as number) < (streamed['duration_ms'] as number) - 300, `first byte at ${String(streamed['ttfb_ms'])} of ${String(streamed['duration_ms'])} ms`);
  assert.is(streamed['output_tokens'], 7);
  assert.is(broken['stream_error'], true);
  assert.is(failed['status'], 503);
  assert.is(failed['model'], HOSTILE);
  assert.is((failed['attempts'] as { status: number }[])[0]?.status, 529);
  for (const record of records) assert.ok(Array.isArray(record['loss_codes']) || record['losses'] === 0, 'loss codes whenever there are losses');
  assert.not.match(serve.stderr(), KEY);
  assert.not.match(serve.stderr(), TOKEN);
});

scrape.run();
