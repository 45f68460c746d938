/**
 * One proxied exchange: convert the caller's body to the upstream format,
 * call the upstream, and convert its answer (whole, streamed, or an error)
 * back into the caller's format.
 */
import { codecFor } from '../formats/registry.ts';
import { parseBody } from '../formats/convert.ts';
import { createTranscoder, framingFor, transcodedStream, type Transcoder } from '../formats/stream.ts';
import { responseToEvents } from '../core/accumulate.ts';
import type { FormatId, Request } from '../core/ir.ts';
import { hint, isObject, type JsonObject } from '../core/wire.ts';
import { bodyText, joinedText, markPieces, piecesMark } from '../core/serialize.ts';
import { errorAnswer } from './errors.ts';
import { jsonAnswer, type Answer, type UpstreamInit, type UpstreamReply } from './exchange.ts';
import { carryResponseStates, createEventCarrier, restoreRequestStates } from '../core/carried-state.ts';
import { CustomCallRestorer, customToolNames, restoreCustomCalls } from '../core/custom-tools.ts';
import type { CodecContext } from '../core/codec.ts';
import { modelInPath } from './routes.ts';
import type { ForwardOptions } from './forward-options.ts';
import { brokenBody, failedCall, guarded, isRedirect, readText, redirectAnswer, translateError, upstreamAnswerFault } from './upstream-reply.ts';
import { generateShape, streamAnswer, syntheticStream, transcodedSource } from './forward-stream.ts';
import { noteResponse, noteStreamEvent, noteUpstreamReply } from '../telemetry/record.ts';
import { LossCollector } from '../core/losses.ts';
import { ByteRedactor, redactedEvent, redactedSource, redactedStream } from './redact-stream.ts';
import { candidateParts, type ReasoningSession } from '../state/reasoning-keeper.ts';
import { reasoningOrigin, streamKeeper } from './reasoning-hooks.ts';

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
  /** Whether the caller's stream reports usage where its format does so only when asked (Chat `stream_options.include_usage`). */
  streamUsage: boolean;
  /** The caller's request as it came, whose settings its answer echoes (`CodecContext.request`). */
  request?: JsonObject;
}

/** Whether a caller's request asks for a stream's usage: always, but for a Chat caller, only with `stream_options.include_usage`. */
function callerStreamUsage(format: FormatId, body: JsonObject): boolean {
  if (format !== 'openai-chat') return true;
  const options = body['stream_options'];
  return isObject(options) && options['include_usage'] === true;
}

/** The formats whose tools include custom (free-text) ones. */
function takesCustomTools(format: FormatId): boolean {
  return format === 'openai-chat' || format === 'openai-responses';
}

/** The caller's request as the IR, with the reasoning state this proxy wrapped into the caller's own slot last turn put back as it was. */
function decodeCaller(options: ForwardOptions, body: JsonObject): Request {
  const { route, upstream } = options;
  // The decoder knows the IR goes to the upstream's format, so it skips what only a trip back to its own needs.
  const context: CodecContext = route.model === undefined ? { losses: options.losses, target: upstream } : { losses: options.losses, model: route.model, target: upstream };
  const decoded = codecFor(route.format).decodeRequest(body, context);
  // Named by the call ids as the caller sent them, before the state they carry is unwrapped from them.
  if (options.toolNames !== undefined) nameToolResults(decoded, options.toolNames);
  return restoreRequestStates(decoded);
}

/** The request for the upstream: `decoded` (the caller's, already decoded) or `body` decoded here, encoded for the upstream. */
function prepare(options: ForwardOptions, body: JsonObject, decoded?: Request): Prepared {
  const { route, upstream } = options;
  const wantsStream = route.streamByPath ?? (body['stream'] === true || (route.streamByDefault === true && body['stream'] === undefined));
  options.entry.stream = wantsStream;
  if (route.format === upstream) {
    const model = route.model ?? (typeof body['model'] === 'string' ? body['model'] : undefined);
    const mapped = options.mapModel(model);
    if (model !== undefined) options.entry.model = model;
    if (mapped !== undefined) options.entry.upstreamModel = mapped;
    if (!modelInPath(upstream) && mapped !== model && mapped !== undefined) body['model'] = mapped;
    return { body, model: mapped, stream: wantsStream, streamUsage: callerStreamUsage(route.format, body) };
  }
  const ir = decoded ?? decodeCaller(options, body);
  if (ir.model !== undefined) options.entry.model = ir.model;
  const mapped = options.mapModel(ir.model);
  if (mapped !== undefined) {
    ir.model = mapped;
    options.entry.upstreamModel = mapped;
  }
  options.adjust?.(ir);
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
  if (options.maxTokensDefault !== undefined) encodeContext.maxTokensDefault = options.maxTokensDefault;
  const mark = piecesMark();
  const encoded = codecFor(upstream).encodeRequest(ir, encodeContext);
  const out = isObject(encoded) ? markPieces(encoded, mark) : {};
  const prepared: Prepared = { body: out, model: mapped, stream: upstreamStreams, streamUsage: callerStreamUsage(route.format, body), request: body };
  const customTools = takesCustomTools(upstream) ? undefined : customToolNames(ir);
  if (customTools !== undefined) prepared.customTools = customTools;
  return prepared;
}

/** {@link prepare}, with the reasoning state kept for the caller's assistant turns put back before the request is encoded. */
async function restoredPrepare(options: ForwardOptions, body: JsonObject, reasoning: ReasoningSession): Promise<Prepared> {
  const ir = decodeCaller(options, body);
  await reasoning.restore(ir, reasoningOrigin(options, options.mapModel(ir.model)), options.losses);
  return prepare(options, body, ir);
}

/** Gives the request's nameless tool results the names a layer above found for their calls. */
function nameToolResults(request: Request, names: ReadonlyMap<string, string>): void {
  for (const message of request.messages) {
    for (const part of message.parts) {
      if (part.type !== 'tool_result' || part.name !== undefined) continue;
      const name = names.get(part.callId);
      if (name !== undefined) part.name = name;
    }
  }
}

/**
 * The 400 a strict proxy answers for a request whose conversion reports
 * losses (warnings and errors; `info` ones are notes, not losses of meaning).
 */
function strictRefusal(options: ForwardOptions): Answer | undefined {
  const serious = options.losses.losses.filter((loss) => loss.severity !== 'info');
  if (serious.length === 0) return undefined;
  const listed = serious.map((loss) => `${loss.code} at ${loss.path === '' ? '/' : loss.path}: ${loss.message}`).join('; ');
  const message = `strict mode: converting this request to ${options.upstream} would lose ${serious.length === 1 ? 'this' : `these ${serious.length}`}: ${listed}`;
  return errorAnswer(options.route.format, { type: 'invalid_request', status: 400, code: 'interlingua_strict', message: options.redact(message) });
}

/** Call the upstream with a time limit for its first byte and the caller's cancellation; rejects with what {@link callFailure} answers. */
function callUpstream(options: ForwardOptions, prepared: Prepared, url: string, sent?: () => void): Promise<UpstreamReply> {
  try {
    const text = bodyText(prepared.body);
    const body = joinedText(text);
    const init: UpstreamInit = { headers: options.headers, body, timeoutMs: options.timeoutMs, signal: options.signal, stream: prepared.stream, maxAnswerBytes: options.maxAnswerBytes, stalledReaderMs: options.stalledReaderMs };
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
  const carry = createEventCarrier(route.format);
  const keep = streamKeeper(options, prepared.model);
  const transcoder = createTranscoder({
    from: options.upstream,
    to: route.format,
    ...(prepared.model === undefined ? {} : { model: prepared.model }),
    streamUsage: prepared.streamUsage,
    ...(prepared.request === undefined ? {} : { request: prepared.request }),
    // Each event is seen on its way for the log (usage, stop reasons, an error event).
    mapEvent:
      custom === undefined
        ? (event) => {
            noteStreamEvent(entry, event);
            keep?.(event);
            return generateShape(carry(redactedEvent(event, options.redact)), route);
          }
        : (event) => {
            noteStreamEvent(entry, event);
            keep?.(event);
            return generateShape(carry(custom.map(redactedEvent(event, options.redact))), route);
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
  const prepared = options.reasoning === undefined || route.format === upstream ? prepare(options, body) : await restoredPrepare(options, body, options.reasoning);
  if (options.strict) {
    const refusal = strictRefusal(options);
    if (refusal !== undefined) return refusal;
  }
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
  // A model the upstream URL cannot carry (a Bedrock id of "..") is the caller's error: thrown here, answered 400.
  const call = callUpstream(options, prepared, options.url(prepared.model, prepared.stream), sent);
  try {
    response = await call;
  } catch (error) {
    return failedCall(error, options);
  }
  noteUpstreamReply(options.entry, response.status, response.header);
  if (response.status < 200 || response.status > 299) return isRedirect(response) ? redirectAnswer(response, options) : translateError(response, options);
  const lossCount = () => String(options.losses.losses.length);
  const lossHeader = () => ({ 'x-interlingua-losses': lossCount() });
  const upstreamStreamed = response.text === undefined && mediaType(response.header('content-type') ?? '') === mediaType(framingFor(upstream).contentType);
  if (upstreamStreamed && response.source !== undefined) {
    // The Node upstream call: its data events go through a synchronous transcoder to the caller, no Web stream on the way.
    if (route.format === upstream) {
      options.passedThrough = true;
      // The upstream's bytes as they came, but for the secrets (an error event may quote the key).
      const redactor = new ByteRedactor(options.secrets);
      return streamAnswer(route.format, lossCount(), redactor.active ? redactedSource(response.source, redactor) : response.source);
    }
    return streamAnswer(route.format, lossCount(), transcodedSource(response.source, transcoder ?? streamTranscoder(options, prepared)));
  }
  if (upstreamStreamed && response.body !== null) {
    if (route.format === upstream) {
      options.passedThrough = true;
      const redactor = new ByteRedactor(options.secrets);
      const body = guarded(response.body, options, 'error');
      return streamAnswer(route.format, lossCount(), redactor.active ? redactedStream(body, redactor) : body);
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
      return brokenBody(error, options);
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
    const decoded = codecFor(upstream).decodeResponse(json, { ...context, target: route.format });
    // What the caller cannot carry back is kept as the upstream answered it, before anything is carried.
    const kept = options.reasoning?.watches(upstream) === true ? candidateParts(decoded) : undefined;
    const ir = carryResponseStates(decoded, route.format);
    if (kept !== undefined) await options.reasoning?.keep(kept, reasoningOrigin(options, prepared.model), options.losses);
    noteResponse(options.entry, ir);
    if (prepared.customTools !== undefined) restoreCustomCalls(ir, prepared.customTools);
    if (route.generate === true) hint(ir, 'ollama', '$generate', true);
    if (wantsStream) return streamAnswer(route.format, lossCount(), syntheticStream(responseToEvents(ir), route.format, options, prepared));
    const out = codecFor(route.format).encodeResponse(ir, prepared.request === undefined ? context : { ...context, request: prepared.request });
    return jsonAnswer(200, JSON.stringify(out), lossHeader());
  } catch (error) {
    const fault = upstreamAnswerFault(upstream, route.format, error);
    return errorAnswer(route.format, { ...fault, message: options.redact(fault.message) });
  }
}
