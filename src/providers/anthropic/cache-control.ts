/**
 * Anthropic `cache_control` ⇄ the IR's prompt-cache breakpoint (`cache` on a
 * part or tool). `{"type": "ephemeral"}`, with a `ttl` of `5m` or `1h` or
 * none, is the neutral breakpoint; any other value (a type or key Anthropic
 * adds later, a `null` from a replayed Python dump) stays an extension of
 * the block, for Anthropic only, as before.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 */
import type { CacheBreakpoint } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { unknownKeys, type JsonObject } from '../../core/wire.ts';
import { markerBreakpoint, markerTtl } from '../../core/cache-points.ts';

/** The lifetimes Anthropic takes. */
const LIFETIMES: readonly string[] = ['5m', '1h'];

/** The key a lifted breakpoint leaves behind. */
const CACHE_CONTROL: ReadonlySet<string> = new Set(['cache_control']);

/**
 * `rest` (the keys of a block or tool its decoder did not read) without a
 * neutral `cache_control`, which is set on `node.cache` instead; `rest`
 * itself when it has none.
 */
export function liftCacheControl(node: { cache?: CacheBreakpoint }, rest: JsonObject | undefined): JsonObject | undefined {
  if (rest === undefined || rest['cache_control'] === undefined) return rest;
  const cache = cacheControlBreakpoint(rest['cache_control']);
  if (cache === undefined) return rest;
  node.cache = cache;
  return unknownKeys(rest, CACHE_CONTROL);
}

/** The breakpoint a `cache_control` value is (on a block, a tool, or the request: automatic caching), or `undefined` for any other value. */
export function cacheControlBreakpoint(value: unknown): CacheBreakpoint | undefined {
  return markerBreakpoint(value, 'type', 'ephemeral', LIFETIMES);
}

/** The `cache_control` value of a breakpoint (of the part or tool at IR pointer `path`). */
export function cacheControlOf(cache: CacheBreakpoint, path: string, losses: LossCollector): JsonObject {
  const ttl = markerTtl(cache, LIFETIMES, path, losses, 'Anthropic');
  return ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
}
