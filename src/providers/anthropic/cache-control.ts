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
import type { JsonObject } from '../../core/wire.ts';
import { isObject } from '../../core/wire.ts';

/** The lifetimes Anthropic takes (the same two as Bedrock's `cachePoint`). */
function isAnthropicTtl(ttl: unknown): ttl is string {
  return ttl === '5m' || ttl === '1h';
}

/** The breakpoint a `cache_control` value means, or `undefined` when it is not the neutral one. */
function breakpointOf(value: unknown): CacheBreakpoint | undefined {
  if (!isObject(value) || value['type'] !== 'ephemeral') return undefined;
  let ttl: unknown;
  for (const key in value) {
    if (key === 'type') continue;
    if (key !== 'ttl') return undefined;
    ttl = value[key];
  }
  if (ttl === undefined) return {};
  return isAnthropicTtl(ttl) ? { ttl } : undefined;
}

/**
 * `rest` (the keys of a block or tool its decoder did not read) without a
 * neutral `cache_control`, which is set on `node.cache` instead; `rest`
 * itself when it has none.
 */
export function liftCacheControl(node: { cache?: CacheBreakpoint }, rest: JsonObject | undefined): JsonObject | undefined {
  if (rest === undefined || rest['cache_control'] === undefined) return rest;
  const cache = breakpointOf(rest['cache_control']);
  if (cache === undefined) return rest;
  node.cache = cache;
  let others: JsonObject | undefined;
  for (const key in rest) if (key !== 'cache_control') (others ??= {})[key] = rest[key];
  return others;
}

/**
 * The `cache_control` value of a breakpoint (of the part or tool at IR
 * pointer `path`). A lifetime Anthropic does not take is left to its
 * default, reported.
 */
export function cacheControlOf(cache: CacheBreakpoint, path: string, losses: LossCollector): JsonObject {
  if (cache.ttl === undefined) return { type: 'ephemeral' };
  if (isAnthropicTtl(cache.ttl)) return { type: 'ephemeral', ttl: cache.ttl };
  losses.addAt(cache, 'approximated', `${path}/cache/ttl`, `Anthropic takes a cache lifetime of 5m or 1h, not "${cache.ttl}"; the breakpoint was sent with the default lifetime`);
  return { type: 'ephemeral' };
}
