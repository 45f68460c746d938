/**
 * One proxied exchange: convert the caller's body to the upstream format,
 * call the upstream, and convert its answer (whole, streamed, or an error)
 * back into the caller's format.
 */
import { codecFor } from '../core/registry.ts';
import { parseBody } from '../core/convert.ts';
import { convertTokenCountRequest, convertTokenCountResponse, type CountedRequest, type TokenCountCodec } from '../core/token-count.ts';
import { isInterlinguaError } from '../core/errors.ts';
import { createTranscoder, framingFor, irToSseMessages, messagesToFramedBytes, streamEncoderFor, transcodedStream, type Transcoder } from '../core/stream.ts';
import { responseToEvents } from '../core/accumulate.ts';
import type { ApiError, FormatId } from '../core/ir.ts';
import { hint, isObject, type JsonObject } from '../core/wire.ts';
import { bodyText, joinedText, markPieces, piecesMark } from '../core/serialize.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import { errorAnswer } from './errors.ts';
import { jsonAnswer, UpstreamTimeout, type Answer, type ByteSource, type Cancel, type UpstreamCall, type UpstreamInit, type UpstreamReply } from './exchange.ts';
import { carryEventState, carryResponseStates, restoreRequestStates } from '../core/carried-state.ts';
import { CustomCallRestorer, customToolNames, restoreCustomCalls } from '../core/custom-tools.ts';
import type { CodecContext } from '../core/codec.ts';
import { errorTypeForStatus } from '../core/http-status.ts';
import { modelInPath, type Route } from './routes.ts';
import type { RequestSigner } from './sigv4.ts';
import type { ProxyLogEntry } from './index.ts';
import { noteLosses, noteResponse, noteStreamEvent, noteUpstreamFailure, noteUpstreamReply } from '../telemetry/record.ts';
import { LossCollector } from '../core/losses.ts';

/** Everything one exchange needs. */
export interface ForwardOptions {
  route: Route;
  text: string;
  upstream: FormatId;
  /** The upstream's dialect of its format, for the request encoder. */
  dialect: string | undefined;
  url: (model: string | undefined, stream: boolean) => string;
  headers: Record<string, string>;
  /** Signs the request (SigV4 for Bedrock): the headers to send. */
  sign: RequestSigner | undefined;
  mapModel: (model: string | undefined) => string | undefined;
  call: UpstreamCall;
  timeoutMs: number;
  signal: Cancel;
  entry: ProxyLogEntry;
  losses: LossCollector;
  /** Remove secrets from text that reaches the caller. */
  redact: (text: string) => string;
  /** Set here: the transcoder of a converted stream, whose losses the log adds at the stream's end. */
  transcoder: Transcoder | undefined;
  /** Set here: the answer is the upstream's stream passed through unconverted (the log reads its events on the way). */
  passedThrough: boolean;
}

/** A streamed answer in `format`'s framing, with the count of the request's losses. */
function streamAnswer(format: FormatId, losses: string, body: ReadableStream<Uint8Array> | ByteSource): Answer {
  return { status: 200, headers: { 'content-type': framingFor(format).contentType, 'cache-control': 'no-cache', 'x-interlingua-losses': losses }, body };
}

/** The media type of a content-type header value, lower-cased, without parameters. */
function mediaType(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** Can both ends of a conversion stream? */
function streamable(from: FormatId, to: FormatId): boolean {
  return codecFor(from).createStreamDecoder !== undefined && codecFor(to).createStreamEncoder !== undefined;
}

interface Prepared {
  body: JsonObject;
  model: string | undefined;
  stream: boolean;
  /** The caller's custom tools, which went to the upstream as functions: their calls in the answer go back as custom calls. */
  customTools?: ReadonlySet<string>;
}

/** The formats whose tools include custom (free-text) ones. */
function takesCustomTools(format: FormatId): boolean {
  return format === 'openai-chat' || format === 'openai-responses';
}

function prepare(options: ForwardOptions, body: JsonObject): Prepared {
  const { route, upstream } = options;
  // The decoder knows the IR goes to the upstream's format, so it skips what only a trip back to its own needs.
  const context: CodecContext = route.model === undefined ? { losses: options.losses, target: upstream } : { losses: options.losses, model: route.model, target: upstream };
  const wantsStream = route.streamByPath ?? (body['stream'] === true || (route.streamByDefault === true && body['stream'] === undefined));
  options.entry.stream = wantsStream;
  if (route.format === upstream) {
    const model = route.model ?? (typeof body['model'] === 'string' ? body['model'] : undefined);
    const mapped = options.mapModel(model);
    if (model !== undefined) options.entry.model = model;
    if (mapped !== undefined) options.entry.upstreamModel = mapped;
    if (!modelInPath(upstream) && mapped !== model && mapped !== undefined) body['model'] = mapped;
    return { body, model: mapped, stream: wantsStream };
  }
  // Reasoning state this proxy wrapped into the caller's own slot last turn goes back to the upstream as it was.
  const ir = restoreRequestStates(codecFor(route.format).decodeRequest(body, context));
  if (ir.model !== undefined) options.entry.model = ir.model;
  const mapped = options.mapModel(ir.model);
  if (mapped !== undefined) {
    ir.model = mapped;
    options.entry.upstreamModel = mapped;
  }
  const upstreamStreams = wantsStream && streamable(upstream, route.format);
  // A Chat upstream reports a stream's usage only when asked, which the caller's answer needs (every other format always reports it).
  if (upstreamStreams) {
    ir.stream = true;
    if (upstream === 'openai-chat') ir.streamUsage = true;
  } else {
    delete ir.stream;
    delete ir.streamUsage;
  }
  const encodeContext: CodecContext = mapped === undefined ? { losses: options.losses } : { losses: options.losses, model: mapped };
  if (options.dialect !== undefined) encodeContext.dialect = options.dialect;
  const mark = piecesMark();
  const encoded = codecFor(upstream).encodeRequest(ir, encodeContext);
  const out = isObject(encoded) ? markPieces(encoded, mark) : {};
  const prepared: Prepared = { body: out, model: mapped, stream: upstreamStreams };
  const customTools = takesCustomTools(upstream) ? undefined : customToolNames(ir);
  if (customTools !== undefined) prepared.customTools = customTools;
  return prepared;
}

async function translateError(response: UpstreamReply, options: ForwardOptions): Promise<Answer> {
  let text: string;
  try {
    text = await readText(response, options);
  } catch {
    // The error body itself broke off: the status still says what happened.
    text = '';
  }
  let error: ApiError;
  try {
    error = codecFor(options.upstream).decodeError(JSON.parse(text), { losses: options.losses });
  } catch (cause) {
    // The status still says what happened (a 429 stays a 429); the message says whose body could not be read.
    const what = `the upstream (${options.upstream}) answered HTTP ${response.status} with a body that is not a ${options.upstream} error (${describe(cause)})`;
    error = { type: errorTypeForStatus(response.status), message: text === '' ? what : `${what}: ${text.slice(0, 1000)}` };
  }
  error = codecFor(options.upstream).errorFromAnswer?.(error, { get: (name) => response.header(name) }, response.status) ?? error;
  if (error.type === 'other') error.type = errorTypeForStatus(response.status);
  error.status = response.status;
  error.message = options.redact(error.message);
  const retryAfter = response.header('retry-after');
  return errorAnswer(options.route.format, error, retryAfter === null ? undefined : { 'retry-after': retryAfter });
}

/**
 * The upstream body with a watchdog: each chunk must come within `timeoutMs`
 * of the one before. A read failure (reset, abort) or a silence that long
 * ends the stream (`onFailure: 'close'`, so the stream decoder reports a
 * truncated stream as the caller's error event) or errors it (`'error'`,
 * for bytes passed through as they are).
 */
function guarded(body: ReadableStream<Uint8Array>, options: ForwardOptions, onFailure: 'close' | 'error'): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, reason: unknown) => {
    if (onFailure === 'close') controller.close();
    else controller.error(reason);
  };
  return new ReadableStream({
    async pull(controller) {
      const silence = new Promise<'silent'>((resolve) => (timer = setTimeout(() => resolve('silent'), options.timeoutMs)));
      try {
        const result = await Promise.race([reader.read(), silence]);
        if (result === 'silent') {
          const reason = new Error(`the upstream went silent for ${options.timeoutMs} ms mid-answer`);
          reader.cancel(reason).catch(() => {});
          fail(controller, reason);
        } else if (result.done) controller.close();
        else controller.enqueue(result.value);
      } catch (error) {
        fail(controller, error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}

/** The error an upstream body that broke off or went silent becomes (502 or 504 in the caller's format). */
function bodyFailure(error: unknown, options: ForwardOptions): ApiError {
  const silent = error instanceof Error && error.message.startsWith('the upstream went silent');
  const message = silent
    ? `the upstream went silent for ${options.timeoutMs} ms in the middle of its answer`
    : `the upstream's answer broke off before its end (${error instanceof Error ? error.message : String(error)})`;
  return { type: silent ? 'timeout' : 'server', status: silent ? 504 : 502, message: options.redact(message) };
}

/** The whole upstream body as text, under the same watchdog; throws what {@link bodyFailure} turns into an answer. */
async function readText(response: UpstreamReply, options: ForwardOptions): Promise<string> {
  if (response.failure !== undefined) throw response.failure;
  if (response.text !== undefined) return response.text;
  if (response.source !== undefined) return sourceText(response.source);
  if (response.body === null) return '';
  const reader = guarded(response.body, options, 'error').getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

/** The whole of a {@link ByteSource} as text; rejects with its failure. */
function sourceText(source: ByteSource): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new TextDecoder();
    let text = '';
    source.start({
      data: (chunk) => (text += decoder.decode(chunk, { stream: true })),
      end: () => resolve(text + decoder.decode()),
      fail: reject,
    });
  });
}

/** The slices a stream's first bytes are transcoded in, until the first output (see {@link transcodedSource}). */
const FIRST_SLICE_BYTES = 256;

/**
 * A streamed upstream body converted chunk by chunk through `transcoder`, as
 * a {@link ByteSource}: each upstream chunk is transcoded synchronously and
 * handed on, with no Web stream in between. A source that breaks off (reset,
 * silence, cancellation) is ended like one that stopped, so the transcoder
 * reports the truncated stream as the caller's error event, as
 * `convertStream` over the guarded body does.
 */
function transcodedSource(source: ByteSource, transcoder: Transcoder): ByteSource {
  return {
    start(sink) {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        let tail: Uint8Array | undefined;
        try {
          tail = transcoder.end();
        } catch (error) {
          sink.fail(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (tail !== undefined) sink.data(tail);
        sink.end();
      };
      let started = false;
      const push = (chunk: Uint8Array): boolean => {
        let bytes: Uint8Array | undefined;
        try {
          bytes = transcoder.push(chunk);
        } catch (error) {
          done = true;
          source.cancel();
          sink.fail(error instanceof Error ? error : new Error(String(error)));
          return false;
        }
        if (bytes === undefined) return true;
        started = true;
        sink.data(bytes);
        return true;
      };
      source.start({
        data(chunk) {
          if (done) return;
          if (started) {
            push(chunk);
            return;
          }
          // Until the caller has its first bytes, transcode in slices and hand on each output at once: the first event is not held back while the rest of a large first chunk converts.
          let offset = 0;
          while (!started && offset < chunk.byteLength) {
            const end = Math.min(chunk.byteLength, offset + FIRST_SLICE_BYTES);
            if (!push(chunk.subarray(offset, end))) return;
            offset = end;
          }
          if (offset < chunk.byteLength) push(chunk.subarray(offset));
        },
        end: finish,
        fail: finish,
      });
    },
    pause: () => source.pause(),
    resume: () => source.resume(),
    cancel: () => source.cancel(),
  };
}

function syntheticStream(events: StreamEvent[], format: FormatId, options: ForwardOptions): ReadableStream<Uint8Array> {
  const encoder = streamEncoderFor(format, { losses: options.losses });
  return new ReadableStream<StreamEvent>({
    start(controller) {
      for (const event of events) controller.enqueue(event);
      controller.close();
    },
  })
    .pipeThrough(irToSseMessages(encoder, format))
    .pipeThrough(messagesToFramedBytes(framingFor(format)));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The error for an upstream answer that interlingua cannot read or cannot
 * write in the caller's format: the upstream's fault, never the caller's, so
 * a 502 naming the upstream's format and what was wrong with its answer.
 */
function upstreamAnswerFault(upstream: FormatId, caller: FormatId, error: unknown): ApiError {
  return {
    type: 'server',
    status: 502,
    message: `the upstream (${upstream}) answered with a response interlingua could not convert to ${caller}: ${describe(error)}; the request was fine, the upstream's answer was not`,
  };
}

/** An Ollama `/api/generate` caller gets `response` lines: the stream's start says so to the Ollama encoder. */
function generateShape(event: StreamEvent, route: Route): StreamEvent {
  if (route.generate !== true || event.type !== 'start') return event;
  return { ...event, extensions: { ...event.extensions, ollama: { ...event.extensions?.ollama, $generate: true } } };
}

/** The error an upstream call that failed (could not connect, timed out, was cancelled) is answered with. */
function callFailure(error: unknown, options: ForwardOptions): ApiError {
  const timedOut = error instanceof UpstreamTimeout;
  const message = timedOut
    ? `the upstream did not answer within ${options.timeoutMs} ms`
    : options.signal.aborted
      ? 'the client went away'
      : `the upstream could not be reached (${error instanceof Error ? error.message : String(error)})`;
  return { type: timedOut ? 'timeout' : 'server', status: timedOut ? 504 : 502, message };
}

/** Call the upstream with a time limit for its first byte and the caller's cancellation; rejects with what {@link callFailure} answers. */
function callUpstream(options: ForwardOptions, prepared: Prepared, sent?: () => void): Promise<UpstreamReply> {
  try {
    const url = options.url(prepared.model, prepared.stream);
    const text = bodyText(prepared.body);
    const body = joinedText(text);
    const init: UpstreamInit = { headers: options.headers, body, timeoutMs: options.timeoutMs, signal: options.signal, stream: prepared.stream };
    if (typeof text !== 'string') init.pieces = text;
    if (sent !== undefined) init.sent = sent;
    const sign = options.sign;
    // One promise for the usual unsigned call (awaited as it is: no extra hop between the upstream's answer and the caller's); a signed one waits for its signature first.
    return sign === undefined ? options.call(url, init) : sign(url, options.headers, body).then((headers) => options.call(url, { ...init, headers }));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The transcoder of a converted stream from the upstream's format to the caller's. */
function streamTranscoder(options: ForwardOptions, prepared: Prepared): Transcoder {
  const route = options.route;
  const custom = prepared.customTools === undefined ? undefined : new CustomCallRestorer(prepared.customTools);
  const entry = options.entry;
  const transcoder = createTranscoder({
    from: options.upstream,
    to: route.format,
    ...(prepared.model === undefined ? {} : { model: prepared.model }),
    // Each event is seen on its way for the log (usage, stop reasons, an error event).
    mapEvent:
      custom === undefined
        ? (event) => {
            noteStreamEvent(entry, event);
            return generateShape(carryEventState(event, route.format), route);
          }
        : (event) => {
            noteStreamEvent(entry, event);
            return generateShape(carryEventState(custom.map(event), route.format), route);
          },
  });
  options.transcoder = transcoder;
  return transcoder;
}

/**
 * What a whole answer passed back unconverted says (its usage, model, stop
 * reasons), for the log: read by the format's decoder into losses of its
 * own. An answer it cannot read is still passed back as it came.
 */
function noteSameFormat(options: ForwardOptions, json: unknown, model: string | undefined): void {
  try {
    const losses = new LossCollector();
    noteResponse(options.entry, codecFor(options.upstream).decodeResponse(json, model === undefined ? { losses } : { losses, model }));
  } catch {
    // Nothing to note.
  }
}

/** Forward one request and translate the answer. */
export async function forwardToUpstream(options: ForwardOptions): Promise<Answer> {
  const { route, upstream } = options;
  const body = parseBody(options.text);
  if (!isObject(body)) return errorAnswer(route.format, { type: 'invalid_request', message: 'the request body must be a JSON object' });
  const prepared = prepare(options, body);
  let response: UpstreamReply;
  // A converted stream's transcoder is made once the request is on the wire (where the upstream call says so), while the upstream works on its answer.
  let transcoder: Transcoder | undefined;
  const sent =
    prepared.stream && route.format !== upstream
      ? () => {
          try {
            transcoder ??= streamTranscoder(options, prepared);
          } catch {
            // Made again once the answer is in, where the failure is answered.
          }
        }
      : undefined;
  const call = callUpstream(options, prepared, sent);
  try {
    response = await call;
  } catch (error) {
    const apiError = callFailure(error, options);
    const message = options.redact(apiError.message);
    noteUpstreamFailure(options.entry, message);
    return errorAnswer(route.format, { ...apiError, message });
  }
  noteUpstreamReply(options.entry, response.status, response.header);
  if (response.status < 200 || response.status > 299) return translateError(response, options);
  const lossCount = () => String(options.losses.losses.length);
  const lossHeader = () => ({ 'x-interlingua-losses': lossCount() });
  const upstreamStreamed = response.text === undefined && mediaType(response.header('content-type') ?? '') === mediaType(framingFor(upstream).contentType);
  if (upstreamStreamed && response.source !== undefined) {
    // The Node upstream call: its data events go through a synchronous transcoder to the caller, no Web stream on the way.
    if (route.format === upstream) {
      options.passedThrough = true;
      return streamAnswer(route.format, lossCount(), response.source);
    }
    return streamAnswer(route.format, lossCount(), transcodedSource(response.source, transcoder ?? streamTranscoder(options, prepared)));
  }
  if (upstreamStreamed && response.body !== null) {
    if (route.format === upstream) {
      options.passedThrough = true;
      return streamAnswer(route.format, lossCount(), guarded(response.body, options, 'error'));
    }
    const converted = transcodedStream(guarded(response.body, options, 'close'), transcoder ?? streamTranscoder(options, prepared));
    return streamAnswer(route.format, lossCount(), converted);
  }
  let text: string;
  if (response.text !== undefined) text = response.text;
  else {
    try {
      text = await readText(response, options);
    } catch (error) {
      return errorAnswer(route.format, bodyFailure(error, options));
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return errorAnswer(route.format, { type: 'server', status: 502, message: `the upstream (${upstream}) answered with a body that is not JSON` });
  }
  const wantsStream = options.entry.stream;
  if (route.format === upstream && !wantsStream) {
    noteSameFormat(options, json, prepared.model);
    return jsonAnswer(response.status, text, lossHeader());
  }
  const context: CodecContext = prepared.model === undefined ? { losses: options.losses } : { losses: options.losses, model: prepared.model };
  try {
    // The upstream's reasoning state rides in the caller's own slot, so the caller's next turn brings it back.
    const ir = carryResponseStates(codecFor(upstream).decodeResponse(json, { ...context, target: route.format }), route.format);
    noteResponse(options.entry, ir);
    if (prepared.customTools !== undefined) restoreCustomCalls(ir, prepared.customTools);
    if (route.generate === true) hint(ir, 'ollama', '$generate', true);
    if (wantsStream) return streamAnswer(route.format, lossCount(), syntheticStream(responseToEvents(ir), route.format, options));
    const out = codecFor(route.format).encodeResponse(ir, context);
    return jsonAnswer(200, JSON.stringify(out), lossHeader());
  } catch (error) {
    const fault = upstreamAnswerFault(upstream, route.format, error);
    return errorAnswer(route.format, { ...fault, message: options.redact(fault.message) });
  }
}

/**
 * The model a counting body names, read by its format's own counting codec
 * (Gemini's wrapper names it, or the request it holds does); none for a
 * body that codec cannot read, whose conversion then says why.
 */
function countedModel(counting: TokenCountCodec | undefined, body: JsonObject): string | undefined {
  let counted: CountedRequest | undefined;
  try {
    counted = counting?.requestOf(body);
  } catch {
    return undefined;
  }
  const request = counted?.request;
  return counted?.model ?? (isObject(request) && typeof request['model'] === 'string' ? request['model'] : undefined);
}

/**
 * Forward a token-counting request (`route.count`): the counting body is
 * converted to the upstream's counting endpoint at `url`, and its count back
 * to the caller's answer shape. An upstream format without such an endpoint
 * (`url` undefined) gets no call: the caller hears so, in its own format,
 * rather than an estimate.
 */
export async function forwardCount(options: ForwardOptions, url: (model: string | undefined) => string | undefined): Promise<Answer> {
  const { route, upstream } = options;
  const body = parseBody(options.text);
  if (!isObject(body)) return errorAnswer(route.format, { type: 'invalid_request', message: 'the request body must be a JSON object' });
  const model = route.model ?? countedModel(codecFor(route.format).tokenCount, body);
  const mapped = options.mapModel(model) ?? model;
  if (model !== undefined) options.entry.model = model;
  if (mapped !== undefined) options.entry.upstreamModel = mapped;
  const target = url(mapped);
  if (target === undefined || codecFor(upstream).tokenCount === undefined) {
    return errorAnswer(route.format, {
      type: 'not_found',
      status: 404,
      message: `the upstream speaks ${upstream}, which has no token-counting endpoint; this proxy does not estimate counts`,
    });
  }
  let converted: ReturnType<typeof convertTokenCountRequest>;
  try {
    converted = convertTokenCountRequest(body, { from: codecFor(route.format), to: codecFor(upstream), ...(mapped === undefined ? {} : { model: mapped }) });
  } catch (error) {
    if (!isInterlinguaError(error)) throw error;
    return errorAnswer(route.format, { type: 'invalid_request', message: options.redact(error.message) });
  }
  const out = converted.body as JsonObject;
  // Gemini's wrapper names the model passed as the option; a body's own `model` is still the caller's.
  if (mapped !== undefined && typeof out['model'] === 'string') out['model'] = mapped;
  const text = JSON.stringify(out);
  let response: UpstreamReply;
  try {
    const init: UpstreamInit = { headers: options.headers, body: text, timeoutMs: options.timeoutMs, signal: options.signal, stream: false };
    const sign = options.sign;
    response = await (sign === undefined ? options.call(target, init) : sign(target, options.headers, text).then((headers) => options.call(target, { ...init, headers })));
  } catch (error) {
    const apiError = callFailure(error, options);
    const message = options.redact(apiError.message);
    noteUpstreamFailure(options.entry, message);
    return errorAnswer(route.format, { ...apiError, message });
  }
  noteUpstreamReply(options.entry, response.status, response.header);
  if (response.status < 200 || response.status > 299) return translateError(response, options);
  let answer: string;
  try {
    answer = await readText(response, options);
  } catch (error) {
    return errorAnswer(route.format, bodyFailure(error, options));
  }
  let count: ReturnType<typeof convertTokenCountResponse>;
  try {
    count = convertTokenCountResponse(answer, { from: codecFor(upstream), to: codecFor(route.format) });
  } catch (error) {
    const message = `the upstream (${upstream}) answered the count with a body that is not a ${upstream} count (${describe(error)})`;
    return errorAnswer(route.format, { type: 'server', status: 502, message: options.redact(message) });
  }
  noteLosses(options.entry, converted.losses);
  noteLosses(options.entry, count.losses);
  return jsonAnswer(200, JSON.stringify(count.body), { 'x-interlingua-losses': String(converted.losses.length + count.losses.length) });
}
