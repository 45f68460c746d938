/**
 * The one lifecycle of a caller's request, for a caller that makes several
 * upstream calls per request (the gateway's retries and fallbacks):
 * `startRequest(info)` as the request comes in, `attempt(info)` before each
 * upstream call and its `end(result)` when that call is over, and the
 * request's `end(result)` at its true end (a stream's last byte). It builds
 * the same {@link RequestRecord} the one-upstream proxy fills in for its one
 * call, with one {@link AttemptRecord} per call, and hands it to the sinks
 * once: one request span with a child span per attempt, one log line, one
 * set of metrics. Classes, not closures: a request costs two objects and an
 * attempt one.
 */
import { callerTraceHeaders, requestIdOf, type AttemptRecord, type HeaderLookup, type RequestRecord, type TelemetrySink } from './record.ts';

/** What is known of a request as it comes in. */
export type RequestStart = Pick<RequestRecord, 'method' | 'path' | 'upstream'> & Partial<Pick<RequestRecord, 'requestId' | 'ingress' | 'model' | 'route' | 'operation' | 'stream'>>;

/** What is known of an attempt before its call. */
export type AttemptStart = Pick<AttemptRecord, 'upstream'> & Partial<Pick<AttemptRecord, 'format' | 'model' | 'server' | 'dialect'>>;

/** What is left to say of an attempt when its call is over (status 0 and `error` for one that never answered). */
export type AttemptResult = Partial<Omit<AttemptRecord, 'upstream' | 'startMs'>>;

/** What is left to say of a request at its end (status, usage, losses…). */
export type RequestResult = Partial<Omit<RequestRecord, 'requestId' | 'startedAt' | 'attempts'>>;

/** One upstream call under way. */
export class AttemptObservation {
  readonly record: AttemptRecord;
  readonly #request: RequestObservation;

  constructor(request: RequestObservation, record: AttemptRecord) {
    this.#request = request;
    this.record = record;
  }

  /** The call's answer is over: what is left to say of it, written on {@link record} by the caller or given here (its duration, when not set, runs to now). */
  end(result?: AttemptResult): void {
    const attempt = this.record;
    if (result !== undefined) Object.assign(attempt, result);
    const request = this.#request;
    attempt.durationMs ??= request.now() - request.record.startedAt - (attempt.startMs ?? 0);
    if (attempt.upstreamRequestId !== undefined) request.record.upstreamRequestId = attempt.upstreamRequestId;
  }
}

/** One request under way. */
export class RequestObservation {
  readonly record: RequestRecord;
  /** What the sinks' `begin` returned as the request came in (the OpenTelemetry sink's request span). */
  readonly begun: unknown;
  readonly now: () => number;
  readonly #sink: TelemetrySink | undefined;
  #ended = false;

  constructor(sink: TelemetrySink | undefined, record: RequestRecord, now: () => number, header?: HeaderLookup) {
    this.#sink = sink;
    this.record = record;
    this.now = now;
    this.begun = sink?.begin?.(record.startedAt, header);
  }

  /** The W3C trace context to send upstream for this request: the request span's own, else the caller's as it came. */
  traceHeaders(header: HeaderLookup): Record<string, string> | undefined {
    return this.#sink?.traceHeaders?.(this.begun) ?? callerTraceHeaders(header);
  }

  /** Has {@link end} run? */
  get ended(): boolean {
    return this.#ended;
  }

  /** An upstream call starts now. */
  attempt(start: AttemptStart): AttemptObservation {
    const record: AttemptRecord = { upstream: start.upstream, startMs: this.now() - this.record.startedAt };
    if (start.format !== undefined) record.format = start.format;
    if (start.model !== undefined) record.model = start.model;
    if (start.server !== undefined) record.server = start.server;
    if (start.dialect !== undefined) record.dialect = start.dialect;
    (this.record.attempts ??= []).push(record);
    return new AttemptObservation(this, record);
  }

  /** The request is over: what is left to say of it, written on {@link record} by the caller or given here (its duration, when not given, runs to now), then the record goes to the sinks (once; later calls do nothing). */
  end(result?: RequestResult): void {
    if (this.#ended) return;
    this.#ended = true;
    const record = this.record;
    if (result !== undefined) Object.assign(record, result);
    if (result?.durationMs === undefined) record.durationMs = this.now() - record.startedAt;
    this.#sink?.record(record, this.begun);
  }
}

/** Observes requests into telemetry records. */
export interface RequestObserver {
  /** A request comes in (`header`: its headers, for the caller's trace context). */
  startRequest(info: RequestStart, header?: HeaderLookup): RequestObservation;
}

/** An observer whose records go to `sink` (nothing recorded without one). */
export function createRequestObserver(sink: TelemetrySink | undefined, now: () => number = Date.now): RequestObserver {
  return {
    startRequest(info, header) {
      // The proxy's entry's shape, field by field: no spread per request.
      const record: RequestRecord = { requestId: info.requestId ?? requestIdOf(null), startedAt: now(), method: info.method, path: info.path, upstream: info.upstream, stream: info.stream ?? false, status: 0, durationMs: 0, losses: 0 };
      if (info.operation !== undefined) record.operation = info.operation;
      if (info.ingress !== undefined) record.ingress = info.ingress;
      if (info.model !== undefined) record.model = info.model;
      if (info.route !== undefined) record.route = info.route;
      return new RequestObservation(sink, record, now, header);
    },
  };
}
