/**
 * Gemini error bodies ↔ IR `ApiError`. The wire shape is
 * `{"error": {"code": <HTTP status>, "message", "status": "<RPC status>", "details": [...]}}`;
 * decoding is lenient with odd captures (`{"error": "<text>"}`, a bare string).
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
import type { CodecContext } from '../../core/codec.ts';
import type { ApiError, ErrorType } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { expectNumber, expectString, extend, extensionsOf, hint, isObject, spreadExtensions, unknownKeys, lookupTable, type JsonObject } from '../../core/wire.ts';
import { errorTypeForStatus } from '../../core/http-status.ts';

const KNOWN_ERROR: ReadonlySet<string> = new Set(['code', 'message', 'status']);

const TYPE_BY_STATUS: Readonly<Record<string, ErrorType>> = lookupTable({
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  UNAVAILABLE: 'overloaded',
  INTERNAL: 'server',
  UNKNOWN: 'server',
  DATA_LOSS: 'server',
  DEADLINE_EXCEEDED: 'timeout',
});


/** Decode a Gemini error body. */
export function decodeGeminiError(body: unknown, _context: CodecContext): ApiError {
  if (typeof body === 'string') {
    const error: ApiError = { type: 'other', message: body };
    hint(error, 'gemini', '$shape', 'string');
    return error;
  }
  if (!isObject(body) || !isObject(body['error'])) {
    const inner = isObject(body) ? body['error'] : undefined;
    const message = typeof inner === 'string' ? inner : JSON.stringify(body);
    const error: ApiError = { type: errorTypeForStatus(httpStatusIn(message)), message };
    hint(error, 'gemini', '$shape', typeof inner === 'string' ? 'error-string' : 'raw');
    if (typeof inner !== 'string') hint(error, 'gemini', '$body', body);
    else extend(error, 'gemini', unknownKeys(body as JsonObject, new Set(['error'])));
    return error;
  }
  const wire = body['error'];
  const code = wire['code'] === undefined ? undefined : expectNumber(wire['code'], '/error/code', 'gemini');
  const status = wire['status'] === undefined ? undefined : expectString(wire['status'], '/error/status', 'gemini');
  const message = wire['message'] === undefined ? undefined : expectString(wire['message'], '/error/message', 'gemini');
  const error: ApiError = {
    type: (status === undefined ? undefined : TYPE_BY_STATUS[status]) ?? errorTypeForStatus(code),
    message: message ?? '',
  };
  if (code !== undefined) error.status = code;
  if (status !== undefined) error.code = status;
  hint(error, 'gemini', '$shape', 'object');
  if (message === undefined) hint(error, 'gemini', '$noMessage', true);
  extend(error, 'gemini', unknownKeys(wire, KNOWN_ERROR));
  const outer = unknownKeys(body, new Set(['error']));
  if (outer !== undefined) hint(error, 'gemini', '$outer', outer);
  return error;
}

/** The HTTP status an SDK error message starts with or quotes (`"code": 400`), if any. */
function httpStatusIn(message: string): number | undefined {
  const match = /"code":\s*(\d{3})/.exec(message);
  return match === null ? undefined : Number(match[1]);
}

const STATUS_BY_TYPE: Readonly<Record<ErrorType, [number, string]>> = {
  invalid_request: [400, 'INVALID_ARGUMENT'],
  authentication: [401, 'UNAUTHENTICATED'],
  permission: [403, 'PERMISSION_DENIED'],
  not_found: [404, 'NOT_FOUND'],
  request_too_large: [400, 'INVALID_ARGUMENT'],
  rate_limit: [429, 'RESOURCE_EXHAUSTED'],
  overloaded: [503, 'UNAVAILABLE'],
  server: [500, 'INTERNAL'],
  timeout: [504, 'DEADLINE_EXCEEDED'],
  other: [500, 'UNKNOWN'],
};

/** Encode an IR error as a Gemini error body. */
export function encodeGeminiError(error: ApiError, context: CodecContext): unknown {
  const gemini = extensionsOf(error, 'gemini');
  const shape = gemini?.['$shape'];
  switch (shape) {
    case 'string':
      return error.message;
    case 'raw':
      return gemini?.['$body'];
    case 'error-string':
      return spreadExtensions({ error: error.message }, error, 'gemini');
    case 'object':
      return exactBody(error, gemini);
    default:
      return foreignBody(error, context);
  }
}

function exactBody(error: ApiError, gemini: JsonObject | undefined): JsonObject {
  const wire: JsonObject = {};
  if (error.status !== undefined) wire['code'] = error.status;
  if (gemini?.['$noMessage'] !== true || error.message !== '') wire['message'] = error.message;
  if (error.code !== undefined) wire['status'] = error.code;
  spreadExtensions(wire, error, 'gemini');
  const outer = gemini?.['$outer'];
  return { ...(isObject(outer) ? outer : {}), error: wire };
}

function foreignBody(error: ApiError, context: CodecContext): JsonObject {
  context.losses.foreignExtensions(error.extensions, 'gemini', '');
  const [code, status] = STATUS_BY_TYPE[error.type] ?? unreachable(error.type as never);
  return { error: { code: error.status ?? code, message: error.message, status: status } };
}
