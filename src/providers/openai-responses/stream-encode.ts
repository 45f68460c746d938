/**
 * IR stream events → OpenAI Responses SSE. Accepts the events of any
 * format's decoder and writes what the API writes: `response.created` and
 * `response.in_progress`, each output item opened with
 * `response.output_item.added` and closed with `response.output_item.done`
 * (message items with `content_part.added/done` around their text deltas,
 * reasoning items with summary parts, function calls with argument deltas),
 * and a terminal `response.completed` / `response.incomplete` /
 * `response.failed` whose response is the whole response, built from the
 * streamed parts with the non-streaming encoder. Sequence numbers count from
 * 0. Events of the decoder's own hints (`$before`, `$wire`) are written
 * verbatim; see stream-event.ts.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { CodecContext } from '../../core/codec.ts';
import { randomAnswerIds, type AnswerIds } from '../../core/answer-ids.ts';
import type { ApiError, Part, Response, StopReason, Usage } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { DATA_PIECES, type EncodedOnce, type ReasoningDeltaEvent, type SseMessage, type StartEvent, type StreamEncoder, type StreamEvent, type TextDeltaEvent, type ToolCallDeltaEvent } from '../../core/stream-events.ts';
import { isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiResponsesError } from './error.ts';
import { encodeOpenaiResponsesResponse } from './response.ts';
import { encodeOpenaiResponsesStopReason } from './stop-reason.ts';
import { reportOpenaiResponsesUsage } from './usage.ts';
import { FORMAT, ownHint } from './shape.ts';
import type { KnownDelta, TextCheck } from './stream-deltas-encode.ts';
import { OutputWriter } from './stream-items-encode.ts';
import {
  BEFORE, FAILED, FLAT_ERROR, NO_CREATED, NO_IN_PROGRESS, NO_LOGPROBS, OBFUSCATION, OUTPUT, QUIET, REMOVED, responseFields, scratch, streamHint, TERMINAL, TRUNCATED,
  WIRE,
} from './stream-event.ts';

/** Strings this long or longer are serialised once per stream (see `OpenaiResponsesStreamWriter.serialised`). */
const LONG_STRING = 1024;
/** A text no wire value holds in practice, whose JSON marks where a long string goes; a value that is the mark only costs a plain serialisation. */
const LONG_MARK = '\u0000interlingua-long\u0000';
const LONG_MARK_JSON = JSON.stringify(LONG_MARK);
/** The events that repeat a part's whole text. */
const WHOLE_TEXT_EVENTS = new Set([
  'response.output_text.done',
  'response.refusal.done',
  'response.content_part.done',
  'response.reasoning_text.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_summary_part.done',
  'response.function_call_arguments.done',
  'response.custom_tool_call_input.done',
  'response.output_item.done',
  'response.completed',
  'response.incomplete',
  'response.failed',
]);

/** What `response.created` said, kept for the terminal response. */
interface StartInfo {
  id?: string;
  model?: string;
  created?: number;
  usage?: Usage;
  fields: JsonObject;
  foreign: boolean;
}

/**
 * The Responses stream writer. `expand` turns one IR event into the wire
 * events it stands for (without sequence numbers) and updates the state;
 * `encode` adds the verbatim events of the hints and numbers everything.
 * The decoder runs one of these beside itself to know what the encoder
 * would write.
 */
export class OpenaiResponsesStreamWriter {
  /** The next sequence number. */
  seq = 0;
  private started = false;
  private ended = false;
  private start: StartInfo = { fields: {}, foreign: true };
  private output: OutputWriter;
  private usage: Usage | undefined;
  private stopReason: StopReason | undefined;
  private error: ApiError | undefined;
  private truncated = false;
  private readonly dropped = new Set<number>();
  /** `{"type":"…"` per event type, the head of {@link numbered}'s output. */
  private readonly heads = new Map<string, string>();
  /** The last long strings written and their JSON texts (see {@link serialised}). */
  private readonly longStrings: string[] = [];
  private readonly longTexts: EncodedOnce[] = [];

  constructor(
    private readonly losses: LossCollector,
    private readonly model?: string,
    private readonly ids?: AnswerIds,
    /** The request the stream answers, whose settings each response object echoes. */
    private readonly request?: unknown,
  ) {
    this.output = new OutputWriter(losses);
  }

  /** IR event → SSE messages, hints applied. */
  encode(event: StreamEvent): SseMessage[] {
    if (this.direct(event)) {
      const fast = this.output.fastDelta(event, this.seq);
      if (fast !== undefined) {
        this.seq++;
        return [fast];
      }
    }
    const canonical = this.expand(event);
    const raw = streamHint(event, WIRE);
    if (Array.isArray(raw)) return raw.map((value) => this.verbatim(value));
    if (streamHint(event, QUIET) === true) return [];
    const out: SseMessage[] = [];
    const before = streamHint(event, BEFORE);
    if (Array.isArray(before)) for (const value of before) out.push(this.verbatim(value));
    for (const data of canonical) out.push(this.numbered(data));
    return out;
  }

  /**
   * For the decoder's comparison: when `event` takes `encode`'s direct path,
   * apply it and say whether `wire` is what that path writes (numbered
   * `seq`, which the caller advances); `undefined` for the general path.
   */
  matchDirect(event: StreamEvent, wire: JsonObject): boolean | undefined {
    return this.direct(event) ? this.output.matchDelta(event, wire, this.seq) : undefined;
  }

  /**
   * For the decoder's text path (see `DeltaWriter.matchKnown`): whether a
   * wire event with the fields `known` and the delta of `event` is what
   * this writer writes for `event` (the caller has checked its sequence
   * number and, through the template the text matched, the rest of its
   * text); the delta is applied only when it is. `event` is a delta of
   * candidate 0 whose only hints are those of the text itself (its
   * `obfuscation`, an absent `logprobs`), which the wire text carries.
   */
  matchKnown(event: StreamEvent, known: KnownDelta): boolean {
    return this.textual(event) && this.output.matchKnown(event, known);
  }

  /** A delta of candidate 0, once the response has started, with no Responses hint but those a usual delta's text says itself. */
  private textual(event: StreamEvent): event is TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent {
    if (!this.started || (event.type !== 'text_delta' && event.type !== 'reasoning_delta' && event.type !== 'tool_call_delta') || event.candidate !== 0) return false;
    const hints = event.extensions?.[FORMAT];
    if (hints !== undefined) for (const key in hints) if (key !== OBFUSCATION && key !== NO_LOGPROBS) return false;
    return true;
  }

  /**
   * `StreamEncoder.encodeText`: a usual delta that the decoder read by its
   * text and checked (`check`) written as that text, when this writer, in
   * its own state, would write it so (the same check the decoder's shadow
   * made); the delta is applied then, and only then.
   */
  encodeText(event: StreamEvent, data: string, check: TextCheck): SseMessage | undefined {
    const type = check.known.type;
    if (check.seq !== this.seq || typeof type !== 'string' || !this.matchKnown(event, check.known)) return undefined;
    this.seq++;
    return { event: type, data };
  }

  /** `event` may take the direct path: a delta of candidate 0 without a Responses hint, once the response has started. */
  private direct(event: StreamEvent): event is TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent {
    return event.extensions?.[FORMAT] === undefined && this.started && (event.type === 'text_delta' || event.type === 'reasoning_delta' || event.type === 'tool_call_delta') && event.candidate === 0;
  }

  private verbatim(value: unknown): SseMessage {
    if (!isObject(value)) return { data: JSON.stringify(value) };
    const seq = value['sequence_number'];
    if (typeof seq === 'number') this.seq = seq + 1;
    const type = value['type'];
    return typeof type === 'string' ? { event: type, data: JSON.stringify(value) } : { data: JSON.stringify(value) };
  }

  /**
   * The event with its sequence number after its type, as
   * `{ type, sequence_number, ...data }` would serialise, without building
   * that object: every expanded event has `type` as its first key, so the
   * number is spliced into the text after it.
   */
  private numbered(data: JsonObject): SseMessage {
    const type = data['type'] as string;
    const seq = this.seq++;
    let head = this.heads.get(type);
    if (head === undefined) {
      head = `{"type":${JSON.stringify(type)}`;
      this.heads.set(type, head);
    }
    if (!('sequence_number' in data)) {
      if (WHOLE_TEXT_EVENTS.has(type)) {
        const message = this.serialised(type, data, head, seq);
        if (message !== undefined) return message;
      } else {
        const text = withNumber(JSON.stringify(data), head, seq);
        if (text !== undefined) return { event: type, data: text };
      }
    }
    return { event: type, data: JSON.stringify({ type, sequence_number: seq, ...data }) };
  }

  /**
   * The message of an event that repeats whole texts (a part's `*.done`
   * events, its `output_item.done`, the terminal response): {@link
   * withNumber} of `JSON.stringify(data)`, where a string of {@link
   * LONG_STRING} characters or more is serialised once per stream and
   * spliced in wherever it appears again, so the text of a long answer is
   * not escaped four or five times over. The replacer sees the values in
   * the order they are written, so the n-th mark in the output is the n-th
   * long string; when the count does not agree (a value that is itself the
   * mark), the event is serialised plainly. The number goes into the text
   * before the first long string, so the joined text is not read (which
   * would copy it whole) before the writer writes it, and the message
   * carries its pieces (`DATA_PIECES`), so the writer copies each long
   * string's bytes, made once, instead of encoding it again.
   */
  private serialised(type: string, data: JsonObject, head: string, seq: number): SseMessage | undefined {
    const found: EncodedOnce[] = [];
    const text = JSON.stringify(data, (_key, value: unknown) => {
      if (typeof value !== 'string' || value.length < LONG_STRING) return value;
      found.push(this.longJson(value));
      return LONG_MARK;
    });
    if (found.length === 0) return message(type, withNumber(text, head, seq));
    const pieces = text.split(LONG_MARK_JSON);
    if (pieces.length !== found.length + 1) return message(type, withNumber(JSON.stringify(data), head, seq));
    // The head (`{"type":"…"`, a short string) is all in the first piece when the whole text starts with it.
    let out = withNumber(pieces[0]!, head, seq);
    if (out === undefined) return undefined;
    const parts: (string | EncodedOnce)[] = [out];
    for (let index = 0; index < found.length; index++) {
      out += found[index]!.text + pieces[index + 1]!;
      parts.push(found[index]!, pieces[index + 1]!);
    }
    return { event: type, data: out, [DATA_PIECES]: parts };
  }

  /**
   * The JSON text of a long string, serialised once: the strings are compared
   * with `===` (the events repeat the same string object, so that is one
   * pointer comparison; a `Map` would hash the whole text).
   */
  private longJson(value: string): EncodedOnce {
    const strings = this.longStrings;
    for (let index = strings.length - 1; index >= 0; index--) if (strings[index] === value) return this.longTexts[index]!;
    const json: EncodedOnce = { text: JSON.stringify(value) };
    if (strings.length === 8) {
      strings.shift();
      this.longTexts.shift();
    }
    strings.push(value);
    this.longTexts.push(json);
    return json;
  }

  /** The wire events (unnumbered) that one IR event stands for. */
  expand(event: StreamEvent): JsonObject[] {
    if (event.type === 'start') {
      this.losses.foreignExtensions(event.extensions, FORMAT, '');
      return this.onStart(event);
    }
    const out: JsonObject[] = [];
    if (!this.started && event.type !== 'error' && event.type !== 'end') out.push(...this.onStart({ type: 'start' }));
    if ('candidate' in event && event.candidate !== 0) {
      this.dropCandidate(event.candidate);
      return out;
    }
    switch (event.type) {
      case 'part_start':
        out.push(...this.output.partStart(event.index, event.part, event));
        break;
      case 'text_delta':
        out.push(...this.output.textDelta(event.index, event.text, event));
        break;
      case 'reasoning_delta':
        out.push(...this.output.reasoningDelta(event.index, event.text, event.summaryIndex, event));
        break;
      case 'reasoning_signature':
        this.output.signature(event.index, event.state);
        break;
      case 'tool_call_delta':
        out.push(...this.output.toolCallDelta(event.index, event.arguments, event));
        break;
      case 'part_end':
        out.push(...this.output.partEnd(event.index, event.part, event));
        break;
      case 'usage':
        this.losses.foreignExtensions(event.extensions, FORMAT, '/usage');
        this.usage = { ...this.usage, ...event.usage };
        break;
      case 'finish':
        this.losses.foreignExtensions(event.extensions, FORMAT, '/candidates/0');
        this.stopReason = event.stopReason;
        break;
      case 'error':
        out.push(...this.onError(event.error, event));
        break;
      case 'end':
        this.losses.foreignExtensions(event.extensions, FORMAT, '');
        out.push(...this.onEnd(event));
        break;
      default:
        break;
    }
    return out;
  }

  private dropCandidate(candidate: number): void {
    if (this.dropped.has(candidate)) return;
    this.dropped.add(candidate);
    this.losses.add('dropped_field', pointer('/candidates', candidate), 'OpenAI Responses streams one candidate; this candidate was dropped');
  }

  private reset(): void {
    this.seq = 0;
    this.ended = false;
    this.output = new OutputWriter(this.losses);
    this.usage = undefined;
    this.stopReason = undefined;
    this.error = undefined;
    this.truncated = false;
  }

  private onStart(event: StartEvent): JsonObject[] {
    if (this.started) this.reset();
    this.started = true;
    const fields = responseFields(event);
    const foreign = event.extensions?.[FORMAT] === undefined;
    const start: StartInfo = { fields, foreign };
    if (event.id !== undefined) start.id = event.id;
    const model = event.model ?? (foreign ? this.model : undefined);
    if (model !== undefined) start.model = model;
    if (event.created !== undefined) start.created = event.created;
    // Another format's answer without an id or time: made up once, so every event of the stream names the same response.
    if (foreign && start.id === undefined) start.id = (this.ids ?? randomAnswerIds).id('resp_');
    if (foreign && start.created === undefined) start.created = (this.ids ?? randomAnswerIds).now();
    if (event.usage !== undefined) start.usage = event.usage;
    this.start = start;
    if (event.usage !== undefined) this.usage = { ...event.usage };
    if (streamHint(event, NO_CREATED) === true) return [];
    const stop: StopReason = { unified: 'pause', raw: 'in_progress', format: FORMAT };
    const body = encodeOpenaiResponsesResponse(this.response([], stop, fields), this.request === undefined ? { losses: this.losses } : { losses: this.losses, request: this.request });
    const out: JsonObject[] = [{ type: 'response.created', response: body }];
    if (streamHint(event, NO_IN_PROGRESS) !== true) out.push({ type: 'response.in_progress', response: body });
    return out;
  }

  private response(parts: Part[], stopReason: StopReason | undefined, fields: JsonObject, terminal?: JsonObject): Response {
    const candidate: Response['candidates'][number] = { index: 0, message: { role: 'assistant', parts } };
    if (stopReason !== undefined) candidate.stopReason = stopReason;
    const response: Response = { candidates: [candidate] };
    const id = terminal?.['id'] ?? this.start.id;
    const model = terminal?.['model'] ?? this.start.model;
    const created = terminal?.['created'] ?? this.start.created;
    if (typeof id === 'string') response.id = id;
    if (typeof model === 'string') response.model = model;
    if (typeof created === 'number') response.created = created;
    if (this.usage !== undefined) response.usage = this.usage;
    if (Object.keys(fields).length > 0) response.extensions = { [FORMAT]: fields };
    return response;
  }

  // -------------------------------------------------------------------------
  // Errors and the end

  private onError(error: ApiError, event: StreamEvent): JsonObject[] {
    this.error = error;
    if (streamHint(event, FAILED) === true) return [];
    if (streamHint(event, TRUNCATED) === true) {
      this.truncated = true;
      return [];
    }
    const body = encodeOpenaiResponsesError(error, { losses: this.losses });
    const inner = isObject(body) && isObject(body['error']) ? body['error'] : { message: error.message };
    return [streamHint(event, FLAT_ERROR) === true ? { type: 'error', ...inner } : { type: 'error', error: inner }];
  }

  private onEnd(event: StreamEvent): JsonObject[] {
    if (this.ended || !this.started || this.truncated) return [];
    const out = this.output.closeMessage();
    this.ended = true;
    const fields = { ...this.start.fields, ...responseFields(event) };
    const removed = streamHint(event, REMOVED);
    if (Array.isArray(removed)) for (const key of removed) if (typeof key === 'string') delete fields[key];
    let stop = this.stopReason;
    if (this.error !== undefined && stop === undefined) {
      stop = { unified: 'error', raw: 'failed', format: FORMAT };
      if (!('error' in fields)) fields['error'] = { code: this.error.code ?? 'server_error', message: this.error.message };
    }
    // The terminal status comes from the same table as a whole response's; its losses are reported here (the body below is built quietly).
    const terminal = streamHint(event, TERMINAL);
    const parts = this.output.streamedParts();
    encodeOpenaiResponsesStopReason(stop, this.losses, '/candidates/0/stopReason', parts.some((part) => part.type === 'refusal'));
    if (this.usage !== undefined) reportOpenaiResponsesUsage(this.usage, this.losses, '/usage');
    const response = this.response(parts, stop, fields, isObject(terminal) ? terminal : undefined);
    const body = encodeOpenaiResponsesResponse(response, this.request === undefined ? { losses: scratch() } : { losses: scratch(), request: this.request });
    const items: unknown[] = this.output.writtenOutput();
    const output = streamHint(event, OUTPUT);
    if (isObject(output)) for (const key in output) items[Number(key)] = output[key];
    body['output'] = items;
    // The SDK adds `output_text` to whole responses but not to streamed ones; for other formats' streams it is written, as the non-streamed body of a proxy would give.
    if (ownHint(response, '$outputText') === true || (this.start.foreign && !('output_text' in body))) body['output_text'] = outputText(items);
    const status = body['status'];
    const type = status === 'incomplete' ? 'response.incomplete' : status === 'failed' ? 'response.failed' : 'response.completed';
    out.push({ type, response: body });
    return out;
  }
  /** The output items the terminal response would hold now (for the decoder's comparison). */
  writtenOutput(): JsonObject[] {
    return this.output.writtenOutput();
  }
}


/** An event's message, when its text is known. */
function message(type: string, text: string | undefined): SseMessage | undefined {
  return text === undefined ? undefined : { event: type, data: text };
}

/** `text` (an event's JSON, starting `head`: `{"type":…`) with `"sequence_number":seq` after its type; `undefined` when it does not start so. */
function withNumber(text: string, head: string, seq: number): string | undefined {
  return text.startsWith(head) ? `${head},"sequence_number":${seq}${text.slice(head.length)}` : undefined;
}

/** `output_text`: the SDK's concatenation of every output_text part. */
function outputText(output: unknown[]): string {
  let text = '';
  for (const item of output) {
    if (!isObject(item) || item['type'] !== 'message' || !Array.isArray(item['content'])) continue;
    for (const part of item['content']) if (isObject(part) && part['type'] === 'output_text' && typeof part['text'] === 'string') text += part['text'];
  }
  return text;
}


/** A fresh OpenAI Responses stream encoder. */
export function createOpenaiResponsesStreamEncoder(context: CodecContext): StreamEncoder {
  const writer = new OpenaiResponsesStreamWriter(context.losses, context.model, context.ids, context.request);
  return {
    encode: (event) => writer.encode(event),
    flush: () => [],
    encodeText: (event, data, check) => writer.encodeText(event, data, check as TextCheck),
  };
}
