/**
 * The values JSON cannot carry, refused where a body comes in
 * (`parseBody`): a number that is not finite (`1e999` parses to
 * `Infinity`, which `JSON.stringify` writes as `null`, so a same-format
 * trip would send another value than the caller's) and, in a body handed
 * in as a JavaScript value, `NaN` and array holes (`delete list[i]`, which
 * every decoder would read as `undefined`). Each is an `InterlinguaError`
 * naming the value's JSON pointer.
 */
import { InterlinguaError } from './errors.ts';
import { checkDepth, pointer } from './wire.ts';

/** An exponent of three digits or more (see {@link mayHoldNonFinite}). */
const HUGE_EXPONENT = /[eE]\+?\d{3}/;

/** A run of 309 digits (see {@link mayHoldNonFinite}). */
const LONG_DIGITS = /\d{309}/;

/**
 * Can the JSON `text` hold a number `JSON.parse` makes infinite? Only an
 * exponent of three digits or more, or a run of 309 digits, reaches past
 * `Number.MAX_VALUE` (1.8e308): a body without either skips the walk. Two
 * patterns, the second only for a text long enough to match it: one
 * alternation with a look-behind took three times as long on a small body.
 */
export function mayHoldNonFinite(text: string): boolean {
  return HUGE_EXPONENT.test(text) || (text.length >= 309 && LONG_DIGITS.test(text));
}

/** Does `node` hold a hole or a non-finite number? (Depth already checked: the recursion is bounded.) */
function holds(node: object): boolean {
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      if (!(index in node)) return true;
      const item: unknown = node[index];
      if (typeof item === 'number' ? !Number.isFinite(item) : typeof item === 'object' && item !== null && holds(item)) return true;
    }
    return false;
  }
  for (const key in node) {
    const item = (node as Record<string, unknown>)[key];
    if (typeof item === 'number' ? !Number.isFinite(item) : typeof item === 'object' && item !== null && holds(item)) return true;
  }
  return false;
}

/** The pointer and description of the first hole or non-finite number in `value` (the slow walk, run only once {@link holds} found one). */
function firstBad(value: object): { path: string; what: string } {
  const stack: { node: Record<string, unknown>; path: string }[] = [{ node: value as Record<string, unknown>, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    const keys = Array.isArray(node) ? Array.from({ length: node.length }, (_, index) => String(index)) : Object.keys(node);
    for (const key of keys) {
      if (Array.isArray(node) && !(key in node)) return { path: pointer(path, key), what: 'an empty array slot (a hole, as `delete list[i]` leaves); remove the slot with `splice`' };
      const item = node[key];
      if (typeof item === 'number' && !Number.isFinite(item)) return { path: pointer(path, key), what: `a number JSON cannot carry (${String(item)}); send a finite number` };
      if (typeof item === 'object' && item !== null) stack.push({ node: item as Record<string, unknown>, path: pointer(path, key) });
    }
  }
  return { path: '', what: 'a value JSON cannot carry' };
}

/** Refuse a value nested too deep (see `checkDepth`), or holding a hole or a non-finite number. */
export function checkBodyValues(value: unknown): void {
  checkDepth(value);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new InterlinguaError('invalid_value', `the body is ${String(value)}, a number JSON cannot carry`, { path: '' });
  if (typeof value !== 'object' || value === null || !holds(value)) return;
  const { path, what } = firstBad(value);
  throw new InterlinguaError('invalid_value', `the body holds ${what}`, { path });
}
