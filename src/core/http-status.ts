/** HTTP statuses and the neutral error types, shared by the codecs' error decoders and the proxy. */
import type { ErrorType } from './ir.ts';

/** The neutral error type an HTTP status means, when a body does not say. */
export function errorTypeForStatus(status: number | undefined): ErrorType {
  switch (status) {
    case 400:
    case 422:
      return 'invalid_request';
    case 401:
      return 'authentication';
    case 403:
      return 'permission';
    case 404:
      return 'not_found';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit';
    case 503:
    case 529:
      return 'overloaded';
    case 504:
      return 'timeout';
    default:
      return status !== undefined && status >= 500 ? 'server' : 'other';
  }
}
