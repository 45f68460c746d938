/**
 * Small helpers shared by the openai-chat codec files: the format id, the
 * split of known from unknown keys (explicit `null`s of known keys travel as
 * extensions so they come back exactly), and nested extras (unknown keys of a
 * nested wire object such as `image_url`, kept under that object's key).
 */
import type { Extensible } from '../../core/ir.ts';
import { expectString, extend, extensionsOf, isObject, pointer, required, type JsonObject } from '../../core/wire.ts';

/** The format id of this codec. */
export const FORMAT = 'openai-chat';

/**
 * Store every key of `object` that is not in `known`, and every known key
 * whose value is `null`, in `node.extensions['openai-chat']`. Decoders then
 * treat `null` as absent; the encoder's `spreadExtensions` puts the `null` back.
 * Keys in `nullable` are the exception: their `null` is a shape hint the caller sets.
 */
export function keepUnknown(
  node: Extensible,
  object: JsonObject,
  known: ReadonlySet<string>,
  nullable?: ReadonlySet<string>,
): void {
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    if (known.has(key) && (value !== null || nullable?.has(key) === true)) continue;
    (rest ??= {})[key] = value;
  }
  extend(node, FORMAT, rest);
}

/**
 * {@link keepUnknown} for a wire object with two to four known keys, compared
 * directly (cheaper than a set lookup per key, for the objects of which a
 * body has many: messages, tool calls). `nullable`, if given, is the known
 * key whose `null` the caller records itself.
 */
export function keepUnknownOf(node: Extensible, object: JsonObject, nullable: string | undefined, first: string, second: string, third = first, fourth = first): void {
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    if ((key === first || key === second || key === third || key === fourth) && (value !== null || key === nullable)) continue;
    (rest ??= {})[key] = value;
  }
  extend(node, FORMAT, rest);
}

/**
 * Keep the unknown keys of a nested wire object (`image_url`, `function`, …)
 * under `extensions['openai-chat'][key]`. `spreadExtensions` skips that key
 * because the encoder sets it itself; {@link nestedExtras} reads it back.
 */
export function keepNestedUnknown(node: Extensible, key: string, object: JsonObject, known: ReadonlySet<string>): void {
  let rest: JsonObject | undefined;
  for (const field in object) {
    if (known.has(field)) continue;
    (rest ??= {})[field] = object[field];
  }
  if (rest !== undefined) extend(node, FORMAT, { [key]: rest });
}

/** {@link keepNestedUnknown} for a nested object with two known keys, compared directly. */
export function keepNestedUnknownOf(node: Extensible, key: string, object: JsonObject, first: string, second: string): void {
  let rest: JsonObject | undefined;
  for (const field in object) {
    if (field === first || field === second) continue;
    (rest ??= {})[field] = object[field];
  }
  if (rest !== undefined) extend(node, FORMAT, { [key]: rest });
}

/** Copy the nested extras kept by {@link keepNestedUnknown} onto `target`, without overwriting set keys. */
export function nestedExtras<T extends object>(target: T, node: Extensible, key: string): T {
  const extras = extensionsOf(node, FORMAT)?.[key];
  if (!isObject(extras)) return target;
  const record = target as Record<string, unknown>;
  for (const field in extras) {
    if (!(field in record)) record[field] = extras[field];
  }
  return target;
}

/**
 * Store one shape hint (`$`-prefixed key) of this format on `node`: what
 * `hint(node, FORMAT, key, value)` does, with the format key written as a
 * name (the shared `hint` reads and writes it by a key that differs per
 * codec, which costs a generic lookup per call).
 */
export function chatHint(node: Extensible, key: `$${string}`, value: unknown): void {
  const extensions = node.extensions;
  let own = extensions?.['openai-chat'];
  if (own === undefined) {
    // Not `{ [key]: value }`: an object literal with a computed key is built by a runtime call, several times slower.
    own = {};
    if (extensions === undefined) node.extensions = { 'openai-chat': own };
    else extensions['openai-chat'] = own;
  }
  own[key] = value;
}

/** A shape hint of this format on `node`, if set. */
export function shapeHint(node: Extensible, key: `$${string}`): unknown {
  return extensionsOf(node, FORMAT)?.[key];
}

/**
 * Whether a decode headed for `target` keeps the shape hints only this
 * format's encoder reads: for openai-chat itself or an unknown target (see
 * `CodecContext.target`).
 */
export function keepsHints(target: string | undefined): boolean {
  return target === undefined || target === FORMAT;
}

/**
 * Whether a decode headed for `target` parses tool-call argument text into
 * objects. Chat and Responses encoders write the argument text the IR keeps
 * (`rawArguments`), so for them the parse is skipped; the IR's `arguments`
 * is then unset, which no encoder of those formats reads when the text is
 * there. Unknown target: parse.
 */
export function parsesArguments(target: string | undefined): boolean {
  return target !== FORMAT && target !== 'openai-responses';
}

/** The required string `object[key]`; the pointer for the error is built only when it is missing or not a string. */
export function stringField(object: JsonObject, key: string, path: string): string {
  const value = object[key];
  if (typeof value === 'string') return value;
  return expectString(required(object, key, path, FORMAT), pointer(path, key), FORMAT);
}

/** A `Set` of known keys, for {@link keepUnknown}. */
export function keys(...names: string[]): ReadonlySet<string> {
  return new Set(names);
}

/** Deep equality of two JSON values, ignoring key order (for small values such as a tool choice). */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left)) {
    return Array.isArray(right) && left.length === right.length && left.every((item, index) => sameJson(item, right[index]));
  }
  if (!isObject(left) || !isObject(right)) return false;
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => key in right && sameJson(left[key], right[key]));
}
