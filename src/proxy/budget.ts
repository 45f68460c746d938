/**
 * The in-flight byte budget: how many request body bytes all requests in
 * flight may hold together. One budget bounds one process's requests
 * however many proxies serve them: the gateway makes one and hands it to
 * every upstream's proxy; a proxy alone makes its own.
 */
import type { FormatId } from '../core/ir.ts';
import { errorAnswer } from './errors.ts';
import type { Answer } from './exchange.ts';

/** Default of `limits.maxInflightBytes`: eight bodies of the default largest size. */
export const DEFAULT_MAX_INFLIGHT_BYTES = 256 * 1024 * 1024;

/**
 * Request body bytes held by the requests in flight (UTF-16 units of their
 * texts, or their declared length while being read), against a maximum.
 * Share one between proxies (`ProxyConfig.budget`) to bound them together.
 */
export class InflightBudget {
  /** Bytes held now. */
  held = 0;

  /** @param maxBytes the bytes all holders may hold together */
  constructor(readonly maxBytes: number = DEFAULT_MAX_INFLIGHT_BYTES) {}

  /** Take `bytes` if they fit beside what is held; false (nothing taken) if not. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  /**
   * A holder's bytes turned out to be `actual` instead of the `taken` it
   * holds: held either way (the body is read), and false when the growth
   * went past the maximum (the request is then refused, its bytes given back).
   */
  resize(taken: number, actual: number): boolean {
    this.held += actual - taken;
    return actual <= taken || this.held <= this.maxBytes;
  }

  /** Give back `bytes` taken. */
  give(bytes: number): void {
    this.held -= bytes;
  }

  /** The answer to a request over the budget: 503 (Anthropic: 529) with `retry-after`, in the caller's format. */
  refusal(format: FormatId): Answer {
    return errorAnswer(format, { type: 'overloaded', status: 503, message: `the proxy holds ${this.maxBytes} bytes of requests already; retry shortly` }, { 'retry-after': '1' });
  }
}
