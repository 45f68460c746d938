/**
 * The telemetry sinks behind a request/attempt observer, for a caller that
 * makes several upstream calls per request (the gateway's fallbacks):
 * `startRequest(info)` as the request comes in, `attempt(info)` before each
 * upstream call and its `end(result)` when that call's answer is over, and
 * the request's `end(result)` at its true end (a stream's last byte). It
 * builds the same {@link RequestRecord} the one-upstream proxy fills in, with
 * one {@link AttemptRecord} per call, and hands it to the sinks once.
 */
import { requestIdOf, type AttemptRecord, type RequestRecord, type TelemetrySink } from './record.ts';

/** What is known of a request as it comes in. */
export type RequestStart = Pick<RequestRecord, 'method' | 'path' | 'upstream'> & Partial<Omit<RequestRecord, 'method' | 'path' | 'upstream' | 'startedAt' | 'attempts' | 'durationMs' | 'losses'>>;

/** What is known of an attempt before its call. */
export type AttemptStart = Pick<AttemptRecord, 'upstream'> & Partial<Omit<AttemptRecord, 'upstream' | 'startMs' | 'durationMs'>>;

/** One upstream call under way. */
export interface AttemptObservation {
  /** The call's answer is over (status 0 and `error` for one that never answered). */
  end(result: Partial<Omit<AttemptRecord, 'upstream' | 'startMs'>>): void;
}

/** One request under way. */
export interface RequestObservation {
  readonly record: RequestRecord;
  attempt(info: AttemptStart): AttemptObservation;
  /** The request is over: what is left to say of it (status, usage, losses…), then the record goes to the sinks. */
  end(result: Partial<Omit<RequestRecord, 'requestId' | 'startedAt' | 'attempts'>>): void;
}

/** Observes requests into telemetry records. */
export interface RequestObserver {
  startRequest(info: RequestStart): RequestObservation;
}

/** An observer whose records go to `sink` (nothing observed without one). */
export function createRequestObserver(sink: TelemetrySink | undefined, now: () => number = Date.now): RequestObserver {
  return {
    startRequest(info) {
      const startedAt = now();
      const record: RequestRecord = { ...info, requestId: info.requestId ?? requestIdOf(null), startedAt, stream: info.stream ?? false, status: info.status ?? 0, durationMs: 0, losses: 0 };
      const begun = sink?.begin?.();
      let ended = false;
      return {
        record,
        attempt(start) {
          const attempt: AttemptRecord = { ...start, startMs: now() - startedAt };
          (record.attempts ??= []).push(attempt);
          return {
            end(result) {
              Object.assign(attempt, result);
              attempt.durationMs ??= now() - startedAt - (attempt.startMs ?? 0);
              if (attempt.upstreamRequestId !== undefined) record.upstreamRequestId = attempt.upstreamRequestId;
            },
          };
        },
        end(result) {
          if (ended) return;
          ended = true;
          Object.assign(record, result);
          if (result.durationMs === undefined) record.durationMs = now() - startedAt;
          sink?.record(record, begun);
        },
      };
    },
  };
}
