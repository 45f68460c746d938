/**
 * Ollama NDJSON stream lines → IR stream events. Every line is a whole
 * object: `message` with the new `content`, `thinking` or whole
 * `tool_calls`, `done: false`; the last line has `done: true`, `done_reason`,
 * the counts and timings. `/api/generate` lines carry `response` instead of
 * `message`. An error is a line `{"error": "…"}`. The first event of each
 * line carries the line's envelope (`model`, `created_at`, unknown keys) as
 * the hint `$line`, so the encoder writes the same lines back.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#response-10
 */
import type { CodecContext } from '../../core/codec.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { Part } from '../../core/ir.ts';
import type { StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { argumentsAsText } from '../../core/tools.ts';
import { expectArray, expectObject, expectString, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeOllamaError } from './error.ts';
import { PendingCalls, responseScope } from './ids.ts';
import { decodeOllamaToolCall } from './parts-decode.ts';
import { createdSeconds } from './response.ts';
import { decodeOllamaDoneReason } from './stop-reason.ts';
import { decodeOllamaUsage, USAGE_KEYS } from './usage.ts';
import { FORMAT, keys } from './shape.ts';

const LINE_KNOWN = keys('model', 'created_at', 'message', 'response', 'thinking', 'done', 'done_reason', ...USAGE_KEYS);
const MESSAGE_KNOWN = keys('role', 'content', 'thinking', 'tool_calls');

/** The envelope of one line, kept so the encoder writes it back as it was. */
export interface LineShape {
  model?: unknown;
  created_at?: unknown;
  /** `/api/generate` line: `response` instead of `message`. */
  generate?: true;
  /** Line keys with no neutral meaning. */
  rest?: JsonObject;
  /** Message keys with no neutral meaning (a role other than assistant included); `null` when the line had no message. */
  message?: JsonObject | null;
  /** `content` was absent from the message. */
  noContent?: true;
  /** `thinking` was present and empty. */
  emptyThinking?: true;
  /** `done` when it was not the boolean the line's place implies. */
  done?: unknown;
}

/** A fresh Ollama stream decoder. */
export function createOllamaStreamDecoder(context: CodecContext): StreamDecoder {
  return new OllamaStreamDecoder(context);
}

class OllamaStreamDecoder implements StreamDecoder {
  private started = false;
  private done = false;
  private next = 0;
  private open: { kind: 'text' | 'reasoning'; index: number } | undefined;
  private calls = 0;
  private hasToolCalls = false;
  private readonly pending = new PendingCalls();

  constructor(private readonly context: CodecContext) {}

  decode(event: WireEvent): StreamEvent[] {
    if (this.done) return [];
    if (event.invalid !== undefined) {
      throw new InterlinguaError('invalid_json', `an Ollama stream line is not JSON (${event.invalid})`, { format: FORMAT });
    }
    const line = expectObject(event.data, '', FORMAT);
    if (line['error'] !== undefined && line['message'] === undefined && line['response'] === undefined) {
      this.done = true;
      return [{ type: 'error', error: decodeOllamaError(line, this.context) }];
    }
    const events: StreamEvent[] = [];
    const shape: LineShape = {};
    if (line['model'] !== undefined) shape.model = expectString(line['model'], '/model', FORMAT);
    if (line['created_at'] !== undefined) shape.created_at = expectString(line['created_at'], '/created_at', FORMAT);
    if (!this.started) this.begin(shape, events);
    const generate = line['message'] === undefined && typeof line['response'] === 'string';
    if (generate) {
      shape.generate = true;
      this.readGenerate(line, shape, events);
    } else if (line['message'] === undefined) {
      shape.message = null;
    } else {
      this.readMessage(expectObject(line['message'], '/message', FORMAT), shape, events);
    }
    const done = line['done'];
    if (done === true) this.finishLine(line, events);
    else if (done !== false) shape.done = done === undefined ? 'absent' : done;
    const rest = unknownKeys(line, LINE_KNOWN);
    if (rest !== undefined) shape.rest = rest;
    // A line with nothing new in it still needs an event to carry its envelope.
    if (events.length === 0) events.push({ type: 'usage', usage: {} });
    const first = events[0] as StreamEvent;
    ((first.extensions ??= {})[FORMAT] ??= {})['$line'] = shape;
    return events;
  }

  flush(): StreamEvent[] {
    if (this.done) return [];
    this.done = true;
    return [
      {
        type: 'error',
        error: { type: 'server', message: 'the Ollama stream ended before its line with "done": true (truncated stream)' },
        extensions: { ollama: { $truncated: true } },
      },
    ];
  }

  private begin(shape: LineShape, events: StreamEvent[]): void {
    this.started = true;
    const start: StreamEvent = { type: 'start' };
    const model = typeof shape.model === 'string' ? shape.model : this.context.model;
    if (model !== undefined) start.model = model;
    if (typeof shape.created_at === 'string') {
      const seconds = createdSeconds(shape.created_at);
      if (seconds !== undefined) start.created = seconds;
    }
    events.push(start);
  }

  private text(kind: 'text' | 'reasoning', text: string, events: StreamEvent[]): void {
    if (this.open?.kind !== kind) {
      this.close(events);
      const index = this.next++;
      const part: Part = kind === 'text' ? { type: 'text', text: '' } : { type: 'reasoning', text: '' };
      events.push({ type: 'part_start', candidate: 0, index, part });
      this.open = { kind, index };
    }
    const index = this.open.index;
    events.push(kind === 'text' ? { type: 'text_delta', candidate: 0, index, text } : { type: 'reasoning_delta', candidate: 0, index, text });
  }

  private close(events: StreamEvent[]): void {
    if (this.open === undefined) return;
    events.push({ type: 'part_end', candidate: 0, index: this.open.index });
    this.open = undefined;
  }

  private readGenerate(line: JsonObject, shape: LineShape, events: StreamEvent[]): void {
    const thinking = line['thinking'];
    if (thinking !== undefined) {
      const text = expectString(thinking, '/thinking', FORMAT);
      if (text === '') shape.emptyThinking = true;
      else this.text('reasoning', text, events);
    }
    const response = line['response'] as string;
    if (response !== '') this.text('text', response, events);
  }

  private readMessage(message: JsonObject, shape: LineShape, events: StreamEvent[]): void {
    const thinking = message['thinking'];
    if (thinking !== undefined) {
      const text = expectString(thinking, '/message/thinking', FORMAT);
      if (text === '') shape.emptyThinking = true;
      else this.text('reasoning', text, events);
    }
    const content = message['content'];
    if (content === undefined) shape.noContent = true;
    else {
      const text = expectString(content, '/message/content', FORMAT);
      if (text !== '') this.text('text', text, events);
    }
    const toolCalls = message['tool_calls'];
    if (toolCalls !== undefined && toolCalls !== null) {
      const list = expectArray(toolCalls, '/message/tool_calls', FORMAT);
      if (list.length > 0) this.close(events);
      const scope = { scope: responseScope(shape.created_at), pending: this.pending };
      for (let position = 0; position < list.length; position++) {
        const call = decodeOllamaToolCall(list[position], pointer('/message/tool_calls', position), this.calls++, scope);
        const index = this.next++;
        const { arguments: _arguments, rawArguments: _raw, ...initial } = call;
        events.push({ type: 'part_start', candidate: 0, index, part: { ...initial, arguments: undefined, rawArguments: '' } });
        events.push({ type: 'tool_call_delta', candidate: 0, index, arguments: argumentsAsText(call) });
        events.push({ type: 'part_end', candidate: 0, index, part: call });
        this.hasToolCalls = true;
      }
    }
    let rest = unknownKeys(message, MESSAGE_KNOWN);
    if (message['role'] !== 'assistant') rest = { ...rest, role: message['role'] };
    if (toolCalls !== undefined && (toolCalls === null || (Array.isArray(toolCalls) && toolCalls.length === 0))) rest = { ...rest, tool_calls: toolCalls };
    if (rest !== undefined) shape.message = rest;
  }

  private finishLine(line: JsonObject, events: StreamEvent[]): void {
    this.close(events);
    const usage = decodeOllamaUsage(line);
    if (usage !== undefined) events.push({ type: 'usage', usage });
    const reason = line['done_reason'];
    if (reason !== undefined) {
      events.push({ type: 'finish', candidate: 0, stopReason: decodeOllamaDoneReason(expectString(reason, '/done_reason', FORMAT), this.hasToolCalls) });
    }
    events.push({ type: 'end' });
    this.done = true;
  }
}
