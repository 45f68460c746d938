/**
 * The one error class interlingua throws. Every error names what failed, the
 * JSON pointer of the offending value, and what to do about it.
 */
import type { FormatId } from './ir.ts';

/** The closed set of error codes. */
export type ErrorCode =
  /** The body is not JSON. */
  | 'invalid_json'
  /** A value has the wrong JSON type. */
  | 'invalid_type'
  /** A required field is absent. */
  | 'missing_field'
  /** A value has the right type but is not allowed (bad enum, bad media type, …). */
  | 'invalid_value'
  /** References between parts do not line up (a tool result answering no call, …). */
  | 'invalid_reference'
  /** The format id is not one interlingua knows. */
  | 'unknown_format'
  /** The format is known but this direction is not implemented yet. */
  | 'not_implemented'
  /** The format or kind could not be detected. */
  | 'detect_failed'
  /** `strict: true` and the conversion had losses. */
  | 'strict_loss'
  /** A stream ended or broke where it must not. */
  | 'stream_error';

/** Structured fields of an {@link InterlinguaError}. */
export interface InterlinguaErrorOptions {
  /** JSON pointer of the offending value (`''` for the whole body). */
  path?: string;
  /** The format being decoded or encoded. */
  format?: FormatId;
  cause?: unknown;
}

/** An error with a code discriminant, a JSON pointer and a message for people. */
export class InterlinguaError extends Error {
  override readonly name = 'InterlinguaError';
  readonly code: ErrorCode;
  readonly path: string;
  readonly format: FormatId | undefined;

  constructor(code: ErrorCode, message: string, options: InterlinguaErrorOptions = {}) {
    super(`${message}${placeOf(options.path, options.format)}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path ?? '';
    this.format = options.format;
  }
}

/** What an error's message ends with: where the value is and in which format. */
function placeOf(path: string | undefined, format: FormatId | undefined): string {
  const where = path === undefined ? '' : ` at ${path === '' ? '/' : path}`;
  return format === undefined ? where : `${where} (${format})`;
}

/**
 * `error` again for a body nested at `prefix` of the one passed in (the
 * request inside a token-counting body): the same code, message and format,
 * its path under `prefix`.
 */
export function errorUnder(prefix: string, error: InterlinguaError): InterlinguaError {
  const place = placeOf(error.path, error.format);
  const message = error.message.endsWith(place) ? error.message.slice(0, -place.length) : error.message;
  return new InterlinguaError(error.code, message, { path: `${prefix}${error.path}`, ...(error.format === undefined ? {} : { format: error.format }), cause: error });
}

/** True for an {@link InterlinguaError}, also across module copies. */
export function isInterlinguaError(value: unknown): value is InterlinguaError {
  return value instanceof InterlinguaError || (value instanceof Error && value.name === 'InterlinguaError' && 'code' in value);
}
