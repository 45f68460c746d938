/**
 * One candidate of a Gemini stream as its parts arrive: the part it is
 * building and the IR events each wire part makes. Text (and thought)
 * pieces extend the open part of their kind until the kind changes or a
 * `thoughtSignature` closes the part (a signature belongs to exactly the part
 * it arrived on); a `functionCall` arrives whole, or on Vertex AI as a head
 * plus `partialArgs` pieces; any other part is whole. The chunks around the
 * candidates are `stream-decode.ts`'s.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { Citation, Part, ReasoningPart, TextPart, ToolCallPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { StreamEvent } from '../../core/stream-events.ts';
import { expectObject, hint, isObject, type JsonObject } from '../../core/wire.ts';
import { decodeGeminiGrounding } from './grounding.ts';
import { decodeGeminiPart } from './parts-decode.ts';
import type { PartScope } from './parts.ts';
import { foldPartialArguments, PartialArguments } from './stream-chunk.ts';

/** The part a candidate is building. */
type OpenPart =
  | { kind: 'text'; index: number; text: string; signature?: string; sealed: boolean; citations?: Citation[] }
  | { kind: 'reasoning'; index: number; sealed: boolean }
  | { kind: 'call'; index: number; call: ToolCallPart; partial: PartialArguments };

/** What the decoder remembers per candidate, and the events its parts make. */
export class CandidateState {
  /** The index of the next part. */
  next = 0;
  open: OpenPart | undefined = undefined;
  finished = false;
  hasToolCalls = false;

  constructor(private readonly candidate: number) {}

  readPart(value: unknown, path: string, scope: PartScope, events: StreamEvent[]): void {
    const wire = expectObject(value, path, 'gemini');
    const text = wire['text'];
    if (typeof text === 'string' && soleKey(wire)) {
      // The common chunk: one plain text part (what `decodeGeminiPart` makes of it, without its key scan).
      this.textPiece({ type: 'text', text }, events);
      return;
    }
    const call = wire['functionCall'] ?? wire['function_call'];
    if (this.open?.kind === 'call' && isObject(call) && call['name'] === undefined) {
      this.continueCall(this.open, wire, call, events);
      return;
    }
    const part = decodeGeminiPart(wire, path, this.next, scope);
    switch (part.type) {
      case 'text':
        this.textPiece(part, events);
        return;
      case 'reasoning':
        this.reasoningPiece(part, events);
        return;
      case 'tool_call':
        this.toolCall(foldPartialArguments(part), events);
        return;
      default:
        this.wholePart(part, events);
    }
  }

  private openNew(events: StreamEvent[]): number {
    this.closeOpen(events);
    return this.next++;
  }

  textPiece(part: TextPart, events: StreamEvent[]): void {
    let open = this.open;
    if (open?.kind !== 'text' || open.sealed) {
      const index = this.openNew(events);
      open = { kind: 'text', index, text: '', sealed: false };
      this.open = open;
      events.push({ type: 'part_start', candidate: this.candidate, index, part: { type: 'text', text: '' } });
    }
    const delta: StreamEvent = { type: 'text_delta', candidate: this.candidate, index: open.index, text: part.text };
    const gemini = part.extensions?.gemini;
    if (gemini !== undefined) delta.extensions = { gemini: { ...gemini } };
    events.push(delta);
    open.text += part.text;
    const signature = gemini?.['thoughtSignature'];
    if (typeof signature === 'string') {
      open.signature = signature;
      open.sealed = true;
    }
  }

  private reasoningPiece(part: ReasoningPart, events: StreamEvent[]): void {
    let open = this.open;
    if (open?.kind !== 'reasoning' || open.sealed) {
      const index = this.openNew(events);
      open = { kind: 'reasoning', index, sealed: false };
      this.open = open;
      const start: StreamEvent = { type: 'part_start', candidate: this.candidate, index, part: { type: 'reasoning', text: '' } };
      hint(start.part, 'gemini', '$thought', true);
      events.push(start);
    }
    const delta: StreamEvent = { type: 'reasoning_delta', candidate: this.candidate, index: open.index, text: part.text };
    const { $thought: _thought, ...rest } = part.extensions?.gemini ?? {};
    if (Object.keys(rest).length > 0) delta.extensions = { gemini: rest };
    events.push(delta);
    if (part.state !== undefined) {
      events.push({ type: 'reasoning_signature', candidate: this.candidate, index: open.index, state: part.state });
      open.sealed = true;
    }
  }

  private toolCall(part: ToolCallPart, events: StreamEvent[]): void {
    const index = this.openNew(events);
    this.hasToolCalls = true;
    const functionCall = part.extensions?.gemini?.['functionCall'];
    const streamed = isObject(functionCall) && functionCall['willContinue'] === true;
    const { arguments: _arguments, rawArguments: _raw, ...head } = streamed ? withoutWillContinue(part, true) : part;
    events.push({ type: 'part_start', candidate: this.candidate, index, part: { ...head, arguments: undefined, rawArguments: '' } });
    if (streamed) {
      // Vertex AI streams the arguments in `partialArgs` pieces that follow this head.
      this.open = { kind: 'call', index, call: part, partial: new PartialArguments() };
      return;
    }
    events.push({ type: 'tool_call_delta', candidate: this.candidate, index, arguments: JSON.stringify(part.arguments ?? {}) });
    events.push({ type: 'part_end', candidate: this.candidate, index, part });
  }

  private continueCall(open: OpenPart & { kind: 'call' }, wire: JsonObject, call: JsonObject, events: StreamEvent[]): void {
    open.partial.apply(call['partialArgs']);
    const last = call['willContinue'] !== true;
    events.push({
      type: 'tool_call_delta',
      candidate: this.candidate,
      index: open.index,
      arguments: last ? JSON.stringify(open.partial.value) : '',
      extensions: { gemini: { $wire: wire } },
    });
    if (last) this.closeOpen(events);
  }

  private wholePart(part: Part, events: StreamEvent[]): void {
    const index = this.openNew(events);
    events.push({ type: 'part_start', candidate: this.candidate, index, part }, { type: 'part_end', candidate: this.candidate, index });
  }

  /**
   * A chunk's grounding (mostly the last chunk's): its supports name byte
   * ranges of the whole text streamed so far, so they become citations of
   * the open text part, given with its final form at `part_end`. Supports
   * of parts already closed have no event to go on. True when the grounding
   * was the citations' whole (see `decodeGeminiGrounding`).
   */
  ground(metadata: unknown, path: string, losses: LossCollector): boolean {
    const open = this.open;
    if (open?.kind !== 'text') return false;
    const part: TextPart = { type: 'text', text: open.text };
    const parts: Part[] = [];
    parts[open.index] = part;
    const grounded = decodeGeminiGrounding(metadata, { role: 'assistant', parts }, path, losses, open.index);
    if (part.citations !== undefined) (open.citations ??= []).push(...part.citations);
    return grounded;
  }

  closeOpen(events: StreamEvent[]): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    const end: StreamEvent = { type: 'part_end', candidate: this.candidate, index: open.index };
    if (open.kind === 'text' && (open.signature !== undefined || open.citations !== undefined)) {
      const part: TextPart = { type: 'text', text: open.text };
      if (open.citations !== undefined) part.citations = open.citations;
      if (open.signature !== undefined) part.extensions = { gemini: { thoughtSignature: open.signature } };
      end.part = part;
    } else if (open.kind === 'call') {
      end.part = finalCall(open.call, open.partial.value);
    }
    events.push(end);
  }
}

/** A streamed call's final form: the folded arguments, without the head's `willContinue`. */
function finalCall(head: ToolCallPart, args: Record<string, unknown>): ToolCallPart {
  return { ...withoutWillContinue(head, false), arguments: args };
}

/**
 * The call without the streaming flag `functionCall.willContinue` (no meaning
 * outside the stream). The head keeps it as the hint `$willContinue` and its
 * `$noArgs`; the final form has its arguments and keeps neither.
 */
function withoutWillContinue(part: ToolCallPart, head: boolean): ToolCallPart {
  const gemini = part.extensions?.gemini;
  if (gemini === undefined) return { ...part };
  const { functionCall, $noArgs, ...rest } = gemini;
  if (isObject(functionCall)) {
    const { willContinue: _willContinue, ...callRest } = functionCall;
    if (Object.keys(callRest).length > 0) rest['functionCall'] = callRest;
  }
  if (head) {
    rest['$willContinue'] = true;
    if ($noArgs !== undefined) rest['$noArgs'] = $noArgs;
  }
  return { ...part, extensions: { ...part.extensions, gemini: rest } };
}

/** `object` has exactly one own key (the one the caller has read). */
function soleKey(object: JsonObject): boolean {
  let count = 0;
  for (const key in object) {
    void key;
    if (++count > 1) return false;
  }
  return count === 1;
}
