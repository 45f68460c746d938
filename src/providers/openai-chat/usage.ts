/**
 * Chat Completions `usage` ↔ IR usage. Chat counts cached tokens inside
 * `prompt_tokens` and reasoning tokens inside `completion_tokens`, which is
 * the IR convention, so the arithmetic is direct.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
import type { CompletionUsage } from 'openai/resources/completions';
import type { LossCollector } from '../../core/losses.ts';
import type { TokenModalities, TokenModality, Usage } from '../../core/ir.ts';
import { expectNumber, expectObject, extend, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { FORMAT, chatHint, nestedExtras, shapeHint } from './shape.ts';
import { reportCacheWriteBreakdown, reportDetailBreakdown, reportModalityBreakdown } from '../../core/usage.ts';
import { answerTierFor, readAnswerTier as readTier, valueTable } from '../../core/mapped-values.ts';

/** The keys of a usage object without a neutral slot, and its known keys set to `null` (a switch: cheaper than a set lookup per key). */
function usageExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    switch (key) {
      case 'prompt_tokens':
      case 'completion_tokens':
      case 'total_tokens':
      case 'prompt_tokens_details':
      case 'completion_tokens_details':
        if (value !== null) continue;
    }
    (rest ??= {})[key] = value;
  }
  return rest;
}
const TOTALS = ['prompt_tokens', 'completion_tokens', 'total_tokens'] as const;

/** Read the numeric breakdown fields of a details object; everything else stays as nested extras. */
function readDetails(
  usage: Usage,
  key: 'prompt_tokens_details' | 'completion_tokens_details',
  value: unknown,
  path: string,
  fields: Readonly<Record<string, 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens'>>,
  hints: boolean,
): void {
  const details = expectObject(value, path, FORMAT);
  const byModality = key === 'prompt_tokens_details' ? 'inputTokensByModality' : 'outputTokensByModality';
  let rest: JsonObject | undefined;
  let read = 0;
  let modalityFields: string[] | undefined;
  for (const field in details) {
    const target = fields[field];
    const modality = MODALITY_FIELDS[field];
    const number = details[field];
    if (target !== undefined && typeof number === 'number') {
      usage[target] = number;
      read++;
    } else if (modality !== undefined && typeof number === 'number') {
      (usage[byModality] ??= {})[modality] = number;
      (modalityFields ??= []).push(field);
      read++;
    } else {
      (rest ??= {})[field] = number;
    }
  }
  // The text and image counts have no field in the SDK's types: written back only to Chat, where they came from.
  if (hints && modalityFields !== undefined) chatHint(usage, `$${byModality}`, modalityFields);
  if (rest !== undefined) {
    // Zero counts (audio or prediction tokens not used) say nothing: keep them as a shape hint, not a loss elsewhere.
    const zeros = Object.values(rest).every((count) => count === 0);
    if (!zeros || hints) {
      const extensions = ((usage.extensions ??= {})[FORMAT] ??= {});
      extensions[zeros ? `$${key}` : key] = rest;
    }
  } else if (read === 0 && hints) {
    chatHint(usage, key === 'prompt_tokens_details' ? '$promptDetails' : '$completionDetails', true);
  }
}

/** The modality counts of both details objects (`completion_tokens_details` has no image tokens). */
const MODALITY_FIELDS: Readonly<Record<string, TokenModality>> = { audio_tokens: 'audio', text_tokens: 'text', image_tokens: 'image' };

/**
 * The modality counts of `counts` as details fields: `audio_tokens` (the
 * SDK's own field), and the text and image counts recorded from Chat itself
 * (`own`, the fields the decoder read); the rest is reported.
 */
function writeModalities(details: JsonObject, counts: TokenModalities | undefined, own: unknown): void {
  if (counts === undefined) return;
  const fields: readonly unknown[] = Array.isArray(own) ? own : [];
  for (const key in counts) {
    const modality = key as TokenModality;
    const field = `${modality}_tokens`;
    if (modality === 'audio' || fields.includes(field)) details[field] = counts[modality];
  }
}

const CARRIED = { input: ['audio'], output: ['audio'] } as const;

const PROMPT_DETAILS = { cached_tokens: 'cacheReadTokens', cache_write_tokens: 'cacheWriteTokens' } as const;
const COMPLETION_DETAILS = { reasoning_tokens: 'reasoningTokens' } as const;

/** Decode a Chat Completions `usage` object; `hints: false` skips the shape hints only the Chat encoder reads. */
export function decodeOpenaiChatUsage(value: unknown, path: string, hints = true): Usage {
  const object = expectObject(value, path, FORMAT);
  const usage: Usage = { raw: { format: FORMAT, value } };
  const prompt = object['prompt_tokens'];
  const completion = object['completion_tokens'];
  const total = object['total_tokens'];
  if (prompt != null) usage.inputTokens = typeof prompt === 'number' && Number.isFinite(prompt) ? prompt : expectNumber(prompt, `${path}/prompt_tokens`, FORMAT);
  if (completion != null) {
    usage.outputTokens = typeof completion === 'number' && Number.isFinite(completion) ? completion : expectNumber(completion, `${path}/completion_tokens`, FORMAT);
  }
  if (total != null) usage.totalTokens = typeof total === 'number' && Number.isFinite(total) ? total : expectNumber(total, `${path}/total_tokens`, FORMAT);
  if (hints && (prompt == null || completion == null || total == null)) chatHint(usage, '$absent', TOTALS.filter((key) => object[key] == null));
  const promptDetails = object['prompt_tokens_details'];
  if (promptDetails != null) readDetails(usage, 'prompt_tokens_details', promptDetails, `${path}/prompt_tokens_details`, PROMPT_DETAILS, hints);
  const completionDetails = object['completion_tokens_details'];
  if (completionDetails != null) readDetails(usage, 'completion_tokens_details', completionDetails, `${path}/completion_tokens_details`, COMPLETION_DETAILS, hints);
  extend(usage, FORMAT, usageExtras(object));
  return usage;
}

function hasKeys(object: object): boolean {
  for (const _key in object) return true;
  return false;
}

/** Encode IR usage as a Chat Completions `usage` object. */
export function encodeOpenaiChatUsage(usage: Usage, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(usage.extensions, FORMAT, path);
  reportCacheWriteBreakdown(usage, losses, path, 'Chat Completions');
  const ownInput = shapeHint(usage, '$inputTokensByModality');
  const ownOutput = shapeHint(usage, '$outputTokensByModality');
  // Chat's own text and image counts go back as they came; another format's are reported unless they say nothing more.
  if (ownInput === undefined && ownOutput === undefined) reportModalityBreakdown(usage, losses, path, 'Chat Completions', CARRIED);
  else reportDetailBreakdown(usage, losses, path, 'Chat Completions');
  const absent = shapeHint(usage, '$absent');
  const skip: readonly unknown[] = Array.isArray(absent) ? absent : [];
  const prompt = usage.inputTokens ?? 0;
  const completion = usage.outputTokens ?? 0;
  const wire: JsonObject = {};
  if (!skip.includes('prompt_tokens')) wire['prompt_tokens'] = prompt;
  if (!skip.includes('completion_tokens')) wire['completion_tokens'] = completion;
  if (!skip.includes('total_tokens')) wire['total_tokens'] = usage.totalTokens ?? prompt + completion;
  const promptDetails: NonNullable<CompletionUsage['prompt_tokens_details']> & JsonObject = {};
  if (usage.cacheReadTokens !== undefined) promptDetails.cached_tokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) promptDetails['cache_write_tokens'] = usage.cacheWriteTokens;
  writeModalities(promptDetails, usage.inputTokensByModality, ownInput);
  nestedExtras(promptDetails, usage, 'prompt_tokens_details');
  nestedExtras(promptDetails, usage, '$prompt_tokens_details');
  if (hasKeys(promptDetails) || shapeHint(usage, '$promptDetails') === true) {
    wire['prompt_tokens_details'] = promptDetails;
  }
  const completionDetails: NonNullable<CompletionUsage['completion_tokens_details']> & JsonObject = {};
  if (usage.reasoningTokens !== undefined) completionDetails.reasoning_tokens = usage.reasoningTokens;
  writeModalities(completionDetails, usage.outputTokensByModality, ownOutput);
  nestedExtras(completionDetails, usage, 'completion_tokens_details');
  nestedExtras(completionDetails, usage, '$completion_tokens_details');
  if (hasKeys(completionDetails) || shapeHint(usage, '$completionDetails') === true) {
    wire['completion_tokens_details'] = completionDetails;
  }
  return spreadExtensions(wire, usage, FORMAT);
}

/** The tiers a Chat answer names (`service_tier`), and the others' that mean one of them (Converse `reserved` capacity is nearest Scale Tier). */
const ANSWER_TIERS = valueTable({ auto: ['auto', true], default: ['default', true], flex: ['flex', true], scale: ['scale', true], priority: ['priority', true], standard: ['default', true], reserved: ['scale', false] });

/** Read the answer's `service_tier` onto its usage. */
export function readAnswerTier(usage: Usage, tier: string): void {
  readTier(usage, FORMAT, ANSWER_TIERS, tier);
}

/** The answer's `service_tier` for its usage, if it names one Chat has. */
export function answerTier(usage: Usage, losses: LossCollector): string | undefined {
  return answerTierFor(usage, FORMAT, ANSWER_TIERS, losses, 'Chat Completions');
}
