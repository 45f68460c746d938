/** Credentials: the inbound token check (constant time) and the upstream auth headers per format. */
import type { FormatId } from '../core/ir.ts';
import type { Inbound } from './exchange.ts';

/** Compare two strings in time that depends only on their lengths, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  const length = Math.max(left.length, right.length);
  for (let index = 0; index < length; index++) difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  return difference === 0;
}

/**
 * The header a caller presents the proxy's inbound token in when the
 * proxy also forwards the caller's own vendor key (`passThroughAuth`): the
 * vendor key then keeps the vendor's own header.
 */
export const TOKEN_HEADER = 'x-interlingua-token';

/** A credential an HTTP header can carry as it is: visible ASCII only (no CR, LF, NUL, space or non-ASCII). */
export function headerSafeCredential(credential: string): boolean {
  return /^[\x21-\x7e]*$/.test(credential);
}

/** The credential a caller sent, in whichever header (or `?key=`) its SDK uses. */
export function callerCredential(request: Pick<Inbound, 'header' | 'query'>): string | undefined {
  const authorization = request.header('authorization');
  if (authorization !== null && /^bearer\s+/i.test(authorization)) return authorization.replace(/^bearer\s+/i, '');
  return request.header('x-api-key') ?? request.header('x-goog-api-key') ?? request.query('key') ?? undefined;
}

/** The headers that carry `apiKey` to an upstream of `format`. */
export function upstreamAuthHeaders(format: FormatId, apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (format === 'anthropic') headers['anthropic-version'] = '2023-06-01';
  if (apiKey === undefined || apiKey === '') return headers;
  switch (format) {
    case 'anthropic':
      headers['x-api-key'] = apiKey;
      break;
    case 'gemini':
      headers['x-goog-api-key'] = apiKey;
      break;
    default:
      headers['authorization'] = `Bearer ${apiKey}`;
  }
  return headers;
}

/** Replace every occurrence of the secrets in `text` (for log lines and error messages). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result;
}

const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A header value with control characters (CR, LF, NUL, …) removed, so it cannot split headers. */
export function sanitizeHeaderValue(value: string): string {
  return HEADER_VALUE.test(value) ? value : value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}
