/**
 * The observer a gateway drives (a request, then an attempt per upstream
 * call): the record it builds reaches the log line, `/metrics` and the
 * spans with every attempt, the failed one marked.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRequestObserver } from '../../src/telemetry/observer.ts';
import { createRequestMetrics } from '../../src/telemetry/request-metrics.ts';
import { createOtelSink } from '../../src/telemetry/otel.ts';
import { combineSinks, type RequestRecord } from '../../src/telemetry/record.ts';
import { formatJsonLine, formatTextLine } from '../../src/telemetry/log-line.ts';

const test = suite('request observer');

test('a fallback: the 529 attempt and the one that answered, in the line, the metrics and the spans', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  try {
    let clock = 1_000;
    const records: RequestRecord[] = [];
    const metrics = createRequestMetrics();
    const observer = createRequestObserver(combineSinks([metrics, createOtelSink(), { record: (record) => records.push(record) }]), () => clock);
    const request = observer.startRequest({ method: 'POST', path: '/v1/messages', ingress: 'anthropic', upstream: 'anthropic', model: 'claude-x', route: 'claude-*', operation: 'chat' });
    const first = request.attempt({ upstream: 'anthropic', format: 'anthropic', model: 'claude-x', server: 'api.anthropic.com:443' });
    clock += 40;
    first.end({ status: 529, error: 'overloaded' });
    const second = request.attempt({ upstream: 'bedrock', format: 'bedrock-converse', model: 'us.anthropic.claude', server: 'bedrock-runtime.us-east-1.amazonaws.com:443' });
    clock += 100;
    second.end({ status: 200, upstreamRequestId: 'amzn-1' });
    request.end({ status: 200, upstreamModel: 'us.anthropic.claude', usage: { inputTokens: 5, outputTokens: 2 }, finishReasons: ['end_turn'], losses: 1, lossCodes: ['dropped_field'] });
    assert.is(records.length, 1);
    const record = records[0]!;
    assert.is(record.durationMs, 140);
    assert.is(record.upstreamRequestId, 'amzn-1');
    assert.equal(
      record.attempts?.map((attempt) => [attempt.upstream, attempt.status, attempt.startMs, attempt.durationMs]),
      [
        ['anthropic', 529, 0, 40],
        ['bedrock', 200, 40, 100],
      ],
    );
    const line = formatTextLine('T', record);
    assert.match(line, ' route=claude-* attempts=anthropic:529:40ms,bedrock:200:100ms upstream_id=amzn-1 ');
    assert.match(line, ' loss_codes=dropped_field');
    assert.equal((JSON.parse(formatJsonLine('T', record)) as { attempts: unknown[] }).attempts.length, 2);
    assert.match(metrics.render(), 'gen_ai_client_token_usage_sum{gen_ai_operation_name="chat",gen_ai_provider_name="aws.bedrock",gen_ai_request_model="us.anthropic.claude",gen_ai_token_type="input"} 5');
    const spans = exporter.getFinishedSpans();
    assert.is(spans.length, 3);
    const [failed, answered] = spans.filter((span) => span.kind === 2);
    assert.is(failed?.attributes['error.type'], '529');
    assert.is(failed?.attributes['gen_ai.provider.name'], 'anthropic');
    assert.is(failed?.attributes['server.address'], 'api.anthropic.com');
    assert.is(answered?.attributes['gen_ai.provider.name'], 'aws.bedrock');
    assert.is(answered?.attributes['gen_ai.usage.output_tokens'], 2);
    assert.is(answered?.attributes['error.type'], undefined);
    const parent = spans.find((span) => span.kind === 1)!;
    assert.is(parent.attributes['interlingua.route'], 'claude-*');
    assert.is(failed?.parentSpanContext?.spanId, parent.spanContext().spanId);
  } finally {
    trace.disable();
    void provider.shutdown();
  }
});

test('under a span of the application’s own, the request span is its INTERNAL child, not a second SERVER span', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  try {
    const outer = trace.getTracer('app').startSpan('POST /llm');
    const sink = createOtelSink();
    const record: RequestRecord = { requestId: 'r', startedAt: Date.now(), method: 'POST', path: '/v1/messages', operation: 'chat', upstream: 'anthropic', stream: false, status: 200, durationMs: 5, losses: 0 };
    sink.record(record, trace.setSpan(ROOT_CONTEXT, outer));
    outer.end();
    const ours = exporter.getFinishedSpans().find((span) => span.name === 'chat');
    assert.is(ours?.kind, 0, 'INTERNAL');
    assert.is(ours?.parentSpanContext?.spanId, outer.spanContext().spanId);
  } finally {
    trace.disable();
    void provider.shutdown();
  }
});

test.run();
