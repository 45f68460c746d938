/**
 * The IR of a stream: a flat sequence of events that any format's stream
 * decoder produces and any format's stream encoder consumes. Parts are
 * addressed by candidate and by their index in the candidate's message, so
 * parallel tool calls interleaved on the wire stay apart.
 */
import type { ApiError, Extensions, Part, ReasoningState, StopReason, Usage } from './ir.ts';
import { InterlinguaError } from './errors.ts';

/**
 * The largest candidate or part index a stream may use. Indexes above it are
 * not addresses but garbage (a hostile or broken stream): as array slots they
 * would make arrays of that length, costing seconds and gigabytes.
 */
export const MAX_STREAM_INDEX = 100_000;

/** `index`, when it is an integer from 0 to {@link MAX_STREAM_INDEX}; else a `stream_error`. */
export function checkStreamIndex(index: number, what: string): number {
  if (Number.isInteger(index) && index >= 0 && index <= MAX_STREAM_INDEX) return index;
  throw new InterlinguaError('stream_error', `${what} index ${index} is not an integer from 0 to ${MAX_STREAM_INDEX}`, { path: '' });
}

/** Fields every stream event may carry. */
interface EventBase {
  /** Wire fields of the source event with no neutral slot, for a same-format round trip. */
  extensions?: Extensions;
}

/** Where a part lives: candidate number and index in that candidate's message parts. */
interface PartAddress {
  candidate: number;
  index: number;
}

/** The response begins. Usage here is what the source knew at the start (maybe nothing). */
export interface StartEvent extends EventBase {
  type: 'start';
  id?: string;
  model?: string;
  created?: number;
  usage?: Usage;
}

/**
 * A part opens. `part` is its initial form: text parts with the text known so
 * far (usually `''`), tool calls with `arguments: undefined` and
 * `rawArguments: ''`, opaque and media parts whole.
 */
export interface PartStartEvent extends EventBase, PartAddress {
  type: 'part_start';
  part: Part;
}

/** More text for an open text (or refusal) part. */
export interface TextDeltaEvent extends EventBase, PartAddress {
  type: 'text_delta';
  text: string;
}

/** More reasoning text; `summaryIndex` set when it extends a reasoning summary rather than the reasoning text. */
export interface ReasoningDeltaEvent extends EventBase, PartAddress {
  type: 'reasoning_delta';
  text: string;
  summaryIndex?: number;
}

/** Opaque reasoning state for an open reasoning part (arrives as its own delta in Anthropic). */
export interface ReasoningSignatureEvent extends EventBase, PartAddress {
  type: 'reasoning_signature';
  state: ReasoningState;
}

/** More argument JSON text for an open tool call. */
export interface ToolCallDeltaEvent extends EventBase, PartAddress {
  type: 'tool_call_delta';
  arguments: string;
}

/** A part closes. `part`, when set, is its final form as the source sent it whole. */
export interface PartEndEvent extends EventBase, PartAddress {
  type: 'part_end';
  part?: Part;
}

/** Usage known so far (cumulative: later events replace earlier numbers). */
export interface UsageEvent extends EventBase {
  type: 'usage';
  usage: Usage;
}

/** A candidate stopped. */
export interface FinishEvent extends EventBase {
  type: 'finish';
  candidate: number;
  stopReason: StopReason;
}

/** The source reported an error inside the stream. Nothing follows but `end`. */
export interface ErrorEvent extends EventBase {
  type: 'error';
  error: ApiError;
}

/** The stream ended (message_stop, [DONE], response.completed, the last Gemini chunk). */
export interface EndEvent extends EventBase {
  type: 'end';
}

/** Every stream event. A closed union. */
export type StreamEvent =
  | StartEvent
  | PartStartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ReasoningSignatureEvent
  | ToolCallDeltaEvent
  | PartEndEvent
  | UsageEvent
  | FinishEvent
  | ErrorEvent
  | EndEvent;

/** One wire event as parsed from SSE: the event name (if any) and the JSON data (or `'[DONE]'`). */
export interface WireEvent {
  event?: string;
  data: unknown;
  /** Set when the `data:` text was not JSON: the parse error. `data` is then the raw text. */
  invalid?: string;
}

/** A long text (a JSON string token) whose UTF-8 bytes a writer makes once, at its first use, and copies wherever it recurs. */
export interface EncodedOnce {
  readonly text: string;
  bytes?: Uint8Array;
}

/**
 * Optional on an {@link SseMessage}: its `data` in pieces, in order (their
 * concatenation is `data`), some of them texts encoded once; a writer may
 * write these instead of `data`. A symbol, so that comparing or serialising
 * messages does not see it.
 */
export const DATA_PIECES: unique symbol = Symbol('interlingua.dataPieces');

/** One SSE message to write: `event:` line (if any) and the `data:` text. */
export interface SseMessage {
  event?: string;
  data: string;
  [DATA_PIECES]?: readonly (string | EncodedOnce)[];
}

/** Turns one format's wire events into IR events. One instance per stream. */
export interface StreamDecoder {
  decode(event: WireEvent): StreamEvent[];
  /** The source ended; close what is open (a truncated stream yields an `error` event). */
  flush(): StreamEvent[];
  /**
   * Optional: the IR events of an event given by its `data:` text, without
   * parsing it, when the decoder recognises the text (a shape it learned
   * through {@link learn} with only a string changed): exactly what `decode`
   * of the parsed text would return. `undefined` when it does not recognise
   * it; the text is then parsed and given to `decode`.
   */
  decodeText?(data: string, event: string | undefined): StreamEvent[] | undefined;
  /** Optional: `wire`, parsed from `data`, has just been decoded; the decoder may learn the shape of its text. */
  learn?(data: string, wire: WireEvent): void;
  /**
   * Optional, for a trip back to the same format: after {@link decodeText}
   * gave one event, what the decoder checked of its text against what this
   * format's encoder writes (for {@link StreamEncoder.encodeText}); `undefined`
   * when it checked nothing. Read at once: the next call changes it.
   */
  textCheck?(): unknown;
}

/** Turns IR events into one format's SSE messages. One instance per stream. */
export interface StreamEncoder {
  encode(event: StreamEvent): SseMessage[];
  flush(): SseMessage[];
  /**
   * Optional, for a trip back to the same format: the message of `event`
   * with `data` as its text, when `data` is the text this encoder would
   * write for it (`check`, from this format's `StreamDecoder.textCheck`,
   * says what of it the decoder checked); the event is applied as `encode`
   * applies it. `undefined` when it cannot say so: nothing is applied, and
   * the event is encoded as usual.
   */
  encodeText?(event: StreamEvent, data: string, check: unknown): SseMessage | undefined;
}
