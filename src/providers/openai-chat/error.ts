/**
 * Chat Completions error bodies: `{ error: { message, type, param, code } }`.
 * Decoding is lenient (recorders keep odd shapes such as `{ error: "<text>" }`)
 * and keeps what it needs to rebuild the exact body in shape hints.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
import type { ApiError, ErrorType } from '../../core/ir.ts';
import type { CodecContext } from '../../core/codec.ts';
import { isObject, spreadExtensions, lookupTable, type JsonObject } from '../../core/wire.ts';
import { FORMAT, chatHint, keepNestedUnknown, keepUnknown, keys, nestedExtras, shapeHint } from './shape.ts';
import { errorTypeForStatus } from '../../core/http-status.ts';

const TOP_KNOWN = keys('error');
const ERROR_KNOWN = keys('message', 'type', 'param', 'code');

/** Wire `type` → neutral type. */
const DECODE_TYPE: Readonly<Record<string, ErrorType>> = lookupTable({
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limit',
  insufficient_quota: 'rate_limit',
  tokens: 'rate_limit',
  requests: 'rate_limit',
  overloaded_error: 'overloaded',
  server_error: 'server',
  api_error: 'server',
  timeout_error: 'timeout',
});

/** Wire `code` → neutral type, where the code says more than the type (a bad key is an `invalid_request_error` with code `invalid_api_key`, sent with 401). */
const DECODE_CODE: Readonly<Record<string, ErrorType>> = lookupTable({
  invalid_api_key: 'authentication',
  model_not_found: 'not_found',
  rate_limit_exceeded: 'rate_limit',
  insufficient_quota: 'rate_limit',
});

/** Neutral type → wire `type`. */
const ENCODE_TYPE: Readonly<Record<ErrorType, string>> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  overloaded: 'server_error',
  server: 'server_error',
  timeout: 'timeout_error',
  other: 'api_error',
};


/** An error given as bare text: `"Error: 400 …"` captures carry the status at the front. */
function fromText(text: string): ApiError {
  const match = /^(?:Error: )?(\d{3})\b/.exec(text);
  const status = match?.[1] === undefined ? undefined : Number(match[1]);
  const error: ApiError = { type: errorTypeForStatus(status), message: text };
  if (status !== undefined) error.status = status;
  return error;
}

function decodeErrorObject(object: JsonObject): ApiError {
  const message = object['message'];
  const type = object['type'];
  const param = object['param'];
  const code = object['code'];
  const error: ApiError = {
    type: (typeof code === 'string' ? DECODE_CODE[code] : undefined) ?? (typeof type === 'string' ? (DECODE_TYPE[type] ?? 'other') : 'other'),
    message: typeof message === 'string' ? message : '',
  };
  if (typeof type === 'string' && ENCODE_TYPE[error.type] !== type) chatHint(error, '$type', type);
  if (typeof param === 'string') error.param = param;
  if (typeof code === 'string') error.code = code;
  // Every field whose value the neutral slots cannot rebuild travels as is.
  const odd: JsonObject = {};
  if (typeof message !== 'string') odd['message'] = message;
  if (type !== undefined && typeof type !== 'string') odd['type'] = type;
  if (param !== undefined && param !== null && typeof param !== 'string') odd['param'] = param;
  if (code !== undefined && code !== null && typeof code !== 'string') odd['code'] = code;
  const absent = ['message', 'type', 'param', 'code'].filter((key) => !(key in object));
  if (absent.length > 0) chatHint(error, '$absent', absent);
  keepNestedUnknown(error, 'error', object, ERROR_KNOWN);
  if (Object.keys(odd).length > 0) {
    const extensions = ((error.extensions ??= {})[FORMAT] ??= {});
    extensions['$odd'] = odd;
  }
  return error;
}

/** Decode a Chat Completions error body (lenient). */
export function decodeOpenaiChatError(body: unknown, _context: CodecContext): ApiError {
  if (typeof body === 'string') {
    const error = fromText(body);
    chatHint(error, '$body', 'text');
    return error;
  }
  if (!isObject(body)) {
    const error: ApiError = { type: 'other', message: '' };
    chatHint(error, '$body', body === undefined ? 'absent' : body);
    return error;
  }
  const inner = body['error'];
  let error: ApiError;
  if (typeof inner === 'string') {
    error = fromText(inner);
    chatHint(error, '$error', 'text');
  } else if (isObject(inner)) {
    error = decodeErrorObject(inner);
  } else {
    error = { type: 'other', message: '' };
    chatHint(error, '$error', inner === undefined ? 'absent' : inner);
  }
  keepUnknown(error, body, TOP_KNOWN);
  return error;
}

function encodeErrorObject(error: ApiError): JsonObject {
  const type = shapeHint(error, '$type');
  const wire: JsonObject = {
    message: error.message,
    type: typeof type === 'string' ? type : ENCODE_TYPE[error.type],
    param: error.param ?? null,
    code: error.code ?? null,
  };
  const odd = shapeHint(error, '$odd');
  if (isObject(odd)) Object.assign(wire, odd);
  const absent = shapeHint(error, '$absent');
  if (Array.isArray(absent)) for (const key of absent) delete wire[key as string];
  return nestedExtras(wire, error, 'error');
}

/** Encode a Chat Completions error body; the HTTP status travels outside it (`error.status`). */
export function encodeOpenaiChatError(error: ApiError, context: CodecContext): unknown {
  context.losses.foreignExtensions(error.extensions, FORMAT, '');
  const body = shapeHint(error, '$body');
  if (body === 'text') return error.message;
  if (body !== undefined) return body === 'absent' ? undefined : body;
  const inner = shapeHint(error, '$error');
  const wire: JsonObject = {};
  if (inner === 'text') wire['error'] = error.message;
  else if (inner === undefined) wire['error'] = encodeErrorObject(error);
  else if (inner !== 'absent') wire['error'] = inner;
  return spreadExtensions(wire, error, FORMAT);
}
