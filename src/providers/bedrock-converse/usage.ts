/**
 * Converse `usage` ↔ IR usage. Bedrock's `inputTokens` excludes cache reads
 * and writes (`totalTokens` = input + output + cache read + cache write);
 * the IR's counts all input.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */
import type { Usage } from '../../core/ir.ts';
import { expectNumber, expectObject, extend, hint, isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';

/**
 * Keys some Bedrock answers repeat under a second name (recorded through
 * boto3): the same count, so carried by the one it repeats, and kept for
 * Converse as a shape hint (which no other format reports as dropped).
 */
const ALIASES = { cacheReadInputTokenCount: 'cacheReadInputTokens', cacheWriteInputTokenCount: 'cacheWriteInputTokens' } as const;

/** The keys of `usage` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key); aliases and an empty `serverToolUsage` go to `hints`. */
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
  if (read !== undefined) wire['cacheReadInputTokens'] = read;
  if (write !== undefined) wire['cacheWriteInputTokens'] = write;
  const fields = usage?.extensions?.['bedrock-converse'];
  if (fields !== undefined) {
    if (fields['$cacheReadInputTokenCount'] === true && read !== undefined) wire['cacheReadInputTokenCount'] = read;
    if (fields['$cacheWriteInputTokenCount'] === true && write !== undefined) wire['cacheWriteInputTokenCount'] = write;
    if (fields['$serverToolUsage'] === true) wire['serverToolUsage'] = {};
  }
  if (fields !== undefined) for (const key in fields) if (key.charCodeAt(0) !== 36 && !(key in wire)) wire[key] = fields[key];
  return wire;
}
