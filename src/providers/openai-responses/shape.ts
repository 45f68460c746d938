/**
 * Small helpers shared by the OpenAI Responses codec files: the format id,
 * `null`-versus-absent shape hints, and the hint readers.
 */
import type { Extensible, FormatId } from '../../core/ir.ts';
import { hint, itemPointers, type JsonObject } from '../../core/wire.ts';

/** The format id of this codec. */
export const FORMAT: FormatId = 'openai-responses';

/**
 * Prefix of the extension keys, on the first part of an assistant message
 * item, that belong to the item itself (`message.phase`), not to the part.
 */
export const MESSAGE_KEY_PREFIX = 'message.';

/** Whether the encoder builds a request (`input` items) or a response (`output` items). */
export type ItemTarget = 'request' | 'response';

/** The `openai-responses` extension fields of a node, if any. */
export function own(node: Extensible): JsonObject | undefined {
  return node.extensions?.[FORMAT];
}

/** One shape hint of a node, if set. */
export function ownHint(node: Extensible, key: `$${string}`): unknown {
  return node.extensions?.[FORMAT]?.[key];
}

/**
 * Record the keys of `object` among `keys` whose value is an explicit `null`,
 * as the `$nulls` hint, so the encoder writes them back.
 */
export function keepNulls(node: Extensible, object: JsonObject, keys: readonly string[]): void {
  // A long key list (a request's): most request bodies have no null at all, and one pass over their few keys says so.
  if (keys.length > 8 && !hasNull(object)) return;
  let nulls: string[] | undefined;
  for (const key of keys) if (object[key] === null) (nulls ??= []).push(key);
  if (nulls !== undefined) hint(node, FORMAT, '$nulls', nulls);
}

function hasNull(object: JsonObject): boolean {
  for (const key in object) if (object[key] === null) return true;
  return false;
}

/** Write back the explicit `null`s recorded by {@link keepNulls} where `target` has no value. */
export function restoreNulls(target: JsonObject, node: Extensible): JsonObject {
  const nulls = ownHint(node, '$nulls');
  if (!Array.isArray(nulls)) return target;
  for (const key of nulls as string[]) if (!(key in target)) target[key] = null;
  return target;
}

/** True when the source spelled `key` as an explicit `null` (see {@link keepNulls}). */
export function wasNull(node: Extensible, key: string): boolean {
  const nulls = ownHint(node, '$nulls');
  return Array.isArray(nulls) && nulls.includes(key);
}

/** Pointers of the request's `/input` items, shared (`INPUT_POINTERS.of(path, index)` builds one for another list). */
export const INPUT_POINTERS = itemPointers('/input');

/** `value` unless it is `null` or `undefined`. */
export function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}
