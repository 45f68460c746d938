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
import type { CacheBreakpoint, Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';
import { markerBreakpoint, markerTtl } from '../../core/cache-points.ts';

/** The lifetimes Converse takes (`CacheTTL`). */
const LIFETIMES: readonly string[] = ['5m', '1h'];

/** The breakpoint `value` (a content block, a system block or a tool) is, or `undefined` when it is something else. */
function cachePointOf(value: unknown): CacheBreakpoint | undefined {
  if (!isObject(value) || value['cachePoint'] === undefined) return undefined;
  for (const key in value) if (key !== 'cachePoint') return undefined;
  return markerBreakpoint(value['cachePoint'], 'type', 'default', LIFETIMES);
}

/**
 * Make `value` (the block or tool at `path`) the breakpoint of `previous`
 * (the part or function tool before it) when it is a cache point and
 * `previous` has none; false otherwise.
 */
export function attachCachePoint(previous: { cache?: CacheBreakpoint } | undefined, value: unknown, path: string, losses: LossCollector): boolean {
  if (previous === undefined || previous.cache !== undefined) return false;
  const cache = cachePointOf(value);
  if (cache === undefined) return false;
  previous.cache = losses.anchorItem(cache, path);
  return true;
}

/** The `cachePoint` block of the breakpoint of the part or tool at IR pointer `path`. */
export function cachePointBlock(cache: CacheBreakpoint, path: string, losses: LossCollector): JsonObject {
  const ttl = markerTtl(cache, LIFETIMES, path, losses, 'Converse');
  return { cachePoint: ttl === undefined ? { type: 'default' } : { type: 'default', ttl } };
}

/** The parts a cache point may follow, for the request's automatic breakpoint: content, tool calls and results, not reasoning or another format's block. */
export function takesCachePoint(part: Part): boolean {
  return part.type !== 'reasoning' && part.type !== 'opaque';
}

/**
 * The breakpoint of the cache point written after `part`: its own, or for a
 * tool result without one, that of its last item. Converse holds no cache
 * point inside a tool result, and one right after it caches the same prefix.
 */
export function trailingBreakpoint(part: Part): CacheBreakpoint | undefined {
  if (part.cache !== undefined || part.type !== 'tool_result') return part.cache;
  return part.content[part.content.length - 1]?.cache;
}
