/**
 * OpenAI Responses SSE events → IR stream events. `response.created` (with
 * `response.in_progress`) is the start; output items and content parts
 * become parts (stream-items-decode.ts); the terminal `response.completed` /
 * `.incomplete` / `.failed` becomes usage, finish (and, for a failed
 * response, an error) and end; an `error` event becomes an error (those
 * three in stream-response-decode.ts).
 *
 * Built-in tool progress events (`web_search_call.*`, `code_interpreter_call.*`,
 * `image_generation_call.*`, `mcp_*`, …) and annotations carry no neutral
 * meaning: they travel verbatim in the hints of the next IR event, checked
 * against what the encoder would write (see stream-event.ts), so a
 * same-format trip writes them back where they were. The decoder keeps the
 * streamed items until the terminal event to make that check.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { CodecContext } from '../../core/codec.ts';
import { DataTemplates, type Slot } from '../../core/data-template.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { StartEvent, StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';
import { FORMAT } from './shape.ts';
import { ItemDecoder, numberField, stringField, usualDelta, type UsualDelta } from './stream-items-decode.ts';
import { OpenaiResponsesStreamWriter } from './stream-encode.ts';
import type { KnownDelta, TextCheck } from './stream-deltas-encode.ts';
import { ResponseLevelDecoder } from './stream-response-decode.ts';
import { BEFORE, jsonEqual, QUIET, scratch, setStreamHint, TRUNCATED, WIRE } from './stream-event.ts';

/** Event types of built-in tools and other progress reports that need no IR event of their own. */
const PROGRESS_PREFIXES: readonly string[] = [
  'response.audio.', 'response.code_interpreter_call', 'response.file_search_call.', 'response.web_search_call.',
  'response.image_generation_call.', 'response.mcp_', 'response.shell_call', 'response.local_shell_call', 'response.apply_patch_call',
  'response.computer_call', 'response.tool_search_call', 'response.program', 'response.compaction',
];
const PROGRESS_TYPES: ReadonlySet<string> = new Set([
  'response.queued', 'response.in_progress', 'response.output_text.done', 'response.refusal.done', 'response.content_part.done',
  'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.reasoning_text.done',
  'response.function_call_arguments.done', 'response.custom_tool_call_input.done', 'response.output_text.annotation.added',
]);

type Phase = 'idle' | 'created' | 'open' | 'ended';

const TRUNCATED_MESSAGE =
  'the OpenAI Responses stream ended before its terminal event (response.completed, response.incomplete or response.failed); the response is truncated';


class ResponsesStreamDecoder implements StreamDecoder {
  private readonly losses: LossCollector;
  private readonly shadow = new OpenaiResponsesStreamWriter(scratch());
  private group: JsonObject[] = [];
  private phase: Phase = 'idle';
  private created: JsonObject | undefined;
  private output: ItemDecoder;
  /** The start, the terminal response and errors (stream-response-decode.ts). */
  private readonly response: ResponseLevelDecoder;
  private count = -1;
  /** The wire hints (`$wire`, `$before`, `$quiet`) are built only when the IR may go back to Responses. */
  private readonly hints: boolean;
  /**
   * The event texts of the stream's usual deltas (see `data-template.ts`); for the same format, with what the shadow
   * compared of them, and, for a template learned from text the writer writes itself, the length of its literal text.
   */
  private readonly templates = new DataTemplates<UsualDelta & { known?: KnownDelta; obfuscated?: boolean; literal?: number | undefined }>();
  /** Same format: the last event decoded, when it was a plain delta the shadow's direct path writes exactly (see {@link seal}). */
  private direct: unknown;
  /** Same format: what {@link sameDelta} checked of the last text it read, until {@link textCheck} gives it (one object, reused). */
  private readonly check: TextCheck = { known: { type: undefined, itemId: undefined, outputIndex: undefined, content: undefined, summary: undefined }, seq: 0 };
  private checked = false;

  readonly decodeText: (data: string, event: string | undefined) => StreamEvent[] | undefined;
  readonly learn: (data: string, wire: WireEvent) => void;

  constructor(context: CodecContext) {
    this.losses = context.losses;
    this.hints = context.target === undefined || context.target === FORMAT;
    this.output = new ItemDecoder(this.losses);
    this.response = new ResponseLevelDecoder(this.losses, this.shadow);
    if (this.hints) {
      this.decodeText = (data, event) => this.sameDelta(data, event);
      this.learn = (data, wire) => this.learnSame(data, wire);
    } else {
      this.decodeText = (data, event) => this.textDelta(data, event);
      this.learn = (data, wire) => this.learnDelta(data, wire);
    }
  }

  /**
   * An event that is a usual delta with other strings (see {@link usualDelta}):
   * the events `decode` makes of it, without parsing it. Once the response
   * has started, and for another format, `decode` reads nothing of such an
   * event but its type, indexes, `delta`, `logprobs` and `obfuscation`
   * (`sequence_number` only for the hints), and keeps it only in a group
   * its events close.
   */
  private textDelta(data: string, event: string | undefined): StreamEvent[] | undefined {
    if (this.phase !== 'open') return undefined;
    const strings = this.templates.read(data, event);
    if (strings === undefined) return undefined;
    const events = this.output.usual(this.templates.shape, strings[0]!, strings[1]);
    // A delta to no open part makes no event; the parsed path keeps it in the group.
    if (events.length === 0) return undefined;
    this.count++;
    this.output.count = this.count;
    this.group = [];
    return events;
  }

  private learnDelta(data: string, wire: WireEvent): void {
    if (this.phase !== 'open' || !this.templates.learning) return;
    const found = usualDelta(wire.data);
    if (found === undefined || typeof found.delta !== 'string') return;
    // Every event has its own `sequence_number` (before the delta) and, from OpenAI, its own random `obfuscation` (after it).
    const slots: Slot[] = [{ kind: 'read', value: found.delta }];
    const obfuscated = typeof found.obfuscation === 'string';
    if (obfuscated) slots.push({ kind: 'read', value: found.obfuscation as string });
    const sequence = (wire.data as JsonObject)['sequence_number'];
    const numbered = typeof sequence === 'number';
    if (numbered) slots.push({ kind: 'number', value: sequence });
    this.templates.learn(data, wire.event, slots, (value, probes) => {
      const usual = usualDelta(value);
      if (usual === undefined || usual.delta !== probes[0] || usual.obfuscation !== (obfuscated ? probes[1] : undefined)) return undefined;
      if (numbered && (value as JsonObject)['sequence_number'] !== probes[slots.length - 1]) return undefined;
      return usual.shape;
    });
  }

  /**
   * Same format: an event that is a usual delta with another delta string
   * and sequence number (see {@link usualDelta}), learned from one the
   * shadow's direct path wrote exactly: the events `decode` makes of it,
   * without parsing it, when it too is what that path writes (so that it
   * needs no hint). `decode` would make its one event (no group before it,
   * the response open), and `seal` find it numbered `shadow.seq` and, as
   * the shadow compares it (`matchKnown`, the fields the template holds as
   * they were when they matched), the shadow's delta: then it applies the
   * delta and counts the event. Anything else is left to `decode` before
   * any state changes.
   */
  private sameDelta(data: string, event: string | undefined): StreamEvent[] | undefined {
    this.checked = false;
    if (this.phase !== 'open' || this.group.length !== 0) return undefined;
    const strings = this.templates.read(data, event);
    if (strings === undefined) return undefined;
    const shadow = this.shadow;
    const shape = this.templates.shape;
    const delta = strings[0]!;
    const obfuscation = shape.obfuscated === true ? strings[1] : undefined;
    const number = strings[obfuscation === undefined ? 1 : 2]!;
    // The read number's text is a plain integer: `Number` reads it as `JSON.parse` does.
    if (Number(number) !== shadow.seq) return undefined;
    const events = this.output.usual(shape, delta, obfuscation);
    const first = events[0];
    const known = shape.known!;
    if (first === undefined || !shadow.matchKnown(first, known)) return undefined;
    // A template of text the writer writes itself, and no blank or escape in this one (each would make it longer than
    // its literal text and its strings between quotes): the writer's own text, which may be kept.
    if (shape.literal !== undefined && data.length === shape.literal + delta.length + 2 + (obfuscation === undefined ? 0 : obfuscation.length + 2) + number.length) {
      this.check.known = known;
      this.check.seq = shadow.seq;
      this.checked = true;
    }
    shadow.seq++;
    this.count++;
    this.output.count = this.count;
    return events;
  }

  /** `StreamDecoder.textCheck`: what {@link sameDelta} checked of the text it just read (`undefined` after any other call). */
  textCheck(): TextCheck | undefined {
    if (!this.checked) return undefined;
    this.checked = false;
    return this.check;
  }

  /** Same format: learn the text of a usual delta that the shadow wrote exactly (with its `obfuscation`, if it has one). */
  private learnSame(data: string, wire: WireEvent): void {
    if (this.phase !== 'open' || this.direct !== wire.data || !this.templates.learning) return;
    const found = usualDelta(wire.data);
    const sequence = (wire.data as JsonObject)['sequence_number'];
    if (found === undefined || typeof found.delta !== 'string' || typeof sequence !== 'number') return;
    const obfuscated = typeof found.obfuscation === 'string';
    const slots: Slot[] = [{ kind: 'read', value: found.delta }];
    if (obfuscated) slots.push({ kind: 'read', value: found.obfuscation as string });
    slots.push({ kind: 'read-number', value: sequence });
    // The length of the text but its tokens, when they are spelled as `JSON.stringify` spells them.
    let tokens = JSON.stringify(found.delta).length + String(sequence).length;
    if (obfuscated) tokens += JSON.stringify(found.obfuscation).length;
    this.templates.learn(data, wire.event, slots, (value, probes) => {
      const usual = usualDelta(value);
      const object = value as JsonObject;
      if (usual === undefined || usual.delta !== probes[0] || usual.obfuscation !== (obfuscated ? probes[1] : undefined)) return undefined;
      if (object['sequence_number'] !== probes[slots.length - 1]) return undefined;
      const known: KnownDelta = {
        type: object['type'], itemId: object['item_id'], outputIndex: object['output_index'], content: object['content_index'], summary: object['summary_index'],
      };
      return { ...usual.shape, known, obfuscated, literal: writtenAsIs(data, wire.data as JsonObject) ? data.length - tokens : undefined };
    });
  }

  decode(wire: WireEvent): StreamEvent[] {
    this.direct = undefined;
    this.count++;
    this.output.count = this.count;
    const data = wire.data;
    // Some gateways end Responses streams with Chat's sentinel; it carries nothing.
    if (data === '[DONE]') return [];
    if (!isObject(data)) {
      throw new InterlinguaError('invalid_type', 'expected a JSON object as the data of an OpenAI Responses stream event', { path: `/${this.count}`, format: FORMAT });
    }
    const out: StreamEvent[] = [];
    const type = data['type'];
    if (this.phase === 'created' && !(type === 'response.in_progress' && jsonEqual(data['response'], this.created?.['response']))) {
      out.push(...this.seal([this.startEvent(true)]));
    }
    if (this.phase === 'idle' && type !== 'response.created' && typeof type === 'string' && type.startsWith('response.')) {
      out.push(...this.seal([this.implicitStart()]));
    }
    this.group.push(data);
    out.push(...this.seal(this.interpret(data)));
    return out;
  }

  flush(): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.phase === 'created') out.push(...this.seal([this.startEvent(true)]));
    if (this.phase === 'ended' && this.group.length === 0) return out;
    if (this.response.errorSent || this.phase === 'ended') {
      out.push(...this.seal([{ type: 'end' }]));
    } else {
      const error: StreamEvent = { type: 'error', error: { type: 'server', message: TRUNCATED_MESSAGE } };
      setStreamHint(error, TRUNCATED, true);
      out.push(...this.seal([error]));
    }
    this.phase = 'ended';
    return out;
  }

  /**
   * Attach the current group of wire events to the first of `events`: as
   * `$before` when the encoder would write the group's tail itself, else
   * as `$wire` (see stream-event.ts).
   */
  private seal(events: StreamEvent[]): StreamEvent[] {
    const first = events[0];
    if (first === undefined) return events;
    const group = this.group;
    this.group = [];
    if (!this.hints) return events;
    if (events.length === 1 && group.length === 1) {
      // A plain delta: compared field by field with what the encoder's direct path writes.
      const wire = group[0] as JsonObject;
      const matched = this.shadow.matchDirect(first, wire);
      if (matched === true) {
        this.shadow.seq++;
        this.direct = wire;
        return events;
      }
      if (matched === false) {
        setStreamHint(first, WIRE, group);
        const number = numberField(wire, 'sequence_number');
        if (number !== undefined) this.shadow.seq = number + 1;
        return events;
      }
    }
    const canonical: JsonObject[] = [];
    for (const event of events) canonical.push(...this.shadow.expand(event));
    const extra = group.length - canonical.length;
    let seq = this.shadow.seq;
    let exact = extra >= 0;
    if (exact) {
      for (let index = 0; index < extra; index++) {
        const number = numberField(group[index] as JsonObject, 'sequence_number');
        if (number !== undefined) seq = number + 1;
      }
      exact = canonical.every((data, index) => numberedEqual(group[extra + index] as JsonObject, data, seq + index));
    }
    if (exact) {
      if (extra > 0) setStreamHint(first, BEFORE, group.slice(0, extra));
      // One event written exactly as it came (a delta with its `obfuscation`, say): its text may be learned.
      else if (group.length === 1 && events.length === 1) this.direct = group[0];
      this.shadow.seq = seq + canonical.length;
      return events;
    }
    setStreamHint(first, WIRE, group);
    for (const event of events.slice(1)) setStreamHint(event, QUIET, true);
    for (const data of group) {
      const number = numberField(data, 'sequence_number');
      if (number !== undefined) this.shadow.seq = number + 1;
    }
    return events;
  }

  private interpret(data: JsonObject): StreamEvent[] {
    const type = data['type'];
    if (typeof type !== 'string') {
      this.losses.add('unknown_block', `/${this.count}`, 'a stream event without a type; kept verbatim for OpenAI Responses');
      return [];
    }
    switch (type) {
      case 'response.created':
        return this.onCreated(data);
      case 'response.in_progress':
        return this.phase === 'created' ? [this.startEvent(false)] : [];
      case 'response.output_item.added':
        return this.output.itemAdded(data);
      case 'response.output_item.done':
        return this.output.itemDone(data);
      case 'response.content_part.added':
        return this.output.contentAdded(data);
      case 'response.content_part.done':
        return this.output.contentDone(data);
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.output.textDelta(data, type === 'response.output_text.delta');
      case 'response.output_text.done':
        this.output.textDone(data);
        return [];
      case 'response.output_text.annotation.added':
        this.output.annotation(data);
        return [];
      case 'response.reasoning_summary_part.added':
        return this.output.reasoning(data, '', numberField(data, 'summary_index'));
      case 'response.reasoning_summary_text.delta':
        return this.output.reasoning(data, stringField(data, 'delta', this.count), numberField(data, 'summary_index'));
      case 'response.reasoning_text.delta':
        return this.output.reasoning(data, stringField(data, 'delta', this.count), undefined);
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        return this.output.arguments(data);
      case 'response.function_call_arguments.done':
        this.output.argumentsDone(data);
        return [];
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        return this.onTerminal(data, type);
      case 'error':
        return this.response.error(data);
      default:
        if (!PROGRESS_TYPES.has(type) && !PROGRESS_PREFIXES.some((prefix) => type.startsWith(prefix))) {
          this.losses.add('unknown_block', `/${this.count}`, `unknown OpenAI Responses stream event "${type}"; kept verbatim for OpenAI Responses`);
        }
        return [];
    }
  }

  // -------------------------------------------------------------------------
  // Start

  private onCreated(data: JsonObject): StreamEvent[] {
    if (this.phase === 'open') return [];
    this.phase = 'created';
    this.created = data;
    this.output = new ItemDecoder(this.losses);
    this.response.errorSent = false;
    return [];
  }

  private startEvent(noInProgress: boolean): StartEvent {
    const start = this.response.start(this.created, noInProgress);
    this.phase = 'open';
    return start;
  }

  private implicitStart(): StartEvent {
    const start = this.response.implicitStart();
    this.phase = 'open';
    return start;
  }

  // -------------------------------------------------------------------------
  // The end

  private onTerminal(data: JsonObject, type: string): StreamEvent[] {
    const out = this.response.terminal(data, type);
    this.phase = 'ended';
    this.output = new ItemDecoder(this.losses);
    return out;
  }
}

/** A fresh OpenAI Responses stream decoder. */
export function createOpenaiResponsesStreamDecoder(context: CodecContext): StreamDecoder {
  return new ResponsesStreamDecoder(context);
}

/** The keys of a usual delta in the order the writer writes them (`DeltaWriter.fastDelta`, and `textDelta` and its kin with `numbered`). */
const DELTA_KEYS: readonly string[] = ['type', 'sequence_number', 'item_id', 'output_index', 'content_index', 'summary_index', 'delta', 'logprobs', 'obfuscation'];

/** `data`, the text of the usual delta `wire`, is the text the writer writes for it: its keys in the writer's order, compact, each value as `JSON.stringify` spells it. */
function writtenAsIs(data: string, wire: JsonObject): boolean {
  const ordered: JsonObject = {};
  let count = 0;
  for (const key of DELTA_KEYS) {
    if (!(key in wire)) continue;
    ordered[key] = wire[key];
    count++;
  }
  return count === Object.keys(wire).length && JSON.stringify(ordered) === data;
}

/** True when `wire` is `{ ...data, sequence_number: seq }` (as {@link jsonEqual} compares), without making that object. */
function numberedEqual(wire: JsonObject, data: JsonObject, seq: number): boolean {
  if (wire['sequence_number'] !== seq) return false;
  let count = 1;
  for (const key in data) {
    if (key === 'sequence_number' || data[key] === undefined) continue;
    count++;
    if (!jsonEqual(wire[key], data[key])) return false;
  }
  for (const key in wire) if (wire[key] !== undefined) count--;
  return count === 0;
}
