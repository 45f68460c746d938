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
import { DataTemplates, type Slot } from '../../core/data-template.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { Part } from '../../core/ir.ts';
import type { StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { argumentsAsText } from '../../core/tools.ts';
import { expectArray, expectObject, expectString, isObject, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeOllamaError } from './error.ts';
import { PendingCalls, responseScope } from './ids.ts';
import { decodeOllamaToolCall } from './parts-decode.ts';
import { createdSeconds } from './response.ts';
import { decodeOllamaDoneReason } from './stop-reason.ts';
import { decodeOllamaUsage, USAGE_KEYS } from './usage.ts';
import { FORMAT, keys, type LineShape } from './shape.ts';

const LINE_KNOWN = keys('model', 'created_at', 'message', 'response', 'thinking', 'done', 'done_reason', ...USAGE_KEYS);
const MESSAGE_KNOWN = keys('role', 'content', 'thinking', 'tool_calls');

/** What the decoder reads of a usual line (see {@link usualLine}) besides its strings. */
interface UsualLine {
  /** `model`, when the line has one. */
  model?: string;
  /** The line has `created_at` (its second read slot). */
  created: boolean;
  /** An `/api/generate` line: `response` and `thinking` at the top. */
  generate: boolean;
  /** The field whose string is the slot: the text (`content` or `response`) or `thinking`. */
  field: 'text' | 'thinking';
  /** The other of the two: absent, or empty. */
  other: 'absent' | 'empty';
}

/** Line keys of a usual `/api/chat` line and of a usual `/api/generate` line. */
const CHAT_LINE = keys('model', 'created_at', 'message', 'done');
const GENERATE_LINE = keys('model', 'created_at', 'response', 'thinking', 'done');
const USUAL_MESSAGE = keys('role', 'content', 'thinking');

/**
 * A line that is one text or thinking piece: `done: false`, `model` and
 * `created_at` absent or strings, and either an assistant `message` with
 * `content` and (or) `thinking` or `response` with maybe `thinking`, one
 * of the two the piece and the other absent or empty; no other key. What
 * the decoder reads of it, with the piece and `created_at`; else `undefined`.
 */
function usualLine(value: unknown): { line: UsualLine; piece: unknown; createdAt: unknown } | undefined {
  if (!isObject(value) || value['done'] !== false) return undefined;
  const { model, created_at: createdAt, message } = value;
  if ((model !== undefined && typeof model !== 'string') || (createdAt !== undefined && typeof createdAt !== 'string')) return undefined;
  const generate = message === undefined;
  let holder: JsonObject;
  if (generate) {
    if (typeof value['response'] !== 'string' || !onlyKeys(value, GENERATE_LINE)) return undefined;
    holder = value;
  } else {
    if (!isObject(message) || message['role'] !== 'assistant' || !onlyKeys(value, CHAT_LINE) || !onlyKeys(message, USUAL_MESSAGE)) return undefined;
    holder = message;
  }
  const text = holder[generate ? 'response' : 'content'];
  const thinking = holder['thinking'];
  const line: UsualLine = { created: createdAt !== undefined, generate, field: 'text', other: 'absent' };
  if (model !== undefined) line.model = model;
  if (typeof thinking === 'string' && thinking !== '') {
    if (text !== undefined && text !== '') return undefined;
    line.field = 'thinking';
    if (text === '') line.other = 'empty';
    return { line, piece: thinking, createdAt };
  }
  if (thinking !== undefined && thinking !== '') return undefined;
  if (thinking === '') line.other = 'empty';
  return { line, piece: text, createdAt };
}

/** Every own key of `object` is one of `known`. */
function onlyKeys(object: JsonObject, known: ReadonlySet<string>): boolean {
  for (const key in object) if (!known.has(key)) return false;
  return true;
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

  /** The texts of the stream's usual lines (see `data-template.ts`). */
  private readonly templates = new DataTemplates<UsualLine>();

  constructor(private readonly context: CodecContext) {}

  /**
   * A usual line with another piece and `created_at` (see {@link usualLine}):
   * the events `decode` makes of it, without parsing it. Once the stream
   * has started, `decode` reads nothing else of such a line.
   */
  decodeText(data: string, event: string | undefined): StreamEvent[] | undefined {
    if (!this.started || this.done) return undefined;
    const strings = this.templates.read(data, event);
    if (strings === undefined) return undefined;
    const usual = this.templates.shape;
    const piece = strings[0]!;
    const events: StreamEvent[] = [];
    const shape: LineShape = {};
    if (usual.model !== undefined) shape.model = usual.model;
    if (usual.created) shape.created_at = strings[1];
    if (usual.generate) shape.generate = true;
    // As `readMessage` and `readGenerate`: the thinking, then the text.
    if (usual.field === 'thinking') {
      if (piece === '') shape.emptyThinking = true;
      else this.text('reasoning', piece, events);
    } else if (usual.other === 'empty') shape.emptyThinking = true;
    if (usual.field === 'text') {
      if (piece !== '') this.text('text', piece, events);
    } else if (usual.other === 'absent') shape.noContent = true;
    if (events.length === 0) events.push({ type: 'usage', usage: {} });
    const first = events[0] as StreamEvent;
    ((first.extensions ??= {})[FORMAT] ??= {})['$line'] = shape;
    return events;
  }

  learn(data: string, wire: WireEvent): void {
    if (!this.started || this.done || !this.templates.learning) return;
    const found = usualLine(wire.data);
    if (found === undefined || typeof found.piece !== 'string') return;
    // Each line has its own `created_at` (before the piece), which the line's hint keeps.
    const slots: Slot[] = [{ kind: 'read', value: found.piece }];
    if (typeof found.createdAt === 'string') slots.push({ kind: 'read', value: found.createdAt });
    this.templates.learn(data, wire.event, slots, (value, [piece, createdAt]) => {
      const usual = usualLine(value);
      return usual !== undefined && usual.piece === piece && usual.createdAt === createdAt ? usual.line : undefined;
    });
  }

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
