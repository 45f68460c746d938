/**
 * One request as the telemetry sees it: what the access log writes, what
 * `/metrics` counts and what the OpenTelemetry spans say, filled in by the
 * proxy (and the gateway) as the request goes and handed on once, at its
 * true end (a stream at its last byte). No bodies, no secrets. Web APIs only.
 */
import type { FormatId, Response, Usage } from '../core/ir.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import type { CapturedContent } from './content.ts';

/** The tokens an answer reported, as the GenAI conventions count them: `inputTokens` includes the cached ones, `outputTokens` the reasoning ones. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens read from the prompt cache. */
  cachedTokens?: number;
  /** Output tokens spent on reasoning. */
  reasoningTokens?: number;
}

/** One call to an upstream (the one-upstream proxy makes one; the gateway one per try). */
export interface AttemptRecord {
  /** The upstream's name (the gateway's config name; the format for the one-upstream proxy). */
  upstream: string;
  format?: FormatId;
  /** The upstream's dialect of its format (`deepseek`, `openrouter`…), which names the provider more precisely. */
  dialect?: string;
  /** The model sent upstream. */
  model?: string;
  /** The upstream's `host:port`. */
  server?: string;
  /** When the call started, in ms after the request's start. */
  startMs?: number;
  /** How long the call took, to the end of its answer (a stream to its end). */
  durationMs?: number;
  /** The upstream's HTTP status (0: no answer). */
  status?: number;
  /** Why the attempt failed, when it did (redacted). */
  error?: string;
  /** What failed, in one word (`connect`, `timeout`, `broken`, `cancelled`, or the error type of an HTTP error), when the gateway says. */
  failure?: string;
  /** The upstream's own request id (`x-request-id`, `request-id`, `x-amzn-requestid`). */
  upstreamRequestId?: string;
  /** The back-off waited after this attempt failed, before the next one, in ms (the gateway's). */
  retryDelayMs?: number;
}

/** One request, as logged and measured. */
export interface RequestRecord {
  /** The caller's `x-request-id` when it sent a usable one, else a new one; echoed back in the answer. */
  requestId: string;
  /** When the request came in (ms since the epoch). */
  startedAt: number;
  method: string;
  path: string;
  /** The GenAI operation (`chat`, `text_completion` for Ollama's `/api/generate`, `count_tokens` for a token count); none for a request that is no LLM call. */
  operation?: string;
  ingress?: FormatId;
  upstream: FormatId;
  /** The model the caller named. */
  model?: string;
  /** The model sent upstream, after mapping. */
  upstreamModel?: string;
  /** The model the answer says served it. */
  responseModel?: string;
  /** The gateway's route (its `match` pattern or name), when a gateway routed the request. */
  route?: string;
  /** The upstream calls made, in order. */
  attempts?: AttemptRecord[];
  stream: boolean;
  status: number;
  /** Time to the answer's first byte to the caller. */
  firstByteMs?: number;
  /** Time to the answer's end (a stream's last byte, not its headers). */
  durationMs: number;
  /** The stream ended with an error event (an upstream error mid-stream, a truncated stream, a broken frame). */
  streamError?: boolean;
  usage?: TokenUsage;
  /** The candidates' stop reasons, in the IR's unified names, in the order they came. */
  finishReasons?: string[];
  /** How many losses the conversion reported, request and answer sides (streams included). */
  losses: number;
  /** The code of each loss counted in `losses`, request side first. */
  lossCodes?: string[];
  /** The upstream's own request id of the attempt that answered. */
  upstreamRequestId?: string;
  error?: string;
  /** Message content for the spans, only when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` (never logged). */
  content?: CapturedContent;
}

/** The longest caller request id kept (longer is replaced by a new one). */
const MAX_REQUEST_ID = 200;

/** A caller's request id worth echoing: printable ASCII without spaces, at most {@link MAX_REQUEST_ID} characters. */
const USABLE_ID = /^[\x21-\x7e]{1,200}$/;

/** The request id of a request: the caller's `x-request-id` when usable (it is echoed in a header, so nothing that could split one), else a new UUID. */
export function requestIdOf(header: string | null): string {
  if (header !== null && header.length <= MAX_REQUEST_ID && USABLE_ID.test(header)) return header;
  return crypto.randomUUID();
}

/** The headers in which vendors return their own request id. */
const UPSTREAM_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid'] as const;

/** The upstream's own request id from its answer's headers, when it gave a usable one. */
export function upstreamRequestIdOf(header: (name: string) => string | null): string | undefined {
  for (const name of UPSTREAM_ID_HEADERS) {
    const value = header(name);
    if (value !== null && value.length <= MAX_REQUEST_ID && USABLE_ID.test(value)) return value;
  }
  return undefined;
}

/** The {@link TokenUsage} of IR usage; `undefined` when it counts nothing. */
export function tokenUsageOf(usage: Usage | undefined): TokenUsage | undefined {
  if (usage === undefined) return undefined;
  let tokens: TokenUsage | undefined;
  if (usage.inputTokens !== undefined) (tokens ??= {}).inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) (tokens ??= {}).outputTokens = usage.outputTokens;
  if (usage.cacheReadTokens !== undefined) (tokens ??= {}).cachedTokens = usage.cacheReadTokens;
  if (usage.reasoningTokens !== undefined) (tokens ??= {}).reasoningTokens = usage.reasoningTokens;
  return tokens;
}

/** Note what one stream event says about the answer: its model, usage (cumulative: later numbers replace earlier ones), stop reasons, an error event. */
export function noteStreamEvent(record: RequestRecord, event: StreamEvent): void {
  if (record.content !== undefined) (record.content.events ??= []).push(event);
  switch (event.type) {
    case 'start':
      if (event.model !== undefined) record.responseModel = event.model;
      if (event.usage !== undefined) mergeUsage(record, event.usage);
      return;
    case 'usage':
      mergeUsage(record, event.usage);
      return;
    case 'finish':
      (record.finishReasons ??= []).push(event.stopReason.unified);
      return;
    case 'error':
      record.streamError = true;
      return;
    default:
      return;
  }
}

function mergeUsage(record: RequestRecord, usage: Usage): void {
  const tokens = tokenUsageOf(usage);
  if (tokens !== undefined) record.usage = record.usage === undefined ? tokens : { ...record.usage, ...tokens };
}

/** Note what a whole answer says: its model, usage and stop reasons. */
export function noteResponse(record: RequestRecord, response: Response): void {
  if (record.content !== undefined) record.content.response = response;
  if (response.model !== undefined) record.responseModel = response.model;
  const tokens = tokenUsageOf(response.usage);
  if (tokens !== undefined) record.usage = tokens;
  const reasons: string[] = [];
  for (const candidate of response.candidates) if (candidate.stopReason !== undefined) reasons.push(candidate.stopReason.unified);
  if (reasons.length > 0) record.finishReasons = reasons;
}

/** The loss codes of `losses`, added to the record's count and codes. */
export function noteLosses(record: RequestRecord, losses: readonly { code: string }[]): void {
  if (losses.length === 0) return;
  const codes = (record.lossCodes ??= []);
  for (const loss of losses) codes.push(loss.code);
  record.losses += losses.length;
}

/** A request header by lower-case name, or null. */
export type HeaderLookup = (name: string) => string | null;

/**
 * Where finished requests go: the access log, `/metrics`, OpenTelemetry.
 * `begin` runs as the request comes in, in the caller's context, with the
 * request's start and its headers (the OpenTelemetry sink starts the
 * request's span there, under the caller's trace context); `traceHeaders`
 * gives the W3C trace context to send upstream for it (the request span's
 * own); `record` once at the request's true end, with what `begin`
 * returned.
 */
export interface TelemetrySink {
  begin?(startedAt: number, header?: HeaderLookup): unknown;
  traceHeaders?(begun: unknown): Record<string, string> | undefined;
  record(record: RequestRecord, begun: unknown): void;
}

/** Several sinks as one (none: `undefined`). */
export function combineSinks(sinks: readonly (TelemetrySink | undefined)[]): TelemetrySink | undefined {
  const present = sinks.filter((sink): sink is TelemetrySink => sink !== undefined);
  if (present.length <= 1) return present[0];
  const beginning = present.filter((sink) => sink.begin !== undefined);
  // Most sinks keep nothing from the request's start: with at most one that does, its own value is passed through, with no array per request.
  if (beginning.length <= 1) {
    const only = beginning[0];
    const combined: TelemetrySink = {
      record(record, begun) {
        for (let index = 0; index < present.length; index++) {
          const sink = present[index]!;
          sink.record(record, sink === only ? begun : undefined);
        }
      },
    };
    if (only !== undefined) {
      combined.begin = (startedAt, header) => only.begin!(startedAt, header);
      if (only.traceHeaders !== undefined) combined.traceHeaders = (begun) => only.traceHeaders!(begun);
    }
    return combined;
  }
  const tracing = present.findIndex((sink) => sink.traceHeaders !== undefined);
  return {
    begin: (startedAt, header) => present.map((sink) => sink.begin?.(startedAt, header)),
    ...(tracing === -1 ? {} : { traceHeaders: (begun: unknown) => present[tracing]!.traceHeaders!((begun as unknown[])[tracing]) }),
    record(record, begun) {
      const each = begun as unknown[];
      for (let index = 0; index < present.length; index++) present[index]!.record(record, each[index]);
    },
  };
}

/** The caller's own W3C trace context (`traceparent`, `tracestate`), to pass upstream as it came when no span of ours takes its place. */
export function callerTraceHeaders(header: HeaderLookup): Record<string, string> | undefined {
  const traceparent = header('traceparent');
  if (traceparent === null || !TRACEPARENT.test(traceparent)) return undefined;
  const tracestate = header('tracestate');
  return tracestate === null || tracestate.length > 512 || !PRINTABLE.test(tracestate) ? { traceparent } : { traceparent, tracestate };
}

/** A `traceparent` as W3C Trace Context writes one: version, trace id, parent id, flags (later versions may add fields after a dash). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-[\x21-\x7e]*)?$/;

/** Printable ASCII and spaces: nothing that could split a header. */
const PRINTABLE = /^[\x20-\x7e]*$/;

/** The upstream answered (any status): its request id, on the record and its last attempt. */
export function noteUpstreamReply(record: RequestRecord, status: number, header: (name: string) => string | null): void {
  const id = upstreamRequestIdOf(header);
  if (id !== undefined) record.upstreamRequestId = id;
  const attempt = record.attempts?.at(-1);
  if (attempt === undefined) return;
  attempt.status = status;
  if (id !== undefined) attempt.upstreamRequestId = id;
}

/** The upstream call failed before an answer (could not connect, timed out): status 0 and why, on the last attempt. */
export function noteUpstreamFailure(record: RequestRecord, message: string): void {
  const attempt = record.attempts?.at(-1);
  if (attempt === undefined) return;
  attempt.status = 0;
  attempt.error = message;
}
