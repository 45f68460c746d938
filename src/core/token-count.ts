/**
 * Token counting: the endpoints that say how many input tokens a request
 * would take without running it (Anthropic `count_tokens`, Gemini
 * `countTokens`, OpenAI Responses `input_tokens`, Bedrock `CountTokens`).
 * Each counting request holds a generation request, whole or in a wrapper,
 * so a conversion unwraps it, converts it with the request codecs
 * (`convertBetween`), and wraps it for the target; an answer is one count.
 * Formats without such an endpoint (OpenAI Chat, Ollama) have no
 * `tokenCount` in their codec: a conversion to or from them is a typed
 * error, never an estimate.
 */
import type { Codec, TokenCount, TokenCountCodec } from './codec.ts';
import { convertBetween, parseBody, type ConvertResult } from './engine.ts';
import { errorUnder, InterlinguaError, isInterlinguaError } from './errors.ts';
import type { FormatId } from './ir.ts';
import { LossCollector, throwIfStrict, type Loss } from './losses.ts';
import { expectObject, extend, isObject, pointerSegment, unknownKeys, type JsonObject } from './wire.ts';

export type { CountedRequest, TokenCount, TokenCountCodec } from './codec.ts';

/** Options of {@link convertTokenCountRequest} and {@link convertTokenCountResponse}. */
export interface TokenCountOptions {
  from: Codec;
  to: Codec;
  /** Throw an `InterlinguaError` (code `strict_loss`) instead of returning losses. */
  strict?: boolean;
  /** The model, where the source's counting body does not name it (Gemini and Bedrock carry it in the URL). */
  model?: string;
}

/** The counting codec of `codec`, or a typed error naming what has none. */
export function tokenCountOf(codec: Codec, side: 'source' | 'target'): TokenCountCodec {
  const counting = codec.tokenCount;
  if (counting !== undefined) return counting;
  throw new InterlinguaError(
    'not_implemented',
    `${codec.format} has no token-counting endpoint, so there is nothing to convert ${side === 'source' ? 'from' : 'to'}; interlingua does not estimate counts (count with a format that has one: anthropic, openai-responses, gemini or bedrock-converse)`,
    { format: codec.format },
  );
}

/**
 * Convert a counting request body: the generation request it holds goes
 * through the request codecs, and the target's counting body is made around
 * the result. Loss paths point into the body passed in.
 */
export function convertTokenCountRequest(body: unknown, options: TokenCountOptions): ConvertResult {
  const source = tokenCountOf(options.from, 'source');
  const target = tokenCountOf(options.to, 'target');
  const wire = expectObject(parseBody(body), '', options.from.format);
  const counted = source.requestOf(wire);
  const model = options.model ?? counted.model;
  const keep: { ir?: object } = {};
  const converted = within(counted.path, () => convertBetween('request', counted.request, options.from, options.to, model === undefined ? {} : { model }, keep));
  const requestModel = (keep.ir as { model?: unknown } | undefined)?.model;
  const targetModel = model ?? (typeof requestModel === 'string' ? requestModel : undefined);
  const request = isObject(converted.body) ? converted.body : {};
  // A counting request never streams: the request encoders may have said so.
  delete request['stream'];
  const { body: out, dropped } = target.countBody(request, targetModel);
  const unsent = target.unsent;
  const defaulted = new Set<string>();
  const losses: Loss[] = [];
  for (const loss of converted.losses) {
    if (unsent !== undefined && loss.code === 'defaulted' && loss.irPath !== undefined && Object.values(unsent).includes(loss.irPath)) {
      defaulted.add(loss.irPath);
      continue;
    }
    losses.push(counted.path === '' ? loss : { ...loss, path: `${counted.path}${loss.path}` });
  }
  for (const key of dropped) {
    const made = unsent?.[key];
    if (made !== undefined && defaulted.has(made)) continue;
    losses.push({
      code: 'dropped_field',
      path: counted.path,
      message: `${options.to.format}'s token counting takes no "${key}" (a setting that changes no count); dropped`,
      severity: 'info',
    });
  }
  for (const path of counted.unread ?? []) {
    losses.push({ code: 'dropped_field', path, message: `this field of the ${options.from.format} counting body has no place in ${options.to.format}'s; dropped`, severity: 'warning' });
  }
  throwIfStrict(losses, options.strict);
  return { body: out, losses };
}

/** The pointers (under `base`) of the keys of `object` other than `known`, or `undefined` when there are none. */
export function unreadKeys(object: JsonObject, base: string, known: readonly string[]): string[] | undefined {
  let unread: string[] | undefined;
  for (const key in object) if (!known.includes(key)) (unread ??= []).push(`${base}/${pointerSegment(key)}`);
  return unread;
}

/** Convert the answer of a counting endpoint. */
export function convertTokenCountResponse(body: unknown, options: TokenCountOptions): ConvertResult {
  const source = tokenCountOf(options.from, 'source');
  const target = tokenCountOf(options.to, 'target');
  const losses = new LossCollector();
  const wire = parseBody(body);
  const count = source.decodeCount(wire, { losses });
  const out = target.encodeCount(count, { losses });
  if (count.cacheReadTokens !== undefined && target.carriesCacheReads !== true) {
    losses.add('dropped_field', '', `${options.to.format}'s count does not tell cached tokens apart; the ${count.cacheReadTokens} cached tokens stay inside the count`, 'info');
  }
  losses.foreignExtensions(count.extensions, options.to.format, '');
  losses.pointAtFields(wire);
  throwIfStrict(losses.losses, options.strict);
  return { body: out, losses: losses.losses };
}

/** Run `convert` on the request at `path` of a counting body: its errors point into that body. */
function within<T>(path: string, convert: () => T): T {
  if (path === '') return convert();
  try {
    return convert();
  } catch (error) {
    throw isInterlinguaError(error) ? errorUnder(path, error) : error;
  }
}

/** A count read from `value` at `path` (a non-negative integer), for the decoders. */
export function countAt(value: unknown, path: string, format: FormatId): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw new InterlinguaError(
    value === undefined ? 'missing_field' : 'invalid_value',
    value === undefined ? 'the token count is missing; expected a non-negative integer' : `the token count must be a non-negative integer, got ${JSON.stringify(value)}`,
    { path, format },
  );
}

/** The fields of `request` that `allowed` holds, as a counting body, and the names of the others (what `countBody` returns). */
export function pickFields(request: JsonObject, allowed: ReadonlySet<string>): { body: JsonObject; dropped: string[] } {
  const body: JsonObject = {};
  const dropped: string[] = [];
  for (const key in request) {
    if (allowed.has(key)) body[key] = request[key];
    else dropped.push(key);
  }
  return { body, dropped };
}

/**
 * Read a counting answer: the count at `key` of `body` (an object), the
 * rest kept as `format`'s extensions (reported by every other target).
 */
export function readCount(body: unknown, key: string, known: ReadonlySet<string>, format: FormatId): TokenCount {
  const object = expectObject(body, '', format);
  const count: TokenCount = { inputTokens: countAt(object[key], `/${pointerSegment(key)}`, format) };
  extend(count, format, unknownKeys(object, known));
  return count;
}
