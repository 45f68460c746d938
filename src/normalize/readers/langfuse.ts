/**
 * One Langfuse observation (the public API's `GET /api/public/observations`,
 * the UI's JSON/JSONL export, or the blob-storage export with snake_case
 * keys) → an exchange. A `GENERATION` holds the call: `input` as its
 * integration logged it (the OpenAI integration logs the Chat Completions
 * messages, or `{messages, tools}`; a bare string is one user message),
 * `output` (the assistant message, or its text, or a whole completion),
 * `model`, `modelParameters`, `usageDetails` (or the older `usage`), and
 * ISO `startTime`, `endTime`, `completionStartTime`. The request and
 * response are rebuilt as Chat Completions bodies; other observation types
 * (spans, events) are skipped.
 * @see https://api.reference.langfuse.com/#tag/observations/GET/api/public/observations
 * @see https://langfuse.com/docs/observability/features/token-and-cost-tracking
 */
import { isObject, type JsonObject } from '../../core/wire.ts';
import { NormalizeFailure } from '../failure.ts';
import { firstOf } from '../fields.ts';
import type { Exchange, Timing } from '../types.ts';

/** A field under its camelCase or its snake_case name. */
function field(observation: JsonObject, camel: string): unknown {
  return observation[camel] ?? observation[camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
}

/** True when a JSON value is a Langfuse observation. */
export function isLangfuseObservation(value: JsonObject): boolean {
  return typeof field(value, 'traceId') === 'string' && typeof value['type'] === 'string' && ('input' in value || 'output' in value);
}

const NUMERIC_PARAMETERS = new Set(['temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'frequency_penalty', 'presence_penalty', 'seed', 'n']);

/** `modelParameters` values are strings in the API (`"0.7"`); the known numeric ones become numbers again. */
function parameters(value: unknown): JsonObject {
  if (!isObject(value)) return {};
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = NUMERIC_PARAMETERS.has(key) && typeof item === 'string' && item.trim() !== '' && Number.isFinite(Number(item)) ? Number(item) : item;
  }
  return out;
}

function requestOf(observation: JsonObject, model: unknown): JsonObject {
  const input = observation['input'];
  const base = { ...(typeof model === 'string' ? { model } : {}), ...parameters(field(observation, 'modelParameters')) };
  if (Array.isArray(input)) return { ...base, messages: input };
  if (typeof input === 'string') return { ...base, messages: [{ role: 'user', content: input }] };
  if (isObject(input) && Array.isArray(input['messages'])) return { ...base, ...input };
  throw new NormalizeFailure('not_an_exchange', 'the generation input is not a list of chat messages, {messages}, or a prompt string');
}

function usageOf(observation: JsonObject): JsonObject | undefined {
  const details = field(observation, 'usageDetails');
  const usage = isObject(details) && Object.keys(details).length > 0 ? details : field(observation, 'usage');
  if (!isObject(usage)) return undefined;
  const count = (...keys: string[]): number | undefined => {
    const value = firstOf(usage, keys);
    return typeof value === 'number' ? value : undefined;
  };
  const input = count('input', 'promptTokens', 'prompt_tokens');
  const output = count('output', 'completionTokens', 'completion_tokens');
  if (input === undefined && output === undefined) return undefined;
  const out: JsonObject = { prompt_tokens: input ?? 0, completion_tokens: output ?? 0, total_tokens: count('total', 'totalTokens', 'total_tokens') ?? (input ?? 0) + (output ?? 0) };
  const cached = count('input_cached_tokens', 'cache_read_input_tokens', 'input_cache_read');
  if (cached !== undefined) out['prompt_tokens_details'] = { cached_tokens: cached };
  const reasoning = count('output_reasoning_tokens', 'output_reasoning', 'reasoning_tokens');
  if (reasoning !== undefined) out['completion_tokens_details'] = { reasoning_tokens: reasoning };
  return out;
}

function responseOf(observation: JsonObject, model: unknown): JsonObject | undefined {
  const output = observation['output'];
  if (output === undefined || output === null) return undefined;
  if (isObject(output) && Array.isArray(output['choices'])) return output;
  const message = typeof output === 'string' ? { role: 'assistant', content: output } : isObject(output) && typeof output['role'] === 'string' ? output : undefined;
  if (message === undefined) throw new NormalizeFailure('not_an_exchange', 'the generation output is not an assistant message, its text, or a completion');
  const response: JsonObject = { object: 'chat.completion', choices: [{ index: 0, message, finish_reason: null }] };
  if (typeof observation['id'] === 'string') response['id'] = observation['id'];
  if (typeof model === 'string') response['model'] = model;
  const usage = usageOf(observation);
  if (usage !== undefined) response['usage'] = usage;
  return response;
}

function timingOf(observation: JsonObject): Timing | undefined {
  const start = field(observation, 'startTime');
  if (typeof start !== 'string') return undefined;
  const startMs = Date.parse(start);
  if (Number.isNaN(startMs)) return undefined;
  const timing: Timing = { startedAt: new Date(startMs).toISOString() };
  const since = (value: unknown): number | undefined => {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(ms) || ms < startMs ? undefined : ms - startMs;
  };
  const duration = since(field(observation, 'endTime'));
  if (duration !== undefined) timing.durationMs = duration;
  const first = since(field(observation, 'completionStartTime'));
  if (first !== undefined) timing.timeToFirstTokenMs = first;
  return timing;
}

/** The exchange of one observation; `optional`, so a span or event is skipped. */
export function exchangeFromLangfuseObservation(observation: JsonObject): Exchange {
  if (observation['type'] !== 'GENERATION') return { optional: true };
  const model = field(observation, 'model') ?? field(observation, 'providedModelName');
  const exchange: Exchange = { format: 'openai-chat', request: { value: requestOf(observation, model) } };
  const response = responseOf(observation, model);
  if (response !== undefined) exchange.response = { value: response };
  if (observation['level'] === 'ERROR' && response === undefined) {
    exchange.status = 500;
    exchange.response = { value: { error: { message: String(field(observation, 'statusMessage') ?? 'the generation failed'), type: 'error' } } };
  }
  const timing = timingOf(observation);
  if (timing !== undefined) exchange.timing = timing;
  return exchange;
}
