/**
 * What OpenAI's Chat Completions and Responses APIs both enforce: the error
 * envelope, the bounds of `metadata`, `safety_identifier`,
 * `prompt_cache_key` and `user`, function names, and sampling ranges (from
 * openai/openai-openapi, test/corpus/spec/openai-openapi--openapi.json, and
 * the observed texts in /work/shared/VENDOR_RULES.md §2–3).
 */
import { object, type Json, type Refusal } from './core.ts';

/** The OpenAI error envelope: `{"error": {message, type, param, code}}`. */
export function refuseOpenai(rule: string, message: string, param: string | null, code: string | null, status = 400): Refusal {
  return { status, rule, body: { error: { message, type: 'invalid_request_error', param, code } } };
}

function tooLong(param: string, value: string, max: number): Refusal {
  return refuseOpenai(`openai.${param}.length`, `Invalid '${param}': string too long. Expected a string with maximum length ${max}, but got a string with length ${value.length} instead.`, param, 'string_above_max_length');
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** A function name as the spec's FunctionObject.name says: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64". */
export function checkFunctionName(param: string, name: unknown): Refusal | undefined {
  // brekkylab/ailoy PR #109; anomalyco/opencode#3523
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) return refuseOpenai('openai.function.name', `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, param, 'invalid_value');
  if (name.length > 64) return tooLong(param, name, 64);
  return undefined;
}

/** A number within `[min, max]`, with OpenAI's `decimal_above_max_value` / `decimal_below_min_value` texts (spec ranges). */
function checkRange(body: Json, param: string, min: number, max: number): Refusal | undefined {
  const value = body[param];
  if (typeof value !== 'number') return undefined;
  if (value > max) return refuseOpenai(`openai.${param}.max`, `Invalid '${param}': decimal above maximum value. Expected a value <= ${max}, but got ${value} instead.`, param, 'decimal_above_max_value');
  if (value < min) return refuseOpenai(`openai.${param}.min`, `Invalid '${param}': decimal below minimum value. Expected a value >= ${min}, but got ${value} instead.`, param, 'decimal_below_min_value');
  return undefined;
}

/** The request fields both APIs bound. */
export function checkCommonFields(body: Json): Refusal | undefined {
  // spec ModelResponseProperties.safety_identifier maxLength 64; prompt_cache_key 64 (spec, Responses/realtime copies; theopenco/llmgateway PR #3110 for Chat); user 64 (3p).
  for (const param of ['safety_identifier', 'prompt_cache_key', 'user']) {
    const value = body[param];
    if (typeof value === 'string' && value.length > 64) return tooLong(param, value, 64);
  }
  const metadata = object(body['metadata']);
  if (metadata !== undefined) {
    // spec Metadata: "Set of 16 key-value pairs … Keys … maximum length of 64 characters. Values … maximum length of 512 characters."
    const keys = Object.keys(metadata);
    if (keys.length > 16) return refuseOpenai('openai.metadata.count', `Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with ${keys.length} properties instead.`, 'metadata', 'object_above_max_properties');
    for (const key of keys) {
      if (key.length > 64) return refuseOpenai('openai.metadata.key', `Invalid 'metadata': key too long. Expected a key with maximum length 64, but got a key with length ${key.length} instead.`, 'metadata', 'string_above_max_length');
      const value = metadata[key];
      if (typeof value !== 'string') return refuseOpenai('openai.metadata.value', `Invalid type for 'metadata.${key}': expected a string, but got ${value === null ? 'null' : typeof value} instead.`, `metadata.${key}`, 'invalid_type');
      if (value.length > 512) return tooLong(`metadata.${key}`, value, 512);
    }
  }
  return checkRange(body, 'temperature', 0, 2) ?? checkRange(body, 'top_p', 0, 1) ?? checkRange(body, 'presence_penalty', -2, 2) ?? checkRange(body, 'frequency_penalty', -2, 2);
}
