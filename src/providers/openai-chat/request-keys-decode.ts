/**
 * The keys of a Chat Completions request body, read once before decoding:
 * which known keys (those with a neutral slot) hold a value other than
 * `null`, as one bit each, and the rest, which travel as extensions. The
 * request and generation decoders test the bits instead of reading keys the
 * body may lack.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import type { JsonObject } from '../../core/wire.ts';

/** Wire keys with a neutral slot; every other key travels as an extension. */
const KNOWN_KEYS = [
  'model', 'messages', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'reasoning_effort',
  'max_tokens', 'max_completion_tokens', 'n', 'seed', 'stop', 'logprobs', 'top_logprobs', 'presence_penalty',
  'frequency_penalty', 'user', 'safety_identifier', 'metadata', 'service_tier', 'stream', 'temperature', 'top_p',
  'functions', 'function_call', 'store', 'prompt_cache_key', 'prompt_cache_retention', 'verbosity',
  'stream_options', 'web_search_options',
] as const;
type KnownKey = (typeof KNOWN_KEYS)[number];

/** One bit per known key, for the set of keys a body holds with a value other than `null` ({@link scanBody}). */
// Spelled out (in KNOWN_KEYS order) so that each check is a constant, not a keyed lookup.
export const BIT = {
  model: 1 << 0,
  messages: 1 << 1,
  tools: 1 << 2,
  tool_choice: 1 << 3,
  parallel_tool_calls: 1 << 4,
  response_format: 1 << 5,
  reasoning_effort: 1 << 6,
  max_tokens: 1 << 7,
  max_completion_tokens: 1 << 8,
  n: 1 << 9,
  seed: 1 << 10,
  stop: 1 << 11,
  logprobs: 1 << 12,
  top_logprobs: 1 << 13,
  presence_penalty: 1 << 14,
  frequency_penalty: 1 << 15,
  user: 1 << 16,
  safety_identifier: 1 << 17,
  metadata: 1 << 18,
  service_tier: 1 << 19,
  stream: 1 << 20,
  temperature: 1 << 21,
  top_p: 1 << 22,
  functions: 1 << 23,
  function_call: 1 << 24,
  store: 1 << 25,
  prompt_cache_key: 1 << 26,
  prompt_cache_retention: 1 << 27,
  verbosity: 1 << 28,
  stream_options: 1 << 29,
  web_search_options: 1 << 30,
} as const satisfies Record<KnownKey, number>;

/** A body's keys read once: which known keys hold a value (not `null`), and the rest (unknown keys and known keys set to `null`), which travel as extensions. */
export interface ScannedBody {
  present: number;
  rest: JsonObject | undefined;
}

/** The {@link BIT} of a known key, else 0 (a switch: cheaper than a map lookup per key). */
function bitOf(key: string): number {
  switch (key) {
    case 'model':
      return BIT.model;
    case 'messages':
      return BIT.messages;
    case 'tools':
      return BIT.tools;
    case 'tool_choice':
      return BIT.tool_choice;
    case 'parallel_tool_calls':
      return BIT.parallel_tool_calls;
    case 'response_format':
      return BIT.response_format;
    case 'reasoning_effort':
      return BIT.reasoning_effort;
    case 'max_tokens':
      return BIT.max_tokens;
    case 'max_completion_tokens':
      return BIT.max_completion_tokens;
    case 'n':
      return BIT.n;
    case 'seed':
      return BIT.seed;
    case 'stop':
      return BIT.stop;
    case 'logprobs':
      return BIT.logprobs;
    case 'top_logprobs':
      return BIT.top_logprobs;
    case 'presence_penalty':
      return BIT.presence_penalty;
    case 'frequency_penalty':
      return BIT.frequency_penalty;
    case 'user':
      return BIT.user;
    case 'safety_identifier':
      return BIT.safety_identifier;
    case 'metadata':
      return BIT.metadata;
    case 'service_tier':
      return BIT.service_tier;
    case 'stream':
      return BIT.stream;
    case 'temperature':
      return BIT.temperature;
    case 'top_p':
      return BIT.top_p;
    case 'functions':
      return BIT.functions;
    case 'function_call':
      return BIT.function_call;
    case 'store':
      return BIT.store;
    case 'prompt_cache_key':
      return BIT.prompt_cache_key;
    case 'prompt_cache_retention':
      return BIT.prompt_cache_retention;
    case 'verbosity':
      return BIT.verbosity;
    case 'stream_options':
      return BIT.stream_options;
    case 'web_search_options':
      return BIT.web_search_options;
    default:
      return 0;
  }
}

/** Read a body's keys once (see {@link ScannedBody}). */
export function scanBody(object: JsonObject): ScannedBody {
  let present = 0;
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    const bit = bitOf(key);
    if (bit !== 0 && value !== null) {
      if (value !== undefined) present |= bit;
      continue;
    }
    (rest ??= {})[key] = value;
  }
  return { present, rest };
}

/** Does the scanned body hold the key of `bit` (from {@link BIT}) with a value other than `null`? */
export function present(fields: number, bit: number): boolean {
  return (fields & bit) !== 0;
}
