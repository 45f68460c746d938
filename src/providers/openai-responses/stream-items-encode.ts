/**
 * The output half of the OpenAI Responses stream writer: output items and
 * their content parts. Each IR part of candidate 0 becomes an output item
 * (reasoning, function or custom tool call, built-in item) or a content part
 * of a message item; the writer keeps a working copy of each part, writes
 * `output_item.added` / `content_part.added`, the deltas (its base class
 * `DeltaWriter`, in stream-deltas-encode.ts), the `*.done` events and
 * `output_item.done` with the item the non-streaming encoder makes of the
 * final part, and keeps those items for the terminal response.
 *
 * Parts of other formats get interlingua's item ids (`msg_interlingua_<n>`,
 * `rs_interlingua_<n>`, `fc_interlingua_<n>`, `ctc_interlingua_<n>`); their reasoning text is
 * written as summary 0, as the non-streaming encoder writes it.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { Part, ReasoningPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { checkStreamIndex, type StreamEvent } from '../../core/stream-events.ts';
import { argumentsAsText } from '../../core/tools.ts';
import { isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiResponsesAnnotation } from './citations.ts';
import { FORMAT, ownHint } from './shape.ts';
import { DeltaWriter, setLogprobs, type ItemSlot, type PartKind, type PartSlot } from './stream-deltas-encode.ts';
import { ANNOTATED, encodeItem, ITEM_OPEN, NO_NAME, SAME_ITEM, scratch, streamHint } from './stream-event.ts';
import { callItemPrefix } from './tool-items.ts';

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

/** The hint a foreign text part is written with: its output_text carries the empty `logprobs` OpenAI's own text parts carry. */
const FOREIGN_TEXT: JsonObject = { $emptyLogprobs: true };

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
/** Output items and content parts of one response being written (the deltas that grow them: {@link DeltaWriter}). */
export class OutputWriter extends DeltaWriter {
  /** The items written in `response.output_item.done`, by output index: the terminal response's output. */
  private readonly doneItems: JsonObject[] = [];
  private openMessage: ItemSlot | undefined;
  private nextOutput = 0;

  constructor(private readonly losses: LossCollector) {
    super();
  }

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
        return foreign ? withHints(initial, { $id: `${callItemPrefix(part)}${outputIndex}`, $status: 'in_progress' }) : initial;
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
    // OpenAI's output_text parts carry `logprobs` (the spec requires it, its streams send `[]`): another format's text has none to give.
    if (foreign && working.type === 'text') working = withHints(working, FOREIGN_TEXT);
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

  private closeReasoningText(slot: PartSlot): JsonObject[] {
    if (!slot.reasoningText || slot.part.type !== 'reasoning') return [];
    slot.reasoningText = false;
    const text = slot.part.text;
    return [
      { type: 'response.reasoning_text.done', ...this.itemAddress(slot), content_index: 0, text },
      { type: 'response.content_part.done', ...this.itemAddress(slot), content_index: 0, part: { type: 'reasoning_text', text } },
    ];
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
    if (own['$emptyLogprobs'] === true) part = withHints(part, FOREIGN_TEXT);
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
