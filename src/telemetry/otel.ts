/**
 * Spans and metrics through the OpenTelemetry API (`@opentelemetry/api`),
 * following the GenAI semantic conventions: one span per caller request
 * (kind SERVER, or INTERNAL under an application's own span) with a child
 * span per upstream attempt (kind CLIENT), and
 * the client metrics `gen_ai.client.operation.duration`,
 * `gen_ai.client.token.usage` and `gen_ai.client.operation.time_to_first_chunk`.
 * A library user's own SDK picks them up; with none registered the API is a
 * no-op, and so is this sink: the request's span is a non-recording one and
 * nothing else is built. The request's span starts as the request comes in
 * (under the caller's `traceparent`, through the registered propagator, or
 * the context active then), so its context goes upstream; its attributes
 * and the attempts' spans are made when the request has ended (a stream at
 * its last byte), with the times they had.
 */
import { context, createNoopMeter, isSpanContextValid, metrics, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, ValueType, type Attributes, type Context, type Histogram, type MeterProvider, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import type { AttemptRecord, HeaderLookup, RequestRecord, TelemetrySink } from './record.ts';
import * as semconv from './semconv.ts';
import { inputMessages, outputMessages } from './content.ts';

/** The instrumentation scope. */
export const SCOPE_NAME = 'interlingua';

interface Instruments {
  duration: Histogram;
  tokens: Histogram;
  firstChunk: Histogram;
}

/** The instruments of the global meter provider, made again when another provider is registered; none while it is the no-op one. */
function instrumentsCache(): () => Instruments | undefined {
  let provider: MeterProvider | undefined;
  let instruments: Instruments | undefined;
  const noop = createNoopMeter();
  return () => {
    const current = metrics.getMeterProvider();
    if (current === provider) return instruments;
    provider = current;
    const meter = current.getMeter(SCOPE_NAME);
    instruments =
      meter === noop
        ? undefined
        : {
            duration: meter.createHistogram(semconv.METRIC_OPERATION_DURATION, { description: 'GenAI operation duration.', unit: 's', advice: { explicitBucketBoundaries: [...semconv.DURATION_BUCKETS] } }),
            tokens: meter.createHistogram(semconv.METRIC_TOKEN_USAGE, { description: 'Number of input and output tokens used.', unit: '{token}', valueType: ValueType.INT, advice: { explicitBucketBoundaries: [...semconv.TOKEN_BUCKETS] } }),
            firstChunk: meter.createHistogram(semconv.METRIC_TIME_TO_FIRST_CHUNK, { description: 'Time to receive the first chunk of a streamed answer.', unit: 's', advice: { explicitBucketBoundaries: [...semconv.FIRST_CHUNK_BUCKETS] } }),
          };
    return instruments;
  };
}

/** The `host` and `port` of an upstream's `server` (`host:port`, `[v6]:port`). */
function serverAttributes(server: string | undefined, attributes: Attributes): void {
  if (server === undefined) return;
  const colon = server.lastIndexOf(':');
  if (colon <= 0 || server.endsWith(']')) {
    attributes[semconv.ATTR_SERVER_ADDRESS] = server;
    return;
  }
  attributes[semconv.ATTR_SERVER_ADDRESS] = server.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(server.slice(colon + 1));
  if (Number.isInteger(port)) attributes[semconv.ATTR_SERVER_PORT] = port;
}

/** What the answer said (model, usage, stop reasons), on the span of the request or of the attempt that answered. */
function answerAttributes(record: RequestRecord, attributes: Attributes): void {
  if (record.responseModel !== undefined) attributes[semconv.ATTR_RESPONSE_MODEL] = record.responseModel;
  const usage = record.usage;
  if (usage?.inputTokens !== undefined) attributes[semconv.ATTR_USAGE_INPUT_TOKENS] = usage.inputTokens;
  if (usage?.outputTokens !== undefined) attributes[semconv.ATTR_USAGE_OUTPUT_TOKENS] = usage.outputTokens;
  if (usage?.cachedTokens !== undefined) attributes[semconv.ATTR_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cachedTokens;
  if (usage?.reasoningTokens !== undefined) attributes[semconv.ATTR_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
  if (record.finishReasons !== undefined && record.finishReasons.length > 0) attributes[semconv.ATTR_RESPONSE_FINISH_REASONS] = record.finishReasons;
}

/** The captured messages (opted in): the request's on every attempt, the answer's on the one that answered. */
function contentAttributes(record: RequestRecord, attributes: Attributes, answered: boolean): void {
  const content = record.content!;
  if (content.request !== undefined) {
    const input = inputMessages(content.request);
    attributes[semconv.ATTR_INPUT_MESSAGES] = input.messages;
    if (input.system !== undefined) attributes[semconv.ATTR_SYSTEM_INSTRUCTIONS] = input.system;
  }
  if (!answered) return;
  const output = outputMessages(content);
  if (output !== undefined) attributes[semconv.ATTR_OUTPUT_MESSAGES] = output;
}

/** The attempts of a record: the gateway's, or the one call of the one-upstream proxy (none when the request never reached an upstream). */
function attemptsOf(record: RequestRecord): readonly AttemptRecord[] {
  return record.attempts ?? [];
}

function attemptSpan(tracer: Tracer, parent: Context, record: RequestRecord, attempt: AttemptRecord, answered: boolean): void {
  const operation = record.operation ?? 'chat';
  const model = attempt.model ?? record.upstreamModel ?? record.model;
  const attributes: Attributes = {
    [semconv.ATTR_OPERATION_NAME]: operation,
    [semconv.ATTR_PROVIDER_NAME]: semconv.providerName(attempt.format ?? record.upstream, attempt.dialect),
  };
  // The one-upstream proxy names its upstream by its format, which the provider name says already (every attribute costs the SDK a check and a copy).
  if (attempt.upstream !== attempt.format) attributes['interlingua.upstream'] = attempt.upstream;
  if (model !== undefined) attributes[semconv.ATTR_REQUEST_MODEL] = model;
  serverAttributes(attempt.server, attributes);
  if (attempt.status !== undefined && attempt.status > 0) attributes[semconv.ATTR_HTTP_STATUS] = attempt.status;
  if (attempt.upstreamRequestId !== undefined) attributes['interlingua.upstream_request_id'] = attempt.upstreamRequestId;
  if (attempt.failure !== undefined) attributes['interlingua.failure'] = attempt.failure;
  if (attempt.retryDelayMs !== undefined) attributes['interlingua.retry_delay_ms'] = attempt.retryDelayMs;
  if (answered) answerAttributes(record, attributes);
  if (record.content !== undefined) contentAttributes(record, attributes, answered);
  const failed = attempt.error !== undefined || (attempt.status !== undefined && (attempt.status === 0 || attempt.status >= 400)) || (answered && record.streamError === true);
  if (failed) attributes[semconv.ATTR_ERROR_TYPE] = attempt.status !== undefined && attempt.status > 0 && attempt.status >= 400 ? String(attempt.status) : answered && record.streamError === true ? 'stream_error' : 'connection_error';
  const start = record.startedAt + (attempt.startMs ?? 0);
  const span = tracer.startSpan(model === undefined ? operation : `${operation} ${model}`, { kind: SpanKind.CLIENT, startTime: start, attributes }, parent);
  if (failed) span.setStatus(attempt.error === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: attempt.error });
  span.end(start + (attempt.durationMs ?? record.durationMs - (attempt.startMs ?? 0)));
}

/** Reads a request's headers for `propagation.extract`. */
const HEADER_GETTER: TextMapGetter<HeaderLookup> = {
  get: (header, key) => header(key) ?? undefined,
  keys: () => ['traceparent', 'tracestate', 'baggage'],
};

/**
 * The request's span, started as it comes in (so its context can go
 * upstream in `traceparent`), under the caller's trace context when it sent
 * one and a propagator is registered, else under the active context.
 */
function startRequestSpan(tracer: Tracer, startedAt: number, header: HeaderLookup | undefined, under: Context = context.active()): Span {
  const parent = header !== undefined && header('traceparent') !== null ? propagation.extract(under, header, HEADER_GETTER) : under;
  // Under a span of the application's own (its HTTP server's, say) the request is a step of that one, not a second server span; under a remote caller's, it is the server.
  const local = trace.getSpanContext(parent);
  const kind = local === undefined || local.isRemote === true ? SpanKind.SERVER : SpanKind.INTERNAL;
  return tracer.startSpan(REQUEST_SPAN_NAME, { kind, startTime: startedAt }, parent);
}

/** The request span's name until its end says what the request was. */
const REQUEST_SPAN_NAME = 'interlingua.request';

/** What `begin` returned: the request's span, or (from a caller of `record` alone) the context to make it under. */
function isSpan(begun: unknown): begun is Span {
  return typeof begun === 'object' && begun !== null && typeof (begun as Span).spanContext === 'function';
}

function requestSpanName(record: RequestRecord): string {
  const operation = record.operation;
  return operation === undefined ? `${record.method} ${record.path}` : record.model === undefined ? operation : `${operation} ${record.model}`;
}

/**
 * The request span's attributes: what the caller asked and got, and what
 * only the request knows (its id, formats, losses); the answer's model,
 * usage and stop reasons are on the attempt that answered, the inference
 * span of the conventions (or here, when no attempt was made).
 */
function requestAttributes(record: RequestRecord, attempted: boolean): Attributes {
  const attributes: Attributes = {
    [semconv.ATTR_HTTP_METHOD]: record.method,
    [semconv.ATTR_HTTP_ROUTE]: record.path,
    [semconv.ATTR_HTTP_STATUS]: record.status,
    'interlingua.request_id': record.requestId,
  };
  if (record.losses > 0) attributes['interlingua.losses'] = record.losses;
  if (record.operation !== undefined) attributes[semconv.ATTR_OPERATION_NAME] = record.operation;
  if (record.model !== undefined) attributes[semconv.ATTR_REQUEST_MODEL] = record.model;
  if (record.ingress !== undefined) attributes['interlingua.ingress.format'] = record.ingress;
  if (record.route !== undefined) attributes['interlingua.route'] = record.route;
  if (record.lossCodes !== undefined && record.lossCodes.length > 0) attributes['interlingua.loss_codes'] = record.lossCodes;
  if (!attempted) answerAttributes(record, attributes);
  const error = semconv.errorType(record.status, record.streamError);
  if (error !== undefined) attributes[semconv.ATTR_ERROR_TYPE] = error;
  return attributes;
}

/** The attribute sets of one series' points: made once per operation, provider, model and error, not per request. */
interface PointAttributes {
  duration: Attributes;
  firstChunk: Attributes;
  input: Attributes;
  output: Attributes;
}

/** The most attribute sets kept; past it (models callers make up) each request makes its own, so the cache cannot grow without bound. */
const MAX_ATTRIBUTE_SETS = 1000;

function pointAttributes(operation: string, provider: string, model: string, error: string | undefined): PointAttributes {
  const base = { [semconv.ATTR_OPERATION_NAME]: operation, [semconv.ATTR_PROVIDER_NAME]: provider, [semconv.ATTR_REQUEST_MODEL]: model };
  return {
    duration: error === undefined ? base : { ...base, [semconv.ATTR_ERROR_TYPE]: error },
    firstChunk: base,
    input: { ...base, [semconv.ATTR_TOKEN_TYPE]: 'input' },
    output: { ...base, [semconv.ATTR_TOKEN_TYPE]: 'output' },
  };
}

/** The attribute sets of a request's points, from the cache. */
function attributeCache(): (operation: string, provider: string, model: string, error: string | undefined) => PointAttributes {
  const sets = new Map<string, PointAttributes>();
  return (operation, provider, model, error) => {
    const key = `${operation}\u0000${provider}\u0000${model}\u0000${error ?? ''}`;
    let found = sets.get(key);
    if (found === undefined) {
      found = pointAttributes(operation, provider, model, error);
      if (sets.size < MAX_ATTRIBUTE_SETS) sets.set(key, found);
    }
    return found;
  };
}

function recordMetrics(instruments: Instruments, attributesOf: ReturnType<typeof attributeCache>, record: RequestRecord): void {
  if (record.operation === undefined) return;
  const answered = record.attempts?.at(-1);
  // The conventions' required and conditionally required attributes (each point's attribute set is hashed: no more than these).
  const provider = semconv.providerName(answered?.format ?? record.upstream, answered?.dialect);
  const error = semconv.errorType(record.status, record.streamError);
  const attributes = attributesOf(record.operation, provider, record.upstreamModel ?? record.model ?? '', error);
  instruments.duration.record(record.durationMs / 1000, attributes.duration);
  if (record.stream && record.firstByteMs !== undefined && error === undefined) instruments.firstChunk.record(record.firstByteMs / 1000, attributes.firstChunk);
  const usage = record.usage;
  if (usage?.inputTokens !== undefined) instruments.tokens.record(usage.inputTokens, attributes.input);
  if (usage?.outputTokens !== undefined) instruments.tokens.record(usage.outputTokens, attributes.output);
}

/** The OpenTelemetry sink: spans and metrics through the global providers of `@opentelemetry/api`. */
export function createOtelSink(): TelemetrySink {
  const tracer = trace.getTracer(SCOPE_NAME);
  const instruments = instrumentsCache();
  const attributeSets = attributeCache();
  return {
    begin: (startedAt, header) => startRequestSpan(tracer, startedAt, header),
    traceHeaders(begun) {
      if (!isSpan(begun)) return undefined;
      const span = begun.spanContext();
      if (!isSpanContextValid(span)) return undefined;
      // W3C Trace Context written directly (what its propagator writes), without a context and a carrier per request.
      const traceparent = `00-${span.traceId}-${span.spanId}-${span.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
      const tracestate = span.traceState?.serialize();
      return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
    },
    record(record, begun) {
      const span = isSpan(begun) ? begun : startRequestSpan(tracer, record.startedAt, undefined, (begun as Context | undefined) ?? context.active());
      if (span.isRecording()) {
        span.updateName(requestSpanName(record));
        const attempts = attemptsOf(record);
        span.setAttributes(requestAttributes(record, attempts.length > 0));
        const within = trace.setSpan(ROOT_CONTEXT, span);
        for (let index = 0; index < attempts.length; index++) attemptSpan(tracer, within, record, attempts[index]!, index === attempts.length - 1 && record.status < 400);
        if (semconv.errorType(record.status, record.streamError) !== undefined) span.setStatus(record.error === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: record.error });
      }
      span.end(record.startedAt + record.durationMs);
      const current = instruments();
      if (current !== undefined) recordMetrics(current, attributeSets, record);
    },
  };
}
