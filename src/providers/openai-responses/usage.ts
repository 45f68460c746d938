/**
 * Usage: Responses `input_tokens` already counts cached tokens and
 * `output_tokens` counts reasoning tokens, as the IR does, so the numbers
 * map one to one.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
import type { Usage } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectNumber, expectObject, extend, hint, isObject, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { FORMAT, keepNulls, own, ownHint, present, restoreNulls } from './shape.ts';
import { reportCacheWriteBreakdown, reportModalityBreakdown } from '../../core/usage.ts';
import { answerTierFor, readAnswerTier as readTier, valueTable } from '../../core/mapped-values.ts';

const USAGE_KEYS: readonly string[] = ['input_tokens', 'input_tokens_details', 'output_tokens', 'output_tokens_details', 'total_tokens'];

/** The keys of a usage object this file does not read (those of `USAGE_KEYS`), or `undefined` (a switch: cheaper than a set lookup per key). */
function usageExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'input_tokens':
      case 'input_tokens_details':
      case 'output_tokens':
      case 'output_tokens_details':
      case 'total_tokens':
        continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

const INPUT_DETAIL_KEYS: ReadonlySet<string> = new Set(['cached_tokens', 'cache_write_tokens']);
const OUTPUT_DETAIL_KEYS: ReadonlySet<string> = new Set(['reasoning_tokens']);

function count(object: JsonObject, key: string, path: string): number | undefined {
  const value = object[key];
  if (!present(value)) return undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : expectNumber(value, pointer(path, key), FORMAT);
}

/** Decode a Responses `usage` object. */
export function decodeOpenaiResponsesUsage(value: unknown, path: string): Usage {
  const wire = expectObject(value, path, FORMAT);
  const usage: Usage = { raw: { format: FORMAT, value } };
  const input = count(wire, 'input_tokens', path);
  const output = count(wire, 'output_tokens', path);
  const total = count(wire, 'total_tokens', path);
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (total !== undefined) usage.totalTokens = total;
  else hint(usage, FORMAT, '$noTotal', true);
  const inputDetails = wire['input_tokens_details'];
  if (isObject(inputDetails)) {
    const detailsPath = pointer(path, 'input_tokens_details');
    const cached = count(inputDetails, 'cached_tokens', detailsPath);
    const written = count(inputDetails, 'cache_write_tokens', detailsPath);
    if (cached !== undefined) usage.cacheReadTokens = cached;
    if (written !== undefined) usage.cacheWriteTokens = written;
    else hint(usage, FORMAT, '$noCacheWrite', true);
    const rest = unknownKeys(inputDetails, INPUT_DETAIL_KEYS);
    if (rest !== undefined) extend(usage, FORMAT, { input_tokens_details: rest });
  } else if (inputDetails === undefined) hint(usage, FORMAT, '$noInputDetails', true);
  const outputDetails = wire['output_tokens_details'];
  if (isObject(outputDetails)) {
    const reasoning = count(outputDetails, 'reasoning_tokens', pointer(path, 'output_tokens_details'));
    if (reasoning !== undefined) usage.reasoningTokens = reasoning;
    const rest = unknownKeys(outputDetails, OUTPUT_DETAIL_KEYS);
    if (rest !== undefined) extend(usage, FORMAT, { output_tokens_details: rest });
  } else if (outputDetails === undefined) hint(usage, FORMAT, '$noOutputDetails', true);
  keepNulls(usage, wire, USAGE_KEYS);
  extend(usage, FORMAT, usageExtras(wire));
  return usage;
}

function nested(usage: Usage, key: string): JsonObject {
  const value = own(usage)?.[key];
  return isObject(value) ? { ...value } : {};
}

/** Encode IR usage as a Responses `usage` object. */
export function encodeOpenaiResponsesUsage(usage: Usage, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(usage.extensions, FORMAT, path);
  reportCacheWriteBreakdown(usage, losses, path, 'OpenAI Responses');
  reportModalityBreakdown(usage, losses, path, 'OpenAI Responses');
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const wire: JsonObject = { input_tokens: input, output_tokens: output };
  if (ownHint(usage, '$noInputDetails') !== true) {
    const details = nested(usage, 'input_tokens_details');
    details['cached_tokens'] = usage.cacheReadTokens ?? 0;
    // Both counts are required (the OpenAPI spec, openai 7's types); recorded answers from before `cache_write_tokens` lack it and keep lacking it.
    if (usage.cacheWriteTokens !== undefined) details['cache_write_tokens'] = usage.cacheWriteTokens;
    else if (ownHint(usage, '$noCacheWrite') !== true) details['cache_write_tokens'] = 0;
    wire['input_tokens_details'] = details;
  }
  if (ownHint(usage, '$noOutputDetails') !== true) {
    const details = nested(usage, 'output_tokens_details');
    details['reasoning_tokens'] = usage.reasoningTokens ?? 0;
    wire['output_tokens_details'] = details;
  }
  if (usage.totalTokens !== undefined) wire['total_tokens'] = usage.totalTokens;
  else if (ownHint(usage, '$noTotal') !== true) wire['total_tokens'] = input + output;
  const fields = own(usage);
  if (fields !== undefined) {
    for (const key in fields) if (key.charCodeAt(0) !== 36 && !(key in wire)) wire[key] = fields[key];
  }
  return restoreNulls(wire, usage);
}

/** The tiers a Responses answer names (`service_tier`, `fast` and `ultrafast` since openai 7), and the others' that mean one of them (Converse `reserved` capacity is nearest Scale Tier). */
const ANSWER_TIERS = valueTable({ auto: ['auto', true], default: ['default', true], flex: ['flex', true], scale: ['scale', true], priority: ['priority', true], fast: ['fast', true], ultrafast: ['ultrafast', true], standard: ['default', true], reserved: ['scale', false] });

/** Read the answer's `service_tier` onto its usage. */
export function readAnswerTier(usage: Usage, tier: string): void {
  readTier(usage, FORMAT, ANSWER_TIERS, tier);
}

/** The answer's `service_tier` for its usage, if it names one Responses has. */
export function answerTier(usage: Usage, losses: LossCollector): string | undefined {
  return answerTierFor(usage, FORMAT, ANSWER_TIERS, losses, 'OpenAI Responses');
}
