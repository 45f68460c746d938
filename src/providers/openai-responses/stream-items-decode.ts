/**
 * The output half of the OpenAI Responses stream decoder: output items and
 * content parts → IR parts. Each item becomes one part (a message item one
 * part per content part), opened at `output_item.added` /
 * `content_part.added` and closed at `output_item.done` with the final part
 * decoded from the done item by the non-streaming decoder, so accumulating
 * the stream gives what decoding the whole response gives.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import { responseToEvents } from '../../core/accumulate.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { Extensions, Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { PartEndEvent, StreamEvent } from '../../core/stream-events.ts';
import { isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiResponsesContent } from './content-decode.ts';
import { decodeOpenaiResponsesOutput } from './items-decode.ts';
import { FORMAT } from './shape.ts';
import { ANNOTATED, ITEM_OPEN, NO_LOGPROBS, NO_NAME, OBFUSCATION, SAME_ITEM, scratch } from './stream-event.ts';

/** A content part of an open message item. */
interface ContentState {
  index: number;
  ended: boolean;
  annotated: number;
  /** The part of `response.content_part.done`, once seen. */
  done?: JsonObject;
  hints: JsonObject;
}

/** An output item between `output_item.added` and `output_item.done`. */
interface ItemState {
  kind: 'message' | 'part';
  added: JsonObject;
  /** The IR index of an item-level part. */
  index: number;
  contents: ContentState[];
  hints: JsonObject;
}

/** Fresh `openai-responses` extensions holding a copy of `fields`. */
export function fresh(fields: JsonObject): Extensions {
  return { [FORMAT]: { ...fields } };
}

/** The string `key` of a wire event, or an `invalid_type` error pointing at it (`count` is the event's index in the stream). */
export function stringField(data: JsonObject, key: string, count: number): string {
  const value = data[key];
  if (typeof value === 'string') return value;
  throw new InterlinguaError('invalid_type', `expected a string in "${key}" of a ${String(data['type'])} event`, { path: pointer(`/${count}`, key), format: FORMAT });
}

/** The number `key` of a wire event, if it is one. */
export function numberField(data: JsonObject, key: string): number | undefined {
  const value = data[key];
  return typeof value === 'number' ? value : undefined;
}

/** Items and content parts of one response being decoded. */
export class ItemDecoder {
  private readonly items = new Map<number, ItemState>();
  private nextPart = 0;
  /** The index of the wire event being decoded, for paths. */
  count = 0;

  constructor(private readonly losses: LossCollector) {}

  /** `output_text.annotation.added`: counted, so the encoder knows the annotations are already written. */
  annotation(data: JsonObject): void {
    const content = this.content(data);
    if (content !== undefined) content.annotated++;
  }

  /** `function_call_arguments.done` without `name` (older servers). */
  argumentsDone(data: JsonObject): void {
    const item = this.item(data);
    if (item !== undefined && data['name'] === undefined) item.hints[NO_NAME] = true;
  }

  /** The open item an event addresses by `output_index`. */
  item(data: JsonObject): ItemState | undefined {
    const index = numberField(data, 'output_index');
    return index === undefined ? undefined : this.items.get(index);
  }

  /** The content part an event addresses by `output_index` and `content_index`. */
  content(data: JsonObject): ContentState | undefined {
    const index = numberField(data, 'content_index');
    return index === undefined ? undefined : this.item(data)?.contents[index];
  }

  private path(): string {
    return pointer(`/${this.count}`, 'item');
  }

  /** `output_item.added`: a part opens (a message item waits for its first content part). */
  itemAdded(data: JsonObject): StreamEvent[] {
    const outputIndex = numberField(data, 'output_index');
    const item = data['item'];
    if (outputIndex === undefined || !isObject(item)) return [];
    if (item['type'] === 'message') {
      this.items.set(outputIndex, { kind: 'message', added: item, index: -1, contents: [], hints: {} });
      return [];
    }
    const part = decodeOpenaiResponsesOutput([item], this.path(), scratch())[0];
    if (part === undefined) return [];
    const index = this.nextPart++;
    this.items.set(outputIndex, { kind: 'part', added: item, index, contents: [], hints: {} });
    const initial: Part = part.type === 'tool_call' ? { ...part, arguments: undefined, rawArguments: part.rawArguments ?? '' } : part;
    return [{ type: 'part_start', candidate: 0, index, part: initial }];
  }

  /** `content_part.added`: a text, refusal or other content part opens (reasoning text: its content part opens). */
  contentAdded(data: JsonObject): StreamEvent[] {
    const item = this.item(data);
    const contentIndex = numberField(data, 'content_index');
    const part = data['part'];
    if (item === undefined || contentIndex === undefined || !isObject(part)) return [];
    if (item.kind === 'part') {
      return part['type'] === 'reasoning_text' && contentIndex === 0 ? [{ type: 'reasoning_delta', candidate: 0, index: item.index, text: '' }] : [];
    }
    if (contentIndex !== item.contents.length) return [];
    const out: StreamEvent[] = [];
    const previous = item.contents[contentIndex - 1];
    if (previous !== undefined && !previous.ended) {
      const final = this.contentFinal(item, contentIndex - 1, previous.done);
      out.push(this.contentEnd(previous, final, true));
    }
    const decoded = this.contentPart(contentIndex, part, item.added, scratch());
    if (decoded === undefined) return out;
    const index = this.nextPart++;
    item.contents.push({ index, ended: false, annotated: 0, hints: {} });
    const start: StreamEvent = { type: 'part_start', candidate: 0, index, part: decoded };
    if (contentIndex > 0) start.extensions = fresh({ [SAME_ITEM]: true });
    out.push(start);
    return out;
  }

  /** Decode one content part of a message item; the first carries the item's hints, as in the whole response. */
  private contentPart(contentIndex: number, part: JsonObject, wrapper: JsonObject, losses: LossCollector): Part | undefined {
    if (contentIndex === 0) return decodeOpenaiResponsesOutput([{ ...wrapper, content: [part] }], this.path(), losses)[0];
    const decoded = decodeOpenaiResponsesContent(part, this.path(), 'output_text', losses);
    if (decoded.type === 'opaque') decoded.extensions = { [FORMAT]: { $content: true } };
    return decoded;
  }

  /** The final form of a content part ended before its item (a message with several content parts). */
  private contentFinal(item: ItemState, contentIndex: number, done: JsonObject | undefined): Part | undefined {
    if (done === undefined) return undefined;
    const status = item.added['status'];
    const wrapper = status === 'in_progress' ? { ...item.added, status: 'completed' } : item.added;
    return this.contentPart(contentIndex, done, wrapper, this.losses);
  }

  private contentEnd(content: ContentState, final: Part | undefined, itemOpen: boolean): PartEndEvent {
    content.ended = true;
    const event: PartEndEvent = { type: 'part_end', candidate: 0, index: content.index };
    if (final !== undefined) event.part = final;
    const hints: JsonObject = { ...content.hints };
    if (content.annotated > 0) hints[ANNOTATED] = content.annotated;
    if (itemOpen) hints[ITEM_OPEN] = true;
    if (Object.keys(hints).length > 0) event.extensions = fresh(hints);
    return event;
  }

  /** `content_part.done`: the part as it ended, kept for its part end. */
  contentDone(data: JsonObject): StreamEvent[] {
    const content = this.content(data);
    const part = data['part'];
    if (content !== undefined && isObject(part)) content.done = part;
    return [];
  }

  /** `output_text.delta` (`text`) or `refusal.delta`. */
  textDelta(data: JsonObject, text: boolean): StreamEvent[] {
    const content = this.content(data);
    if (content === undefined) return [];
    return [textEvent(content.index, stringField(data, 'delta', this.count), data['obfuscation'], text, data['logprobs'])];
  }

  /** `output_text.done`: how it spelled its log probabilities, for the part end. */
  textDone(data: JsonObject): void {
    const content = this.content(data);
    if (content === undefined) return;
    const logprobs = data['logprobs'];
    if (logprobs === undefined) content.hints[NO_LOGPROBS] = true;
    else if (!Array.isArray(logprobs) || logprobs.length > 0) content.hints['logprobs'] = logprobs;
  }

  /** Reasoning summary or text: a summary part opening (empty text) or a delta. */
  reasoning(data: JsonObject, text: string, summaryIndex: number | undefined): StreamEvent[] {
    const item = this.item(data);
    if (item === undefined || item.kind !== 'part') return [];
    return [reasoningEvent(item.index, text, summaryIndex, data['obfuscation'])];
  }

  /** `function_call_arguments.delta` or `custom_tool_call_input.delta`. */
  arguments(data: JsonObject): StreamEvent[] {
    const item = this.item(data);
    if (item === undefined || item.kind !== 'part') return [];
    return [argumentsEvent(item.index, stringField(data, 'delta', this.count), data['obfuscation'])];
  }

  /**
   * A usual delta (see {@link usualDelta}) with its delta and obfuscation
   * strings: what the method of its type makes of the parsed event, or `[]`
   * when it addresses no open part.
   */
  usual(shape: UsualDelta, delta: string, obfuscation: string | undefined): StreamEvent[] {
    const item = this.items.get(shape.output);
    if (item === undefined) return [];
    switch (shape.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const content = item.contents[shape.content!];
        if (content === undefined) return [];
        return [textEvent(content.index, delta, obfuscation, shape.type === 'response.output_text.delta', shape.logprobs)];
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return item.kind === 'part' ? [reasoningEvent(item.index, delta, shape.summary, obfuscation)] : [];
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        return item.kind === 'part' ? [argumentsEvent(item.index, delta, obfuscation)] : [];
    }
  }

  /** `output_item.done`: the item's parts end, with their final form decoded from the done item. */
  itemDone(data: JsonObject): StreamEvent[] {
    const outputIndex = numberField(data, 'output_index');
    const done = data['item'];
    if (outputIndex === undefined || !isObject(done)) return [];
    const item = this.items.get(outputIndex);
    this.items.delete(outputIndex);
    const parts = decodeOpenaiResponsesOutput([done], this.path(), this.losses);
    if (item === undefined) return this.wholeItem(parts);
    if (item.kind === 'part') {
      const event: PartEndEvent = { type: 'part_end', candidate: 0, index: item.index };
      if (parts.length === 1 && parts[0] !== undefined) event.part = parts[0];
      if (Object.keys(item.hints).length > 0) event.extensions = fresh(item.hints);
      return [event];
    }
    if (item.contents.length === 0) {
      const [part] = parts;
      if (parts.length !== 1 || part?.type !== 'opaque') return this.wholeItem(parts);
      const index = this.nextPart++;
      return [
        { type: 'part_start', candidate: 0, index, part: { ...part, value: item.added } },
        { type: 'part_end', candidate: 0, index, part },
      ];
    }
    const out: StreamEvent[] = [];
    item.contents.forEach((content, contentIndex) => {
      if (!content.ended) out.push(this.contentEnd(content, parts[contentIndex], false));
    });
    if (parts.length > item.contents.length) out.push(...this.wholeItem(parts.slice(item.contents.length)));
    return out;
  }

  /** Events for an item that arrived whole (no `output_item.added`, or content only in the done item). */
  private wholeItem(parts: Part[]): StreamEvent[] {
    const base = this.nextPart;
    this.nextPart += parts.length;
    const events = responseToEvents({ candidates: [{ index: 0, message: { role: 'assistant', parts } }] });
    return events
      .filter((event) => event.type !== 'start' && event.type !== 'end')
      .map((event) => ('index' in event ? ({ ...event, index: event.index + base } as StreamEvent) : event));
  }
}

/** The delta event types whose usual events a stream's templates recognise (see `data-template.ts`). */
type DeltaType =
  | 'response.output_text.delta'
  | 'response.refusal.delta'
  | 'response.reasoning_summary_text.delta'
  | 'response.reasoning_text.delta'
  | 'response.function_call_arguments.delta'
  | 'response.custom_tool_call_input.delta';

/** What the decoder reads of a usual delta besides its strings: its type and the part it addresses. */
export interface UsualDelta {
  type: DeltaType;
  output: number;
  /** `content_index` of a text or refusal delta. */
  content?: number;
  /** `summary_index` of a reasoning summary delta, when a number. */
  summary?: number | undefined;
  /** `logprobs` of a text delta: absent, or an empty array. */
  logprobs?: unknown;
}

/**
 * A delta event whose `delta` string is all that changes from one to the
 * next, but for `sequence_number` and `obfuscation`: one of the
 * {@link DeltaType}s with a number `output_index` (and `content_index` for
 * text and refusal), a text delta's `logprobs` absent or empty,
 * `obfuscation` absent or a string. The decoder reads nothing else of it
 * (`sequence_number` only for the same-format hints). What it reads, with
 * the strings; else `undefined`.
 */
export function usualDelta(value: unknown): { shape: UsualDelta; delta: unknown; obfuscation: unknown } | undefined {
  if (!isObject(value)) return undefined;
  const type = value['type'];
  const output = value['output_index'];
  const obfuscation = value['obfuscation'];
  if (typeof output !== 'number' || (obfuscation !== undefined && typeof obfuscation !== 'string')) return undefined;
  let shape: UsualDelta;
  switch (type) {
    case 'response.output_text.delta':
    case 'response.refusal.delta': {
      const content = value['content_index'];
      if (typeof content !== 'number') return undefined;
      shape = { type, output, content };
      if (type === 'response.output_text.delta') {
        const logprobs = value['logprobs'];
        if (logprobs !== undefined && !(Array.isArray(logprobs) && logprobs.length === 0)) return undefined;
        shape.logprobs = logprobs;
      }
      break;
    }
    case 'response.reasoning_summary_text.delta':
      shape = { type, output, summary: numberField(value, 'summary_index') };
      break;
    case 'response.reasoning_text.delta':
    case 'response.function_call_arguments.delta':
    case 'response.custom_tool_call_input.delta':
      shape = { type, output };
      break;
    default:
      return undefined;
  }
  return { shape, delta: value['delta'], obfuscation };
}

/** The event of a text or refusal delta to part `index`, with its obfuscation and (for text) how it spelled its log probabilities. */
function textEvent(index: number, text: string, obfuscation: unknown, outputText: boolean, logprobs: unknown): StreamEvent {
  const event: StreamEvent = { type: 'text_delta', candidate: 0, index, text };
  // Made only when there is a hint: most deltas have none.
  let hints: JsonObject | undefined;
  if (obfuscation !== undefined) (hints ??= {})[OBFUSCATION] = obfuscation;
  if (outputText) {
    if (logprobs === undefined) (hints ??= {})[NO_LOGPROBS] = true;
    else if (!Array.isArray(logprobs) || logprobs.length > 0) (hints ??= {})['logprobs'] = logprobs;
  }
  if (hints !== undefined) event.extensions = fresh(hints);
  return event;
}

/** The event of a reasoning delta to part `index`. */
function reasoningEvent(index: number, text: string, summaryIndex: number | undefined, obfuscation: unknown): StreamEvent {
  const event: StreamEvent = { type: 'reasoning_delta', candidate: 0, index, text };
  if (summaryIndex !== undefined) event.summaryIndex = summaryIndex;
  if (obfuscation !== undefined) event.extensions = fresh({ [OBFUSCATION]: obfuscation });
  return event;
}

/** The event of a tool call's arguments delta to part `index`. */
function argumentsEvent(index: number, text: string, obfuscation: unknown): StreamEvent {
  const event: StreamEvent = { type: 'tool_call_delta', candidate: 0, index, arguments: text };
  if (obfuscation !== undefined) event.extensions = fresh({ [OBFUSCATION]: obfuscation });
  return event;
}
