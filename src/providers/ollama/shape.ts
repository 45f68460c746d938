/**
 * Small helpers shared by the ollama codec files: the format id, the split of
 * known from unknown keys, and shape hints.
 */
import type { Extensible } from '../../core/ir.ts';
import { extend, extensionsOf, unknownKeys, type JsonObject } from '../../core/wire.ts';

/** The format id of this codec. */
export const FORMAT = 'ollama';

/** Store every key of `object` that is not in `known` in `node.extensions.ollama`. */
export function keepUnknown(node: Extensible, object: JsonObject, known: ReadonlySet<string>): void {
  extend(node, FORMAT, unknownKeys(object, known));
}

/** A shape hint (or extension field) of this format on `node`, if set. */
export function shapeHint(node: Extensible, key: string): unknown {
  return extensionsOf(node, FORMAT)?.[key];
}

/**
 * Whether a decode headed for `target` keeps the shape hints only the Ollama
 * encoder reads: for Ollama itself or an unknown target (see `CodecContext.target`).
 */
export function keepsHints(target: string | undefined): boolean {
  return target === undefined || target === FORMAT;
}

/** A `Set` of known keys. */
export function keys(...names: string[]): ReadonlySet<string> {
  return new Set(names);
}
