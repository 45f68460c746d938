/**
 * Gemini's REST body is proto3-JSON: lowerCamelCase is canonical, but the
 * server also parses snake_case, and recorded bodies use both. Decoders read
 * either spelling and remember which camel keys were spelled snake_case, so
 * the encoder can spell them back exactly.
 */
import type { JsonObject } from '../../core/wire.ts';

// Decoders ask for the snake spelling of the same few dozen field names on every key they read;
// a regex replace each time was the largest cost of a Gemini decode (see docs/BENCHMARKS.md).
const SNAKE = new Map<string, string>();

/** `thoughtSignature` → `thought_signature`. */
export function snakeCase(camel: string): string {
  let snake = SNAKE.get(camel);
  if (snake === undefined) {
    snake = camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (SNAKE.size < 4096) SNAKE.set(camel, snake);
  }
  return snake;
}

/** A set of known keys in both spellings, for `unknownKeys`. */
export function knownKeys(camelKeys: readonly string[]): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const key of camelKeys) {
    keys.add(key);
    keys.add(snakeCase(key));
  }
  return keys;
}

/** True when some key of `object` has an underscore: only then can a field be spelled snake_case. */
function hasSnakeKey(object: JsonObject): boolean {
  for (const key in object) if (key.includes('_')) return true;
  return false;
}

/** Records which camel keys an object spelled in snake_case. */
export class Spelling {
  snake: string[] | undefined;
  /** An object known to have no snake_case key, whose missing camel keys need no second look. */
  private readonly camelOnly: JsonObject | undefined;

  /** `object`: the object most reads go to; a read that misses in it looks for snake_case only when it has such keys. */
  constructor(object?: JsonObject) {
    this.camelOnly = object !== undefined && !hasSnakeKey(object) ? object : undefined;
  }

  /** `object[camel]`, or `object[snake_case(camel)]` (recorded), or `undefined`. */
  read(object: JsonObject, camel: string): unknown {
    const value = object[camel];
    if (value !== undefined || object === this.camelOnly) return value;
    const snake = snakeCase(camel);
    const snakeValue = object[snake];
    if (snakeValue !== undefined) (this.snake ??= []).push(camel);
    return snakeValue;
  }

  /** The key `object` spells `camel` with (snake_case when only that is there), for error pointers into the body. */
  static key(object: JsonObject, camel: string): string {
    return object[camel] === undefined && object[snakeCase(camel)] !== undefined ? snakeCase(camel) : camel;
  }

  /** True when `object` has `camel` in either spelling. */
  static has(object: JsonObject, camel: string): boolean {
    return object[camel] !== undefined || object[snakeCase(camel)] !== undefined;
  }
}

/** Rename the listed camel keys of `object` to snake_case, in place. */
export function respell(object: JsonObject, snake: unknown): JsonObject {
  if (!Array.isArray(snake)) return object;
  for (const camel of snake) {
    if (typeof camel !== 'string' || !(camel in object)) continue;
    object[snakeCase(camel)] = object[camel];
    delete object[camel];
  }
  return object;
}
