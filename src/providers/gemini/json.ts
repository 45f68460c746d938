/** Small JSON helpers for the Gemini codec: deep equality (encoders) and the missing-field error (decoders). */
import { InterlinguaError } from '../../core/errors.ts';

/** Deep equality of two JSON values (key order ignored). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) if (!jsonEqual(left[index], right[index])) return false;
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftObject = left as Record<string, unknown>;
  const rightObject = right as Record<string, unknown>;
  let count = 0;
  for (const key in leftObject) {
    if (leftObject[key] === undefined) continue;
    count++;
    if (!jsonEqual(leftObject[key], rightObject[key])) return false;
  }
  for (const key in rightObject) if (rightObject[key] !== undefined) count--;
  return count === 0;
}

/** A `missing_field` error for `key` at `path`. */
export function missing(path: string, key: string): InterlinguaError {
  return new InterlinguaError('missing_field', `"${key}" is required`, { path, format: 'gemini' });
}
