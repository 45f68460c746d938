/**
 * Failures of the input itself (a line that is not JSON, a batch item with no
 * answer): thrown while building a record and turned into an `errors.jsonl`
 * line with the code and message, like an `InterlinguaError`.
 */
import { isInterlinguaError } from '../core/errors.ts';
import type { NormalizeErrorCode } from './types.ts';

/** An input item that cannot become a record, with the reason. */
export class NormalizeFailure extends Error {
  override readonly name = 'NormalizeFailure';
  readonly code: NormalizeErrorCode;

  constructor(code: NormalizeErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The code, message and JSON pointer (when known) of anything thrown while building a record. */
export function reasonOf(error: unknown): { code: NormalizeErrorCode; message: string; path?: string } {
  if (error instanceof NormalizeFailure) return { code: error.code, message: error.message };
  if (isInterlinguaError(error)) {
    return error.path === '' ? { code: error.code, message: error.message } : { code: error.code, message: error.message, path: error.path };
  }
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
