/**
 * Gemini `usageMetadata` ↔ IR usage. `promptTokenCount` already includes
 * cached tokens; `candidatesTokenCount` excludes thoughts, so the IR output is
 * candidates + thoughts and the encoder subtracts the thoughts again.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
import type { LossCollector } from '../../core/losses.ts';
import type { GenerateContentResponseUsageMetadata } from '@google/genai';
import type { Usage } from '../../core/ir.ts';
import { expectNumber, expectObject, extend, extensionsOf, hint, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { reportCacheWriteBreakdown } from '../../core/usage.ts';
import { answerTierFor, readAnswerTier, valueTable } from '../../core/mapped-values.ts';

type UsageKey = keyof GenerateContentResponseUsageMetadata;

/** The keys of `usageMetadata` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function usageExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'promptTokenCount':
      case 'candidatesTokenCount':
      case 'thoughtsTokenCount':
      case 'cachedContentTokenCount':
      case 'totalTokenCount':
        continue;
      case 'serviceTier':
        if (typeof wire[key] === 'string') continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

function count(usage: JsonObject, key: UsageKey, path: string): number | undefined {
  const value = usage[key];
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value))) return value;
  return expectNumber(value, `${path}/${key}`, 'gemini');
}

/** Decode `usageMetadata`. */
export function decodeGeminiUsage(value: unknown, path: string, lean = false): Usage {
  const wire = expectObject(value, path, 'gemini');
  const usage: Usage = { raw: { format: 'gemini', value: wire } };
  // Marks Gemini's own counts: the encoder then writes exactly the fields the source had.
  if (!lean) hint(usage, 'gemini', '$native', true);
  const prompt = count(wire, 'promptTokenCount', path);
  const candidates = count(wire, 'candidatesTokenCount', path);
  const thoughts = count(wire, 'thoughtsTokenCount', path);
  const cached = count(wire, 'cachedContentTokenCount', path);
  const total = count(wire, 'totalTokenCount', path);
  if (prompt !== undefined) usage.inputTokens = prompt;
  if (candidates !== undefined || thoughts !== undefined) usage.outputTokens = (candidates ?? 0) + (thoughts ?? 0);
  if (candidates === undefined && thoughts !== undefined) hint(usage, 'gemini', '$noCandidatesTokenCount', true);
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  if (total !== undefined) usage.totalTokens = total;
  const tier = wire['serviceTier'];
  if (typeof tier === 'string') readAnswerTier(usage, 'gemini', ANSWER_TIERS, tier);
  extend(usage, 'gemini', usageExtras(wire));
  return usage;
}

/** The tiers a Gemini answer names (`usageMetadata.serviceTier`, as recorded answers carry it), and the others' that mean one of them. */
const ANSWER_TIERS = valueTable({ standard: ['standard', true], flex: ['flex', true], priority: ['priority', true], default: ['standard', true] });

/** Encode IR usage as `usageMetadata`. */
export function encodeGeminiUsage(usage: Usage, losses: LossCollector, path: string): JsonObject {
  const wire: JsonObject = {};
  const gemini = extensionsOf(usage, 'gemini');
  if (usage.inputTokens !== undefined) wire['promptTokenCount'] = usage.inputTokens;
  if (usage.outputTokens !== undefined && gemini?.['$noCandidatesTokenCount'] !== true) {
    wire['candidatesTokenCount'] = usage.outputTokens - (usage.reasoningTokens ?? 0);
  }
  // Other formats report zero cache and reasoning counts that Gemini leaves out, and may omit the total
  // (left unwritten rather than deleted, which would turn the object into a slow dictionary).
  const native = gemini?.['$native'] === true;
  if (usage.reasoningTokens !== undefined && (native || usage.reasoningTokens !== 0)) wire['thoughtsTokenCount'] = usage.reasoningTokens;
  if (usage.cacheReadTokens !== undefined && (native || usage.cacheReadTokens !== 0)) wire['cachedContentTokenCount'] = usage.cacheReadTokens;
  if (usage.totalTokens !== undefined) wire['totalTokenCount'] = usage.totalTokens;
  else if (!native && usage.inputTokens !== undefined && usage.outputTokens !== undefined) wire['totalTokenCount'] = usage.inputTokens + usage.outputTokens;
  if (usage.cacheWriteTokens !== undefined && usage.cacheWriteTokens > 0) {
    losses.add('dropped_field', path, 'Gemini usage has no cache-write count; dropped', 'info');
  }
  const tier = answerTierFor(usage, 'gemini', ANSWER_TIERS, losses, 'Gemini');
  if (tier !== undefined) wire['serviceTier'] = tier;
  reportCacheWriteBreakdown(usage, losses, path, 'Gemini');
  losses.foreignExtensions(usage.extensions, 'gemini', path);
  return spreadExtensions(wire, usage, 'gemini');
}
