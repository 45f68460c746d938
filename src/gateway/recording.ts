/**
 * One caller request as the gateway records it: one
 * {@link RequestObservation} (src/telemetry/observer.ts) over all its
 * attempts, so the request has one span with a child span per attempt, one
 * log line listing the attempts and one set of metrics. Each attempt runs
 * through its upstream's one-upstream proxy, which records nothing of its
 * own here: it hands its entry over at its true end (`Inbound.settled`: a
 * whole answer before the proxy returns it, a stream at its last byte, seen
 * by the proxy's own body watcher, so a stream is wrapped once), and the
 * request ends from that signal. Web APIs only.
 */
import type { Answer, ProxyLogEntry } from '../proxy/exchange.ts';
import type { AttemptObservation, RequestObservation } from '../telemetry/observer.ts';
import type { FormatId } from '../core/ir.ts';
import type { AttemptRecord, HeaderLookup, RequestRecord } from '../telemetry/record.ts';

/** What the upstream's proxy saw of its one call, written on the gateway's attempt: where it went, what came back. */
function noteAttempt(attempt: AttemptRecord, entry: ProxyLogEntry | undefined): void {
  const own = entry?.attempts?.[0];
  if (own === undefined) return;
  if (own.server !== undefined) attempt.server = own.server;
  if (own.dialect !== undefined) attempt.dialect = own.dialect;
  if (own.status !== undefined) attempt.status = own.status;
  if (own.error !== undefined) attempt.error = own.error;
  if (own.upstreamRequestId !== undefined) attempt.upstreamRequestId = own.upstreamRequestId;
  if (entry?.upstreamModel !== undefined) attempt.model = entry.upstreamModel;
}

/** What the caller's request takes from the entry of the attempt that answered it (or failed last), written on its record. */
function noteAnswer(record: RequestRecord, entry: ProxyLogEntry): void {
  record.upstream = entry.upstream;
  record.stream = entry.stream;
  record.losses = entry.losses;
  if (entry.operation !== undefined) record.operation = entry.operation;
  if (record.model === undefined && entry.model !== undefined) record.model = entry.model;
  if (entry.upstreamModel !== undefined) record.upstreamModel = entry.upstreamModel;
  if (entry.responseModel !== undefined) record.responseModel = entry.responseModel;
  if (entry.streamError !== undefined) record.streamError = entry.streamError;
  if (entry.usage !== undefined) record.usage = entry.usage;
  if (entry.finishReasons !== undefined) record.finishReasons = entry.finishReasons;
  if (entry.lossCodes !== undefined) record.lossCodes = entry.lossCodes;
  if (entry.upstreamRequestId !== undefined) record.upstreamRequestId = entry.upstreamRequestId;
  if (entry.error !== undefined) record.error = entry.error;
  if (entry.content !== undefined) record.content = entry.content;
  // The proxy measured from its own start, a little after the caller's request came in.
  if (entry.firstByteMs !== undefined) record.firstByteMs = entry.startedAt - record.startedAt + entry.firstByteMs;
}

/** One caller request's record under the gateway (made only when the gateway has somewhere to send records). */
export class Recording {
  readonly observation: RequestObservation;
  /** Hand to each attempt's proxy as `Inbound.settled`: made once per request. */
  readonly settled = (entry: ProxyLogEntry): void => this.#settle(entry);
  #attempt: AttemptObservation | undefined;
  /**
   * The entry of the latest attempt once its proxy has settled it. A failed
   * attempt's answer is a whole error, settled before its proxy returns; only
   * the answer the caller gets can be a stream that settles later.
   */
  #settledEntry: ProxyLogEntry | undefined;
  /** The caller's answer is a stream whose proxy has not settled its entry yet. */
  #pending = false;
  #status = 0;
  #error: string | undefined;

  /** The W3C trace context every attempt sends upstream (the request span's, else the caller's). */
  readonly traceHeaders: Record<string, string> | undefined;

  constructor(observation: RequestObservation, header: HeaderLookup) {
    this.observation = observation;
    this.traceHeaders = observation.traceHeaders(header);
  }

  /** An upstream call starts now. */
  startAttempt(upstream: string, format: FormatId, model: string | undefined): void {
    this.#settledEntry = undefined;
    this.#attempt = this.observation.attempt(model === undefined ? { upstream, format } : { upstream, format, model });
  }

  /** The current call failed before anything reached the caller (`status` 0: no answer; `failure` what failed, in one word). */
  failAttempt(status: number, failure: string): void {
    const attempt = this.#attempt;
    this.#attempt = undefined;
    if (attempt === undefined) return;
    const record = attempt.record;
    noteAttempt(record, this.#settledEntry);
    record.status = status;
    record.failure = failure;
    attempt.end();
  }

  /** The gateway waits `delayMs` before its next attempt: said on the attempt that just failed. */
  retryDelay(delayMs: number): void {
    const attempts = this.observation.record.attempts;
    const last = attempts?.[attempts.length - 1];
    if (last !== undefined) last.retryDelayMs = delayMs;
  }

  /**
   * The caller's answer, made by the latest attempt's proxy or by the
   * gateway (`error`: what the log says went wrong). A stream ends the
   * request at its end, when its proxy settles the entry; anything else
   * now, with what the latest attempt's proxy saw.
   */
  commit(answer: Answer, error?: string): void {
    this.#status = answer.status;
    this.#error = error;
    const body = answer.body;
    if (this.#attempt !== undefined && this.#settledEntry === undefined && body !== null && typeof body !== 'string') {
      this.#pending = true;
      return;
    }
    this.#finish(this.#settledEntry);
  }

  #settle(entry: ProxyLogEntry): void {
    this.#settledEntry = entry;
    if (this.#pending) this.#finish(entry);
  }

  #finish(entry: ProxyLogEntry | undefined): void {
    this.#pending = false;
    const attempt = this.#attempt;
    this.#attempt = undefined;
    if (attempt !== undefined) {
      noteAttempt(attempt.record, entry);
      attempt.end();
    }
    const record = this.observation.record;
    if (entry !== undefined) noteAnswer(record, entry);
    record.status = this.#status;
    if (this.#error !== undefined) record.error = this.#error;
    this.observation.end();
  }
}
