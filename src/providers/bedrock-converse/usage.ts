/**
 * Converse `usage` ↔ IR usage. Bedrock's `inputTokens` excludes cache reads
 * and writes (`totalTokens` = input + output + cache read + cache write);
 * the IR's counts all input.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */
import type { Usage } from '../../core/ir.ts';
import { expectNumber, expectObject, extend, hint, isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';
import type { LossCollector } from '../../core/losses.ts';
import { answerTierFor, readAnswerTier, valueTable } from '../../core/mapped-values.ts';

/**
 * Keys some Bedrock answers repeat under a second name (recorded through
 * boto3): the same count, so carried by the one it repeats, and kept for
 * Converse as a shape hint (which no other format reports as dropped).
 */
const ALIASES = { cacheReadInputTokenCount: 'cacheReadInputTokens', cacheWriteInputTokenCount: 'cacheWriteInputTokens' } as const;

/** The keys of `usage` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key); repeated counts and an empty `serverToolUsage` become hints on `usage`. */
function usageExtras(wire: JsonObject, usage: Usage): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'inputTokens':
      case 'outputTokens':
      case 'totalTokens':
      case 'cacheReadInputTokens':
      case 'cacheWriteInputTokens':
        continue;
      case 'cacheDetails':
        if (usage.cacheWriteByTtl !== undefined) continue;
        break;
      case 'cacheReadInputTokenCount':
      case 'cacheWriteInputTokenCount':
        if (wire[key] === wire[ALIASES[key]]) {
          hint(usage, BEDROCK, `$${key}`, true);
          continue;
        }
        break;
      case 'serverToolUsage': {
        // No server tool was used: nothing to carry.
        const counts = wire[key];
        if (isObject(counts) && Object.keys(counts).length === 0) {
          hint(usage, BEDROCK, '$serverToolUsage', true);
          continue;
        }
        break;
      }
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

/**
 * `cacheDetails` (`[{ "ttl": "5m", "inputTokens": 5422 }]`, the cache writes by
 * lifetime) as a breakdown by lifetime; `undefined` for any other shape (a
 * repeated lifetime, a key of another kind), which stays Converse's own.
 */
function cacheDetailsOf(value: unknown): Record<string, number> | undefined {
  if (!Array.isArray(value)) return undefined;
  const byTtl: Record<string, number> = {};
  for (const entry of value) {
    if (!isObject(entry)) return undefined;
    const ttl = entry['ttl'];
    const tokens = entry['inputTokens'];
    if (typeof ttl !== 'string' || typeof tokens !== 'number' || ttl in byTtl || Object.keys(entry).length !== 2) return undefined;
    byTtl[ttl] = tokens;
  }
  return byTtl;
}

/** Decode a `usage` object. */
export function decodeBedrockUsage(value: unknown, path: string): Usage {
  const wire = expectObject(value, path, BEDROCK);
  const number = (key: string): number | undefined => (wire[key] === undefined ? undefined : expectNumber(wire[key], pointer(path, key), BEDROCK));
  const input = number('inputTokens');
  const output = number('outputTokens');
  const total = number('totalTokens');
  const read = number('cacheReadInputTokens');
  const write = number('cacheWriteInputTokens');
  const usage: Usage = {};
  if (input !== undefined) usage.inputTokens = input + (read ?? 0) + (write ?? 0);
  if (output !== undefined) usage.outputTokens = output;
  if (read !== undefined) usage.cacheReadTokens = read;
  if (write !== undefined) usage.cacheWriteTokens = write;
  if (total !== undefined) usage.totalTokens = total;
  // A count Converse left out stays out when the answer goes back to Converse; another format gets the counts it requires.
  if (input === undefined) hint(usage, BEDROCK, '$noInputTokens', true);
  if (total === undefined) hint(usage, BEDROCK, '$noTotalTokens', true);
  const details = wire['cacheDetails'];
  if (details !== undefined) {
    const byTtl = cacheDetailsOf(details);
    if (byTtl !== undefined) {
      usage.cacheWriteByTtl = byTtl;
      // Zero counts (or none), which the encoder leaves out of another format's breakdown, come back as they were.
      const written = Object.values(byTtl);
      if (written.length === 0 || written.some((tokens) => tokens <= 0)) hint(usage, BEDROCK, '$cacheDetails', true);
    }
  }
  usage.raw = { format: BEDROCK, value: wire };
  extend(usage, BEDROCK, usageExtras(wire, usage));
  return usage;
}

/** Encode IR usage as a Converse `usage` object (all three counts are required). */
export function encodeBedrockUsage(usage: Usage | undefined): JsonObject {
  const read = usage?.cacheReadTokens;
  const write = usage?.cacheWriteTokens;
  const input = Math.max(0, (usage?.inputTokens ?? 0) - (read ?? 0) - (write ?? 0));
  const output = usage?.outputTokens ?? 0;
  const wire: JsonObject = { inputTokens: input, outputTokens: output, totalTokens: usage?.totalTokens ?? input + output + (read ?? 0) + (write ?? 0) };
  const own = usage?.extensions?.[BEDROCK];
  if (own?.['$noInputTokens'] === true && usage?.inputTokens === undefined) delete wire['inputTokens'];
  if (own?.['$noTotalTokens'] === true && usage?.totalTokens === undefined) delete wire['totalTokens'];
  if (read !== undefined) wire['cacheReadInputTokens'] = read;
  if (write !== undefined) wire['cacheWriteInputTokens'] = write;
  const byTtl = usage?.cacheWriteByTtl;
  if (byTtl !== undefined) {
    // Converse lists the lifetimes written to; another format's zero counts are left out.
    const every = usage?.extensions?.[BEDROCK]?.['$cacheDetails'] === true;
    const details: JsonObject[] = [];
    for (const ttl in byTtl) if (every || (byTtl[ttl] ?? 0) > 0) details.push({ inputTokens: byTtl[ttl] ?? 0, ttl });
    if (every || details.length > 0) wire['cacheDetails'] = details;
  }
  const fields = usage?.extensions?.['bedrock-converse'];
  if (fields !== undefined) {
    if (fields['$cacheReadInputTokenCount'] === true && read !== undefined) wire['cacheReadInputTokenCount'] = read;
    if (fields['$cacheWriteInputTokenCount'] === true && write !== undefined) wire['cacheWriteInputTokenCount'] = write;
    if (fields['$serverToolUsage'] === true) wire['serverToolUsage'] = {};
    for (const key in fields) if (key.charCodeAt(0) !== 36 && !(key in wire)) wire[key] = fields[key];
  }
  return wire;
}

/** The tiers a Converse answer names (`serviceTier.type`), and the others' that mean one of them (OpenAI's Scale Tier is reserved capacity too). */
const ANSWER_TIERS = valueTable({ default: ['default', true], flex: ['flex', true], priority: ['priority', true], reserved: ['reserved', true], standard: ['default', true], scale: ['reserved', false] });

/** Read the answer's `serviceTier` (`{"type": …}`) onto its usage; false for any other shape, which stays the body's own. */
export function readBedrockTier(usage: Usage, value: unknown): boolean {
  if (!isObject(value) || typeof value['type'] !== 'string' || Object.keys(value).length !== 1) return false;
  readAnswerTier(usage, BEDROCK, ANSWER_TIERS, value['type']);
  return true;
}

/** The answer's `serviceTier` for `usage`, if it names a tier Converse has. */
export function bedrockTier(usage: Usage | undefined, losses: LossCollector): JsonObject | undefined {
  const type = answerTierFor(usage, BEDROCK, ANSWER_TIERS, losses, 'Converse');
  return type === undefined ? undefined : { type };
}
