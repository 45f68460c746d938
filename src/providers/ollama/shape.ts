/**
 * Small helpers shared by the ollama codec files: the format id, the split of
 * known from unknown keys, and shape hints (a stream line's envelope among them).
 */
import type { Extensible } from '../../core/ir.ts';
import { extend, extensionsOf, unknownKeys, type JsonObject } from '../../core/wire.ts';

/** The format id of this codec. */
export const FORMAT = 'ollama';

/** Store every key of `object` that is not in `known` in `node.extensions.ollama`. */
export function keepUnknown(node: Extensible, object: JsonObject, known: ReadonlySet<string>): void {
  extend(node, FORMAT, unknownKeys(object, known));
}

/**
 * Store one shape hint (`$`-prefixed key) of this format on `node`: what
 * `hint(node, FORMAT, key, value)` does, with the format key written as a
 * name (the shared `hint` reads and writes it by a key that differs per
 * codec, which costs a generic lookup per call).
 */
export function ollamaHint(node: Extensible, key: `$${string}`, value: unknown): void {
  const extensions = node.extensions;
  let own = extensions?.ollama;
  if (own === undefined) {
    // Not `{ [key]: value }`: an object literal with a computed key is built by a runtime call, several times slower.
    own = {};
    if (extensions === undefined) node.extensions = { ollama: own };
    else extensions.ollama = own;
  }
  own[key] = value;
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

/** The keys of `object` other than the given ones (compared directly: cheaper than a set lookup per key). */
export function extras(object: JsonObject, first: string, second: string, third: string): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    if (key === first || key === second || key === third) continue;
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** The envelope of one line, kept so the encoder writes it back as it was. */
export interface LineShape {
  model?: unknown;
  created_at?: unknown;
  /** `/api/generate` line: `response` instead of `message`. */
  generate?: true;
  /** Line keys with no neutral meaning. */
  rest?: JsonObject;
  /** Message keys with no neutral meaning (a role other than assistant included); `null` when the line had no message. */
  message?: JsonObject | null;
  /** `content` was absent from the message. */
  noContent?: true;
  /** `thinking` was present and empty. */
  emptyThinking?: true;
  /** `done` when it was not the boolean the line's place implies. */
  done?: unknown;
}
