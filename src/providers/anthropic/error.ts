/**
 * Anthropic error bodies: `{ type: "error", error: { type, message }, request_id? }`,
 * plus lenient reading of odd captures such as `{ "error": "<string>" }`.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
import type { ErrorType as AnthropicErrorType } from '@anthropic-ai/sdk/resources/shared';
import type { CodecContext } from '../../core/codec.ts';
import type { ApiError, ErrorType } from '../../core/ir.ts';
import { expectObject, extend, isObject, spreadExtensions, unknownKeys, lookupTable, type JsonObject } from '../../core/wire.ts';
import { ANTHROPIC, anthropicHint, hasHint } from './shape.ts';

/** Anthropic `error.type` → neutral type and HTTP status. */
const ERROR_TYPES: Readonly<Record<string, readonly [ErrorType, number]>> = lookupTable({
  invalid_request_error: ['invalid_request', 400],
  authentication_error: ['authentication', 401],
  billing_error: ['permission', 402],
  permission_error: ['permission', 403],
  not_found_error: ['not_found', 404],
  request_too_large: ['request_too_large', 413],
  rate_limit_error: ['rate_limit', 429],
  api_error: ['server', 500],
  timeout_error: ['timeout', 504],
  overloaded_error: ['overloaded', 529],
  conflict_error: ['invalid_request', 409],
  memory_precondition_failed_error: ['invalid_request', 412],
  memory_path_conflict_error: ['invalid_request', 409],
} satisfies Record<AnthropicErrorType | 'request_too_large', readonly [ErrorType, number]>);

/** Neutral type → Anthropic `error.type`. */
const FROM_NEUTRAL: Readonly<Record<ErrorType, AnthropicErrorType | 'request_too_large'>> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  overloaded: 'overloaded_error',
  server: 'api_error',
  timeout: 'timeout_error',
  other: 'api_error',
};

const BODY_KEYS: ReadonlySet<string> = new Set(['type', 'error']);
const ERROR_KEYS: ReadonlySet<string> = new Set(['type', 'message']);

function fromType(code: string, error: ApiError): void {
  const known = ERROR_TYPES[code];
  if (known === undefined) return;
  error.type = known[0];
  error.status = known[1];
}

/** Read what a captured SDK message says: `Error: 400 {"type":"error",…}`. */
function decodeMessageString(message: string): ApiError {
  const error: ApiError = { type: 'other', message };
  const status = /^(?:\w*Error: )?(\d{3})\b/.exec(message);
  if (status?.[1] !== undefined) error.status = Number(status[1]);
  const type = /"type"\s*:\s*"(\w+_error|request_too_large)"/.exec(message);
  if (type?.[1] !== undefined) {
    error.code = type[1];
    fromType(type[1], error);
  } else if (message.startsWith('ValidationException')) error.type = 'invalid_request';
  return error;
}

/**
 * Decode an Anthropic error body. Lenient: unexpected shapes keep their
 * fields as extensions so they encode back exactly.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function decodeAnthropicError(body: unknown, _context: CodecContext): ApiError {
  const object = expectObject(body, '', ANTHROPIC);
  const inner = object['error'];
  let error: ApiError;
  if (typeof inner === 'string') {
    error = decodeMessageString(inner);
    anthropicHint(error, '$errorString', true);
  } else if (isObject(inner)) {
    const code = typeof inner['type'] === 'string' ? inner['type'] : undefined;
    error = { type: 'other', message: typeof inner['message'] === 'string' ? inner['message'] : '' };
    if (code !== undefined) {
      error.code = code;
      fromType(code, error);
    }
    if (inner['message'] === undefined) anthropicHint(error, '$messageAbsent', true);
    const rest = unknownKeys(inner, ERROR_KEYS);
    if (rest !== undefined || (inner['type'] !== undefined && code === undefined)) anthropicHint(error, '$errorFields', { ...rest, ...(code === undefined && inner['type'] !== undefined ? { type: inner['type'] } : {}) });
    if (code === undefined) anthropicHint(error, '$codeAbsent', true);
  } else {
    error = { type: 'other', message: '' };
    anthropicHint(error, '$errorValue', inner === undefined ? '$absent' : inner);
  }
  if (object['type'] !== 'error') anthropicHint(error, '$bodyType', object['type'] === undefined ? '$absent' : object['type']);
  extend(error, ANTHROPIC, unknownKeys(object, BODY_KEYS));
  return error;
}

function encodeInner(error: ApiError): unknown {
  const hints = error.extensions?.anthropic;
  if (hasHint(error, '$errorString')) return error.message;
  if (hints?.['$errorValue'] !== undefined) return hints['$errorValue'];
  const inner: JsonObject = {};
  if (!hasHint(error, '$codeAbsent')) {
    inner['type'] = error.code !== undefined && (ERROR_TYPES[error.code] !== undefined || error.extensions?.anthropic !== undefined) ? error.code : FROM_NEUTRAL[error.type];
  }
  if (!hasHint(error, '$messageAbsent')) inner['message'] = error.message;
  const fields = hints?.['$errorFields'];
  return isObject(fields) ? Object.assign(inner, fields) : inner;
}

/**
 * Encode an IR error as an Anthropic error body.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function encodeAnthropicError(error: ApiError, context: CodecContext): JsonObject {
  context.losses.foreignExtensions(error.extensions, ANTHROPIC, '');
  if (error.param !== undefined) context.losses.add('dropped_field', '/param', 'Anthropic error bodies have no param field');
  const wire: JsonObject = {};
  const bodyType = error.extensions?.anthropic?.['$bodyType'];
  if (bodyType === undefined) wire['type'] = 'error';
  else if (bodyType !== '$absent') wire['type'] = bodyType;
  const inner = encodeInner(error);
  if (inner !== '$absent') wire['error'] = inner;
  return spreadExtensions(wire, error, ANTHROPIC);
}
