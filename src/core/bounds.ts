/**
 * The bounds each format's spec puts on the request values the IR maps
 * (numeric ranges, string lengths, counts), in one table per format, and
 * the one pass every request encoder makes over them: a value inside its
 * target's bounds travels as it is; one outside is clamped to the nearest
 * bound (`approximated`) or, when it is a negative sentinel meaning "unset"
 * in the source (`top_p: -1`, `top_k: -1`) or a string too long to cut
 * without changing what it names, dropped (`dropped_field`).
 *
 * Each bound cites where it comes from: the OpenAI spec
 * (test/corpus/spec/openai-openapi--openapi.json), the Anthropic spec
 * (test/corpus/spec/tryAGI-Anthropic--openapi.yaml), the Gemini SDK's
 * types (`GenerationConfig` in @google/genai) and API reference, the
 * Converse API reference. Ollama documents no bounds.
 */
import type { FormatId, Generation, Request } from './ir.ts';
import type { LossCollector } from './losses.ts';

/** An inclusive numeric range. */
export interface NumberBound {
  readonly min?: number;
  readonly max?: number;
}

/** The numeric generation settings a table bounds. */
export type BoundedSetting = 'maxTokens' | 'temperature' | 'topP' | 'topK' | 'presencePenalty' | 'frequencyPenalty' | 'candidateCount' | 'topLogprobs';

/** What a format's spec accepts for the request values the IR maps. */
export interface FormatBounds {
  /** The format's display name, for loss messages. */
  readonly name: string;
  /** Numeric generation settings. */
  readonly generation: Readonly<Partial<Record<BoundedSetting, NumberBound>>>;
  /** How many stop sequences the format takes. */
  readonly stopCount?: number;
  /** The longest end-user id (`Request.user`) the format takes. */
  readonly userLength?: number;
  /** Metadata limits: entries, key and value lengths. */
  readonly metadata?: { readonly count: number; readonly keyLength: number; readonly valueLength: number };
}

/** OpenAI's `Metadata`: "Set of 16 key-value pairs … Keys … a maximum length of 64 characters. Values … 512 characters." */
const OPENAI_METADATA = { count: 16, keyLength: 64, valueLength: 512 } as const;

/** The bounds of every format, by format id. */
export const FORMAT_BOUNDS: Readonly<Record<FormatId, FormatBounds>> = {
  // OpenAI spec, `CreateChatCompletionRequest`: temperature 0–2, top_p 0–1, penalties −2–2, n 1–128,
  // top_logprobs 0–20, safety_identifier maxLength 64; `stop` "Up to 4 sequences".
  'openai-chat': {
    name: 'Chat Completions',
    generation: {
      temperature: { min: 0, max: 2 },
      topP: { min: 0, max: 1 },
      presencePenalty: { min: -2, max: 2 },
      frequencyPenalty: { min: -2, max: 2 },
      candidateCount: { min: 1, max: 128 },
      topLogprobs: { min: 0, max: 20 },
      maxTokens: { min: 1 },
    },
    stopCount: 4,
    userLength: 64,
    metadata: OPENAI_METADATA,
  },
  // OpenAI spec, `CreateResponse`: temperature 0–2, top_p 0–1, top_logprobs 0–20, max_output_tokens
  // minimum 16, safety_identifier maxLength 64.
  'openai-responses': {
    name: 'OpenAI Responses',
    generation: {
      temperature: { min: 0, max: 2 },
      topP: { min: 0, max: 1 },
      topLogprobs: { min: 0, max: 20 },
      maxTokens: { min: 16 },
    },
    userLength: 64,
    metadata: OPENAI_METADATA,
  },
  // Anthropic spec, `CreateMessageParams`: temperature 0–1, top_p 0–1, top_k minimum 0, max_tokens at
  // least 1 ("must be greater than or equal to 1" in the API's 400); `Metadata.user_id` maxLength 512.
  anthropic: {
    name: 'Anthropic',
    generation: {
      temperature: { min: 0, max: 1 },
      topP: { min: 0, max: 1 },
      topK: { min: 0 },
      maxTokens: { min: 1 },
    },
    userLength: 512,
  },
  // @google/genai `GenerationConfig`: temperature "The valid range is (0.0, 2.0]" (0 is taken: greedy),
  // penalties "[-2.0, 2.0]"; https://ai.google.dev/api/generate-content#generationconfig: topK and
  // candidateCount positive, logprobs "in the range of [0, 20]", at most 5 stop sequences.
  gemini: {
    name: 'Gemini',
    generation: {
      temperature: { min: 0, max: 2 },
      topP: { min: 0, max: 1 },
      topK: { min: 1 },
      presencePenalty: { min: -2, max: 2 },
      frequencyPenalty: { min: -2, max: 2 },
      candidateCount: { min: 1 },
      topLogprobs: { min: 0, max: 20 },
      maxTokens: { min: 1 },
    },
    stopCount: 5,
  },
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html:
  // maxTokens minimum 1, temperature and topP 0–1.
  'bedrock-converse': {
    name: 'Converse',
    generation: {
      temperature: { min: 0, max: 1 },
      topP: { min: 0, max: 1 },
      maxTokens: { min: 1 },
    },
  },
  // Ollama's API documentation gives no ranges; its server passes the options to the model runner.
  ollama: { name: 'Ollama', generation: {} },
};

/** The IR field names of the bounded settings, in the order they are checked. */
const SETTINGS: readonly BoundedSetting[] = ['maxTokens', 'temperature', 'topP', 'topK', 'presencePenalty', 'frequencyPenalty', 'candidateCount', 'topLogprobs'];

/**
 * `value` fitted to `bound`: itself, the nearest bound, or `undefined` for a
 * sentinel meaning "unset" or "off" (a negative value where the range starts
 * at 0 or above, or 0 where it starts above: `top_k: 0` is no top-k, which a
 * clamp to 1 would turn into greedy decoding).
 */
function fit(value: number, bound: NumberBound): number | undefined {
  if (bound.min !== undefined && value < bound.min) return (value < 0 && bound.min >= 0) || (value === 0 && bound.min > 0) ? undefined : bound.min;
  if (bound.max !== undefined && value > bound.max) return bound.max;
  return value;
}

/** Whether `value` is absent, unbounded or inside `bound`. */
function inside(value: number | undefined, bound: NumberBound | undefined): boolean {
  return value === undefined || bound === undefined || fit(value, bound) === value;
}

/**
 * Whether every bounded setting of `generation` is inside `bounds`: the
 * common case, read field by field (a keyed read per setting in a loop,
 * as {@link fitGeneration} makes, cost more than the rest of the fit).
 */
function generationInside(generation: Generation, bounds: FormatBounds['generation']): boolean {
  return (
    inside(generation.maxTokens, bounds.maxTokens) &&
    inside(generation.temperature, bounds.temperature) &&
    inside(generation.topP, bounds.topP) &&
    inside(generation.topK, bounds.topK) &&
    inside(generation.presencePenalty, bounds.presencePenalty) &&
    inside(generation.frequencyPenalty, bounds.frequencyPenalty) &&
    inside(generation.candidateCount, bounds.candidateCount) &&
    inside(generation.topLogprobs, bounds.topLogprobs)
  );
}

/** The generation settings fitted to `bounds`, or `generation` itself when every value is inside them. */
function fitGeneration(generation: Generation, bounds: FormatBounds, losses: LossCollector): Generation {
  if (generationInside(generation, bounds.generation)) return generation;
  let fitted: Generation | undefined;
  for (const setting of SETTINGS) {
    const value = generation[setting];
    const bound = bounds.generation[setting];
    if (value === undefined || bound === undefined) continue;
    const next = fit(value, bound);
    if (next === value) continue;
    fitted ??= { ...generation };
    const range = `${bound.min ?? '−∞'}–${bound.max ?? '∞'}`;
    if (next === undefined) {
      delete fitted[setting];
      losses.add('dropped_field', `/generation/${setting}`, `${bounds.name} takes ${setting} in ${range}; ${value} (a sentinel for "unset") was left out`);
    } else {
      fitted[setting] = next;
      losses.add('approximated', `/generation/${setting}`, `${bounds.name} takes ${setting} in ${range}; ${value} was sent as ${next}`);
    }
  }
  return fitted ?? generation;
}

/** The metadata fitted to `limits`, or `metadata` itself when it fits. */
function fitMetadata(metadata: Record<string, string>, limits: NonNullable<FormatBounds['metadata']>, losses: LossCollector, name: string): Record<string, string> {
  if (!fitMetadataCheck(metadata, limits)) return metadata;
  const kept: Record<string, string> = {};
  let count = 0;
  for (const key in metadata) {
    const value = metadata[key] ?? '';
    const why = key.length > limits.keyLength ? `its key is over ${limits.keyLength} characters` : value.length > limits.valueLength ? `its value is over ${limits.valueLength} characters` : count >= limits.count ? `${name} takes at most ${limits.count} entries` : undefined;
    if (why === undefined) {
      kept[key] = value;
      count++;
    } else losses.add('dropped_field', `/metadata/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, `${name} metadata entry dropped: ${why}`);
  }
  return kept;
}

/**
 * `request` with its values fitted to the bounds of `format` (see the file
 * comment), each change reported; `request` itself, untouched and with
 * nothing allocated, when every value fits (the common case).
 */
export function fitRequestBounds(request: Request, format: FormatId, losses: LossCollector): Request {
  const bounds = FORMAT_BOUNDS[format];
  let fitted: Request | undefined;
  if (request.generation !== undefined) {
    const generation = fitGeneration(request.generation, bounds, losses);
    if (generation !== request.generation) (fitted ??= { ...request }).generation = generation;
  }
  if (request.user !== undefined && bounds.userLength !== undefined && request.user.length > bounds.userLength) {
    delete (fitted ??= { ...request }).user;
    losses.add('dropped_field', '/user', `${bounds.name} takes an end-user id of at most ${bounds.userLength} characters; this one has ${request.user.length}, and a cut one could name another user, so it was dropped`);
  }
  if (request.metadata !== undefined && bounds.metadata !== undefined) {
    const metadata = fitMetadata(request.metadata, bounds.metadata, losses, bounds.name);
    if (metadata !== request.metadata) (fitted ??= { ...request }).metadata = metadata;
  }
  return fitted ?? request;
}

/**
 * Whether a value of `request` is outside the bounds of `format`: a decoder
 * whose format has no other mark of its own bodies notes it, so that a body
 * the vendor would refuse still goes back to its own format as it came.
 */
export function outOfBounds(request: Request, format: FormatId): boolean {
  const bounds = FORMAT_BOUNDS[format];
  if (request.generation !== undefined && !generationInside(request.generation, bounds.generation)) return true;
  if (request.user !== undefined && bounds.userLength !== undefined && request.user.length > bounds.userLength) return true;
  return request.metadata !== undefined && bounds.metadata !== undefined && fitMetadataCheck(request.metadata, bounds.metadata);
}

function fitMetadataCheck(metadata: Record<string, string>, limits: NonNullable<FormatBounds['metadata']>): boolean {
  let count = 0;
  for (const key in metadata) if (++count > limits.count || key.length > limits.keyLength || (metadata[key] ?? '').length > limits.valueLength) return true;
  return false;
}
