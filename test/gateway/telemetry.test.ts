/**
 * What the gateway records of a caller's request with retries and a
 * fallback: one request span with a child span per attempt (its upstream,
 * status, failure and back-off), one log line listing the attempts, one set
 * of metrics, written at the stream's end; and the standalone proxy still
 * records its one call with the same sinks.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createGateway } from '../../src/gateway/gateway.ts';
import { createProxy } from '../../src/proxy/index.ts';
import type { ProxyLogEntry } from '../../src/proxy/exchange.ts';
import { createRequestMetrics, type RequestMetrics } from '../../src/telemetry/request-metrics.ts';
import { createOtelSink } from '../../src/telemetry/otel.ts';
import { combineSinks } from '../../src/telemetry/record.ts';
import { formatTextLine } from '../../src/telemetry/log-line.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { anthropicStream, ANTHROPIC_ANSWER, startScripted, type ScriptedUpstream } from '../support/scripted-upstream.ts';
import { vendorErrorBody } from '../support/fault-upstream.ts';

interface Context {
  primary: ScriptedUpstream;
  secondary: ScriptedUpstream;
  server: Server;
  url: string;
  logs: ProxyLogEntry[];
  metrics: RequestMetrics;
  exporter: InMemorySpanExporter;
  provider: TracerProvider;
}

const test = suite<Context>('gateway telemetry: one record per caller request');

test.before(async (context) => {
  context.exporter = new InMemorySpanExporter();
  context.provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: context.exporter })] });
  trace.setGlobalTracerProvider(context.provider);
  // The primary is always overloaded; the secondary answers whole or streamed, as asked.
  context.primary = await startScripted((_request, response) => {
    response.writeHead(529, { 'content-type': 'application/json', 'request-id': 'req-primary' });
    response.end(JSON.stringify(vendorErrorBody('anthropic', 529, 'Overloaded')));
  });
  context.secondary = await startScripted((request, response) => {
    if (request.body['stream'] !== true) {
      response.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req-secondary' });
      response.end(JSON.stringify(ANTHROPIC_ANSWER));
      return;
    }
    const [head, rest] = anthropicStream(['Hel', 'lo']);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req-secondary' });
    response.write(head);
    setTimeout(() => response.end(rest), 20);
  });
  context.logs = [];
  context.metrics = createRequestMetrics();
  context.server = await serve(
    createGateway({
      upstreams: {
        primary: { format: 'anthropic', url: context.primary.origin, key: 'sk-primary' },
        secondary: { format: 'anthropic', url: context.secondary.origin, key: 'sk-secondary' },
      },
      routes: [{ match: 'claude-*', targets: [{ upstream: 'primary' }, { upstream: 'secondary' }], retry: { attempts: 2, initialDelayMs: 5, maxDelayMs: 50 } }],
      fetch: createNodeFetch(),
      telemetry: combineSinks([context.metrics, createOtelSink()])!,
      log: (entry) => context.logs.push(entry),
    }),
    { port: 0 },
  );
  context.url = `http://127.0.0.1:${portOf(context.server)}`;
});

test.after(async (context) => {
  context.server.closeAllConnections();
  await new Promise<void>((resolve) => context.server.close(() => resolve()));
  await Promise.all([context.primary.close(), context.secondary.close()]);
  trace.disable();
  await context.provider.shutdown();
});

test.before.each((context) => {
  context.logs.length = 0;
  context.exporter.reset();
});

/** Our spans (the Anthropic SDK makes its own). */
const ours = (context: Context) => context.exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'interlingua');

const client = (context: Context) => new Anthropic({ apiKey: 'caller', baseURL: context.url, maxRetries: 0 });

test('a streamed answer after two overloaded attempts: one span over three attempt spans, one line at the stream’s end, one count', async (context) => {
  const stream = client(context).messages.stream({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  const text: string[] = [];
  stream.on('text', (delta) => text.push(delta));
  await stream.finalMessage();
  assert.is(text.join(''), 'Hello');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.is(context.logs.length, 1, 'one log entry for the caller request');
  const entry = context.logs[0]!;
  assert.is(entry.status, 200);
  assert.is(entry.stream, true);
  assert.is(entry.route, 'claude-*');
  assert.is(entry.upstreamName, 'secondary');
  assert.equal(entry.usage, { inputTokens: 16, cachedTokens: 4, outputTokens: 7 });
  assert.equal(
    entry.attempts?.map((attempt) => [attempt.upstream, attempt.status, attempt.failure, attempt.upstreamRequestId, attempt.retryDelayMs !== undefined]),
    [
      ['primary', 529, 'overloaded', 'req-primary', true],
      ['primary', 529, 'overloaded', 'req-primary', false],
      ['secondary', 200, undefined, 'req-secondary', false],
    ],
  );
  assert.ok((entry.firstByteMs ?? -1) >= 0);
  assert.ok(entry.durationMs >= (entry.firstByteMs ?? 0), 'the duration runs to the stream’s end');
  assert.match(formatTextLine('T', entry), / attempts=primary:529:\d+ms,primary:529:\d+ms,secondary:200:\d+ms /);
  const spans = ours(context);
  const servers = spans.filter((span) => span.kind === 1);
  const clients = spans.filter((span) => span.kind === 2);
  assert.is(servers.length, 1, 'one request span');
  assert.is(clients.length, 3, 'a span per attempt');
  const parent = servers[0]!;
  assert.is(parent.attributes['interlingua.request_id'], entry.requestId);
  for (const child of clients) assert.is(child.parentSpanContext?.spanId, parent.spanContext().spanId);
  assert.equal(
    clients.map((span) => [span.attributes['interlingua.upstream'], span.attributes['http.response.status_code'], span.attributes['interlingua.failure'], span.attributes['error.type']]),
    [
      ['primary', 529, 'overloaded', '529'],
      ['primary', 529, 'overloaded', '529'],
      ['secondary', 200, undefined, undefined],
    ],
  );
  assert.type(clients[0]!.attributes['interlingua.retry_delay_ms'], 'number');
  assert.is(clients[2]!.attributes['gen_ai.usage.output_tokens'], 7);
  const rendered = context.metrics.render();
  assert.match(rendered, 'interlingua_requests_total{ingress="anthropic",upstream="anthropic",status="200"} 1\n');
  assert.not.match(rendered, 'status="529"', 'failed attempts are no requests of their own');
});

test('a whole answer: the same, and the caller’s request id on every attempt and in the answer', async (context) => {
  const response = await fetch(`${context.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'caller', 'anthropic-version': '2023-06-01', 'x-request-id': 'caller-id-7' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.is(response.status, 200);
  assert.is(response.headers.get('x-request-id'), 'caller-id-7');
  await response.json();
  assert.is(context.logs.length, 1);
  assert.is(context.logs[0]!.requestId, 'caller-id-7');
  assert.is(context.logs[0]!.attempts?.length, 3);
  assert.is(ours(context).filter((span) => span.kind === 1).length, 1);
});

test('every attempt failing: one line and one span, with the gateway’s error and every attempt', async (context) => {
  const failing = await serve(
    createGateway({
      upstreams: { primary: { format: 'anthropic', url: context.primary.origin, key: 'sk-primary' } },
      routes: [{ match: '*', targets: [{ upstream: 'primary' }], retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 } }],
      fetch: createNodeFetch(),
      telemetry: createOtelSink(),
      log: (entry) => context.logs.push(entry),
    }),
    { port: 0 },
  );
  try {
    const error = await client({ ...context, url: `http://127.0.0.1:${portOf(failing)}` })
      .messages.create({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    assert.instance(error, Anthropic.APIError);
    assert.is(context.logs.length, 1);
    assert.is(context.logs[0]!.status, 529);
    assert.match(context.logs[0]!.error ?? '', '(interlingua tried: primary 529 overloaded, primary 529 overloaded)');
    const spans = ours(context);
    assert.is(spans.filter((span) => span.kind === 1).length, 1);
    assert.is(spans.filter((span) => span.kind === 2).length, 2);
  } finally {
    failing.closeAllConnections();
    await new Promise<void>((resolve) => failing.close(() => resolve()));
  }
});

test('the standalone proxy records its one call with the same sinks', async (context) => {
  const logs: ProxyLogEntry[] = [];
  const proxy = await serve(createProxy({ upstream: { format: 'anthropic', baseUrl: context.secondary.origin, apiKey: 'sk' }, fetch: createNodeFetch(), telemetry: createOtelSink(), log: (entry) => logs.push(entry) }), { port: 0 });
  try {
    const message = await client({ ...context, url: `http://127.0.0.1:${portOf(proxy)}` }).messages.create({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    assert.is(message.content[0]?.type, 'text');
    assert.is(logs.length, 1);
    assert.equal(logs[0]!.attempts?.map((attempt) => [attempt.upstream, attempt.status]), [['anthropic', 200]]);
    const spans = ours(context);
    assert.equal(spans.map((span) => span.kind).sort(), [1, 2]);
  } finally {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  }
});

test.run();
