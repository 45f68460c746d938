/**
 * Converse `cachePoint` blocks ⇄ the IR's prompt-cache breakpoint. A
 * `{"cachePoint": {"type": "default"}}` block (a `ttl` of `5m` or `1h`
 * allowed) right after a content block, a system block or a tool is the
 * breakpoint of that part or tool (`cache`), not a part of its own; one
 * with nothing before it, or any other shape, stays an opaque block for
 * Converse only, as before.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html
 */
import type { CacheBreakpoint } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';

function isBedrockTtl(ttl: unknown): ttl is string {
  return ttl === '5m' || ttl === '1h';
}

/** The breakpoint `value` (a content block, a system block or a tool) is, or `undefined` when it is something else. */
export function cachePointOf(value: unknown): CacheBreakpoint | undefined {
  if (!isObject(value)) return undefined;
  const point = value['cachePoint'];
  if (point === undefined || !isObject(point) || point['type'] !== 'default') return undefined;
  for (const key in value) if (key !== 'cachePoint') return undefined;
  let ttl: unknown;
  for (const key in point) {
    if (key === 'type') continue;
    if (key !== 'ttl') return undefined;
    ttl = point[key];
  }
  if (ttl === undefined) return {};
  return isBedrockTtl(ttl) ? { ttl } : undefined;
}

/**
 * The `cachePoint` block of the breakpoint of the part or tool at IR
 * pointer `path`. A lifetime Converse does not take is left to its
 * default, reported.
 */
export function cachePointBlock(cache: CacheBreakpoint, path: string, losses: LossCollector): JsonObject {
  if (cache.ttl === undefined) return { cachePoint: { type: 'default' } };
  if (isBedrockTtl(cache.ttl)) return { cachePoint: { type: 'default', ttl: cache.ttl } };
  losses.addAt(cache, 'approximated', `${path}/cache/ttl`, `Converse takes a cache lifetime of 5m or 1h, not "${cache.ttl}"; the cache point was sent with the default lifetime`);
  return { cachePoint: { type: 'default' } };
}
