/** Errors the proxy answers with, always in the caller's own wire format and a fitting status. */
import { codecFor } from '../formats/registry.ts';
import { LossCollector } from '../core/losses.ts';
import type { ApiError, ErrorType, FormatId } from '../core/ir.ts';
import { jsonAnswer, webResponse, type Answer } from './exchange.ts';

const STATUS: Record<ErrorType, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  rate_limit: 429,
  overloaded: 503,
  server: 500,
  timeout: 504,
  other: 500,
};

/** The HTTP status for an error in the caller's format (Anthropic says 529 for overload). */
export function statusFor(error: ApiError, format: FormatId): number {
  if (error.type === 'overloaded' && format === 'anthropic') return 529;
  if (error.status !== undefined && error.status >= 400 && error.status <= 599) {
    // Keep the upstream's status unless it only means something to that vendor.
    if (error.status === 529 && format !== 'anthropic') return 503;
    return error.status;
  }
  return STATUS[error.type];
}

/** A JSON error answer in `format`'s error shape. */
export function errorAnswer(format: FormatId, error: ApiError, headers?: Record<string, string>): Answer {
  const status = statusFor(error, format);
  let body: unknown;
  try {
    body = codecFor(format).encodeError({ ...error, status }, { losses: new LossCollector() });
  } catch {
    body = { error: { type: error.type, message: error.message } };
  }
  let own: Record<string, string> = {};
  try {
    own = codecFor(format).errorHeaders?.({ ...error, status }) ?? {};
  } catch {
    own = {};
  }
  return jsonAnswer(status, JSON.stringify(body), { ...own, ...headers });
}

/** A JSON error response in `format`'s error shape. */
export function errorResponse(format: FormatId, error: ApiError, headers: Record<string, string> = {}): Response {
  return webResponse(errorAnswer(format, error, headers));
}
