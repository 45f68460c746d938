/**
 * Generation settings: `temperature`, `top_p`, `seed`, the penalties, `n`,
 * `top_logprobs`, `logprobs`, `max_completion_tokens` (or the older
 * `max_tokens`) and `stop` ⇄ the IR's `generation`.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import type { CodecContext } from '../../core/codec.ts';
import type { Generation, Request } from '../../core/ir.ts';
import { stopsWithin } from '../../core/request-settings.ts';
import { expectArray, expectBoolean, expectNumber, expectString, pointer, type JsonObject } from '../../core/wire.ts';
import { BIT, present } from './request-keys-decode.ts';
import { FORMAT, chatHint, keepUnknown, keys, shapeHint } from './shape.ts';
import { FORMAT_BOUNDS } from '../../core/bounds.ts';

/** Numeric wire fields and their `generation` slots. */
const NUMBERS = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['seed', 'seed'],
  ['presence_penalty', 'presencePenalty'],
  ['frequency_penalty', 'frequencyPenalty'],
  ['n', 'candidateCount'],
  ['top_logprobs', 'topLogprobs'],
] as const satisfies readonly (readonly [keyof ChatCompletionCreateParamsBase, keyof Generation])[];

/** The {@link BIT}s of the entries of {@link NUMBERS}. */
const NUMBER_MASK: number = NUMBERS.reduce((mask, [wire]) => mask | BIT[wire], 0);

/** A finite number read from the body's `key`, else the `invalid_type` error naming it. */
function numberField(value: unknown, key: string): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : expectNumber(value, pointer('', key), FORMAT);
}

/** The keys {@link decodeOpenaiChatGeneration} reads. */
const GENERATION_BITS = (['temperature', 'top_p', 'seed', 'presence_penalty', 'frequency_penalty', 'n', 'top_logprobs', 'max_tokens', 'max_completion_tokens', 'stop', 'logprobs'] as const).reduce(
  (bits, key) => bits | BIT[key],
  0,
);

/** Where IR generation settings come from on the wire, for loss paths. */
export const GENERATION_ORIGINS = {
  ...Object.fromEntries(NUMBERS.map(([wire, slot]) => [slot, wire])),
  maxTokens: ['max_completion_tokens', 'max_tokens'],
  stop: 'stop',
  logprobs: 'logprobs',
} as const;

/** The body's generation settings (sampling, limits, stop sequences, logprobs); `undefined` when it has none. */
export function decodeOpenaiChatGeneration(body: JsonObject, request: Request, fields: number): Generation | undefined {
  if ((fields & GENERATION_BITS) === 0) return undefined;
  const generation: Generation = {};
  let any = false;
  // The NUMBERS in their order, read and written by name (a keyed read and write per entry cost more than the checks).
  if ((fields & NUMBER_MASK) !== 0) {
    any = true;
    if (present(fields, BIT.temperature)) generation.temperature = numberField(body['temperature'], 'temperature');
    if (present(fields, BIT.top_p)) generation.topP = numberField(body['top_p'], 'top_p');
    if (present(fields, BIT.seed)) generation.seed = numberField(body['seed'], 'seed');
    if (present(fields, BIT.presence_penalty)) generation.presencePenalty = numberField(body['presence_penalty'], 'presence_penalty');
    if (present(fields, BIT.frequency_penalty)) generation.frequencyPenalty = numberField(body['frequency_penalty'], 'frequency_penalty');
    if (present(fields, BIT.n)) generation.candidateCount = numberField(body['n'], 'n');
    if (present(fields, BIT.top_logprobs)) {
      generation.topLogprobs = numberField(body['top_logprobs'], 'top_logprobs');
      // The API wants logprobs beside it, which the encoder adds for other formats' requests; a body without it goes back as it came.
      if (!present(fields, BIT.logprobs)) chatHint(request, '$noLogprobs', true);
    }
  }
  // Read only when the scan saw them (a read of a key the body lacks costs as much as one it has).
  if (present(fields, BIT.max_completion_tokens)) {
    generation.maxTokens = expectNumber(body['max_completion_tokens'], '/max_completion_tokens', FORMAT);
    any = true;
    if (present(fields, BIT.max_tokens)) keepUnknown(request, { max_tokens: expectNumber(body['max_tokens'], '/max_tokens', FORMAT) }, keys());
  } else if (present(fields, BIT.max_tokens)) {
    generation.maxTokens = expectNumber(body['max_tokens'], '/max_tokens', FORMAT);
    chatHint(request, '$maxTokensField', 'max_tokens');
    any = true;
  }
  if (present(fields, BIT.stop)) {
    const stop = body['stop'];
    if (typeof stop === 'string') {
      generation.stop = [stop];
      chatHint(request, '$stopString', true);
    } else {
      generation.stop = expectArray(stop, '/stop', FORMAT).map((item, index) => expectString(item, pointer('/stop', index), FORMAT));
    }
    any = true;
  }
  if (present(fields, BIT.logprobs)) {
    generation.logprobs = expectBoolean(body['logprobs'], '/logprobs', FORMAT);
    any = true;
  }
  return any ? generation : undefined;
}

/** The most stop sequences Chat Completions takes. */
const CHAT_MAX_STOPS = FORMAT_BOUNDS[FORMAT].stopCount ?? Infinity;

/** Write the IR generation settings into `wire`, reporting what Chat cannot carry. */
export function encodeOpenaiChatGeneration(generation: Generation, request: Request, wire: JsonObject, context: CodecContext): void {
  // Named reads in the order of NUMBERS (a keyed read per entry costs more than the rest of this function).
  if (generation.temperature !== undefined) wire['temperature'] = generation.temperature;
  if (generation.topP !== undefined) wire['top_p'] = generation.topP;
  if (generation.seed !== undefined) wire['seed'] = generation.seed;
  if (generation.presencePenalty !== undefined) wire['presence_penalty'] = generation.presencePenalty;
  if (generation.frequencyPenalty !== undefined) wire['frequency_penalty'] = generation.frequencyPenalty;
  if (generation.candidateCount !== undefined) wire['n'] = generation.candidateCount;
  if (generation.topLogprobs !== undefined) {
    wire['top_logprobs'] = generation.topLogprobs;
    // Chat refuses top_logprobs without logprobs: true, which the other formats' requests imply (a Responses `top_logprobs`, Gemini's `logprobs`).
    if (generation.logprobs === undefined && shapeHint(request, '$noLogprobs') !== true) wire['logprobs'] = true;
  }
  if (generation.maxTokens !== undefined) {
    wire[shapeHint(request, '$maxTokensField') === 'max_tokens' ? 'max_tokens' : 'max_completion_tokens'] = generation.maxTokens;
  }
  const stop = generation.stop === undefined ? undefined : stopsWithin(generation.stop, CHAT_MAX_STOPS, context.losses, 'Chat Completions');
  if (stop !== undefined) wire['stop'] = stop.length === 1 && shapeHint(request, '$stopString') === true ? stop[0] : stop;
  if (generation.logprobs !== undefined) wire['logprobs'] = generation.logprobs;
  if (generation.topK !== undefined) {
    context.losses.add('dropped_field', '/generation/topK', 'Chat Completions has no top_k; dropped');
  }
}
