/**
 * Error bodies: `{"error": {message, type, param, code}}` ⇄ IR API errors.
 * Lenient on decode (a bare string body, or `{"error": "<text>"}` as some
 * recorders capture it) and exact on a same-format trip through hints.
 *
 * @see https://platform.openai.com/docs/guides/error-codes
 */
import type { CodecContext } from '../../core/codec.ts';
import type { ApiError, ErrorType } from '../../core/ir.ts';
import { extend, hint, isObject, unknownKeys, lookupTable, type JsonObject } from '../../core/wire.ts';
import { FORMAT, own, ownHint } from './shape.ts';

const ERROR_KEYS: readonly string[] = ['message', 'type', 'param', 'code'];
const ERROR_KNOWN: ReadonlySet<string> = new Set(ERROR_KEYS);
const BODY_KNOWN: ReadonlySet<string> = new Set(['error']);

/** OpenAI error types and codes → neutral types. */
const TYPES: Readonly<Record<string, ErrorType>> = lookupTable({
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  invalid_api_key: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  model_not_found: 'not_found',
  rate_limit_exceeded: 'rate_limit',
  rate_limit_error: 'rate_limit',
  insufficient_quota: 'rate_limit',
  tokens: 'rate_limit',
  requests: 'rate_limit',
  server_error: 'server',
  api_error: 'server',
  overloaded_error: 'overloaded',
  timeout: 'timeout',
});

/** HTTP statuses → neutral types. */
const STATUSES: Readonly<Record<number, ErrorType>> = {
  400: 'invalid_request', 401: 'authentication', 403: 'permission', 404: 'not_found', 413: 'request_too_large',
  429: 'rate_limit', 500: 'server', 502: 'server', 503: 'overloaded', 504: 'timeout',
};

/** Neutral types → OpenAI error types, for errors of other formats. */
const WIRE_TYPES: Readonly<Record<ErrorType, string>> = {
  invalid_request: 'invalid_request_error', authentication: 'authentication_error', permission: 'permission_error',
  not_found: 'not_found_error', request_too_large: 'invalid_request_error', rate_limit: 'rate_limit_exceeded',
  overloaded: 'server_error', server: 'server_error', timeout: 'timeout', other: 'api_error',
};

function fromText(text: string): Pick<ApiError, 'type' | 'status'> {
  const match = /^Error: (\d{3})\b/.exec(text);
  const status = match?.[1] === undefined ? undefined : Number(match[1]);
  const type = status === undefined ? 'other' : (STATUSES[status] ?? 'other');
  return status === undefined ? { type } : { type, status };
}

/** Decode an OpenAI error body (lenient: odd captures still decode and round-trip). */
export function decodeOpenaiResponsesError(body: unknown, _context: CodecContext): ApiError {
  if (typeof body === 'string') {
    const error: ApiError = { ...fromText(body), message: body };
    hint(error, FORMAT, '$bodyString', true);
    return error;
  }
  const wire = isObject(body) ? body : {};
  const inner = wire['error'];
  let error: ApiError;
  if (typeof inner === 'string') {
    error = { ...fromText(inner), message: inner };
    hint(error, FORMAT, '$errorString', true);
  } else if (isObject(inner)) {
    error = decodeInner(inner);
  } else {
    error = { type: 'other', message: '' };
    hint(error, FORMAT, '$noError', true);
    if (inner !== undefined) extend(error, FORMAT, { error: inner });
  }
  extend(error, FORMAT, unknownKeys(wire, BODY_KNOWN));
  return error;
}

function decodeInner(inner: JsonObject): ApiError {
  const message = inner['message'];
  const type = inner['type'];
  const code = inner['code'];
  const param = inner['param'];
  const raw = typeof code === 'string' && TYPES[code] !== undefined ? code : typeof type === 'string' ? type : undefined;
  const error: ApiError = { type: raw === undefined ? 'other' : (TYPES[raw] ?? 'other'), message: typeof message === 'string' ? message : '' };
  if (typeof code === 'string') error.code = code;
  if (typeof param === 'string') error.param = param;
  // How the four fields were spelled: the raw type, non-string values, absent keys.
  const shape: JsonObject = {};
  const absent: string[] = [];
  for (const key of ERROR_KEYS) {
    const value = inner[key];
    if (value === undefined) absent.push(key);
    else if (typeof value !== 'string' || key === 'type') shape[key] = value;
  }
  if (absent.length > 0) shape['absent'] = absent;
  hint(error, FORMAT, '$error', shape);
  const rest = unknownKeys(inner, ERROR_KNOWN);
  if (rest !== undefined) extend(error, FORMAT, { error: rest });
  return error;
}

/** Encode an IR error as an OpenAI error body. */
export function encodeOpenaiResponsesError(error: ApiError, context: CodecContext): JsonObject | string {
  context.losses.foreignExtensions(error.extensions, FORMAT, '');
  if (ownHint(error, '$bodyString') === true) return error.message;
  const fields = own(error) ?? {};
  const body: JsonObject = {};
  if (ownHint(error, '$errorString') === true) body['error'] = error.message;
  else if (ownHint(error, '$noError') !== true) body['error'] = encodeInner(error, fields['error']);
  else if (fields['error'] !== undefined) body['error'] = fields['error'];
  for (const key in fields) if (key !== 'error' && key.charCodeAt(0) !== 36 /* $ */) body[key] = fields[key];
  return body;
}

function encodeInner(error: ApiError, extra: unknown): JsonObject {
  const inner: JsonObject = {
    message: error.message,
    type: WIRE_TYPES[error.type],
    param: error.param ?? null,
    code: error.code ?? null,
  };
  const shape = ownHint(error, '$error');
  if (isObject(shape)) {
    for (const key in shape) if (key !== 'absent') inner[key] = shape[key];
    const absent = shape['absent'];
    if (Array.isArray(absent)) for (const key of absent as string[]) delete inner[key];
  }
  if (isObject(extra)) for (const key in extra) if (!(key in inner)) inner[key] = extra[key];
  return inner;
}
