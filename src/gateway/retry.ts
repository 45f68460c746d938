/**
 * When the gateway tries again, and how long it waits: an upstream failure
 * (src/proxy's `UpstreamFailure`, whatever the caller's format) is
 * retried on the same target, moved to the next target, or answered as it
 * is.
 */
import type { UpstreamFailure } from '../proxy/exchange.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './config.ts';

/** Statuses worth another try: the vendors' own lists (Anthropic's SDK retries 408, 409, 429 and ≥500; OpenAI's 408, 409, 429, ≥500), less 409 and 501, plus Anthropic's 529. */
const RETRIED = new Set([408, 429, 500, 502, 503, 504, 529]);

/** Statuses about this upstream rather than the request (its key, its model list): the next target may do better, the same one will not. */
const NEXT_TARGET = new Set([401, 403, 404]);

/**
 * What to do after a failed attempt: `retry` the same target (after a
 * back-off), try the `next` target, or `answer` with the failure (the
 * caller's own fault, a 400-class status such as 400, 413 or 422, or the
 * caller went away).
 */
export function decide(failure: UpstreamFailure): 'retry' | 'next' | 'answer' {
  switch (failure.kind) {
    case 'connect':
    case 'timeout':
    case 'broken':
      return 'retry';
    case 'cancelled':
      return 'answer';
    case 'status': {
      const status = failure.status ?? 0;
      if (RETRIED.has(status) || failure.error.type === 'overloaded') return 'retry';
      if (NEXT_TARGET.has(status)) return 'next';
      return status >= 500 ? 'next' : 'answer';
    }
  }
}

/** The wait a `retry-after` header asks for, in ms (seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The resolved retry policy of a route. */
export type Retry = Required<RetryPolicy>;

/** A route's policy over the gateway's over the defaults. */
export function retryPolicy(route: RetryPolicy | undefined, gateway: RetryPolicy | undefined): Retry {
  return { ...DEFAULT_RETRY, ...gateway, ...route };
}

/**
 * The back-off before retry number `retry` (1 for the first), in ms:
 * exponential with equal jitter (half fixed, half random), at least what
 * `retry-after` asks; `undefined` when `retry-after` asks for longer than
 * the cap (then the next target is tried instead of waiting).
 */
export function backoffMs(policy: Retry, retry: number, retryAfter: string | undefined, random = Math.random): number | undefined {
  const asked = retryAfterMs(retryAfter);
  if (asked !== undefined && asked > policy.maxDelayMs) return undefined;
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.max(jittered, asked ?? 0));
}
