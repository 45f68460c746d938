/**
 * Small helpers every codec uses to read open wire JSON: type checks that
 * throw an `InterlinguaError` with the JSON pointer of the offending value,
 * and the split of known from unknown keys that keeps round trips exact.
 */
import { InterlinguaError } from './errors.ts';
import type { Extensible, FormatId } from './ir.ts';

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** Escape one JSON-pointer segment (RFC 6901). */
export function pointerSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  return segment.includes('~') || segment.includes('/') ? segment.replaceAll('~', '~0').replaceAll('/', '~1') : segment;
}

/** Append segments to a JSON pointer. */
export function pointer(base: string, first: string | number, ...rest: (string | number)[]): string {
  let result = `${base}/${typeof first === 'number' ? first : pointerSegment(first)}`;
  for (let index = 0; index < rest.length; index++) {
    const segment = rest[index] as string | number;
    result += `/${typeof segment === 'number' ? segment : pointerSegment(segment)}`;
  }
  return result;
}

/** Items of a list below this index get their pointers from {@link ItemPointers}'s table. */
const TABLE_ITEMS = 4096;

/**
 * The pointers of one list's items, `<base>/<index><suffix>` (`/messages/7`,
 * `/messages/7/content`), made once per process and kept for a `base` fixed
 * by the decoder (a literal, never a path built from a body): a decoder of
 * a long conversation would otherwise build one or two strings per message
 * for pointers that only an error, a loss or a recorded origin reads.
 * Beyond the table the pointer is built per call. Get one with
 * {@link itemPointers}, which shares it between codecs.
 */
export class ItemPointers {
  readonly #base: string;
  readonly #suffix: string;
  readonly #table: string[] = [];

  constructor(base: string, suffix = '') {
    this.#base = base;
    this.#suffix = suffix;
  }

  at(index: number): string {
    const table = this.#table;
    if (index < table.length) return table[index] as string;
    if (index >= TABLE_ITEMS) return `${this.#base}/${index}${this.#suffix}`;
    // Filled in order, so the table stays a packed list; joined, so each is a flat string (a template literal this long makes a rope).
    while (table.length <= index) table.push([this.#base, '/', table.length, this.#suffix].join(''));
    return table[index] as string;
  }

  /** The pointer of item `index` of the list at `path`: from the table when `path` is this table's base, else built. */
  of(path: string, index: number): string {
    return path === this.#base ? this.at(index) : `${path}/${index}${this.#suffix}`;
  }
}

const ITEM_POINTERS = new Map<string, ItemPointers>();

/** The shared {@link ItemPointers} of `base` (a literal) and `suffix`; a codec takes it once, when its module loads. */
export function itemPointers(base: string, suffix = ''): ItemPointers {
  const key = `${base}\n${suffix}`;
  let pointers = ITEM_POINTERS.get(key);
  if (pointers === undefined) ITEM_POINTERS.set(key, (pointers = new ItemPointers(base, suffix)));
  return pointers;
}

/** The value at JSON pointer `path` (RFC 6901) in `root`, or `undefined` where there is none. */
export function valueAt(root: unknown, path: string): unknown {
  let node = root;
  let start = 1;
  while (start <= path.length) {
    if (typeof node !== 'object' || node === null) return undefined;
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    let segment = path.slice(start, end);
    if (segment.includes('~')) segment = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    start = end + 1;
  }
  return node;
}

/** A short description of a JSON value's type, for messages. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeError(path: string, expected: string, value: unknown, format: FormatId | undefined): InterlinguaError {
  return new InterlinguaError('invalid_type', `expected ${expected}, got ${jsonType(value)}; fix the value`, {
    path,
    ...(format === undefined ? {} : { format }),
  });
}

/** The value as an object, or an `invalid_type` error. */
export function expectObject(value: unknown, path: string, format?: FormatId): JsonObject {
  if (isObject(value)) return value;
  throw typeError(path, 'an object', value, format);
}

/** The value as an array, or an `invalid_type` error. */
export function expectArray(value: unknown, path: string, format?: FormatId): unknown[] {
  if (Array.isArray(value)) return value;
  throw typeError(path, 'an array', value, format);
}

/** The value as a string, or an `invalid_type` error. */
export function expectString(value: unknown, path: string, format?: FormatId): string {
  if (typeof value === 'string') return value;
  throw typeError(path, 'a string', value, format);
}

/** The value as a finite number, or an `invalid_type` error. */
export function expectNumber(value: unknown, path: string, format?: FormatId): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw typeError(path, 'a number', value, format);
}

/** The value as a boolean, or an `invalid_type` error. */
export function expectBoolean(value: unknown, path: string, format?: FormatId): boolean {
  if (typeof value === 'boolean') return value;
  throw typeError(path, 'a boolean', value, format);
}

/** `object[key]`, which must be present, or a `missing_field` error. */
export function required(object: JsonObject, key: string, path: string, format?: FormatId): unknown {
  const value = object[key];
  if (value === undefined) {
    throw new InterlinguaError('missing_field', `"${key}" is required`, {
      path: pointer(path, key),
      ...(format === undefined ? {} : { format }),
    });
  }
  return value;
}

/** The keys of `object` that are not in `known`, or `undefined` when there are none. */
export function unknownKeys(object: JsonObject, known: ReadonlySet<string>): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    if (known.has(key)) continue;
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/**
 * Store `fields` under `node.extensions[format]`, merged with what is there.
 * Does nothing when `fields` is undefined or empty.
 */
export function extend(node: Extensible, format: FormatId, fields: JsonObject | undefined): void {
  if (fields === undefined) return;
  const extensions = (node.extensions ??= {});
  const existing = extensions[format];
  extensions[format] = existing === undefined ? fields : Object.assign(existing, fields);
}

/** Store one shape hint (`$`-prefixed key, never reported as a loss) for `format`. */
export function hint(node: Extensible, format: FormatId, key: `$${string}`, value: unknown): void {
  const extensions = (node.extensions ??= {});
  (extensions[format] ??= {})[key] = value;
}

/** The extension fields of `node` for `format`, if any. */
export function extensionsOf(node: Extensible, format: FormatId): JsonObject | undefined {
  return node.extensions?.[format];
}

/**
 * Copy `node.extensions[format]` onto `target`, skipping `$` shape hints.
 * Keys already set on `target` win, so neutral fields are never overwritten.
 */
export function spreadExtensions(target: JsonObject, node: Extensible, format: FormatId): JsonObject {
  const fields = node.extensions?.[format];
  if (fields === undefined) return target;
  for (const key in fields) {
    if (key.charCodeAt(0) === 36 /* $ */ || key in target) continue;
    target[key] = fields[key];
  }
  return target;
}

/**
 * The deepest nesting of arrays and objects a body may have. JSON.parse
 * accepts any depth, but recursive walkers (schema converters) and
 * JSON.stringify overflow the stack a few thousand levels down; real bodies
 * nest a few dozen levels.
 */
export const MAX_DEPTH = 512;

/**
 * Does `node` (at nesting level `depth`) hold a value nested deeper than
 * `limit`? Recursive, but never deeper than `limit + 1` frames: it stops at
 * the first level past the limit.
 */
function exceeds(node: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      const item: unknown = node[index];
      if (typeof item === 'object' && item !== null && exceeds(item, depth + 1, limit)) return true;
    }
    return false;
  }
  for (const key in node) {
    const item = (node as Record<string, unknown>)[key];
    if (typeof item === 'object' && item !== null && exceeds(item, depth + 1, limit)) return true;
  }
  return false;
}

/** The JSON pointer of the first value nested deeper than `limit` levels, or `undefined` when there is none. */
export function tooDeep(value: unknown, limit: number = MAX_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (!exceeds(value, 1, limit)) return undefined;
  // Rare: walk again, now keeping paths, down the first branch that is too deep.
  const found: { node: unknown; path: string; depth: number }[] = [{ node: value, path: '', depth: 1 }];
  while (found.length > 0) {
    const { node, path, depth } = found.pop() as { node: Record<string, unknown>; path: string; depth: number };
    if (depth > limit) return path;
    for (const key in node) {
      const item = node[key];
      if (typeof item === 'object' && item !== null) found.push({ node: item, path: pointer(path, key), depth: depth + 1 });
    }
  }
  return '';
}

/**
 * Can the JSON `text` nest deeper than `limit`? Each level takes an opening
 * and a closing bracket, so a text shorter than `2 × (limit + 1)` cannot:
 * most stream events and small bodies skip the walk of {@link tooDeep}.
 */
export function mayNestTooDeep(text: string, limit: number = MAX_DEPTH): boolean {
  return text.length >= 2 * (limit + 1);
}

/** Throw an `invalid_value` error when `value` nests deeper than {@link MAX_DEPTH}. */
export function checkDepth(value: unknown, path = '', format?: FormatId): void {
  const at = tooDeep(value);
  if (at === undefined) return;
  throw new InterlinguaError('invalid_value', `the value nests deeper than ${MAX_DEPTH} levels; flatten it`, {
    path: path + at,
    ...(format === undefined ? {} : { format }),
  });
}

/**
 * `target[key] = value` as an own data property, for a key read from the
 * wire: assignment to `"__proto__"` would set the object's prototype
 * instead (JSON.parse makes it an own key, so a body can hold one).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A lookup table keyed by wire strings, without a prototype: a wire value
 * such as "constructor" or "toString" finds nothing instead of an inherited
 * function.
 */
export function lookupTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/**
 * `list` with `item` appended; a new list of `item` when there is none yet
 * (or it is empty). The first `push` into `[]` gives a list room for 17
 * items, and most lists a codec builds (a message's parts or blocks, a
 * result's content, a turn's tool calls) hold one or two.
 */
export function appended<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined || list.length === 0) return [item];
  list.push(item);
  return list;
}

/** Strings longer than this go to `JSON.stringify` at once (its native scan is faster on long text). */
const SHORT_STRING = 128;

/**
 * `JSON.stringify(text)` for a string, faster for the short deltas of a
 * stream: `JSON.stringify` of a string costs about 90 ns however short it
 * is. A string with no quote, backslash, control character or lone
 * surrogate is its own JSON text between quotes (JSON.stringify escapes
 * only those), so it is written so; any other goes to `JSON.stringify`.
 */
export function jsonString(text: string): string {
  if (text.length > SHORT_STRING) return JSON.stringify(text);
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return JSON.stringify(text);
    if (code >= 0xd800 && code <= 0xdfff) {
      // A high surrogate followed by a low one is a pair (written as it is); any other surrogate is escaped.
      const next = text.charCodeAt(index + 1);
      if (code >= 0xdc00 || !(next >= 0xdc00 && next <= 0xdfff)) return JSON.stringify(text);
      index++;
    }
  }
  return `"${text}"`;
}
