/**
 * An {@link Exchange} → an {@link Outcome}: parse both bodies, find the
 * format, decode into the IR (reassembling streams), convert to the target
 * format when asked, and collect the losses of every step. Anything thrown
 * becomes an error record with its reason; nothing here does I/O.
 */
import { decodeError, decodeRequest, decodeResponse, encodeError, encodeResponse } from '../formats/convert.ts';
import { convertBetween } from '../core/engine.ts';
import { codecFor } from '../formats/registry.ts';
import { detectFormat, formatFromPath } from '../core/detect.ts';
import { InterlinguaError } from '../core/errors.ts';
import { LossCollector, type Loss } from '../core/losses.ts';
import type { ApiError, FormatId, Request, Response } from '../core/ir.ts';
import type { WireEvent } from '../core/stream-events.ts';
import { isObject } from '../core/wire.ts';
import { accumulateStream, parseRecordedBody, type ParsedBody } from './body.ts';
import { endpointOf, exchangeFormat, isNonGenerationEndpoint, modelFromPath } from './exchange-format.ts';
import { decodedOutcome } from './decoded-record.ts';
import { reasonOf } from './failure.ts';
import type { ErrorRecord, Exchange, ExchangeIr, RecordedBody, LossSide, NormalizedRecord, Outcome, RecordLoss, RecordSource, Target } from './types.ts';

/** Who the outcome is for: its stable id and where it came from. */
export interface ItemIdentity {
  id: string;
  source: RecordSource;
}

function sided(losses: readonly Loss[], side: LossSide, into: RecordLoss[]): void {
  for (const loss of losses) into.push({ ...loss, side });
}

function modelOptions(model: string | undefined): { model?: string } {
  return model === undefined ? {} : { model };
}

function stringField(body: ParsedBody | undefined, key: string): string | undefined {
  if (body?.kind !== 'json' || !isObject(body.value)) return undefined;
  const value = body.value[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The request side: decode, and encode into the target when it is a format; `ir` is the decoded request either way. */
function convertRequestSide(format: FormatId, body: ParsedBody, to: Target, model: string | undefined, losses: RecordLoss[]): { out: unknown; ir: Request } {
  if (body.kind !== 'json') throw new InterlinguaError('invalid_value', 'the request body is an event stream; a request must be one JSON body');
  if (to === 'ir') {
    const decoded = decodeRequest(format, body.value, modelOptions(model));
    sided(decoded.losses, 'request', losses);
    return { out: decoded.ir, ir: decoded.ir };
  }
  // One conversion, so the losses of encoding point into the recorded body (with the IR pointer as `irPath`).
  const keep: { ir?: object } = {};
  const converted = convertBetween('request', body.value, codecFor(format), codecFor(to), modelOptions(model), keep);
  sided(converted.losses, 'request', losses);
  return { out: converted.body, ir: keep.ir as Request };
}

/** A whole response from a recorded stream's wire events. */
function streamResponse(format: FormatId, events: readonly WireEvent[], model: string | undefined, losses: RecordLoss[]): Response {
  const collector = new LossCollector();
  const response = accumulateStream(format, events, { losses: collector, ...modelOptions(model) });
  sided(collector.losses, 'response', losses);
  return response;
}

/** An error body by its shape, or any body of an error status that is not a response. */
function isErrorBody(value: unknown, status: number | undefined): boolean {
  const detection = detectFormat(value);
  return detection?.kind === 'error' || (status !== undefined && status >= 400 && detection === undefined);
}

/** What the response side adds to a record; `model` is the model the response names; `ir` and `errorIr` are the decoded sides. */
interface ResponseSide {
  response?: unknown;
  error?: unknown;
  stream?: true;
  model?: string;
  ir?: Response;
  errorIr?: ApiError;
}

function responseInTarget(response: Response, to: Target, model: string | undefined, losses: RecordLoss[]): ResponseSide {
  const named = response.model === undefined ? {} : { model: response.model };
  if (to === 'ir') return { response, ...named, ir: response };
  const encoded = encodeResponse(to, response, modelOptions(model));
  sided(encoded.losses, 'response', losses);
  return { response: encoded.body, ...named, ir: response };
}

/** The response side: `{ response }` or `{ error }` in the target form, and whether it was a stream. */
function convertResponseSide(
  format: FormatId,
  body: ParsedBody,
  exchange: Exchange,
  to: Target,
  model: string | undefined,
  losses: RecordLoss[],
): ResponseSide {
  const streamed = (events: readonly WireEvent[]): ResponseSide => ({ ...responseInTarget(streamResponse(format, events, model, losses), to, model, losses), stream: true });
  if (body.kind === 'events') return streamed(body.events);
  // A Gemini `streamGenerateContent` answer without `alt=sse` is a JSON array of chunks.
  if (format === 'gemini' && Array.isArray(body.value)) return streamed(body.value.map((data: unknown) => ({ data })));
  if (isErrorBody(body.value, exchange.status)) {
    const decoded = decodeError(format, body.value, modelOptions(model));
    if (exchange.status !== undefined && decoded.ir.status === undefined) decoded.ir.status = exchange.status;
    sided(decoded.losses, 'error', losses);
    if (to === 'ir') return { error: decoded.ir, errorIr: decoded.ir };
    const encoded = encodeError(to, decoded.ir, modelOptions(model));
    sided(encoded.losses, 'error', losses);
    return { error: encoded.body, errorIr: decoded.ir };
  }
  if (to !== 'ir') {
    // One conversion, so the losses of encoding point into the recorded body; a model the response names is kept for the record.
    const keep: { ir?: object } = {};
    const converted = convertBetween('response', body.value, codecFor(format), codecFor(to), modelOptions(model), keep);
    sided(converted.losses, 'response', losses);
    const ir = keep.ir as Response;
    return ir.model === undefined ? { response: converted.body, ir } : { response: converted.body, model: ir.model, ir };
  }
  const decoded = decodeResponse(format, body.value, modelOptions(model));
  sided(decoded.losses, 'response', losses);
  return responseInTarget(decoded.ir, to, model, losses);
}

function errorOutcome(identity: ItemIdentity, error: unknown, exchange: Exchange | undefined, format: FormatId | undefined): Outcome {
  const record: ErrorRecord = { id: identity.id, source: identity.source, reason: reasonOf(error) };
  if (format !== undefined) record.format = format;
  if (exchange?.status !== undefined) record.status = exchange.status;
  return { kind: 'error', error: record };
}

function parseSide(body: RecordedBody | undefined, side: 'request' | 'response', lenient: boolean): ParsedBody | undefined {
  if (body === undefined) return undefined;
  if (!lenient) return parseRecordedBody(body, side);
  try {
    return parseRecordedBody(body, side);
  } catch {
    return undefined;
  }
}

/** Build the record of one exchange, or the error that says why it cannot be one. */
export function buildOutcome(exchange: Exchange, identity: ItemIdentity, to: Target): Outcome {
  // A reader that decoded the exchange itself (an OTLP span) hands over IR.
  if (exchange.decoded !== undefined) return decodedOutcome(exchange, exchange.decoded, identity, to);
  let format: FormatId | undefined;
  try {
    if (exchange.request === undefined && exchange.response === undefined) {
      if (exchange.optional === true) return { kind: 'skipped', reason: 'no body' };
      throw new InterlinguaError('missing_field', 'the exchange has neither a request body nor a response body');
    }
    const endpoint = exchange.url === undefined ? undefined : endpointOf(exchange.url);
    // An optional exchange (a HAR entry) at an unknown URL may be any web traffic: bodies that are not JSON make it not an LLM call.
    const lenient = exchange.optional === true && exchange.format === undefined && (endpoint === undefined || formatFromPath(endpoint) === undefined);
    const request = parseSide(exchange.request, 'request', lenient);
    const response = parseSide(exchange.response, 'response', lenient);
    const found = exchangeFormat(exchange.format, endpoint, request, response);
    if (found === undefined) {
      if (exchange.optional === true) return { kind: 'skipped', reason: 'not an LLM API call' };
      if (endpoint !== undefined && isNonGenerationEndpoint(endpoint)) {
        throw new InterlinguaError('detect_failed', `${endpoint} is not a generation endpoint of anthropic, openai-chat, openai-responses, gemini or ollama`);
      }
      throw new InterlinguaError('detect_failed', 'neither the URL nor the bodies match anthropic, openai-chat, openai-responses, gemini or ollama');
    }
    format = found.format;
    // An LLM call after all: a body that did not parse is now an error, not a reason to skip.
    const requestBody = lenient ? parseSide(exchange.request, 'request', false) : request;
    const responseBody = lenient ? parseSide(exchange.response, 'response', false) : response;
    const model = stringField(requestBody, 'model') ?? (endpoint === undefined ? undefined : modelFromPath(endpoint));
    const losses: RecordLoss[] = [];
    const requestSide = requestBody === undefined ? undefined : convertRequestSide(format, requestBody, to, model, losses);
    const requestOut = requestSide?.out;
    const { model: answeredModel, ir: responseIr, errorIr, ...responseOut } = responseBody === undefined ? {} : convertResponseSide(format, responseBody, exchange, to, model, losses);
    const recordModel = model ?? answeredModel;
    const record: NormalizedRecord = {
      id: identity.id,
      source: identity.source,
      format,
      formatEvidence: found.evidence,
      ...(recordModel === undefined ? {} : { model: recordModel }),
      to,
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(requestOut === undefined ? {} : { request: requestOut }),
      ...responseOut,
      losses,
      ...(exchange.status === undefined ? {} : { status: exchange.status }),
      ...(exchange.timing === undefined ? {} : { timing: exchange.timing }),
    };
    const ir: ExchangeIr = {};
    if (requestSide !== undefined) ir.request = requestSide.ir;
    if (responseIr !== undefined) ir.response = responseIr;
    if (errorIr !== undefined) ir.error = errorIr;
    return { kind: 'record', record, ir, ...(model === undefined ? {} : { requested: model }) };
  } catch (error) {
    return errorOutcome(identity, error, exchange, format);
  }
}
