/**
 * Ollama counts ↔ IR usage: `prompt_eval_count` is all input tokens,
 * `eval_count` all output tokens (thinking included). The timings
 * (`total_duration`, `load_duration`, `prompt_eval_duration`,
 * `eval_duration`, in nanoseconds) have no neutral slot and travel as usage
 * extensions.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#response-9
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Usage } from '../../core/ir.ts';
import { expectNumber, extend, extensionsOf, type JsonObject } from '../../core/wire.ts';
import { FORMAT } from './shape.ts';
import { reportCacheWriteBreakdown, reportModalityBreakdown } from '../../core/usage.ts';

/** The timing fields, in the order Ollama writes them. */
export const DURATIONS = ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_duration'] as const;

/** Every top-level key of a final chunk that this file reads, in the order Ollama writes them. */
export const USAGE_KEYS: readonly string[] = ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration'];

/** Decode the counts and timings of a response (or final stream line); `undefined` when it has none. */
export function decodeOllamaUsage(object: JsonObject): Usage | undefined {
  let usage: Usage | undefined;
  let raw: JsonObject | undefined;
  const prompt = object['prompt_eval_count'];
  const output = object['eval_count'];
  if (prompt !== undefined) (usage ??= {}).inputTokens = expectNumber(prompt, '/prompt_eval_count', FORMAT);
  if (output !== undefined) (usage ??= {}).outputTokens = expectNumber(output, '/eval_count', FORMAT);
  let timings: JsonObject | undefined;
  for (const key of USAGE_KEYS) {
    if (object[key] === undefined) continue;
    (raw ??= {})[key] = object[key];
    if (key !== 'prompt_eval_count' && key !== 'eval_count') (timings ??= {})[key] = object[key];
  }
  if (timings !== undefined) extend((usage ??= {}), FORMAT, timings);
  if (usage !== undefined && raw !== undefined) usage.raw = { format: FORMAT, value: raw };
  return usage;
}

function hasUsageKey(wire: JsonObject): boolean {
  for (let index = 0; index < USAGE_KEYS.length; index++) if ((USAGE_KEYS[index] as string) in wire) return true;
  return false;
}

/** Write the counts and timings of `usage` onto a response body or final stream line. */
export function encodeOllamaUsage(usage: Usage, wire: JsonObject, losses: LossCollector, path: string): void {
  losses.foreignExtensions(usage.extensions, FORMAT, path);
  reportCacheWriteBreakdown(usage, losses, path, 'Ollama');
  reportModalityBreakdown(usage, losses, path, 'Ollama');
  if (usage.serviceTier !== undefined) {
    // The standard tier says no more than an answer without one (the only kind Ollama gives); another tier priced the tokens otherwise.
    const standard = usage.serviceTier === 'standard' || usage.serviceTier === 'default';
    losses.add('dropped_field', `${path}/serviceTier`, `Ollama answers name no service tier; "${usage.serviceTier}" dropped`, standard ? 'info' : 'warning');
  }
  const ollama = extensionsOf(usage, FORMAT);
  if (!hasUsageKey(wire)) {
    // Written straight in Ollama's order (the loop below moves keys by deleting them, which turns the object into a slow dictionary).
    for (let index = 0; index < USAGE_KEYS.length; index++) {
      const key = USAGE_KEYS[index] as string;
      const value = key === 'prompt_eval_count' ? usage.inputTokens : key === 'eval_count' ? usage.outputTokens : ollama?.[key];
      if (value !== undefined) wire[key] = value;
    }
    return;
  }
  for (const key of DURATIONS) if (ollama?.[key] !== undefined) wire[key] = ollama[key];
  if (usage.inputTokens !== undefined) wire['prompt_eval_count'] = usage.inputTokens;
  if (usage.outputTokens !== undefined) wire['eval_count'] = usage.outputTokens;
  // Key order as Ollama writes it: counts beside their durations.
  for (const key of USAGE_KEYS) {
    if (!(key in wire)) continue;
    const value = wire[key];
    delete wire[key];
    wire[key] = value;
  }
}
