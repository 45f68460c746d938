/**
 * IR stream events → Gemini `streamGenerateContent?alt=sse` chunks.
 *
 * Events from the Gemini decoder carry their chunk boundaries and shapes
 * (see `stream-chunk.ts`) and are rebuilt chunk for chunk. Events from any
 * other decoder become one chunk per text delta, one per whole part (a
 * function call is sent whole when its part ends), and a last chunk with the
 * finish reasons and usage. Gemini has no terminator event and no start
 * event; the model comes from the start event or `context.model` (the URL).
 * This file follows the events; the chunk they fill, and how it is written,
 * is `stream-chunk-encode.ts`.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Part, ReasoningPart, ReasoningState, StopReason, TextPart, ToolCallPart, Usage } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { SseMessage, StreamEncoder, StreamEvent } from '../../core/stream-events.ts';
import { CallNames, parseArguments } from '../../core/tools.ts';
import { isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { encodeGeminiError } from './error.ts';
import { encodeGeminiFinishReason } from './stop-reason.ts';
import { encodeGeminiUsage } from './usage.ts';
import { encodeGeminiPart } from './parts-encode.ts';
import type { EncodePartScope } from './parts.ts';
import { chunkShapeOf, geminiOf, unfoldPartialArguments, type ChunkShape } from './stream-chunk.ts';
import { ChunkWriter, copyFields, type LastWire } from './stream-chunk-encode.ts';
import { GroundingWriter } from './grounding.ts';

/** An IR part the encoder is following. */
interface PartState {
  part: Part;
  /** Reasoning: sent as it streams (Gemini's own), held until its end (origin unknown yet), or dropped. */
  mode: 'stream' | 'hold';
  text: string;
  args: string;
  state?: ReasoningState;
  /** The head of a Vertex streamed call was sent at its start; its pieces follow as deltas. */
  streamed: boolean;
  signatureSent: boolean;
  /** Characters of text written for a text part (from a foreign stream), so its end can add what the deltas missed. */
  sentText: number;
  /** Where a foreign text part starts in its candidate's text. */
  textStart?: number;
  /** The last wire part written for this IR part, while its chunk is still open. */
  last?: LastWire;
}

/** A fresh Gemini stream encoder. */
export function createGeminiStreamEncoder(context: CodecContext): StreamEncoder {
  return new GeminiStreamEncoder(context);
}

class GeminiStreamEncoder implements StreamEncoder {
  private done = false;
  private readonly chunk: ChunkWriter;
  private startFields: JsonObject | undefined;
  private createTime: string | undefined;
  private readonly parts = new Map<string, PartState>();
  /** Finish reasons and usage of a foreign stream, sent in the last chunk. */
  private readonly tailFinishes = new Map<number, StopReason>();
  /** The citations of a foreign stream's text parts, per candidate, written with its finish on the last chunk. */
  private readonly grounding = new Map<number, GroundingWriter>();
  private readonly texts = new Map<number, string>();
  private text0 = '';
  private tailUsage: Usage | undefined;
  private readonly scope: EncodePartScope;

  constructor(private readonly context: CodecContext) {
    this.chunk = new ChunkWriter(context.model);
    this.scope = { losses: context.losses, names: new CallNames() };
  }

  encode(event: StreamEvent): SseMessage[] {
    if (this.done) return [];
    const gemini = geminiOf(event);
    const hinted = gemini?.['$more'] === true || gemini?.['$chunk'] !== undefined;
    const out: SseMessage[] = [];
    switch (event.type) {
      case 'start':
        this.start(event, hinted);
        break;
      case 'part_start':
        this.partStart(event.candidate, event.index, event.part, hinted);
        break;
      case 'text_delta':
        this.textDelta(event.candidate, event.index, event.text, gemini, hinted);
        break;
      case 'reasoning_delta':
        this.reasoningDelta(event.candidate, event.index, event.text, gemini);
        break;
      case 'reasoning_signature':
        this.reasoningSignature(event.candidate, event.index, event.state);
        break;
      case 'tool_call_delta':
        this.toolCallDelta(event.candidate, event.index, event.arguments, gemini);
        break;
      case 'part_end':
        this.partEnd(event.candidate, event.index, event.part);
        break;
      case 'usage':
        if (gemini?.['$carrier'] === true) break;
        if (hinted) this.chunk.usage = encodeGeminiUsage(event.usage, this.context.losses, '/usage');
        else {
          this.context.losses.foreignExtensions(event.extensions, 'gemini', '/usage');
          this.tailUsage = { ...this.tailUsage, ...event.usage };
        }
        break;
      case 'finish':
        if (gemini?.['$promptBlocked'] === true) break;
        if (hinted) this.chunk.finishes.set(event.candidate, this.finishReason(event.candidate, event.stopReason));
        else {
          this.context.losses.foreignExtensions(event.extensions, 'gemini', pointer('/candidates', event.candidate));
          this.tailFinishes.set(event.candidate, event.stopReason);
        }
        break;
      case 'error':
        this.emitOpenChunk(out);
        this.emitTail(out);
        this.done = true;
        // A truncation the Gemini decoder noticed was no error on the wire: the stream just stops again.
        if (gemini?.['$truncated'] !== true) out.push({ data: JSON.stringify(encodeGeminiError(event.error, this.context)) });
        return out;
      case 'end':
        this.context.losses.foreignExtensions(event.extensions, 'gemini', '');
        return this.flush();
      default:
        return unreachable(event);
    }
    if (gemini?.['$more'] === true) return out;
    const shape = chunkShapeOf(event);
    if (shape !== undefined) out.push(this.chunk.emit(shape, gemini));
    else this.emitOpenChunk(out);
    return out;
  }

  flush(): SseMessage[] {
    if (this.done) return [];
    this.done = true;
    const out: SseMessage[] = [];
    this.emitOpenChunk(out);
    this.emitTail(out);
    return out;
  }

  private start(event: StreamEvent & { type: 'start' }, hinted: boolean): void {
    this.chunk.id = event.id;
    if (event.model !== undefined) this.chunk.model = event.model;
    if (hinted) return;
    if (event.usage !== undefined) this.tailUsage = { ...event.usage };
    this.context.losses.foreignExtensions(event.extensions, 'gemini', '');
    const gemini = geminiOf(event);
    if (gemini?.['$noModelVersion'] === true) this.chunk.model = undefined;
    // Only Vertex AI sends createTime: written when the source had it, never invented.
    const raw = gemini?.['$createTime'];
    if (event.created !== undefined && typeof raw === 'string') {
      this.createTime = Math.floor(Date.parse(raw) / 1000) === event.created ? raw : new Date(event.created * 1000).toISOString();
    }
    for (const key in gemini) if (key.charCodeAt(0) !== 36 /* $ */) (this.startFields ??= {})[key] = gemini[key];
  }

  private path(candidate: number, index: number): string {
    return pointer('/candidates', candidate, 'message', 'parts', index);
  }

  private partStart(candidate: number, index: number, part: Part, hinted: boolean): void {
    const state: PartState = { part, mode: 'stream', text: '', args: '', streamed: false, signatureSent: false, sentText: 0 };
    this.parts.set(`${candidate}:${index}`, state);
    const gemini = geminiOf(part);
    switch (part.type) {
      case 'text':
      case 'refusal':
        if (part.type === 'refusal') this.context.losses.add('approximated', this.path(candidate, index), 'Gemini has no refusal part; the refusal is sent as text');
        // The Gemini decoder's parts start empty (an accumulator may have filled them in since).
        state.textStart = this.text(candidate).length;
        if (!hinted && part.text !== '') {
          this.chunk.push(candidate, { wire: { text: part.text } }, state);
          this.addText(candidate, part.text);
        }
        state.sentText = part.text.length;
        return;
      case 'reasoning':
        if (!hinted && gemini?.['$thought'] !== true && part.state?.format !== 'gemini') state.mode = 'hold';
        if (part.state !== undefined) state.state = part.state;
        return;
      case 'tool_call': {
        if (!hinted || gemini?.['$willContinue'] !== true) return;
        const { rawArguments: _raw, ...head } = part;
        const { $willContinue: _flag, ...fields } = gemini;
        const call = fields['functionCall'];
        fields['functionCall'] = { ...(isObject(call) ? call : {}), willContinue: true };
        const extensions = { ...part.extensions, gemini: fields };
        const wire = encodeGeminiPart({ ...head, arguments: {}, extensions }, this.path(candidate, index), this.scope);
        if (wire !== undefined) this.chunk.push(candidate, { wire }, state);
        state.streamed = true;
        return;
      }
      default:
        return;
    }
  }

  private textDelta(candidate: number, index: number, text: string, gemini: JsonObject | undefined, hinted: boolean): void {
    const state = this.partState(candidate, index, { type: 'text', text: '' });
    if (!hinted && text === '') return;
    state.sentText += text.length;
    if (!hinted) this.addText(candidate, text);
    const wire: JsonObject = { text };
    if (gemini?.['$thought'] === false) wire['thought'] = false;
    copyFields(wire, gemini);
    if (typeof wire['thoughtSignature'] === 'string') state.signatureSent = true;
    this.chunk.push(candidate, { wire, snake: gemini?.['$snake'] }, state);
  }

  private reasoningDelta(candidate: number, index: number, text: string, gemini: JsonObject | undefined): void {
    const state = this.partState(candidate, index, { type: 'reasoning', text: '' });
    if (state.mode === 'hold') {
      state.text += text;
      return;
    }
    const wire: JsonObject = { text, thought: true };
    copyFields(wire, gemini);
    this.chunk.push(candidate, { wire, snake: gemini?.['$snake'] }, state);
  }

  private reasoningSignature(candidate: number, index: number, reasoningState: ReasoningState): void {
    const state = this.partState(candidate, index, { type: 'reasoning', text: '' });
    state.state = reasoningState;
    if (state.mode === 'hold') return;
    if (reasoningState.format !== 'gemini') {
      this.context.losses.add('reasoning_state_dropped', this.path(candidate, index), `${reasoningState.format} ${reasoningState.kind} only goes back to ${reasoningState.format}; dropped for Gemini`);
      return;
    }
    state.signatureSent = true;
    const last = state.last;
    if (last !== undefined && last.generation === this.chunk.generation && last.wire['thoughtSignature'] === undefined) {
      last.wire['thoughtSignature'] = reasoningState.value;
      return;
    }
    this.chunk.push(candidate, { wire: { text: '', thought: true, thoughtSignature: reasoningState.value } }, state);
  }

  private toolCallDelta(candidate: number, index: number, text: string, gemini: JsonObject | undefined): void {
    const state = this.partState(candidate, index, { type: 'tool_call', id: '', name: '', arguments: undefined });
    const wire = gemini?.['$wire'];
    if (state.streamed && isObject(wire)) this.chunk.push(candidate, { wire: { ...wire } }, state);
    else state.args += text;
  }

  private partEnd(candidate: number, index: number, final: Part | undefined): void {
    const key = `${candidate}:${index}`;
    const state = this.parts.get(key);
    this.parts.delete(key);
    const path = this.path(candidate, index);
    const part = final ?? state?.part;
    if (state === undefined || part === undefined) {
      if (part !== undefined) this.pushWhole(candidate, part, path);
      return;
    }
    switch (part.type) {
      case 'text':
      case 'refusal': {
        // The final part may hold text its deltas did not carry (a Responses `output_text.done` is the whole text).
        if (final !== undefined && geminiOf(part) === undefined && part.text.length > state.sentText) {
          this.chunk.push(candidate, { wire: { text: part.text.slice(state.sentText) } }, state);
          this.addText(candidate, part.text.slice(state.sentText));
          state.sentText = part.text.length;
        }
        const signature = geminiOf(part)?.['thoughtSignature'];
        if (typeof signature === 'string' && !state.signatureSent) this.chunk.push(candidate, { wire: { text: '', thoughtSignature: signature } }, state);
        this.context.losses.foreignExtensions(part.extensions, 'gemini', path);
        if (part.type === 'text' && part.citations !== undefined && part.citations.length > 0) this.ground(candidate, part, state.textStart ?? 0, path);
        return;
      }
      case 'reasoning':
        this.endReasoning(candidate, state, part, path);
        return;
      case 'tool_call':
        if (state.streamed) return;
        this.pushWhole(candidate, unfoldPartialArguments(final !== undefined ? part : callFromDeltas(part, state.args)), path);
        return;
      default:
        this.pushWhole(candidate, part, path);
    }
  }

  /**
   * A foreign text part's citations, for its candidate's `groundingMetadata`
   * on the last chunk. As in Gemini's own streams, the supports name no
   * part: their ranges are in the candidate's text as streamed, where this
   * part's starts at `start`.
   */
  private ground(candidate: number, part: TextPart, start: number, path: string): void {
    let writer = this.grounding.get(candidate);
    if (writer === undefined) {
      writer = new GroundingWriter(false, this.context.losses, true);
      this.grounding.set(candidate, writer);
    }
    writer.take(part, path, this.text(candidate), start);
  }

  /** The text of a foreign stream's candidate written so far (kept for the ranges of its grounding; candidate 0's in a field of its own). */
  private text(candidate: number): string {
    return candidate === 0 ? this.text0 : (this.texts.get(candidate) ?? '');
  }

  private addText(candidate: number, text: string): void {
    if (candidate === 0) this.text0 += text;
    else this.texts.set(candidate, this.text(candidate) + text);
  }

  private endReasoning(candidate: number, state: PartState, part: ReasoningPart, path: string): void {
    const reasoningState = part.state ?? state.state;
    if (state.mode === 'hold') {
      const whole: ReasoningPart = { ...part, text: state.text === '' ? part.text : state.text };
      if (reasoningState !== undefined) whole.state = reasoningState;
      this.pushWhole(candidate, whole, path);
      return;
    }
    if (reasoningState?.format === 'gemini' && !state.signatureSent) {
      this.chunk.push(candidate, { wire: { text: '', thought: true, thoughtSignature: reasoningState.value } }, state);
    }
  }

  private pushWhole(candidate: number, part: Part, path: string): void {
    const wire = encodeGeminiPart(part, path, this.scope);
    if (wire !== undefined) this.chunk.push(candidate, { wire }, undefined);
  }

  private partState(candidate: number, index: number, initial: Part): PartState {
    const key = `${candidate}:${index}`;
    let state = this.parts.get(key);
    if (state === undefined) {
      state = { part: initial, mode: 'stream', text: '', args: '', streamed: false, signatureSent: false, sentText: 0 };
      this.parts.set(key, state);
    }
    return state;
  }

  private finishReason(candidate: number, stopReason: StopReason): string | number {
    return encodeGeminiFinishReason(stopReason, this.context.losses, pointer('/candidates', candidate, 'stopReason'));
  }

  /** Emit what a foreign event added: its wire parts, one chunk. */
  private emitOpenChunk(out: SseMessage[]): void {
    if (this.chunk.isEmpty()) return;
    const text = this.startFields === undefined ? this.chunk.textChunk(this.createTime) : undefined;
    if (text !== undefined) {
      out.push(text);
      return;
    }
    const indexes = new Set([...this.chunk.parts.keys(), ...this.chunk.finishes.keys()]);
    const shape: ChunkShape = { candidates: [...indexes].sort((a, b) => a - b).map((index) => ({ index })) };
    if (this.createTime !== undefined) shape.createTime = this.createTime;
    out.push(this.chunk.emit(shape, this.takeChunkFields()));
  }

  /** The last chunk of a foreign stream: finish reasons and usage. */
  private emitTail(out: SseMessage[]): void {
    const grounded = new Map<number, JsonObject>();
    for (const [candidate, writer] of this.grounding) {
      const metadata = writer.metadata();
      if (metadata !== undefined) grounded.set(candidate, metadata);
    }
    this.grounding.clear();
    if (this.tailFinishes.size === 0 && this.tailUsage === undefined && grounded.size === 0) return;
    for (const [candidate, stopReason] of this.tailFinishes) this.chunk.finishes.set(candidate, this.finishReason(candidate, stopReason));
    if (this.tailUsage !== undefined) this.chunk.usage = encodeGeminiUsage(this.tailUsage, this.context.losses, '/usage');
    const indexes = new Set([...this.tailFinishes.keys(), ...grounded.keys()]);
    const candidates = [...indexes].sort((a, b) => a - b).map((index) => ({ index }));
    const shape: ChunkShape = { candidates };
    if (this.createTime !== undefined) shape.createTime = this.createTime;
    this.tailFinishes.clear();
    this.tailUsage = undefined;
    const fields = this.takeChunkFields();
    // Each grounded candidate's metadata beside its finish, as Gemini sends it on its last chunk.
    const candidateFields = grounded.size === 0 ? undefined : candidates.map(({ index }) => (grounded.has(index) ? { groundingMetadata: grounded.get(index) } : null));
    out.push(this.chunk.emit(shape, candidateFields === undefined ? fields : { ...fields, candidateFields }));
  }

  /** The start event's Gemini chunk fields, for the first chunk only. */
  private takeChunkFields(): JsonObject | undefined {
    const fields = this.startFields;
    this.startFields = undefined;
    return fields === undefined ? undefined : { chunkFields: fields };
  }
}

/** A foreign tool call's final form from its streamed argument text. */
function callFromDeltas(part: ToolCallPart, text: string): ToolCallPart {
  const { rawArguments: _raw, ...rest } = part;
  return { ...rest, ...parseArguments(text) };
}
