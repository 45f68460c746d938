/**
 * Gemini `usageMetadata` ↔ IR usage. `promptTokenCount` already includes
 * cached tokens; `candidatesTokenCount` excludes thoughts, so the IR output is
 * candidates + thoughts and the encoder subtracts the thoughts again.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
import type { LossCollector } from '../../core/losses.ts';
import type { GenerateContentResponseUsageMetadata } from '@google/genai';
import type { TokenModalities, TokenModality, Usage } from '../../core/ir.ts';
import { expectNumber, expectObject, extend, extensionsOf, hint, isObject, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { reportCacheWriteBreakdown } from '../../core/usage.ts';
import { answerTierFor, readAnswerTier, valueTable } from '../../core/mapped-values.ts';

type UsageKey = keyof GenerateContentResponseUsageMetadata;

/** The keys of `usageMetadata` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key); `usage` holds what was read of the detail lists. */
function usageExtras(wire: JsonObject, usage: Usage): JsonObject | undefined {
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
        break;
      case 'promptTokensDetails':
        if (usage.inputTokensByModality !== undefined) continue;
        break;
      case 'candidatesTokensDetails':
        if (usage.outputTokensByModality !== undefined) continue;
        break;
      case 'cacheTokensDetails':
        if (usage.cacheReadTokensByModality !== undefined) continue;
        break;
      case 'toolUsePromptTokensDetails':
        if (usage.toolUseTokensByModality !== undefined) continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

/** Gemini's modality names (`MediaModality`) and the IR's. */
const MODALITIES: Readonly<Record<string, TokenModality>> = { TEXT: 'text', IMAGE: 'image', AUDIO: 'audio', VIDEO: 'video', DOCUMENT: 'document' };
const GEMINI_MODALITY: Readonly<Record<TokenModality, string>> = { text: 'TEXT', image: 'IMAGE', audio: 'AUDIO', video: 'VIDEO', document: 'DOCUMENT' };

/**
 * A `*TokensDetails` list (`{ modality, tokenCount }` entries) as counts by
 * modality, or `undefined` for a list that is not exactly that (an entry
 * with other fields or no count, a modality twice or unknown, no entry),
 * which stays a field of its own.
 */
function readModalities(value: unknown): TokenModalities | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const counts: TokenModalities = {};
  for (const entry of value) {
    if (!isObject(entry)) return undefined;
    let keys = 0;
    for (const _key in entry) keys++;
    const modality = MODALITIES[entry['modality'] as string];
    const tokens = entry['tokenCount'];
    if (keys !== 2 || modality === undefined || typeof tokens !== 'number' || counts[modality] !== undefined) return undefined;
    counts[modality] = tokens;
  }
  return counts;
}

/** Counts by modality as a `*TokensDetails` list; a zero count is left out unless the counts are Gemini's own (`native`), as Gemini lists only what the request or answer had. */
function modalityList(counts: TokenModalities, native: boolean): JsonObject[] {
  const list: JsonObject[] = [];
  for (const key in counts) {
    const tokens = counts[key as TokenModality];
    if (tokens === undefined || (tokens === 0 && !native)) continue;
    list.push({ modality: GEMINI_MODALITY[key as TokenModality], tokenCount: tokens });
  }
  return list;
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
  const input = readModalities(wire['promptTokensDetails']);
  if (input !== undefined) usage.inputTokensByModality = input;
  const output = readModalities(wire['candidatesTokensDetails']);
  if (output !== undefined) usage.outputTokensByModality = output;
  const cache = readModalities(wire['cacheTokensDetails']);
  if (cache !== undefined) usage.cacheReadTokensByModality = cache;
  const toolUse = readModalities(wire['toolUsePromptTokensDetails']);
  if (toolUse !== undefined) usage.toolUseTokensByModality = toolUse;
  extend(usage, 'gemini', usageExtras(wire, usage));
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
  if (usage.inputTokensByModality !== undefined) {
    const list = modalityList(usage.inputTokensByModality, native);
    if (list.length > 0) wire['promptTokensDetails'] = list;
  }
  if (usage.outputTokensByModality !== undefined) {
    const list = modalityList(usage.outputTokensByModality, native);
    if (list.length > 0) wire['candidatesTokensDetails'] = list;
  }
  if (usage.cacheReadTokensByModality !== undefined) {
    const list = modalityList(usage.cacheReadTokensByModality, native);
    if (list.length > 0) wire['cacheTokensDetails'] = list;
  }
  if (usage.toolUseTokensByModality !== undefined) {
    const list = modalityList(usage.toolUseTokensByModality, native);
    if (list.length > 0) wire['toolUsePromptTokensDetails'] = list;
  }
  if (usage.cacheWriteTokens !== undefined && usage.cacheWriteTokens > 0) {
    losses.add('dropped_field', path, 'Gemini usage has no cache-write count; dropped', 'info');
  }
  const tier = answerTierFor(usage, 'gemini', ANSWER_TIERS, losses, 'Gemini');
  if (tier !== undefined) wire['serviceTier'] = tier;
  reportCacheWriteBreakdown(usage, losses, path, 'Gemini');
  losses.foreignExtensions(usage.extensions, 'gemini', path);
  return spreadExtensions(wire, usage, 'gemini');
}
