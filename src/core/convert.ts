/**
 * The conversions: decode with one codec, encode with another, collect the
 * losses of both steps, and enforce `strict`.
 */
import { codecFor } from './registry.ts';
import { InterlinguaError } from './errors.ts';
import { LossCollector, throwIfStrict, type Loss } from './losses.ts';
import { checkDepth, mayNestTooDeep } from './wire.ts';
import type { ApiError, FormatId, Request, Response } from './ir.ts';

/** Options of {@link convertRequest} and {@link convertResponse}. */
export interface ConvertOptions {
  from: FormatId;
  to: FormatId;
  /** Throw an `InterlinguaError` (code `strict_loss`) instead of returning losses. */
  strict?: boolean;
  /** The model, for formats that carry it in the URL (Gemini). */
  model?: string;
}

/** A converted body and what the conversion could not carry. */
export interface ConvertResult {
  body: unknown;
  losses: Loss[];
}

/** A decoded IR value and the losses of decoding. */
export interface Decoded<T> {
  ir: T;
  losses: Loss[];
}

/** An encoded wire body and the losses of encoding. */
export interface Encoded {
  body: unknown;
  losses: Loss[];
}

/** Options of the per-format decode and encode functions. */
export interface CodecOptions {
  model?: string;
  strict?: boolean;
}

/** Parse JSON text into a value; objects pass through untouched. Either way, a value nested deeper than `MAX_DEPTH` is an `invalid_value` error. */
export function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') {
    checkDepth(body);
    return body;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new InterlinguaError('invalid_json', `the body is not valid JSON (${(error as Error).message}); send a JSON object`, {
      path: '',
      cause: error,
    });
  }
  if (mayNestTooDeep(body)) checkDepth(value);
  return value;
}

function context(losses: LossCollector, model: string | undefined) {
  return model === undefined ? { losses } : { losses, model };
}

/** Convert a request body from one format to another. */
export function convertRequest(body: unknown, options: ConvertOptions): ConvertResult {
  const losses = new LossCollector();
  const source = codecFor(options.from);
  const target = codecFor(options.to);
  const ir = source.decodeRequest(parseBody(body), context(losses, options.model));
  const out = target.encodeRequest(ir, context(losses, options.model));
  throwIfStrict(losses.losses, options.strict);
  return { body: out, losses: losses.losses };
}

/** Convert a whole (non-streamed) response body from one format to another. */
export function convertResponse(body: unknown, options: ConvertOptions): ConvertResult {
  const losses = new LossCollector();
  const source = codecFor(options.from);
  const target = codecFor(options.to);
  const ir = source.decodeResponse(parseBody(body), context(losses, options.model));
  const out = target.encodeResponse(ir, context(losses, options.model));
  throwIfStrict(losses.losses, options.strict);
  return { body: out, losses: losses.losses };
}

/** Convert a vendor error body from one format to another. */
export function convertError(body: unknown, options: ConvertOptions): ConvertResult {
  const losses = new LossCollector();
  const ir = codecFor(options.from).decodeError(parseBody(body), context(losses, options.model));
  const out = codecFor(options.to).encodeError(ir, context(losses, options.model));
  throwIfStrict(losses.losses, options.strict);
  return { body: out, losses: losses.losses };
}

function decodeWith<T>(decode: (losses: LossCollector) => T, strict: boolean | undefined): Decoded<T> {
  const losses = new LossCollector();
  const ir = decode(losses);
  throwIfStrict(losses.losses, strict);
  return { ir, losses: losses.losses };
}

function encodeWith(encode: (losses: LossCollector) => unknown, strict: boolean | undefined): Encoded {
  const losses = new LossCollector();
  const body = encode(losses);
  throwIfStrict(losses.losses, strict);
  return { body, losses: losses.losses };
}

/** Decode a request body of `format` into the IR. */
export function decodeRequest(format: FormatId, body: unknown, options: CodecOptions = {}): Decoded<Request> {
  return decodeWith((losses) => codecFor(format).decodeRequest(parseBody(body), context(losses, options.model)), options.strict);
}

/** Encode an IR request into a body of `format`. */
export function encodeRequest(format: FormatId, request: Request, options: CodecOptions = {}): Encoded {
  return encodeWith((losses) => codecFor(format).encodeRequest(request, context(losses, options.model)), options.strict);
}

/** Decode a response body of `format` into the IR. */
export function decodeResponse(format: FormatId, body: unknown, options: CodecOptions = {}): Decoded<Response> {
  return decodeWith((losses) => codecFor(format).decodeResponse(parseBody(body), context(losses, options.model)), options.strict);
}

/** Encode an IR response into a body of `format`. */
export function encodeResponse(format: FormatId, response: Response, options: CodecOptions = {}): Encoded {
  return encodeWith((losses) => codecFor(format).encodeResponse(response, context(losses, options.model)), options.strict);
}

/** Decode a vendor error body of `format` into the IR. */
export function decodeError(format: FormatId, body: unknown, options: CodecOptions = {}): Decoded<ApiError> {
  return decodeWith((losses) => codecFor(format).decodeError(parseBody(body), context(losses, options.model)), options.strict);
}

/** Encode an IR error into an error body of `format`. */
export function encodeError(format: FormatId, error: ApiError, options: CodecOptions = {}): Encoded {
  return encodeWith((losses) => codecFor(format).encodeError(error, context(losses, options.model)), options.strict);
}
