/**
 * Ollama error bodies: `{"error": "<message>"}` with the HTTP status. Inside a
 * stream an error is a line of the same shape.
 * @see https://github.com/ollama/ollama/blob/main/docs/api/errors.mdx
 */
import type { ApiError } from '../../core/ir.ts';
import type { CodecContext } from '../../core/codec.ts';
import { isObject, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { FORMAT, keepUnknown, keys, ollamaHint, shapeHint } from './shape.ts';

const KNOWN = keys('error');

/** Decode an Ollama error body (lenient: a bare string or an odd `error` value is kept as is). */
export function decodeOllamaError(body: unknown, _context: CodecContext): ApiError {
  if (typeof body === 'string') {
    const error: ApiError = { type: 'other', message: body };
    ollamaHint(error, '$body', 'text');
    return error;
  }
  if (!isObject(body)) {
    const error: ApiError = { type: 'other', message: '' };
    ollamaHint(error, '$body', body === undefined ? 'absent' : body);
    return error;
  }
  const inner = body['error'];
  const error: ApiError = { type: 'other', message: typeof inner === 'string' ? inner : '' };
  if (typeof inner !== 'string') ollamaHint(error, '$error', inner === undefined ? 'absent' : inner);
  keepUnknown(error, body, KNOWN);
  return error;
}

/** Encode an Ollama error body; the HTTP status travels outside it (`error.status`). */
export function encodeOllamaError(error: ApiError, context: CodecContext): unknown {
  context.losses.foreignExtensions(error.extensions, FORMAT, '');
  const body = shapeHint(error, '$body');
  if (body === 'text') return error.message;
  if (body !== undefined) return body === 'absent' ? undefined : body;
  const inner = shapeHint(error, '$error');
  const wire: JsonObject = {};
  if (inner === undefined) wire['error'] = error.message;
  else if (inner !== 'absent') wire['error'] = inner;
  return spreadExtensions(wire, error, FORMAT);
}
