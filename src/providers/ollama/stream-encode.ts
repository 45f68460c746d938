/**
 * IR stream events → Ollama NDJSON lines. Events decoded from Ollama carry
 * each line's envelope (`$line`), and the same lines are written back. Events
 * from another format become one line per text or reasoning delta, one line
 * per whole tool call (Ollama never splits a call), and a last line with
 * `done: true`, `done_reason`, the counts and timings (`response` lines of
 * `/api/generate` when the start event carries the hint `$generate`). An
 * error becomes the line `{"error": "…"}`.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#response-10
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Part, StopReason, ToolCallPart, Usage } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { SseMessage, StreamEncoder, StreamEvent } from '../../core/stream-events.ts';
import { parseArguments } from '../../core/tools.ts';
import { DeltaFieldReports } from '../../core/losses.ts';
import { extensionsOf, isObject, jsonString, type JsonObject } from '../../core/wire.ts';
import { encodeOllamaError } from './error.ts';
import { encodeOllamaToolCall } from './parts-encode.ts';
import { createdAtText } from './response.ts';
import { encodeOllamaDoneReason } from './stop-reason.ts';
import { encodeOllamaUsage } from './usage.ts';
import { FORMAT, type LineShape } from './shape.ts';

/** One line being built. */
interface Line {
  shape: LineShape | undefined;
  content: string;
  thinking: string;
  toolCalls: JsonObject[];
}

/** A fresh Ollama stream encoder. */
export function createOllamaStreamEncoder(context: CodecContext): StreamEncoder {
  return new OllamaStreamEncoder(context);
}

function lineShape(event: StreamEvent): LineShape | undefined {
  const shape = extensionsOf(event, FORMAT)?.['$line'];
  return isObject(shape) ? (shape as LineShape) : undefined;
}

class OllamaStreamEncoder implements StreamEncoder {
  /** True when the events came from Ollama and carry their lines' envelopes. */
  private hinted = false;
  private model: string | undefined;
  private createdAt: string | undefined;
  private line: Line | undefined;
  private readonly parts = new Map<number, Part>();
  private usage: Usage | undefined;
  private stopReason: StopReason | undefined;
  private finished = false;
  /** Lines of events from another format are `/api/generate` lines (`response`), as the start event asked. */
  private generate = false;
  /** Text parts of candidate 0 from another format: how many began, and the characters written for each. */
  private textParts = 0;
  private readonly sentText = new Map<number, number>();

  constructor(private readonly context: CodecContext) {
    this.model = context.model;
  }

  encode(event: StreamEvent): SseMessage[] {
    if (this.finished) return [];
    const out: SseMessage[] = [];
    const shape = lineShape(event);
    if (shape !== undefined) {
      this.hinted = true;
      this.flushLine(out, false);
      this.line = { shape, content: '', thinking: '', toolCalls: [] };
    }
    this.apply(event, out);
    return out;
  }

  flush(): SseMessage[] {
    const out: SseMessage[] = [];
    if (!this.finished) this.flushLine(out, false);
    this.finished = true;
    return out;
  }

  private current(): Line {
    return (this.line ??= { shape: undefined, content: '', thinking: '', toolCalls: [] });
  }

  private apply(event: StreamEvent, out: SseMessage[]): void {
    const losses = this.context.losses;
    switch (event.type) {
      case 'start':
        losses.foreignExtensions(event.extensions, FORMAT, '');
        if (event.model !== undefined) this.model = event.model;
        this.createdAt = createdAtText(event);
        if (extensionsOf(event, FORMAT)?.['$generate'] === true) this.generate = true;
        return;
      case 'part_start':
        this.parts.set(event.index, event.part);
        if (!this.hinted && event.candidate === 0 && (event.part.type === 'text' || event.part.type === 'refusal')) this.startText(event.index, event.part.text);
        if (event.part.type !== 'text' && event.part.type !== 'reasoning' && event.part.type !== 'tool_call') {
          losses.add('unsupported_part', `/candidates/${event.candidate}/message/parts/${event.index}`, `an Ollama stream carries no ${event.part.type === 'opaque' ? `${event.part.format} "${event.part.blockType}" block` : `${event.part.type} part`}; dropped`);
        }
        return;
      case 'text_delta':
        if (event.candidate !== 0) return this.otherCandidate(event.candidate);
        if (event.extensions !== undefined) this.deltaFields.report(losses, event.extensions, FORMAT, event.index);
        this.current().content += event.text;
        if (this.sentText.has(event.index)) this.sentText.set(event.index, (this.sentText.get(event.index) ?? 0) + event.text.length);
        if (!this.hinted) this.flushLine(out, false);
        return;
      case 'reasoning_delta':
        if (event.candidate !== 0) return this.otherCandidate(event.candidate);
        if (event.extensions !== undefined) this.deltaFields.report(losses, event.extensions, FORMAT, event.index);
        this.current().thinking += event.text;
        if (!this.hinted) this.flushLine(out, false);
        return;
      case 'reasoning_signature':
        losses.add('reasoning_state_dropped', `/candidates/${event.candidate}/message/parts/${event.index}`, `${event.state.format} reasoning state only goes back to ${event.state.format}; dropped for Ollama`);
        return;
      case 'tool_call_delta': {
        const part = this.parts.get(event.index);
        if (part?.type === 'tool_call') part.rawArguments = (part.rawArguments ?? '') + event.arguments;
        return;
      }
      case 'part_end':
        this.endPart(event.candidate, event.index, event.part, out);
        return;
      case 'usage':
        losses.foreignExtensions(event.extensions, FORMAT, '/usage');
        if (Object.keys(event.usage).length > 0) this.usage = { ...this.usage, ...event.usage };
        return;
      case 'finish':
        if (event.candidate !== 0) return;
        losses.foreignExtensions(event.extensions, FORMAT, '/candidates/0');
        this.stopReason = event.stopReason;
        return;
      case 'error': {
        // What the line in progress already holds was sent before the error.
        if (this.line !== undefined && (this.line.content !== '' || this.line.thinking !== '' || this.line.toolCalls.length > 0 || this.hinted)) this.flushLine(out, false);
        this.line = undefined;
        const body = encodeOllamaError(event.error, this.context);
        out.push({ data: JSON.stringify(body) });
        this.finished = true;
        return;
      }
      case 'end':
        losses.foreignExtensions(event.extensions, FORMAT, '');
        this.flushLine(out, true);
        this.finished = true;
        return;
      default:
        unreachable(event);
    }
  }

  private readonly deltaFields = new DeltaFieldReports();

  private otherCandidate(candidate: number): void {
    this.context.losses.add('dropped_field', `/candidates/${candidate}`, 'Ollama streams one answer; other candidates were dropped');
  }

  /** A text part of another format begins: parts are joined by a blank line, as the whole encoder joins them. */
  private startText(index: number, initial: string): void {
    if (this.textParts++ > 0) this.current().content += '\n\n';
    this.current().content += initial;
    this.sentText.set(index, initial.length);
  }

  private endPart(candidate: number, index: number, final: Part | undefined, out: SseMessage[]): void {
    const part = final ?? this.parts.get(index);
    this.parts.delete(index);
    if (part?.type === 'text' && part.citations !== undefined && part.citations.length > 0 && candidate === 0) {
      this.context.losses.add('dropped_field', `/candidates/0/message/parts/${index}/citations`, 'Ollama has no citations; dropped');
    }
    const sent = this.sentText.get(index);
    this.sentText.delete(index);
    // The final part may hold text its deltas did not carry (a Responses `output_text.done` is the whole text).
    if (sent !== undefined && (final?.type === 'text' || final?.type === 'refusal') && final.text.length > sent && candidate === 0) {
      this.current().content += final.text.slice(sent);
      this.flushLine(out, false);
    }
    if (part?.type !== 'tool_call' || candidate !== 0) return;
    let call: ToolCallPart = part;
    if (final === undefined && part.arguments === undefined && part.rawArguments !== undefined) call = { ...part, ...parseArguments(part.rawArguments) };
    this.current().toolCalls.push(encodeOllamaToolCall(call, this.context.losses, `/candidates/0/message/parts/${index}`));
    if (!this.hinted) this.flushLine(out, false);
  }

  /** `{"model":…,"created_at":…,"message":{"role":"assistant"` for the envelope of an Ollama line, and what it was made from. */
  private head: { model: unknown; createdAt: unknown; text: string } | undefined;

  /** The start of a line (see {@link head}) with this `model` and `created_at` (either may be absent), made once per model and time. */
  private lineStart(model: unknown, createdAt: unknown): string {
    let head = this.head;
    if (head === undefined || head.model !== model || head.createdAt !== createdAt) {
      const envelope: JsonObject = {};
      if (model !== undefined) envelope['model'] = model;
      if (createdAt !== undefined) envelope['created_at'] = createdAt;
      const text = JSON.stringify(envelope);
      head = { model, createdAt, text: `${text.length === 2 ? '{' : `${text.slice(0, -1)},`}"message":{"role":"assistant"` };
      this.head = head;
    }
    return head.text;
  }

  /**
   * A chat line of another format's events with no tool calls (`{model, created_at, message: {role, content, thinking?}, done: false}`),
   * written as `flushLine` would serialise it, without building the objects.
   */
  private plainLine(line: Line): SseMessage {
    const thinking = line.thinking === '' ? '' : `,"thinking":${jsonString(line.thinking)}`;
    return { data: `${this.lineStart(this.model, this.createdAt)},"content":${jsonString(line.content)}${thinking}},"done":false}` };
  }

  /**
   * An Ollama line whose envelope is the usual one (`model`, `created_at`,
   * a `message` with no keys of its own, `done: false`, nothing else) and
   * without tool calls, written as `flushLine` would serialise it.
   */
  private sameLine(line: Line, shape: LineShape): SseMessage {
    const content = shape.noContent !== true || line.content !== '' ? `,"content":${jsonString(line.content)}` : '';
    const thinking = line.thinking !== '' || shape.emptyThinking === true ? `,"thinking":${jsonString(line.thinking)}` : '';
    return { data: `${this.lineStart(shape.model, shape.created_at)}${content}${thinking}},"done":false}` };
  }

  private flushLine(out: SseMessage[], last: boolean): void {
    const line = this.line;
    if (line === undefined && !last) return;
    this.line = undefined;
    const shape = line?.shape;
    if (!last && line !== undefined && line.toolCalls.length === 0) {
      if (shape === undefined) {
        if (!this.generate) {
          out.push(this.plainLine(line));
          return;
        }
      } else if (shape.generate !== true && shape.message === undefined && shape.done === undefined && shape.rest === undefined) {
        out.push(this.sameLine(line, shape));
        return;
      }
    }
    const wire: JsonObject = {};
    if (shape === undefined) {
      if (this.model !== undefined) wire['model'] = this.model;
      if (this.createdAt !== undefined) wire['created_at'] = this.createdAt;
    } else {
      if (shape.model !== undefined) wire['model'] = shape.model;
      if (shape.created_at !== undefined) wire['created_at'] = shape.created_at;
    }
    if (shape?.generate === true || (shape === undefined && this.generate)) {
      if (line !== undefined && (line.thinking !== '' || shape?.emptyThinking === true)) wire['thinking'] = line.thinking;
      wire['response'] = line?.content ?? '';
    } else if (shape?.message !== null) {
      const message: JsonObject = { role: 'assistant' };
      if (shape?.noContent !== true || (line !== undefined && line.content !== '')) message['content'] = line?.content ?? '';
      if (line !== undefined && (line.thinking !== '' || shape?.emptyThinking === true)) message['thinking'] = line.thinking;
      if (line !== undefined && line.toolCalls.length > 0) message['tool_calls'] = line.toolCalls;
      if (shape?.message !== undefined) Object.assign(message, shape.message);
      wire['message'] = message;
    }
    if (last) {
      if (this.stopReason !== undefined) wire['done_reason'] = encodeOllamaDoneReason(this.stopReason, this.context.losses, '/candidates/0/stopReason');
      wire['done'] = true;
      if (this.usage !== undefined) encodeOllamaUsage(this.usage, wire, this.context.losses, '/usage');
    } else {
      wire['done'] = false;
    }
    if (shape?.done !== undefined) {
      if (shape.done === 'absent') delete wire['done'];
      else wire['done'] = shape.done;
    }
    if (shape?.rest !== undefined) Object.assign(wire, shape.rest);
    out.push({ data: JSON.stringify(wire) });
  }
}
