/**
 * Usage. Anthropic's `input_tokens` counts only uncached input: the IR's
 * `inputTokens` adds cache reads and writes on decode, and the encoder
 * subtracts them again. `output_tokens` already includes thinking.
 *
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
import type { Usage } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectNumber, expectObject, expectString, extend, isObject, pointer, required, spreadExtensions, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { ANTHROPIC, anthropicHint, hintNull, wasNull } from './shape.ts';
import { answerTierFor, readAnswerTier, valueTable } from '../../core/mapped-values.ts';
import { reportModalityBreakdown } from '../../core/usage.ts';

const USAGE_KEYS: ReadonlySet<string> = new Set([
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_tokens_details',
  'cache_creation',
  'service_tier',
]);

/** The tiers an Anthropic answer names (`standard`, `priority`, `batch`), and the others' that mean one of them. */
const ANSWER_TIERS = valueTable({ standard: ['standard', true], priority: ['priority', true], batch: ['batch', true], default: ['standard', true] });

/** `cache_creation`'s counts by the lifetime of the entries written. */
const CREATION_KEYS = { ephemeral_5m_input_tokens: '5m', ephemeral_1h_input_tokens: '1h' } as const;
const CREATION_KNOWN: ReadonlySet<string> = new Set(Object.keys(CREATION_KEYS));

/** `cache_creation` (cache writes by lifetime) as `usage.cacheWriteByTtl`; other keys in it stay Anthropic's. */
function decodeCreation(value: unknown, path: string, usage: Usage): void {
  if (value === null) {
    hintNull(usage, 'cache_creation');
    return;
  }
  const creation = expectObject(value, path, ANTHROPIC);
  const byTtl: Record<string, number> = {};
  let counted = 0;
  for (const key in CREATION_KEYS) {
    if (creation[key] === undefined) continue;
    byTtl[CREATION_KEYS[key as keyof typeof CREATION_KEYS]] = expectNumber(creation[key], pointer(path, key), ANTHROPIC);
    counted++;
  }
  usage.cacheWriteByTtl = byTtl;
  // The API writes both counts; a body with fewer gets back only those it had.
  if (counted < CREATION_KNOWN.size) anthropicHint(usage, '$creationPartial', true);
  const rest = unknownKeys(creation, CREATION_KNOWN);
  if (rest !== undefined) anthropicHint(usage, '$creationFields', rest);
}

/** The `cache_creation` of `byTtl`: both lifetimes Anthropic counts (the API always writes both); a lifetime it has not, reported. */
function encodeCreation(byTtl: Record<string, number>, usage: Usage, path: string, losses: LossCollector): JsonObject {
  const hints = usage.extensions?.anthropic;
  const kept = hints?.['$creationFields'];
  const partial = hints?.['$creationPartial'] === true;
  const creation: JsonObject = {};
  for (const key in CREATION_KEYS) {
    const tokens = byTtl[CREATION_KEYS[key as keyof typeof CREATION_KEYS]];
    if (tokens !== undefined || !partial) creation[key] = tokens ?? 0;
  }
  if (isObject(kept)) Object.assign(creation, kept);
  for (const ttl in byTtl) {
    if (ttl !== '5m' && ttl !== '1h') losses.add('dropped_field', `${path}/cacheWriteByTtl/${ttl}`, `Anthropic counts cache writes of 5m and 1h entries only; the ${byTtl[ttl]} tokens written for ${ttl} were dropped from the breakdown`, 'info');
  }
  return creation;
}

const CACHE_KEYS = ['cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

function optionalCount(object: JsonObject, key: string, path: string, usage: Usage): number | undefined {
  const value = object[key];
  if (value === undefined) return undefined;
  if (value === null) {
    hintNull(usage, key);
    return undefined;
  }
  return expectNumber(value, pointer(path, key), ANTHROPIC);
}

function decodeDetails(value: unknown, path: string, usage: Usage): void {
  if (value === null) {
    hintNull(usage, 'output_tokens_details');
    return;
  }
  const details = expectObject(value, path, ANTHROPIC);
  if (details['thinking_tokens'] !== undefined) usage.reasoningTokens = expectNumber(details['thinking_tokens'], pointer(path, 'thinking_tokens'), ANTHROPIC);
  const rest = unknownKeys(details, new Set(['thinking_tokens']));
  if (rest !== undefined || details['thinking_tokens'] === undefined) anthropicHint(usage, '$detailsFields', rest ?? {});
}

/** Decode a wire `usage` object. */
export function decodeAnthropicUsage(value: unknown, path: string): Usage {
  const object = expectObject(value, path, ANTHROPIC);
  const usage: Usage = {};
  const input = expectNumber(required(object, 'input_tokens', path, ANTHROPIC), pointer(path, 'input_tokens'), ANTHROPIC);
  usage.outputTokens = expectNumber(required(object, 'output_tokens', path, ANTHROPIC), pointer(path, 'output_tokens'), ANTHROPIC);
  const write = optionalCount(object, 'cache_creation_input_tokens', path, usage);
  const read = optionalCount(object, 'cache_read_input_tokens', path, usage);
  usage.inputTokens = input + (write ?? 0) + (read ?? 0);
  if (write !== undefined) usage.cacheWriteTokens = write;
  if (read !== undefined) usage.cacheReadTokens = read;
  if (object['output_tokens_details'] !== undefined) decodeDetails(object['output_tokens_details'], pointer(path, 'output_tokens_details'), usage);
  if (object['cache_creation'] !== undefined) decodeCreation(object['cache_creation'], pointer(path, 'cache_creation'), usage);
  const tier = object['service_tier'];
  if (tier === null) hintNull(usage, 'service_tier');
  else if (tier !== undefined) readAnswerTier(usage, ANTHROPIC, ANSWER_TIERS, expectString(tier, pointer(path, 'service_tier'), ANTHROPIC));
  extend(usage, ANTHROPIC, unknownKeys(object, USAGE_KEYS));
  usage.raw = { format: ANTHROPIC, value };
  return usage;
}

/** Encode IR usage as a wire `usage` object (never reads `raw`). */
export function encodeAnthropicUsage(usage: Usage, path: string, losses: LossCollector): JsonObject {
  losses.foreignExtensions(usage.extensions, ANTHROPIC, path);
  reportModalityBreakdown(usage, losses, path, 'Anthropic');
  const hints = usage.extensions?.anthropic;
  const write = usage.cacheWriteTokens ?? 0;
  const read = usage.cacheReadTokens ?? 0;
  const wire: JsonObject = { input_tokens: (usage.inputTokens ?? 0) - write - read, output_tokens: usage.outputTokens ?? 0 };
  const counts = { cache_creation_input_tokens: usage.cacheWriteTokens, cache_read_input_tokens: usage.cacheReadTokens };
  for (const key of CACHE_KEYS) {
    const count = counts[key];
    if (count !== undefined) wire[key] = count;
    else if (wasNull(usage, key)) wire[key] = null;
  }
  if (usage.cacheWriteByTtl !== undefined) wire['cache_creation'] = encodeCreation(usage.cacheWriteByTtl, usage, path, losses);
  else if (wasNull(usage, 'cache_creation')) wire['cache_creation'] = null;
  const tier = answerTierFor(usage, ANTHROPIC, ANSWER_TIERS, losses, 'Anthropic');
  if (tier !== undefined) wire['service_tier'] = tier;
  else if (usage.serviceTier === undefined && wasNull(usage, 'service_tier')) wire['service_tier'] = null;
  const detailsFields = hints?.['$detailsFields'];
  if (usage.reasoningTokens !== undefined || isObject(detailsFields)) {
    const details: JsonObject = isObject(detailsFields) ? { ...detailsFields } : {};
    if (usage.reasoningTokens !== undefined) details['thinking_tokens'] = usage.reasoningTokens;
    wire['output_tokens_details'] = details;
  } else if (wasNull(usage, 'output_tokens_details')) wire['output_tokens_details'] = null;
  return spreadExtensions(wire, usage, ANTHROPIC);
}
