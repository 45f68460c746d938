/**
 * The delta half of the OpenAI Responses stream writer: the parts being
 * written (one slot each, with a working copy of the part) and the deltas
 * that grow them. An IR delta without hints takes the direct path
 * (`fastDelta`: one SSE message built as text around the delta, with the
 * text kept on the slot for the next delta of its kind), which the
 * decoder's shadow compares through `matchDelta` and `matchKnown`; any other
 * takes the general path (`textDelta`, `reasoningDelta`, `toolCallDelta`).
 * The item half, `OutputWriter` in stream-items-encode.ts, opens and closes
 * the slots.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { Part, ReasoningPart, ToolCallPart } from '../../core/ir.ts';
import type { ReasoningDeltaEvent, SseMessage, StreamEvent, TextDeltaEvent, ToolCallDeltaEvent } from '../../core/stream-events.ts';
import { jsonString, type JsonObject } from '../../core/wire.ts';
import { FORMAT } from './shape.ts';
import { NO_LOGPROBS, OBFUSCATION, streamHint } from './stream-event.ts';

/**
 * What {@link DeltaWriter.matchDelta} compares of a wire delta but its
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
export type PartKind = 'text' | 'refusal' | 'content' | 'reasoning' | 'tool_call' | 'opaque';

/** One output item being written. */
export interface ItemSlot {
  outputIndex: number;
  itemId: string;
  /** IR indexes of its parts (a message item's content parts in order). */
  parts: number[];
  open: boolean;
}

/** One part of candidate 0 being written, with its working copy. */
export interface PartSlot {
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
  /** The wire type and summary index of the last {@link DeltaWriter.fastDelta} message, and its text before the sequence number, between it and the delta, and after the delta. */
  fastType?: string;
  fastSummary?: number;
  fastHead?: string;
  fastMiddle?: string;
  fastEnd?: string;
}

/**
 * Whether a wire delta with these address fields (type, `item_id`,
 * `output_index`, `content_index`, `summary_index`) is the one of wire type
 * `type` that `fastDelta` writes for `event` to `slot`: what
 * `DeltaWriter.matchDelta` (a parsed event) and `DeltaWriter.matchKnown`
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

/** The parts of candidate 0 being written, and their deltas (the base of `OutputWriter`). */
export class DeltaWriter {
  protected readonly slots = new Map<number, PartSlot>();

  protected address(slot: PartSlot): JsonObject {
    return { item_id: slot.item.itemId, output_index: slot.item.outputIndex, content_index: slot.contentIndex };
  }

  protected itemAddress(slot: PartSlot): JsonObject {
    return { item_id: slot.item.itemId, output_index: slot.item.outputIndex };
  }

  protected live(index: number): PartSlot | undefined {
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

  protected closeSummary(slot: PartSlot): JsonObject[] {
    const index = slot.summary;
    if (index === undefined || slot.part.type !== 'reasoning') return [];
    slot.summary = undefined;
    const text = slot.textAsSummary ? slot.part.text : (slot.part.summary?.[index] ?? '');
    return [
      { type: 'response.reasoning_summary_text.done', ...this.itemAddress(slot), summary_index: index, text },
      { type: 'response.reasoning_summary_part.done', ...this.itemAddress(slot), summary_index: index, part: { type: 'summary_text', text } },
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
}

function withObfuscation(data: JsonObject, event: StreamEvent): JsonObject {
  const obfuscation = streamHint(event, OBFUSCATION);
  if (obfuscation !== undefined) data['obfuscation'] = obfuscation;
  return data;
}

export function setLogprobs(data: JsonObject, event: StreamEvent): void {
  const logprobs = event.extensions?.[FORMAT]?.['logprobs'];
  if (logprobs !== undefined) data['logprobs'] = logprobs;
  else if (streamHint(event, NO_LOGPROBS) !== true) data['logprobs'] = [];
}
