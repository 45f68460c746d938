/**
 * Small helpers shared by the Anthropic decoders and encoders: the format id,
 * shape hints for values that were `null` on the wire, and optional fields.
 */
import type { Extensible, Extensions, FormatId } from '../../core/ir.ts';
import { expectString, pointer, type JsonObject } from '../../core/wire.ts';

/** The format id of this codec. */
export const ANTHROPIC: FormatId = 'anthropic';

/** The shape hints of `node` for Anthropic, if any. */
export function anthropicHints(node: Extensible): JsonObject | undefined {
  return node.extensions?.anthropic;
}

/** True when `extensions` holds only Anthropic's own hints and extras, of which encoding reports nothing (no pointer needed for `foreignExtensions`). */
export function onlyAnthropic(extensions: Extensions): boolean {
  for (const format in extensions) if (format !== ANTHROPIC) return false;
  return true;
}

/** True when `node` carries the Anthropic shape hint `key` with a truthy value. */
export function hasHint(node: Extensible, key: `$${string}`): boolean {
  const value = node.extensions?.anthropic?.[key];
  return value !== undefined && value !== false;
}

/**
 * Store one Anthropic shape hint (`$`-prefixed key) on `node`: what
 * `hint(node, ANTHROPIC, key, value)` does, with the format key written
 * as a name (the shared `hint` reads and writes it by a key that differs per
 * codec, which costs a generic lookup per call).
 */
export function anthropicHint(node: Extensible, key: `$${string}`, value: unknown): void {
  const extensions = node.extensions;
  let own = extensions?.anthropic;
  if (own === undefined) {
    // Not `{ [key]: value }`: an object literal with a computed key is built by a runtime call, several times slower.
    own = {};
    if (extensions === undefined) node.extensions = { anthropic: own };
    else extensions.anthropic = own;
  }
  own[key] = value;
}

/** Remember that the wire had `key: null` on this node (shape hint `$nulls`). */
export function hintNull(node: Extensible, key: string): void {
  const existing = node.extensions?.anthropic?.['$nulls'];
  if (Array.isArray(existing)) existing.push(key);
  else anthropicHint(node, '$nulls', [key]);
}

/** True when the wire had `key: null` on this node. */
export function wasNull(node: Extensible, key: string): boolean {
  const nulls = node.extensions?.anthropic?.['$nulls'];
  return Array.isArray(nulls) && nulls.includes(key);
}

/**
 * An optional string field: the string, or `undefined` when absent; `null`
 * is recorded as a shape hint on `node`. Any other type is an `invalid_type` error.
 */
export function optionalString(object: JsonObject, key: string, path: string, node: Extensible): string | undefined {
  const value = object[key];
  if (value === undefined) return undefined;
  if (value === null) {
    hintNull(node, key);
    return undefined;
  }
  return expectString(value, pointer(path, key), ANTHROPIC);
}

/** Write `value` under `key`, or `null` when the source had `null` there, or nothing. */
export function putOptional(target: JsonObject, key: string, value: unknown, node: Extensible): void {
  if (value !== undefined) target[key] = value;
  else if (wasNull(node, key)) target[key] = null;
}
