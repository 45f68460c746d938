/**
 * The content blocks of an Anthropic stream, written strictly nested: one
 * block open at a time, indexes contiguous from 0 per message. Parts whose
 * events arrive while another block is open are held in order and written
 * whole after it; reasoning of unknown origin is held until an Anthropic
 * signature shows it may be sent, else dropped with a loss.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import type { Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { PartEndEvent, SseMessage, StreamEvent } from '../../core/stream-events.ts';
import { argumentsAsObject } from '../../core/tools.ts';
import { isObject, jsonString, pointer, type JsonObject } from '../../core/wire.ts';
import { encodeAnthropicCitation } from './citations.ts';
import { ANTHROPIC, hasHint } from './shape.ts';
import { TOOL_INPUT_TYPES } from './block-types.ts';
import { blockKind, blockSkeleton, partPath, sse, type BlockKind } from './stream-blocks-encode.ts';

/** A part of candidate 0 on its way to the wire. */
interface Slot {
  index: number;
  part: Part;
  kind: BlockKind | 'dropped';
  /** The wire index, once its `content_block_start` is written. */
  wire?: number;
  /** Events that arrived while another block was open (or, for pending reasoning, before its origin was known). */
  held: StreamEvent[];
  live: boolean;
  /** Characters of text or thinking already written, citations written, and whether input or a signature was. */
  sentText: number;
  sentCitations: number;
  sentInput: boolean;
  sentSignature: boolean;
  reported: boolean;
  /** The text of a custom (free-form) tool call, held to the end: Anthropic `input` must be a JSON object. */
  heldInput: string;
}

/** Writes the blocks of one message at a time. */
export interface BlockWriter {
  /** Start a new message; `hinted` when the source was an Anthropic stream (pings come from its hints). */
  reset(hinted: boolean): void;
  /** A part event of candidate 0. */
  partEvent(event: StreamEvent & { candidate: number; index: number }, out: SseMessage[]): void;
  /** Close every block still open or held, in order, as it stands. */
  closeAll(out: SseMessage[]): void;
}

const PING: SseMessage = { event: 'ping', data: JSON.stringify({ type: 'ping' }) };

/** A block writer reporting into `losses`. */
export function createBlockWriter(losses: LossCollector): BlockWriter {
  let hinted = false;
  let pinged = false;
  let nextWire = 0;
  let queue: Slot[] = [];
  let skipped = new Set<number>();

  function delta(slot: Slot, body: JsonObject): SseMessage {
    return sse({ type: 'content_block_delta', index: slot.wire ?? 0, delta: body });
  }

  /** A text, thinking or input JSON delta, written as `delta` would write it, without building the objects. */
  function textualDelta(slot: Slot, type: 'text_delta' | 'thinking_delta' | 'input_json_delta', key: 'text' | 'thinking' | 'partial_json', value: string): SseMessage {
    return { event: 'content_block_delta', data: `{"type":"content_block_delta","index":${slot.wire ?? 0},"delta":{"type":"${type}","${key}":${jsonString(value)}}}` };
  }

  function open(slot: Slot, out: SseMessage[]): void {
    const path = partPath(slot.index);
    slot.wire = nextWire++;
    const hintedText = slot.part.extensions?.anthropic?.['$startText'];
    const startText = typeof hintedText === 'string' ? hintedText : '';
    const skeleton = slot.kind === 'dropped' ? {} : blockSkeleton(slot.part, slot.kind, startText, path, losses);
    if (slot.kind === 'pending') slot.kind = 'thinking';
    slot.sentText = startText.length;
    if (Array.isArray(skeleton['citations'])) slot.sentCitations = skeleton['citations'].length;
    if (slot.part.type === 'tool_call' && isObject(slot.part.extensions?.anthropic?.['$startInput'])) slot.sentInput = true;
    out.push(sse({ type: 'content_block_start', index: slot.wire, content_block: skeleton }));
    if (!hinted && !pinged) {
      pinged = true;
      out.push(PING);
    }
    // Another format's decoder may give the first text in the part itself: send it as the first delta.
    const initial = slot.part.type === 'text' || slot.part.type === 'refusal' || slot.part.type === 'reasoning' ? slot.part.text : '';
    if (!hinted && initial.length > startText.length && skeleton['type'] !== 'redacted_thinking') {
      const rest = initial.slice(startText.length);
      slot.sentText += rest.length;
      out.push(delta(slot, skeleton['type'] === 'thinking' ? { type: 'thinking_delta', thinking: rest } : { type: 'text_delta', text: rest }));
    }
  }

  /** Make the head of the queue live: open it (unless its origin is pending) and replay what it held. */
  function goLive(slot: Slot, out: SseMessage[]): void {
    slot.live = true;
    if (slot.kind !== 'pending') open(slot, out);
    replay(slot, out);
  }

  function replay(slot: Slot, out: SseMessage[]): void {
    const held = slot.held;
    slot.held = [];
    for (const event of held) apply(slot, event, out);
  }

  function reportOnce(slot: Slot, event: StreamEvent): void {
    if (slot.reported || event.extensions === undefined) return;
    const before = losses.losses.length;
    losses.foreignExtensions(event.extensions, ANTHROPIC, partPath(slot.index));
    if (losses.losses.length > before) slot.reported = true;
  }

  function rawDelta(event: StreamEvent): JsonObject | undefined {
    const extensions = event.extensions?.anthropic;
    const raw = extensions?.['$delta'] ?? extensions?.['delta'];
    if (isObject(raw)) return raw;
    const citation = extensions?.['$citation'];
    return isObject(citation) ? { type: 'citations_delta', citation } : undefined;
  }

  function textDelta(slot: Slot, event: StreamEvent & { type: 'text_delta' }, out: SseMessage[]): void {
    const raw = rawDelta(event);
    if (raw !== undefined) {
      if (raw['type'] === 'citations_delta') slot.sentCitations++;
      out.push(delta(slot, raw));
      return;
    }
    reportOnce(slot, event);
    if (slot.kind !== 'text') return;
    slot.sentText += event.text.length;
    out.push(textualDelta(slot, 'text_delta', 'text', event.text));
  }

  function signature(slot: Slot, event: StreamEvent & { type: 'reasoning_signature' }, out: SseMessage[]): void {
    const state = event.state;
    if (state.format !== ANTHROPIC) {
      if (!slot.reported) losses.add('reasoning_state_dropped', partPath(slot.index), `${state.format} reasoning state only goes back to ${state.format}; dropped for Anthropic`);
      slot.reported = true;
      return;
    }
    if (state.kind === 'redacted') {
      slot.part = { type: 'reasoning', text: '', redacted: true, state };
      return;
    }
    slot.sentSignature = true;
    out.push(delta(slot, { type: 'signature_delta', signature: state.value }));
  }

  /**
   * Decide pending reasoning: Anthropic's own state opens the block (held
   * deltas replayed), another vendor's state or an unsigned end drops the part.
   */
  function decide(slot: Slot, event: StreamEvent, out: SseMessage[]): 'open' | 'dropped' | 'wait' {
    const state = event.type === 'reasoning_signature' ? event.state : event.type === 'part_end' && event.part?.type === 'reasoning' ? event.part.state : undefined;
    if (state?.format === ANTHROPIC) {
      if (state.kind === 'redacted') {
        slot.part = { type: 'reasoning', text: '', redacted: true, state };
        slot.kind = 'thinking';
        slot.held = [];
      }
      open(slot, out);
      replay(slot, out);
      return 'open';
    }
    if (event.type !== 'part_end' && state === undefined) return 'wait';
    slot.kind = 'dropped';
    slot.held = [];
    const message = state === undefined
      ? 'reasoning without an Anthropic signature cannot be streamed as a thinking block; dropped'
      : `${state.format} reasoning state only goes back to ${state.format}; the reasoning part was dropped for Anthropic`;
    losses.add(state === undefined ? 'unsupported_part' : 'reasoning_state_dropped', partPath(slot.index), message);
    return 'dropped';
  }

  /** What the final part has that the deltas did not carry: written before the block stops. */
  function extras(slot: Slot, part: Part | undefined, out: SseMessage[]): void {
    if (part === undefined) return;
    const path = partPath(slot.index);
    if (slot.kind === 'text' && (part.type === 'text' || part.type === 'refusal')) {
      if (part.text.length > slot.sentText) out.push(delta(slot, { type: 'text_delta', text: part.text.slice(slot.sentText) }));
      const citations = part.type === 'text' ? (part.citations ?? []) : [];
      for (let index = slot.sentCitations; index < citations.length; index++) {
        const citation = citations[index];
        const encoded = citation === undefined ? undefined : encodeAnthropicCitation(citation, pointer(path, 'citations', index), losses);
        if (encoded !== undefined) out.push(delta(slot, { type: 'citations_delta', citation: encoded }));
      }
    } else if (slot.kind === 'thinking' && part.type === 'reasoning' && part.state?.kind !== 'redacted') {
      if (part.text.length > slot.sentText) out.push(delta(slot, { type: 'thinking_delta', thinking: part.text.slice(slot.sentText) }));
      if (!slot.sentSignature && part.state?.format === ANTHROPIC && part.state.value !== '') out.push(delta(slot, { type: 'signature_delta', signature: part.state.value }));
    } else if (slot.kind === 'tool' && part.type === 'tool_call' && !slot.sentInput) {
      // As the whole-response encoder does: text that is not a JSON object goes whole under `_raw_arguments`, with a loss.
      const whole = part.kind === 'custom' && (part.rawArguments ?? '') === '' ? { ...part, rawArguments: slot.heldInput } : part;
      const input = argumentsAsObject(whole, losses, pointer(path, 'arguments'));
      if (Object.keys(input).length > 0) out.push(delta(slot, { type: 'input_json_delta', partial_json: JSON.stringify(input) }));
    }
  }

  function finishSlot(slot: Slot, event: PartEndEvent | undefined, out: SseMessage[]): void {
    if (slot.kind !== 'dropped' && slot.wire !== undefined) {
      extras(slot, event?.part ?? (slot.heldInput === '' ? undefined : slot.part), out);
      if (event === undefined || !hasHint(event, '$noStop')) out.push(sse({ type: 'content_block_stop', index: slot.wire }));
    }
    queue.shift();
    const next = queue[0];
    if (next !== undefined) goLive(next, out);
  }

  /** Apply one event to the live slot. */
  function apply(slot: Slot, event: StreamEvent, out: SseMessage[]): void {
    if (slot.kind === 'pending') {
      const decision = decide(slot, event, out);
      if (decision === 'wait') {
        slot.held.push(event);
        return;
      }
      if (decision === 'dropped' && event.type !== 'part_end') return;
    }
    if (slot.kind === 'dropped') {
      if (event.type === 'part_end') finishSlot(slot, event, out);
      return;
    }
    switch (event.type) {
      case 'text_delta':
        textDelta(slot, event, out);
        return;
      case 'reasoning_delta':
        if (slot.kind !== 'thinking') return;
        if (event.summaryIndex !== undefined) {
          if (!slot.reported) losses.add('dropped_field', partPath(slot.index), 'Anthropic thinking has no summaries; the reasoning summary was dropped');
          slot.reported = true;
          return;
        }
        slot.sentText += event.text.length;
        out.push(textualDelta(slot, 'thinking_delta', 'thinking', event.text));
        return;
      case 'reasoning_signature':
        if (slot.kind === 'thinking') signature(slot, event, out);
        return;
      case 'tool_call_delta': {
        const type = slot.kind === 'opaque' && slot.part.type === 'opaque' && isObject(slot.part.value) ? slot.part.value['type'] : slot.kind === 'tool' ? 'tool_use' : undefined;
        if (typeof type !== 'string' || !TOOL_INPUT_TYPES.has(type)) return;
        if (slot.part.type === 'tool_call' && slot.part.kind === 'custom') {
          slot.heldInput += event.arguments;
          return;
        }
        slot.sentInput = true;
        out.push(textualDelta(slot, 'input_json_delta', 'partial_json', event.arguments));
        return;
      }
      case 'part_end':
        finishSlot(slot, event, out);
        return;
      default:
        // start, usage, finish, error and end are message-level: the encoder handles them.
        return;
    }
  }

  function partStart(event: StreamEvent & { type: 'part_start' }, out: SseMessage[]): void {
    const kind = blockKind(event.part, partPath(event.index), losses);
    if (kind === undefined) {
      skipped.add(event.index);
      return;
    }
    skipped.delete(event.index);
    const slot: Slot = { index: event.index, part: event.part, kind, held: [], live: false, sentText: 0, sentCitations: 0, sentInput: false, sentSignature: false, reported: false, heldInput: '' };
    queue.push(slot);
    if (queue.length === 1) goLive(slot, out);
  }

  function partEvent(event: StreamEvent & { candidate: number; index: number }, out: SseMessage[]): void {
    if (event.type === 'part_start') {
      partStart(event, out);
      return;
    }
    if (skipped.has(event.index)) return;
    const slot = queue.find((item) => item.index === event.index);
    if (slot === undefined) return;
    if (slot.live) apply(slot, event, out);
    else slot.held.push(event);
  }

  function closeAll(out: SseMessage[]): void {
    while (queue[0] !== undefined) {
      const slot = queue[0];
      if (!slot.live) goLive(slot, out);
      if (queue[0] !== slot) continue;
      if (slot.kind === 'pending') decide(slot, { type: 'part_end', candidate: 0, index: slot.index }, out);
      finishSlot(slot, undefined, out);
    }
  }

  return {
    reset(isHinted: boolean): void {
      hinted = isHinted;
      pinged = false;
      nextWire = 0;
      queue = [];
      skipped = new Set();
    },
    partEvent,
    closeAll,
  };
}
