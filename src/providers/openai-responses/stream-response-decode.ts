/**
 * The response-level half of the OpenAI Responses stream decoder: the
 * `response` object of `response.created` becomes the start event, the one
 * of the terminal `response.completed` / `.incomplete` / `.failed` event
 * usage, finish (and, for a failed response, an error) and end, and an
 * `error` event an error. Fields of the terminal response that differ from
 * the start's, and output items that differ from the streamed ones, travel
 * as hints on the end event. stream-decode.ts dispatches the events;
 * stream-items-decode.ts decodes the output items.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { ApiError, Response } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { StartEvent, StreamEvent } from '../../core/stream-events.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiResponsesError } from './error.ts';
import { decodeOpenaiResponsesResponse } from './response.ts';
import type { OpenaiResponsesStreamWriter } from './stream-encode.ts';
import { fresh } from './stream-items-decode.ts';
import { FAILED, FLAT_ERROR, jsonEqual, NO_CREATED, NO_IN_PROGRESS, OUTPUT, REMOVED, responseFields, scratch, setStreamHint, TERMINAL } from './stream-event.ts';

/** Decode a whole response leniently: a response without `output` decodes as one with none. */
function decodeWhole(value: unknown, losses: LossCollector): Response {
  const response = isObject(value) ? value : {};
  const body = Array.isArray(response['output']) ? response : { ...response, output: [] };
  return decodeOpenaiResponsesResponse(body, { losses });
}

/** The response-level events of one stream, and what the end compares with the start. */
export class ResponseLevelDecoder {
  private startFields: JsonObject = {};
  private startIds: { id?: string | undefined; model?: string | undefined; created?: number | undefined } = {};
  /** An error event was sent: the terminal event then makes no usage, finish or error of its own. */
  errorSent = false;

  /** `shadow`: the stream decoder's writer, whose written output the terminal response is compared with. */
  constructor(
    private readonly losses: LossCollector,
    private readonly shadow: OpenaiResponsesStreamWriter,
  ) {}

  /** The start of the stream, from the `response.created` event `created` (`noInProgress`: no `response.in_progress` followed it). */
  start(created: JsonObject | undefined, noInProgress: boolean): StartEvent {
    const response = decodeWhole(created?.['response'], this.losses);
    const start: StartEvent = { type: 'start' };
    if (response.id !== undefined) start.id = response.id;
    if (response.model !== undefined) start.model = response.model;
    if (response.created !== undefined) start.created = response.created;
    if (response.usage !== undefined) start.usage = response.usage;
    this.startFields = responseFields(response);
    this.startIds = { id: response.id, model: response.model, created: response.created };
    start.extensions = fresh(this.startFields);
    if (noInProgress) setStreamHint(start, NO_IN_PROGRESS, true);
    return start;
  }

  /** The start of a stream whose first event is not `response.created`. */
  implicitStart(): StartEvent {
    const start: StartEvent = { type: 'start', extensions: fresh({}) };
    setStreamHint(start, NO_CREATED, true);
    this.startFields = {};
    this.startIds = {};
    return start;
  }

  /** An `error` event (its error nested, or flat as some servers write it). */
  error(data: JsonObject): StreamEvent[] {
    const nested = data['error'];
    const context = { losses: scratch() };
    let error: ApiError;
    let flat = false;
    if (isObject(nested)) {
      error = decodeOpenaiResponsesError({ error: nested }, context);
    } else {
      const inner: JsonObject = {};
      for (const key of ['code', 'message', 'param']) if (data[key] !== undefined) inner[key] = data[key];
      error = decodeOpenaiResponsesError({ error: inner }, context);
      flat = true;
    }
    this.errorSent = true;
    const event: StreamEvent = { type: 'error', error };
    if (flat) setStreamHint(event, FLAT_ERROR, true);
    return [event];
  }

  /** The terminal `response.completed`, `.incomplete` or `.failed` event: usage, finish (and an error) and end. */
  terminal(data: JsonObject, type: string): StreamEvent[] {
    const wire = isObject(data['response']) ? data['response'] : {};
    const response = decodeWhole(wire, scratch());
    const out: StreamEvent[] = [];
    const end: StreamEvent = { type: 'end', extensions: fresh(this.changedFields(response)) };
    this.overrideOutput(end, wire['output']);
    if (!this.errorSent) {
      if (response.usage !== undefined) out.push({ type: 'usage', usage: response.usage });
      let stopReason = response.candidates[0]?.stopReason;
      // A terminal response without a status had its stop reason read from its own output, which may be absent: the streamed items decide.
      if (stopReason !== undefined && stopReason.raw === undefined && stopReason.unified === 'end_turn' && this.streamedToolCall()) {
        stopReason = { ...stopReason, unified: 'tool_calls' };
      }
      if (stopReason !== undefined) out.push({ type: 'finish', candidate: 0, stopReason });
      if (type === 'response.failed') out.push(this.failure(wire));
    }
    out.push(end);
    return out;
  }

  /** Whether a function or custom tool call item was streamed. */
  private streamedToolCall(): boolean {
    return this.shadow.writtenOutput().some((item) => item['type'] === 'function_call' || item['type'] === 'custom_tool_call');
  }

  /** The response-level fields of the terminal response that differ from the start's. */
  private changedFields(response: Response): JsonObject {
    const fields = responseFields(response);
    const changed: JsonObject = {};
    for (const key in fields) if (!jsonEqual(fields[key], this.startFields[key])) changed[key] = fields[key];
    const removed = Object.keys(this.startFields).filter((key) => !(key in fields));
    if (removed.length > 0) changed[REMOVED] = removed;
    const terminal: JsonObject = {};
    if (response.id !== undefined && response.id !== this.startIds.id) terminal['id'] = response.id;
    if (response.model !== undefined && response.model !== this.startIds.model) terminal['model'] = response.model;
    if (response.created !== undefined && response.created !== this.startIds.created) terminal['created'] = response.created;
    if (Object.keys(terminal).length > 0) changed[TERMINAL] = terminal;
    return changed;
  }

  /** Output items of the terminal response that differ from the streamed ones travel whole (`$output`). */
  private overrideOutput(end: StreamEvent, output: unknown): void {
    if (!Array.isArray(output)) return;
    const predicted = this.shadow.writtenOutput();
    if (predicted.length !== output.length) return;
    const overrides: JsonObject = {};
    output.forEach((item, index) => {
      if (!jsonEqual(item, predicted[index])) overrides[String(index)] = item;
    });
    if (Object.keys(overrides).length > 0) setStreamHint(end, OUTPUT, overrides);
  }

  private failure(response: JsonObject): StreamEvent {
    const wire = response['error'];
    const error: ApiError = isObject(wire)
      ? decodeOpenaiResponsesError({ error: wire }, { losses: scratch() })
      : { type: 'server', message: 'the response failed' };
    this.errorSent = true;
    const event: StreamEvent = { type: 'error', error };
    setStreamHint(event, FAILED, true);
    return event;
  }
}
