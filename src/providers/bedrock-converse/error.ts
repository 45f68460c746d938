/**
 * Converse error bodies ↔ IR `ApiError`. The body is `{"message": "…"}`;
 * the exception's name is in the `x-amzn-ErrorType` header
 * (`ValidationException:http://internal.amazon.com/coral/…`), which
 * {@link bedrockErrorFromHeaders} reads into `ApiError.code` and
 * {@link bedrockErrorHeaders} writes back. Some services put the name in the
 * body as `__type` or `code`; both are read too.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html
 */
import type { CodecContext } from '../../core/codec.ts';
import type { ApiError, ErrorType } from '../../core/ir.ts';
import { errorTypeForStatus } from '../../core/http-status.ts';
import { extensionsOf, hint, isObject, lookupTable, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';

/** The header that names a Bedrock exception. */
export const ERROR_TYPE_HEADER = 'x-amzn-ErrorType';

/** Each exception Bedrock Runtime names (the SDK's modelled ones and the common AWS ones), its HTTP status and neutral type. */
const EXCEPTIONS: Readonly<Record<string, readonly [number, ErrorType]>> = lookupTable({
  ValidationException: [400, 'invalid_request'],
  ConflictException: [400, 'invalid_request'],
  AccessDeniedException: [403, 'permission'],
  UnrecognizedClientException: [403, 'authentication'],
  InvalidSignatureException: [403, 'authentication'],
  ExpiredTokenException: [403, 'authentication'],
  IncompleteSignatureException: [403, 'authentication'],
  MissingAuthenticationTokenException: [403, 'authentication'],
  ResourceNotFoundException: [404, 'not_found'],
  UnknownOperationException: [404, 'not_found'],
  ModelTimeoutException: [408, 'timeout'],
  ModelErrorException: [424, 'server'],
  ModelStreamErrorException: [424, 'server'],
  ThrottlingException: [429, 'rate_limit'],
  ModelNotReadyException: [429, 'overloaded'],
  ServiceQuotaExceededException: [400, 'rate_limit'],
  InternalServerException: [500, 'server'],
  InternalFailure: [500, 'server'],
  ServiceUnavailableException: [503, 'overloaded'],
});

/** The exception name Converse uses for each neutral error type. */
const EXCEPTION_BY_TYPE: Readonly<Record<ErrorType, string>> = {
  invalid_request: 'ValidationException',
  authentication: 'UnrecognizedClientException',
  permission: 'AccessDeniedException',
  not_found: 'ResourceNotFoundException',
  request_too_large: 'ValidationException',
  rate_limit: 'ThrottlingException',
  overloaded: 'ServiceUnavailableException',
  server: 'InternalServerException',
  timeout: 'ModelTimeoutException',
  other: 'InternalServerException',
};

/** `ValidationException:http://…` or `com.amazon.coral.service#UnknownOperationException` → `ValidationException`. */
export function bedrockExceptionName(value: string): string {
  const colon = value.indexOf(':');
  const bare = colon === -1 ? value : value.slice(0, colon);
  const hash = bare.lastIndexOf('#');
  return (hash === -1 ? bare : bare.slice(hash + 1)).trim();
}

/** The HTTP status and neutral type of a Bedrock exception name, when known. */
export function bedrockException(name: string): readonly [number, ErrorType] | undefined {
  return EXCEPTIONS[bedrockExceptionName(name)];
}

const KNOWN: ReadonlySet<string> = new Set(['message', 'Message', '__type', 'code']);

/** Decode a Converse error body. */
export function decodeBedrockError(body: unknown, _context: CodecContext): ApiError {
  if (!isObject(body) || (typeof body['message'] !== 'string' && typeof body['Message'] !== 'string')) {
    const inner = isObject(body) && isObject(body['Output']) ? body['Output']['__type'] : undefined;
    const name = typeof inner === 'string' ? bedrockExceptionName(inner) : undefined;
    const error: ApiError = { type: (name === undefined ? undefined : EXCEPTIONS[name]?.[1]) ?? 'other', message: typeof body === 'string' ? body : JSON.stringify(body) };
    if (name !== undefined) error.code = name;
    hint(error, BEDROCK, '$body', body);
    return error;
  }
  const upper = typeof body['message'] !== 'string';
  const message = (upper ? body['Message'] : body['message']) as string;
  const named = typeof body['__type'] === 'string' ? body['__type'] : typeof body['code'] === 'string' ? body['code'] : undefined;
  const error: ApiError = { type: 'other', message };
  if (named !== undefined) {
    error.code = bedrockExceptionName(named);
    const known = EXCEPTIONS[error.code];
    if (known !== undefined) error.type = known[1];
  }
  if (upper) hint(error, BEDROCK, '$upper', true);
  const rest: JsonObject = unknownKeys(body, new Set(['message', 'Message'])) ?? {};
  if (Object.keys(rest).length > 0) hint(error, BEDROCK, '$rest', rest);
  for (const key in rest) if (!KNOWN.has(key)) (error.extensions ??= {})[BEDROCK] = { ...(error.extensions?.[BEDROCK] ?? {}), [key]: rest[key] };
  return error;
}

/** Complete a decoded error with what the response's headers and status say (`x-amzn-ErrorType`). */
export function bedrockErrorFromHeaders(error: ApiError, headers: { get(name: string): string | null }, status: number | undefined): ApiError {
  const header = headers.get(ERROR_TYPE_HEADER);
  if (header !== null && header !== '') {
    const name = bedrockExceptionName(header);
    if (error.code === undefined) error.code = name;
    const known = EXCEPTIONS[name];
    if (known !== undefined && error.type === 'other') error.type = known[1];
  }
  if (error.type === 'other') error.type = errorTypeForStatus(status);
  return error;
}

/** The exception name for an IR error: its own when Bedrock named it, else the nearest by type. */
export function bedrockErrorName(error: ApiError): string {
  if (error.code !== undefined && EXCEPTIONS[bedrockExceptionName(error.code)] !== undefined) return bedrockExceptionName(error.code);
  return EXCEPTION_BY_TYPE[error.type];
}

/** The headers a Converse error answer carries: `x-amzn-ErrorType`. */
export function bedrockErrorHeaders(error: ApiError): Record<string, string> {
  return { [ERROR_TYPE_HEADER]: bedrockErrorName(error) };
}

/** The HTTP status Bedrock answers an IR error with. */
export function bedrockErrorStatus(error: ApiError): number {
  const own = error.code === undefined ? undefined : EXCEPTIONS[bedrockExceptionName(error.code)];
  return own?.[0] ?? EXCEPTIONS[EXCEPTION_BY_TYPE[error.type]]?.[0] ?? 500;
}

/** Encode an IR error as a Converse error body. */
export function encodeBedrockError(error: ApiError, context: CodecContext): unknown {
  const fields = extensionsOf(error, BEDROCK);
  if (fields?.['$body'] !== undefined) return fields['$body'];
  context.losses.foreignExtensions(error.extensions, BEDROCK, '');
  const body: JsonObject = { [fields?.['$upper'] === true ? 'Message' : 'message']: error.message };
  const rest = fields?.['$rest'];
  if (isObject(rest)) Object.assign(body, rest);
  return body;
}
