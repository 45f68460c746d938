/**
 * The output half of the OpenAI Responses stream writer: output items and
 * their content parts. Each IR part of candidate 0 becomes an output item
 * (reasoning, function or custom tool call, built-in item) or a content part
 * of a message item; the writer keeps a working copy of each part, writes
 * `output_item.added` / `content_part.added`, the deltas, the `*.done`
 * events and `output_item.done` with the item the non-streaming encoder
 * makes of the final part, and keeps those items for the terminal response.
 *
 * Parts of other formats get interlingua's item ids (`msg_interlingua_<n>`,
 * `rs_interlingua_<n>`, `fc_interlingua_<n>`); their reasoning text is
 * written as summary 0, as the non-streaming encoder writes it.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { Part, ReasoningPart, ToolCallPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { checkStreamIndex, type ReasoningDeltaEvent, type SseMessage, type StreamEvent, type TextDeltaEvent, type ToolCallDeltaEvent } from '../../core/stream-events.ts';
import { argumentsAsText } from '../../core/tools.ts';
import { isObject, jsonString, pointer, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiResponsesAnnotation } from './citations.ts';
import { FORMAT, ownHint } from './shared.ts';
import { ANNOTATED, encodeItem, ITEM_OPEN, NO_LOGPROBS, NO_NAME, OBFUSCATION, SAME_ITEM, scratch, streamHint } from './stream-shared.ts';

/**
 * What {@link OutputWriter.matchDelta} compares of a wire delta but its
 * delta, sequence number and keys: `type`, `item_id`, `output_index`,
 * `content_index`, `summary_index` (any JSON value, or `undefined`).
 */
export interface KnownDelta {
  type: unknown;
  itemId: unknown;
  outputIndex: unknown;
  content: unknown;
  summary: unknown;
}

/** What the decoder checked of a usual delta it read by its text, for a trip back to Responses: its {@link KnownDelta} fields and its sequence number. */
export interface TextCheck {
  known: KnownDelta;
  seq: number;
}

/** How a part travels: inside a message item's content, or as an output item of its own. */
type PartKind = 'text' | 'refusal' | 'content' | 'reasoning' | 'tool_call' | 'opaque';

/** One output item being written. */
interface ItemSlot {
  outputIndex: number;
  itemId: string;
  /** IR indexes of its parts (a message item's content parts in order). */
  parts: number[];
  open: boolean;
}

/** One part of candidate 0 being written, with its working copy. */
interface PartSlot {
  index: number;
  kind: PartKind;
  item: ItemSlot;
  contentIndex: number;
  part: Part;
  /** Foreign parts get interlingua's item bookkeeping hints. */
  foreign: boolean;
  /** The open summary index, and whether the reasoning text content part is open. */
  summary: number | undefined;
  reasoningText: boolean;
  /** Reasoning text of another format, written as summary 0 (as the non-streaming encoder does). */
  textAsSummary: boolean;
  ended: boolean;
  /** True when `part` is the writer's own copy, which deltas may grow in place. */
  owned?: boolean;
  /** True when the `summary` array of that copy is the writer's own too. */
  summaryOwned?: boolean;
  /** The wire type and summary index of the last {@link OutputWriter.fastDelta} message, and its text before the sequence number, between it and the delta, and after the delta. */
  fastType?: string;
  fastSummary?: number;
  fastHead?: string;
  fastMiddle?: string;
  fastEnd?: string;
}

function kindOf(part: Part): PartKind | undefined {
  switch (part.type) {
    case 'text':
      return 'text';
    case 'refusal':
      return 'refusal';
    case 'reasoning':
      return 'reasoning';
    case 'tool_call':
      return 'tool_call';
    case 'opaque':
      if (part.format !== FORMAT) return undefined;
      return ownHint(part, '$content') === true ? 'content' : 'opaque';
    default:
      return undefined;
  }
}

/** A copy of `part` with `fields` merged into its `openai-responses` extensions. */
function withHints(part: Part, fields: JsonObject): Part {
  const extensions = { ...part.extensions, [FORMAT]: { ...part.extensions?.[FORMAT], ...fields } };
  return { ...part, extensions } as Part;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/**
 * Whether a wire delta with these address fields (type, `item_id`,
 * `output_index`, `content_index`, `summary_index`) is the one of wire type
 * `type` that `fastDelta` writes for `event` to `slot`: what
 * `OutputWriter.matchDelta` (a parsed event) and `OutputWriter.matchKnown`
 * (a template's fields) both compare.
 */
function sameAddress(
  slot: PartSlot,
  event: TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent,
  type: string,
  wireType: unknown,
  itemId: unknown,
  outputIndex: unknown,
  contentIndex: unknown,
  summaryIndex: unknown,
): boolean {
  if (wireType !== type || itemId !== slot.item.itemId || outputIndex !== slot.item.outputIndex) return false;
  switch (type) {
    case 'response.output_text.delta':
      return contentIndex === slot.contentIndex;
    case 'response.reasoning_summary_text.delta':
      return summaryIndex === ((event as ReasoningDeltaEvent).summaryIndex ?? 0);
    case 'response.reasoning_text.delta':
      return contentIndex === 0;
    default:
      return true;
  }
}

/** Output items and content parts of one response being written. */
export class OutputWriter {
  private readonly slots = new Map<number, PartSlot>();
  /** The items written in `response.output_item.done`, by output index: the terminal response's output. */
  private readonly doneItems: JsonObject[] = [];
  private openMessage: ItemSlot | undefined;
  private nextOutput = 0;

  constructor(private readonly losses: LossCollector) {}

  /** Opaque reasoning state for a reasoning part (open or closed): it goes into the item. */
  signature(index: number, state: ReasoningPart['state']): void {
    const slot = this.slots.get(index);
    if (slot?.part.type === 'reasoning' && state !== undefined) slot.part = { ...slot.part, state };
  }

  /** A part opens: its item (and content part) is announced. */
  partStart(index: number, part: Part, event: StreamEvent): JsonObject[] {
    // Items are encoded from arrays indexed by part index (so loss paths point at the part): bound it first.
    checkStreamIndex(index, 'part');
    const kind = kindOf(part);
    if (kind === undefined || this.slots.has(index)) {
      if (kind === undefined) {
        this.losses.add('unsupported_part', pointer('/candidates/0/message/parts', index), `${part.type === 'opaque' ? `${part.format} "${part.blockType}" block` : `${/^[aeiou]/.test(part.type) ? 'an' : 'a'} ${part.type} part`} cannot be streamed as OpenAI Responses output; dropped`);
      }
      return [];
    }
    const sameItem = streamHint(event, SAME_ITEM) === true && this.openMessage?.open === true;
    const foreign = !sameItem && part.extensions?.[FORMAT] === undefined;
    if (kind === 'text' || kind === 'refusal' || kind === 'content') return this.startContent(index, part, kind, foreign, sameItem);
    const out = this.closeMessage();
    const outputIndex = this.nextOutput++;
    let working = this.initialItemPart(part, outputIndex, foreign);
    const added = this.encodeItemOf(index, working, outputIndex, foreign, scratch());
    const item: ItemSlot = { outputIndex, itemId: stringOr(added['id'], `item_${outputIndex}`), parts: [index], open: true };
    if (kind === 'tool_call' && foreign) working = withHints(working, { $status: 'completed' });
    const textAsSummary = foreign && part.type === 'reasoning' && part.summary === undefined;
    this.slots.set(index, { index, kind, item, contentIndex: 0, part: working, foreign, summary: undefined, reasoningText: false, textAsSummary, ended: false });
    out.push({ type: 'response.output_item.added', output_index: outputIndex, item: added });
    return out;
  }

  /** The first form of an item-level part, as written in `response.output_item.added`. */
  private initialItemPart(part: Part, outputIndex: number, foreign: boolean): Part {
    switch (part.type) {
      case 'reasoning': {
        // The id of a foreign reasoning item is made up (and reported) by the non-streaming encoder; see encodeItemOf.
        const { summary: _summary, ...rest } = part;
        const initial: ReasoningPart = { ...rest, text: '' };
        return initial;
      }
      case 'tool_call': {
        const initial: Part = { ...part, arguments: undefined, rawArguments: '' };
        return foreign ? withHints(initial, { $id: `fc_interlingua_${outputIndex}`, $status: 'in_progress' }) : initial;
      }
      default:
        return part;
    }
  }

  private startContent(index: number, part: Part, kind: PartKind, foreign: boolean, sameItem: boolean): JsonObject[] {
    const out: JsonObject[] = [];
    let working: Part = part.type === 'text' || part.type === 'refusal' ? { ...part, text: '' } : part;
    let message = this.openMessage;
    if (message === undefined || !message.open || (!sameItem && (foreign || ownHint(working, '$item') !== undefined))) {
      out.push(...this.closeMessage());
      const outputIndex = this.nextOutput++;
      if (foreign) {
        working = withHints(working, { $item: { type: true, id: `msg_interlingua_${outputIndex}`, status: 'in_progress' } });
        this.losses.add('synthesised_id', pointer('/candidates/0/message/parts', index), 'message item id made up by interlingua', 'info');
      }
      const added: JsonObject = { ...encodeItem(this.sparse(index, working), scratch()), content: [] };
      message = { outputIndex, itemId: stringOr(added['id'], `msg_interlingua_${outputIndex}`), parts: [], open: true };
      this.openMessage = message;
      out.push({ type: 'response.output_item.added', output_index: outputIndex, item: added });
    }
    const contentIndex = message.parts.length;
    message.parts.push(index);
    const slot: PartSlot = { index, kind, item: message, contentIndex, part: working, foreign, summary: undefined, reasoningText: false, textAsSummary: false, ended: false };
    this.slots.set(index, slot);
    out.push({ type: 'response.content_part.added', ...this.address(slot), part: this.contentOf(working) });
    return out;
  }

  /** One part as its output item; a foreign reasoning item gets an id that follows its output index. */
  private encodeItemOf(index: number, part: Part, outputIndex: number, foreign: boolean, losses: LossCollector): JsonObject {
    const item = encodeItem(this.sparse(index, part), losses) ?? {};
    if (foreign && part.type === 'reasoning' && part.id === undefined) item['id'] = `rs_interlingua_${outputIndex}`;
    return item;
  }

  private sparse(index: number, part: Part): Part[] {
    const parts: Part[] = [];
    parts[index] = part;
    return parts;
  }

  /** The content part a text, refusal or opaque content part is written as. */
  private contentOf(part: Part): JsonObject {
    const item = encodeItem([withHints(part, { $item: { type: true, id: 'msg' } })], scratch());
    const content = item?.['content'];
    return Array.isArray(content) && isObject(content[0]) ? content[0] : {};
  }

  private address(slot: PartSlot): JsonObject {
    return { item_id: slot.item.itemId, output_index: slot.item.outputIndex, content_index: slot.contentIndex };
  }

  private itemAddress(slot: PartSlot): JsonObject {
    return { item_id: slot.item.itemId, output_index: slot.item.outputIndex };
  }

  private live(index: number): PartSlot | undefined {
    const slot = this.slots.get(index);
    return slot === undefined || slot.ended ? undefined : slot;
  }

  /**
   * The SSE message of the wire event an IR delta without hints stands for,
   * numbered `seq`, with the state change the general methods below make;
   * `undefined` when the event takes the general path (nothing changed).
   * The text around the sequence number and the delta is kept on the slot
   * for the next delta of the same kind. The decoder's shadow compares
   * through {@link matchDelta}.
   */
  fastDelta(event: TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent, seq: number): SseMessage | undefined {
    const slot = this.live(event.index);
    if (slot === undefined) return undefined;
    const type = this.fastType(slot, event);
    if (type === undefined) return undefined;
    this.grow(slot, event);
    const summary = event.type === 'reasoning_delta' ? (event.summaryIndex ?? 0) : 0;
    if (slot.fastType !== type || slot.fastSummary !== summary) this.fastText(slot, type, summary);
    const delta = event.type === 'tool_call_delta' ? event.arguments : event.text;
    return { event: type, data: `${slot.fastHead!}${seq}${slot.fastMiddle!}${jsonString(delta)}${slot.fastEnd!}` };
  }

  /** The text of a {@link fastDelta} message of `type` around its sequence number and delta, for `slot`. */
  private fastText(slot: PartSlot, type: string, summary: number): void {
    slot.fastType = type;
    slot.fastSummary = summary;
    slot.fastHead = `{"type":"${type}","sequence_number":`;
    const item = `,"item_id":${JSON.stringify(slot.item.itemId)},"output_index":${slot.item.outputIndex}`;
    slot.fastEnd = '}';
    switch (type) {
      case 'response.output_text.delta':
        slot.fastMiddle = `${item},"content_index":${slot.contentIndex},"delta":`;
        slot.fastEnd = ',"logprobs":[]}';
        return;
      case 'response.reasoning_summary_text.delta':
        slot.fastMiddle = `${item},"summary_index":${summary},"delta":`;
        return;
      case 'response.reasoning_text.delta':
        slot.fastMiddle = `${item},"content_index":0,"delta":`;
        return;
      default:
        slot.fastMiddle = `${item},"delta":`;
    }
  }

  /** The type of the wire event {@link fastDelta} writes for `event` to `slot`; `undefined` when it takes the general path. Changes nothing. */
  private fastType(slot: PartSlot, event: TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent): string | undefined {
    const part = slot.part;
    switch (event.type) {
      case 'text_delta':
        return slot.kind === 'text' && part.type === 'text' ? 'response.output_text.delta' : undefined;
      case 'tool_call_delta':
        if (part.type !== 'tool_call') return undefined;
        return part.kind === 'custom' ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta';
      case 'reasoning_delta': {
        if (part.type !== 'reasoning' || event.text === '') return undefined;
        const summaryIndex = event.summaryIndex;
        // Reasoning text of another format is written as summary 0.
        if (summaryIndex !== undefined || slot.textAsSummary) return slot.summary === (summaryIndex ?? 0) ? 'response.reasoning_summary_text.delta' : undefined;
        return slot.reasoningText ? 'response.reasoning_text.delta' : undefined;
      }
    }
  }

  /** Grow the working part of `slot` by `event`, a delta that takes {@link fastDelta}'s path. */
  private grow(slot: PartSlot, event: TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent): void {
    switch (event.type) {
      case 'text_delta':
        this.own(slot).text += event.text;
        return;
      case 'tool_call_delta': {
        const own = this.own(slot) as unknown as ToolCallPart;
        own.rawArguments = (own.rawArguments ?? '') + event.arguments;
        return;
      }
      case 'reasoning_delta': {
        const summaryIndex = event.summaryIndex;
        if (summaryIndex !== undefined) {
          const summary = this.ownSummary(slot);
          summary[summaryIndex] = (summary[summaryIndex] ?? '') + event.text;
        } else {
          this.own(slot).text += event.text;
        }
      }
    }
  }

  /**
   * For the decoder's comparison: when `event` takes {@link fastDelta}'s path,
   * apply it and say whether `wire` is the event it stands for, numbered
   * `seq` (compared as `jsonEqual` would compare it with the object `expand`
   * builds); `undefined` when it takes the general path (nothing applied).
   */
  matchDelta(event: TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent, wire: JsonObject, seq: number): boolean | undefined {
    const slot = this.live(event.index);
    if (slot === undefined) return undefined;
    const type = this.fastType(slot, event);
    if (type === undefined) return undefined;
    this.grow(slot, event);
    if (wire['sequence_number'] !== seq || !sameAddress(slot, event, type, wire['type'], wire['item_id'], wire['output_index'], wire['content_index'], wire['summary_index'])) return false;
    let keys = 5;
    switch (type) {
      case 'response.output_text.delta': {
        const logprobs = wire['logprobs'];
        if (!Array.isArray(logprobs) || logprobs.length !== 0 || wire['delta'] !== (event as TextDeltaEvent).text) return false;
        keys = 7;
        break;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (wire['delta'] !== (event as ReasoningDeltaEvent).text) return false;
        keys = 6;
        break;
      default:
        if (wire['delta'] !== (event as ToolCallDeltaEvent).arguments) return false;
    }
    for (const key in wire) if (wire[key] !== undefined) keys--;
    return keys === 0;
  }

  /**
   * {@link matchDelta} for the decoder's text path, without the wire event:
   * whether a wire event with the fields `known` (as another event had
   * them when it matched, keys and `logprobs` alike), the delta of `event`
   * and the right sequence number matches `event`. The delta is applied
   * only when it does.
   */
  matchKnown(event: TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent, known: KnownDelta): boolean {
    const slot = this.live(event.index);
    if (slot === undefined) return false;
    const type = this.fastType(slot, event);
    if (type === undefined || !sameAddress(slot, event, type, known.type, known.itemId, known.outputIndex, known.content, known.summary)) return false;
    this.grow(slot, event);
    return true;
  }

  /** The slot's working part as the writer's own copy (made once), to grow in place. */
  private own(slot: PartSlot): { text: string } & Part {
    if (slot.owned !== true) {
      slot.part = { ...slot.part };
      slot.owned = true;
      slot.summaryOwned = false;
    }
    return slot.part as { text: string } & Part;
  }

  /** The summaries of the slot's reasoning part as the writer's own array (made once), to grow in place. */
  private ownSummary(slot: PartSlot): string[] {
    const part = this.own(slot) as unknown as ReasoningPart;
    if (slot.summaryOwned !== true) {
      part.summary = [...(part.summary ?? [])];
      slot.summaryOwned = true;
    }
    return part.summary!;
  }

  /** Text for an open text or refusal part. */
  textDelta(index: number, text: string, event: StreamEvent): JsonObject[] {
    const slot = this.live(index);
    if (slot === undefined || (slot.part.type !== 'text' && slot.part.type !== 'refusal')) return [];
    this.own(slot).text += text;
    if (slot.kind === 'refusal') return [withObfuscation({ type: 'response.refusal.delta', ...this.address(slot), delta: text }, event)];
    const data: JsonObject = { type: 'response.output_text.delta', ...this.address(slot), delta: text };
    setLogprobs(data, event);
    return [withObfuscation(data, event)];
  }

  /** Reasoning summary text (`summaryIndex`) or reasoning text for an open reasoning part. */
  reasoningDelta(index: number, text: string, summaryIndex: number | undefined, event: StreamEvent): JsonObject[] {
    const slot = this.live(index);
    if (slot === undefined || slot.part.type !== 'reasoning') return [];
    const part = slot.part;
    const out: JsonObject[] = [];
    let opened = false;
    if (summaryIndex === undefined && slot.textAsSummary) {
      if (slot.summary !== 0) {
        slot.summary = 0;
        opened = true;
        out.push({ type: 'response.reasoning_summary_part.added', ...this.itemAddress(slot), summary_index: 0, part: { type: 'summary_text', text: '' } });
      }
      this.own(slot).text += text;
      if (!opened || text !== '') {
        out.push(withObfuscation({ type: 'response.reasoning_summary_text.delta', ...this.itemAddress(slot), summary_index: 0, delta: text }, event));
      }
      return out;
    }
    if (summaryIndex !== undefined) {
      if (slot.summary !== summaryIndex) {
        out.push(...this.closeSummary(slot));
        slot.summary = summaryIndex;
        opened = true;
        out.push({ type: 'response.reasoning_summary_part.added', ...this.itemAddress(slot), summary_index: summaryIndex, part: { type: 'summary_text', text: '' } });
      }
      const summary = [...(part.summary ?? [])];
      summary[summaryIndex] = (summary[summaryIndex] ?? '') + text;
      slot.part = { ...part, summary };
      if (!opened || text !== '') {
        out.push(withObfuscation({ type: 'response.reasoning_summary_text.delta', ...this.itemAddress(slot), summary_index: summaryIndex, delta: text }, event));
      }
      return out;
    }
    if (!slot.reasoningText) {
      slot.reasoningText = true;
      opened = true;
      out.push({ type: 'response.content_part.added', ...this.itemAddress(slot), content_index: 0, part: { type: 'reasoning_text', text: '' } });
    }
    this.own(slot).text += text;
    if (!opened || text !== '') {
      out.push(withObfuscation({ type: 'response.reasoning_text.delta', ...this.itemAddress(slot), content_index: 0, delta: text }, event));
    }
    return out;
  }

  private closeSummary(slot: PartSlot): JsonObject[] {
    const index = slot.summary;
    if (index === undefined || slot.part.type !== 'reasoning') return [];
    slot.summary = undefined;
    const text = slot.textAsSummary ? slot.part.text : (slot.part.summary?.[index] ?? '');
    return [
      { type: 'response.reasoning_summary_text.done', ...this.itemAddress(slot), summary_index: index, text },
      { type: 'response.reasoning_summary_part.done', ...this.itemAddress(slot), summary_index: index, part: { type: 'summary_text', text } },
    ];
  }

  private closeReasoningText(slot: PartSlot): JsonObject[] {
    if (!slot.reasoningText || slot.part.type !== 'reasoning') return [];
    slot.reasoningText = false;
    const text = slot.part.text;
    return [
      { type: 'response.reasoning_text.done', ...this.itemAddress(slot), content_index: 0, text },
      { type: 'response.content_part.done', ...this.itemAddress(slot), content_index: 0, part: { type: 'reasoning_text', text } },
    ];
  }

  /** Argument text (or custom tool input) for an open tool call. */
  toolCallDelta(index: number, text: string, event: StreamEvent): JsonObject[] {
    const slot = this.live(index);
    if (slot === undefined || slot.part.type !== 'tool_call') return [];
    const own = this.own(slot) as unknown as ToolCallPart;
    own.rawArguments = (own.rawArguments ?? '') + text;
    const type = own.kind === 'custom' ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta';
    return [withObfuscation({ type, ...this.itemAddress(slot), delta: text }, event)];
  }

  /** A part ends: its `*.done` events and, unless more content follows, its item's `output_item.done`. */
  partEnd(index: number, final: Part | undefined, event: StreamEvent): JsonObject[] {
    const slot = this.slots.get(index);
    if (slot === undefined) return [];
    let part = final ?? slot.part;
    if (slot.foreign) part = this.foreignFinal(slot, part);
    slot.part = part;
    slot.owned = false;
    slot.summaryOwned = false;
    if (slot.ended) return [];
    slot.ended = true;
    switch (slot.kind) {
      case 'text':
        return this.endText(slot, event);
      case 'refusal':
      case 'content': {
        const out: JsonObject[] = [];
        if (part.type === 'refusal') out.push({ type: 'response.refusal.done', ...this.address(slot), refusal: part.text });
        out.push({ type: 'response.content_part.done', ...this.address(slot), part: this.contentOf(part) });
        if (streamHint(event, ITEM_OPEN) !== true) out.push(...this.closeMessage());
        return out;
      }
      case 'reasoning':
        return [...this.closeSummary(slot), ...this.closeReasoningText(slot), this.itemDone(slot)];
      case 'tool_call':
        return [...this.argumentsDone(slot, event), this.itemDone(slot)];
      case 'opaque':
        return [this.itemDone(slot)];
      default:
        return [];
    }
  }

  /** The final form of a foreign part, with the bookkeeping hints its item was written with. */
  private foreignFinal(slot: PartSlot, part: Part): Part {
    const own = slot.part.extensions?.[FORMAT];
    if (part.type === 'reasoning' && slot.part.type === 'reasoning' && part.id === undefined && slot.part.id !== undefined) {
      part = { ...part, id: slot.part.id };
    }
    if (own === undefined) return part;
    if (own['$item'] !== undefined) return withHints(part, { $item: { ...(own['$item'] as JsonObject), status: 'completed' } });
    if (own['$id'] !== undefined) return withHints(part, { $id: own['$id'], $status: 'completed' });
    return part;
  }

  private endText(slot: PartSlot, event: StreamEvent): JsonObject[] {
    const part = slot.part;
    if (part.type !== 'text') return [];
    const out: JsonObject[] = [];
    const announced = streamHint(event, ANNOTATED);
    const citations = part.citations ?? [];
    let annotationIndex = typeof announced === 'number' ? announced : 0;
    for (let index = annotationIndex; index < citations.length; index++) {
      const citation = citations[index];
      if (citation === undefined) continue;
      const annotation = encodeOpenaiResponsesAnnotation(citation, part.text.length, scratch(), '');
      if (annotation === undefined) continue;
      out.push({ type: 'response.output_text.annotation.added', ...this.address(slot), annotation_index: annotationIndex++, annotation });
    }
    const done: JsonObject = { type: 'response.output_text.done', ...this.address(slot), text: part.text };
    setLogprobs(done, event);
    out.push(done, { type: 'response.content_part.done', ...this.address(slot), part: this.contentOf(part) });
    if (streamHint(event, ITEM_OPEN) !== true) out.push(...this.closeMessage());
    return out;
  }

  private argumentsDone(slot: PartSlot, event: StreamEvent): JsonObject[] {
    const part = slot.part;
    if (part.type !== 'tool_call') return [];
    if (part.kind === 'custom') return [{ type: 'response.custom_tool_call_input.done', ...this.itemAddress(slot), input: part.rawArguments ?? '' }];
    const done: JsonObject = { type: 'response.function_call_arguments.done', ...this.itemAddress(slot), arguments: argumentsAsText(part) };
    if (streamHint(event, NO_NAME) !== true) done['name'] = part.name;
    return [done];
  }

  private itemDone(slot: PartSlot): JsonObject {
    slot.item.open = false;
    const item = this.encodeItemOf(slot.index, slot.part, slot.item.outputIndex, slot.foreign, this.losses);
    this.doneItems[slot.item.outputIndex] = item;
    return { type: 'response.output_item.done', output_index: slot.item.outputIndex, item };
  }

  /** Close the open message item, if any: `response.output_item.done` with all its content. */
  closeMessage(): JsonObject[] {
    const message = this.openMessage;
    if (message === undefined || !message.open) return [];
    message.open = false;
    this.openMessage = undefined;
    const parts: Part[] = [];
    for (const index of message.parts) {
      const part = this.slots.get(index)?.part;
      if (part !== undefined) parts[index] = part;
    }
    const item = encodeItem(parts, this.losses) ?? {};
    this.doneItems[message.outputIndex] = item;
    return [{ type: 'response.output_item.done', output_index: message.outputIndex, item }];
  }

  /**
   * The parts written so far, in the order of their IR indexes. Dense: an
   * index is the stream's to choose (a hostile one says 10,000,000), and a
   * sparse array that long costs seconds to walk.
   */
  streamedParts(): Part[] {
    return [...this.slots].sort((a, b) => a[0] - b[0]).map(([, slot]) => slot.part);
  }

  /**
   * The output items of the terminal response: the items written so far, in
   * output order (an item still open is written as it stands).
   */
  writtenOutput(): JsonObject[] {
    const items: JsonObject[] = [];
    for (let index = 0; index < this.nextOutput; index++) {
      const item = this.doneItems[index];
      if (item !== undefined) items.push(item);
    }
    return items;
  }
}

function withObfuscation(data: JsonObject, event: StreamEvent): JsonObject {
  const obfuscation = streamHint(event, OBFUSCATION);
  if (obfuscation !== undefined) data['obfuscation'] = obfuscation;
  return data;
}

function setLogprobs(data: JsonObject, event: StreamEvent): void {
  const logprobs = event.extensions?.[FORMAT]?.['logprobs'];
  if (logprobs !== undefined) data['logprobs'] = logprobs;
  else if (streamHint(event, NO_LOGPROBS) !== true) data['logprobs'] = [];
}
