/**
 * Usage helpers shared by the encoders: what a format without a place for a
 * usage breakdown reports.
 */
import type { Usage } from './ir.ts';
import type { LossCollector } from './losses.ts';

/**
 * Report the cache writes by lifetime (`cacheWriteByTtl`) of `usage` (at IR
 * pointer `path`) as dropped by `vendor`, when the breakdown has writes in
 * it: their total travels in the target's cache-write count, if it has one,
 * and a breakdown of zeros says nothing.
 */
export function reportCacheWriteBreakdown(usage: Usage, losses: LossCollector, path: string, vendor: string): void {
  const byTtl = usage.cacheWriteByTtl;
  if (byTtl === undefined) return;
  let split = '';
  for (const ttl in byTtl) {
    const tokens = byTtl[ttl];
    if (tokens !== undefined && tokens > 0) split += `${split === '' ? '' : ', '}${ttl}: ${tokens}`;
  }
  if (split !== '') losses.add('dropped_field', `${path}/cacheWriteByTtl`, `${vendor} usage has no cache writes by lifetime (${split} tokens); dropped`, 'info');
}
