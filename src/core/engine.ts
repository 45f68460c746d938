/**
 * The conversions on codec objects: decode with one codec, encode with
 * another, collect the losses of both steps, and enforce `strict`. This
 * module knows no provider: a caller passes the codecs it imports (one
 * subpath per format), so a bundle holds only those. `convert.ts` adds
 * format ids on top.
 */
import { InterlinguaError } from './errors.ts';
import { LossCollector, throwIfStrict, type Loss } from './losses.ts';
import { checkDepth, mayNestTooDeep } from './wire.ts';
import { checkBodyValues, mayHoldNonFinite } from './body-check.ts';
import { markPieces, piecesMark } from './serialize.ts';
import { checkIrError, checkIrRequest, checkIrResponse } from './ir-check.ts';
import type { ApiError, FormatId, Request, Response } from './ir.ts';
import type { Codec, CodecContext } from './codec.ts';
import type { AnswerIds } from './answer-ids.ts';
import { checkDialect } from './dialect.ts';

/**
 * Options of {@link convertRequest}, {@link convertResponse} and
 * {@link convertError} on codec objects. `From` and `To` need only the
 * functions used: a whole `Codec`, or `{ decodeRequest: decodeOpenaiChatRequest }`
 * for the leanest bundle.
 */
export interface CodecConvertOptions<From = Codec, To = Codec> {
  from: From;
  to: To;
  /** Throw an `InterlinguaError` (code `strict_loss`) instead of returning losses. */
  strict?: boolean;
  /** The model, for formats that carry it in the URL (Gemini). */
  model?: string;
  /** The dialect of the target format (`openai-chat`: `deepseek`, `openrouter`, `gemini-openai`, `vllm`, `ollama-openai`, `openai`). */
  dialect?: string;
  /** Where made-up answer ids and times come from (default: fresh random ids and the clock; `fixedAnswerIds` for reproducible output). */
  ids?: AnswerIds;
  /** For a response: the request it answers, in the target format, whose settings the answer echoes (see `CodecContext.request`). */
  request?: unknown;
}

/** A converted body and what the conversion could not carry. */
export interface ConvertResult {
  body: unknown;
  losses: Loss[];
}

/** A decoded IR value and the losses of decoding. */
export interface Decoded<T> {
  ir: T;
  losses: Loss[];
}

/** An encoded wire body and the losses of encoding. */
export interface Encoded {
  body: unknown;
  losses: Loss[];
}

/** Options of the per-format decode and encode functions. */
export interface CodecOptions {
  model?: string;
  strict?: boolean;
  /** The dialect to encode (see {@link CodecConvertOptions.dialect}). */
  dialect?: string;
  /** Where made-up answer ids and times come from (see {@link CodecConvertOptions.ids}). */
  ids?: AnswerIds;
}

/** Parse JSON text into a value; objects pass through untouched. Either way, a value nested deeper than `MAX_DEPTH` is an `invalid_value` error. */
export function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') {
    checkBodyValues(body);
    return body;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new InterlinguaError('invalid_json', `the body is not valid JSON (${(error as Error).message}); send a JSON object`, {
      path: '',
      cause: error,
    });
  }
  if (mayNestTooDeep(body)) checkDepth(value);
  if (mayHoldNonFinite(body)) checkBodyValues(value);
  return value;
}

function context(losses: LossCollector, model: string | undefined, dialect?: string, ids?: AnswerIds): CodecContext {
  const result: CodecContext = model === undefined ? { losses } : { losses, model };
  if (dialect !== undefined) result.dialect = dialect;
  if (ids !== undefined) result.ids = ids;
  return result;
}

/** The format of a codec object; `undefined` for a bare `{ encodeRequest }`. */
function formatOf(codec: unknown): FormatId | undefined {
  return (codec as { format?: FormatId }).format;
}

/** The context of a conversion's decoder: it knows where the IR is headed (`CodecContext.target`), so it can skip same-format hints for another target. */
function decodeContext(losses: LossCollector, model: string | undefined, target: FormatId | undefined): CodecContext {
  const result = context(losses, model);
  if (target !== undefined) result.target = target;
  return result;
}

/** Which kind of body a conversion handles: selects the codec methods without a closure per call. */
export type Kind = 'request' | 'response' | 'error';

export type AnyCodec = Partial<Pick<Codec, 'decodeRequest' | 'encodeRequest' | 'decodeResponse' | 'encodeResponse' | 'decodeError' | 'encodeError'>>;
type Decode = (body: unknown, context: CodecContext) => object;
type Encode = (ir: never, context: CodecContext) => unknown;

function decoderOf(kind: Kind, codec: AnyCodec): Decode {
  return (kind === 'request' ? codec.decodeRequest : kind === 'response' ? codec.decodeResponse : codec.decodeError) as Decode;
}

function encoderOf(kind: Kind, codec: AnyCodec): Encode {
  return (kind === 'request' ? codec.encodeRequest : kind === 'response' ? codec.encodeResponse : codec.encodeError) as Encode;
}

/**
 * How often a request decoder → encoder pair needed origins recorded (a
 * response always lists them: see `convertBetween`): of the
 * conversions `seen` since its first such need, how many (`needed`) had an
 * encode loss that neither an anchor nor the settings' field origins place
 * (a loss on a message, part, tool or candidate; see {@link placeLosses}).
 * A pair that needs them in a third of its conversions or more (a Responses
 * source's `strict` tools to Gemini) decodes with origins recorded from the
 * start, which costs less than the second decode each of those would take;
 * one that rarely does (most corpus requests to Anthropic only lose their
 * settings) decodes again only then. Keyed by the codec functions, which
 * live as long as their modules, so a bundle's `{ decodeRequest }` object
 * made per call finds its pair too.
 */
const recordingNeeds = new WeakMap<Decode, WeakMap<Encode, { seen: number; needed: number }>>();

function needsOf(decode: Decode, encode: Encode): { seen: number; needed: number } | undefined {
  return recordingNeeds.get(decode)?.get(encode);
}

function noteNeed(decode: Decode, encode: Encode, needs: { seen: number; needed: number } | undefined, needed: boolean): void {
  if (needs === undefined) {
    if (!needed) return;
    let encoders = recordingNeeds.get(decode);
    if (encoders === undefined) recordingNeeds.set(decode, (encoders = new WeakMap()));
    encoders.set(encode, { seen: 1, needed: 1 });
    return;
  }
  // Halved now and then, so the rate follows the traffic of the last hundred or so conversions.
  if (needs.seen === 128) {
    needs.seen = 64;
    needs.needed >>= 1;
  }
  needs.seen++;
  if (needed) needs.needed++;
}

/** The settings of a conversion besides its codecs. */
export interface ConversionSettings {
  strict?: boolean | undefined;
  model?: string | undefined;
  dialect?: string | undefined;
  ids?: AnswerIds | undefined;
  request?: unknown;
}

/**
 * The one conversion path (`convert.ts` calls it with codecs it resolved
 * from ids, so options are not copied per call): decode with the source, encode with the target
 * (the dialect is checked after decoding, as before any encode), point the
 * losses of encoding into the source body, enforce strict. `keep.ir`
 * receives the decoded IR (the normalizer reads the response's model there).
 */
export function convertBetween(kind: Kind, body: unknown, from: AnyCodec, to: AnyCodec, options: ConversionSettings, keep?: { ir?: object }): ConvertResult {
  const { model } = options;
  const decode = decoderOf(kind, from);
  const encode = encoderOf(kind, to);
  // A response (few nodes, and losses mostly on its parts) always lists its origins; a request records them when its pair often needs them.
  const listing = kind === 'response';
  const needs = listing ? undefined : needsOf(decode, encode);
  const recording = listing || (needs !== undefined && needs.needed * 3 >= needs.seen);
  const losses = new LossCollector(listing ? LIST_PLACING : recording ? RECORD_PLACING : PLACING);
  const wire = parseBody(body);
  const target = formatOf(to);
  const ir = decode.call(from, wire, decodeContext(losses, model, target));
  const decoded = losses.losses.length;
  if (keep !== undefined) keep.ir = ir;
  const mark = piecesMark();
  const encodeContext = context(losses, model, kind === 'error' ? undefined : checkDialect(to, options.dialect), options.ids);
  if (kind === 'response' && options.request !== undefined) encodeContext.request = parseBody(options.request);
  const out = markPieces(encode.call(to, ir as never, encodeContext), mark);
  // Encode losses that anchors and field origins cannot place need every origin: recorded from the start, or by decoding the same body again.
  const needed = losses.losses.length > decoded && !placeLosses(losses.losses, decoded, ir, losses);
  if (needed) {
    if (recording) pointIntoSource(losses.losses, decoded, ir, losses, false);
    else {
      // A few losses to place: the second decode lists its origins (node, pointer, … in one array) and each is found by a scan, where a map would cost an entry per part of the body.
      const few = losses.losses.length - decoded <= FEW_TO_PLACE;
      const recorder = new LossCollector(few ? LIST : RECORD);
      pointIntoSource(losses.losses, decoded, decode.call(from, wire, decodeContext(recorder, model, target)), recorder, few);
    }
  }
  if (!listing && (needs !== undefined || needed)) noteNeed(decode, encode, needs, needed);
  losses.pointAtFields(wire);
  throwIfStrict(losses.losses, options.strict);
  return { body: out, losses: losses.losses };
}

const RECORD = { recordOrigins: true } as const;
const LIST = { listOrigins: true } as const;
/** Up to this many encode losses are placed through a listing decode, scanned once per loss ({@link pointIntoSource}). */
const FEW_TO_PLACE = 8;
const PLACING = { placeAnchored: true } as const;
const RECORD_PLACING = { recordOrigins: true, placeAnchored: true } as const;
const LIST_PLACING = { listOrigins: true, placeAnchored: true } as const;

/**
 * Turn the IR pointers of the encode losses (`list` from `start` on) into
 * pointers into the source body, keeping each IR pointer as `irPath`: a
 * loss reported on an anchored node was placed by `losses.addAt` already
 * (it has its `irPath`), any other takes the origin `recorder` recorded
 * while decoding `ir` (`one`: looked up alone, `sourceOfOne`, rather than
 * by walks that share their prefixes through a map of every origin).
 */
function pointIntoSource(list: Loss[], start: number, ir: object, recorder: LossCollector, one: boolean): void {
  for (let index = start; index < list.length; index++) {
    const loss = list[index] as Loss;
    if (loss.irPath !== undefined) continue;
    const path = one ? recorder.sourceOfOne(ir, loss.path) : recorder.sourceOf(ir, loss.path);
    list[index] = { code: loss.code, path, irPath: loss.path, message: loss.message, severity: loss.severity };
  }
}

/**
 * {@link pointIntoSource} without a recording decode, when every encode
 * loss from `start` on can be placed so: reported on an anchored node
 * (`LossCollector.addAt`, which placed it), or on the IR's settings,
 * outside its lists of messages, tools and candidates, whose origins
 * decoders always record (the field origins of `originFields`, the `usage`
 * anchors; the IR root never has one). Otherwise leaves `list` as it is
 * and answers false.
 */
function placeLosses(list: Loss[], start: number, ir: object, losses: LossCollector): boolean {
  let unplaced = false;
  for (let index = start; index < list.length; index++) {
    const loss = list[index] as Loss;
    if (loss.irPath !== undefined) continue;
    if (!outsideLists(loss.path)) return false;
    unplaced = true;
  }
  if (!unplaced) return true;
  for (let index = start; index < list.length; index++) {
    const loss = list[index] as Loss;
    if (loss.irPath !== undefined) continue;
    list[index] = { code: loss.code, path: losses.sourceOfOne(ir, loss.path), irPath: loss.path, message: loss.message, severity: loss.severity };
  }
  return true;
}

/** Is IR pointer `path` outside the lists `/messages`, `/tools` and `/candidates`? */
function outsideLists(path: string): boolean {
  // Told apart by the first letter: a `startsWith` per list costs more than the rest of placing a settings loss.
  switch (path.charCodeAt(1)) {
    case 109 /* m */:
      return !inList(path, '/messages');
    case 116 /* t */:
      return !inList(path, '/tools');
    case 99 /* c */:
      return !inList(path, '/candidates');
    default:
      return true;
  }
}

function inList(path: string, list: string): boolean {
  return path.startsWith(list) && (path.length === list.length || path.charCodeAt(list.length) === 47 /* / */);
}

/** Convert a request body from one format to another. */
export function convertRequest(
  body: unknown,
  options: CodecConvertOptions<Pick<Codec, 'decodeRequest'>, Pick<Codec, 'encodeRequest'>>,
): ConvertResult {
  return convertBetween('request', body, options.from, options.to, options);
}

/** Convert a whole (non-streamed) response body from one format to another. */
export function convertResponse(
  body: unknown,
  options: CodecConvertOptions<Pick<Codec, 'decodeResponse'>, Pick<Codec, 'encodeResponse'>>,
): ConvertResult {
  return convertBetween('response', body, options.from, options.to, options);
}

/** Convert a vendor error body from one format to another. */
export function convertError(
  body: unknown,
  options: CodecConvertOptions<Pick<Codec, 'decodeError'>, Pick<Codec, 'encodeError'>>,
): ConvertResult {
  return convertBetween('error', body, options.from, options.to, options);
}

function decodeWith<T>(decode: (losses: LossCollector) => T, strict: boolean | undefined): Decoded<T> {
  const losses = new LossCollector();
  const ir = decode(losses);
  throwIfStrict(losses.losses, strict);
  return { ir, losses: losses.losses };
}

function encodeWith(encode: (losses: LossCollector) => unknown, strict: boolean | undefined): Encoded {
  const losses = new LossCollector();
  const body = encode(losses);
  throwIfStrict(losses.losses, strict);
  return { body, losses: losses.losses };
}

/** Decode a request body of `codec`'s format into the IR. */
export function decodeRequest(codec: Pick<Codec, 'decodeRequest'>, body: unknown, options: CodecOptions = {}): Decoded<Request> {
  return decodeWith((losses) => codec.decodeRequest(parseBody(body), context(losses, options.model)), options.strict);
}

/** Encode an IR request into a body of `codec`'s format. IR of the wrong shape (a `null` part, a number for a string) is an `InterlinguaError` naming its pointer in the IR. */
export function encodeRequest(codec: Pick<Codec, 'encodeRequest'>, request: Request, options: CodecOptions = {}): Encoded {
  checkIrRequest(request);
  const mark = piecesMark();
  return encodeWith((losses) => markPieces(codec.encodeRequest(request, context(losses, options.model, checkDialect(codec, options.dialect), options.ids)), mark), options.strict);
}

/** Decode a response body of `codec`'s format into the IR. */
export function decodeResponse(codec: Pick<Codec, 'decodeResponse'>, body: unknown, options: CodecOptions = {}): Decoded<Response> {
  return decodeWith((losses) => codec.decodeResponse(parseBody(body), context(losses, options.model)), options.strict);
}

/** Encode an IR response into a body of `codec`'s format. IR of the wrong shape is an `InterlinguaError` naming its pointer in the IR. */
export function encodeResponse(codec: Pick<Codec, 'encodeResponse'>, response: Response, options: CodecOptions = {}): Encoded {
  checkIrResponse(response);
  return encodeWith((losses) => codec.encodeResponse(response, context(losses, options.model, checkDialect(codec, options.dialect), options.ids)), options.strict);
}

/** Decode a vendor error body of `codec`'s format into the IR. */
export function decodeError(codec: Pick<Codec, 'decodeError'>, body: unknown, options: CodecOptions = {}): Decoded<ApiError> {
  return decodeWith((losses) => codec.decodeError(parseBody(body), context(losses, options.model)), options.strict);
}

/** Encode an IR error into an error body of `codec`'s format. */
export function encodeError(codec: Pick<Codec, 'encodeError'>, error: ApiError, options: CodecOptions = {}): Encoded {
  checkIrError(error);
  return encodeWith((losses) => codec.encodeError(error, context(losses, options.model)), options.strict);
}
