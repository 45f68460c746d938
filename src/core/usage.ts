/**
 * Usage helpers shared by the encoders: what a format without a place for a
 * usage breakdown reports.
 */
import type { TokenModalities, TokenModality, Usage } from './ir.ts';
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

/**
 * What a modality breakdown says beyond what a target writes: the counts of
 * the modalities not in `carried`, as `text: 10, image: 258`, or `''` when
 * they say nothing more (no tokens but text's, and text's count the rest of
 * `total` once the carried ones are taken out).
 */
function unsaid(byModality: TokenModalities, total: number | undefined, carried: readonly TokenModality[]): string {
  let rest = total;
  let text: number | undefined;
  let split = '';
  for (const key in byModality) {
    const modality = key as TokenModality;
    const tokens = byModality[modality];
    if (tokens === undefined) continue;
    if (carried.includes(modality)) {
      if (rest !== undefined) rest -= tokens;
    } else if (modality === 'text') text = tokens;
    else if (tokens !== 0) split += `, ${modality}: ${tokens}`;
  }
  if (text !== undefined && text !== rest) split = `, text: ${text}${split}`;
  return split.slice(2);
}

/**
 * Report the tokens by modality of `usage` (at IR pointer `path`) that
 * `vendor` has no place for: every modality but those in `carried`, unless
 * the breakdown says nothing beyond the totals (all text).
 */
export function reportModalityBreakdown(
  usage: Usage,
  losses: LossCollector,
  path: string,
  vendor: string,
  carried: { input: readonly TokenModality[]; output: readonly TokenModality[] } = NOTHING_CARRIED,
): void {
  const input = usage.inputTokensByModality;
  if (input !== undefined) {
    const split = unsaid(input, usage.inputTokens, carried.input);
    if (split !== '') losses.add('dropped_field', `${path}/inputTokensByModality`, `${vendor} usage has no input tokens by modality (${split}); dropped`, 'info');
  }
  const output = usage.outputTokensByModality;
  if (output !== undefined) {
    const answered = usage.outputTokens === undefined ? undefined : usage.outputTokens - (usage.reasoningTokens ?? 0);
    const split = unsaid(output, answered, carried.output);
    if (split !== '') losses.add('dropped_field', `${path}/outputTokensByModality`, `${vendor} usage has no output tokens by modality (${split}); dropped`, 'info');
  }
  reportDetailBreakdown(usage, losses, path, vendor);
}

const NOTHING_CARRIED = { input: [], output: [] } as const;

/**
 * Report the cache-read and tool-use tokens by modality of `usage` (Gemini's
 * `cacheTokensDetails` and `toolUsePromptTokensDetails`), which no format but
 * Gemini has a place for: the cache reads unless all text, the tool-use
 * tokens (whose total no other format holds) whenever there are any.
 */
export function reportDetailBreakdown(usage: Usage, losses: LossCollector, path: string, vendor: string): void {
  const cache = usage.cacheReadTokensByModality;
  if (cache !== undefined) {
    const split = unsaid(cache, usage.cacheReadTokens, []);
    if (split !== '') losses.add('dropped_field', `${path}/cacheReadTokensByModality`, `${vendor} usage has no cache reads by modality (${split}); dropped`, 'info');
  }
  const toolUse = usage.toolUseTokensByModality;
  if (toolUse !== undefined) {
    const split = unsaid(toolUse, undefined, []);
    if (split !== '') losses.add('dropped_field', `${path}/toolUseTokensByModality`, `${vendor} usage has no tool-use prompt tokens by modality (${split}); dropped`, 'info');
  }
}

/** Record where the counts by modality of `usage` came from (the wire lists or objects at `input` and `output`), so that a target's loss on them points there. */
export function modalityOrigins(usage: Usage, losses: LossCollector, input: string, output: string): void {
  if (usage.inputTokensByModality !== undefined) losses.originField(usage, 'inputTokensByModality', input);
  if (usage.outputTokensByModality !== undefined) losses.originField(usage, 'outputTokensByModality', output);
}
