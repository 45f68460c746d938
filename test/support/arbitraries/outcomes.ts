/**
 * Outcome classification for the reliability tests: a call either converts, raises an
 * `InterlinguaError` with a JSON pointer, or does "anything else" (a bug);
 * and the JSON-pointer checks the oracles use.
 */
import { isInterlinguaError } from '../../../src/core/errors.ts';

/** How one call ended: a value, a typed error, or anything else (a bug). */
export type Outcome = 'converted' | 'typed' | 'other';

/** Is `text` a syntactically valid JSON pointer (RFC 6901)? */
export function isJsonPointer(text: unknown): boolean {
  return typeof text === 'string' && (text === '' || (text.startsWith('/') && !/~[^01]|~$/.test(text)));
}

/** An `InterlinguaError` whose `path` is a JSON pointer: the only acceptable failure. */
export function isTypedError(error: unknown): boolean {
  return isInterlinguaError(error) && isJsonPointer(error.path);
}

/** Run `call`; a returned value must also serialise (the proxy and the CLI stringify every body). */
export function classify(call: () => unknown): { outcome: Outcome; error?: unknown } {
  try {
    const value = call();
    JSON.stringify(value);
    return { outcome: 'converted' };
  } catch (error) {
    return isTypedError(error) ? { outcome: 'typed', error } : { outcome: 'other', error };
  }
}

/** The value a JSON pointer names inside `root`, or `undefined`. */
export function resolvePointer(root: unknown, path: string): unknown {
  if (path === '') return root;
  let node: unknown = root;
  for (const raw of path.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Does the pointer name a value in `root`, or a key missing from an object that is there (a `missing_field`)? */
export function pointerLandsIn(root: unknown, path: string): boolean {
  if (resolvePointer(root, path) !== undefined) return true;
  const parent = path.slice(0, Math.max(0, path.lastIndexOf('/')));
  const node = resolvePointer(root, parent);
  return typeof node === 'object' && node !== null;
}

/** A short, single-line description of an unexpected error, for reports. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const frame = (error.stack ?? '').split('\n').find((line) => line.includes('/src/')) ?? '';
    return `${error.name}: ${error.message.slice(0, 200)} ${frame.trim()}`;
  }
  return `non-Error thrown: ${String(error).slice(0, 200)}`;
}
