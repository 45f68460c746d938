/**
 * Chat Completions stream → IR stream events. Chunks are unnamed `data:`
 * lines (`chat.completion.chunk`), several choices interleave by `index`,
 * tool calls arrive as fragments keyed by their own `index`, an optional
 * usage chunk has `choices: []`, and `data: [DONE]` ends the stream. This
 * file reads the chunks (start, usage, the end, same-format hints, the fast
 * path for usual deltas); each choice's parts are stream-choices-decode.ts's.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options
 */
import type { CodecContext } from '../../core/codec.ts';
import { DataTemplates, hasExactKeys, type Slot } from '../../core/data-template.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { LossCollector } from '../../core/losses.ts';
import type { Usage } from '../../core/ir.ts';
import type { StartEvent, StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { expectArray, isObject, jsonType, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiChatError } from './error.ts';
import { decodeOpenaiChatUsage, readAnswerTier } from './usage.ts';
import { ChunkBuilder, diffChunk, obfuscationOnly, type ChunkHint } from './stream-chunk.ts';
import { FORMAT } from './shape.ts';
import { ChoiceDecoder } from './stream-choices-decode.ts';

/** The `data:` text that ends a Chat stream. */
const DONE = '[DONE]';

/** Top-level chunk keys the `start` event carries neutrally (or the chunk patch carries as shape). */
const START_KNOWN: ReadonlySet<string> = new Set(['id', 'object', 'created', 'model', 'choices', 'usage', 'obfuscation']);

/** A usual delta chunk: its choice's index, and the delta field (or the tool call's wire index) its string is in. */
interface UsualDelta {
  index: number;
  field: string;
  tool?: number;
  /** Same-format trip: the chunk was exactly the builder's chunk of its delta (see {@link SoleChunk}). */
  sole?: SoleChunk;
}

/**
 * A chunk that was exactly the chunk the builder makes of its one delta: the
 * builder's key for that delta's shape, and its top-level fields then
 * (`fields`, the builder's `fields`). A chunk that differs from it only in
 * its delta string, decoded to a delta of the same key while the builder has
 * the same top-level fields, is one too, so its same-format hint is empty.
 * With `obfuscation`, a chunk that was that chunk but for its `obfuscation`
 * (OpenAI pads every chunk with its own), and `fields` the builder's
 * `fieldsButObfuscation`: one that differs from it only in its delta and
 * `obfuscation` strings while the builder has the same top-level fields but
 * `obfuscation` is one too, whose hint sets just that.
 */
interface SoleChunk {
  key: string;
  fields: object;
  obfuscation?: true;
}

/** The delta fields whose one string a usual chunk carries. */
const USUAL_FIELDS: ReadonlySet<string> = new Set(['content', 'reasoning_content', 'reasoning', 'refusal']);

/**
 * A chunk of one choice whose delta is one string: `content`, a reasoning
 * field, `refusal`, or one tool call fragment's `function.arguments` (no
 * `id`, no name); `finish_reason` and `logprobs` absent or null, `usage`
 * absent or null, any other top-level fields. Where `nulls` (for another
 * format: the decoder reads nothing of a null), the delta and the choice may
 * have other keys that are null, as OpenAI-compatible servers write them
 * (`"role":null,"content":null,"tool_calls":null`, `"matched_stop":null`).
 * What `usual` found, with the string; else `undefined`.
 */
function usualDelta(value: unknown, nulls: boolean): (UsualDelta & { slot: unknown }) | undefined {
  if (!isObject(value) || (value['usage'] !== undefined && value['usage'] !== null) || value['error'] !== undefined) return undefined;
  const choices = value['choices'];
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const choice: unknown = choices[0];
  if (!isObject(choice) || typeof choice['index'] !== 'number') return undefined;
  for (const key in choice) {
    if (key === 'index' || key === 'delta') continue;
    if ((!nulls && key !== 'finish_reason' && key !== 'logprobs') || choice[key] !== null) return undefined;
  }
  const delta = choice['delta'];
  if (!isObject(delta)) return undefined;
  const index = choice['index'];
  // The one key that is not null (with `nulls`; else the only key).
  let field: string | undefined;
  for (const key in delta) {
    if (nulls && delta[key] === null) continue;
    if (field !== undefined) return undefined;
    field = key;
  }
  if (field === 'tool_calls') {
    const calls = delta['tool_calls'];
    if (!Array.isArray(calls) || calls.length !== 1) return undefined;
    const call: unknown = calls[0];
    if (!hasExactKeys(call, 'index', 'function') || typeof call['index'] !== 'number' || !hasExactKeys(call['function'], 'arguments')) return undefined;
    return { index, field: 'tool_calls', tool: call['index'], slot: call['function']['arguments'] };
  }
  return field !== undefined && USUAL_FIELDS.has(field) ? { index, field, slot: delta[field] } : undefined;
}

/** A fresh Chat Completions stream decoder. */
export function createOpenaiChatStreamDecoder(context: CodecContext): StreamDecoder {
  return new OpenaiChatStreamDecoder(context);
}

class OpenaiChatStreamDecoder implements StreamDecoder {
  /** The open parts of each choice (stream-choices-decode.ts). */
  private readonly choices: ChoiceDecoder;
  /** Builds the default chunk of each event group, to keep only the difference as a hint (its losses are not ours). */
  private readonly builder: ChunkBuilder;
  /** Chunks that made no IR event yet (a prompt-filter chunk, a role-only chunk), sent before the next event. */
  private pending: JsonObject[] = [];
  /** Same-format hints (`$chunk`, `$before`) are kept only when the IR may go back to Chat Completions. */
  private readonly hints: boolean;
  private started = false;
  private ended = false;
  private failed = false;
  /** For another target: the `service_tier` every chunk names, for the usage it prices (`Usage.serviceTier`), and whether a usage chunk took it. */
  private tier: string | undefined;
  private usageSeen = false;

  /** The last chunk decoded, when it was a {@link SoleChunk} (kept for the same-format hints only). */
  private lastSole: SoleChunk | undefined;
  /** The first chunk's `created`: a stream whose chunks say another learns it as a slot. */
  private created: unknown;

  readonly decodeText: (data: string, event: string | undefined) => StreamEvent[] | undefined;
  readonly learn: (data: string, wire: WireEvent) => void;

  constructor(private readonly context: CodecContext) {
    this.builder = new ChunkBuilder(new LossCollector(), context.model);
    this.choices = new ChoiceDecoder(context);
    this.hints = context.target === undefined || context.target === FORMAT;
    this.decodeText = (data, event) => this.textChunk(data, event);
    this.learn = (data, wire) => this.learnChunk(data, wire);
  }

  decode(event: WireEvent): StreamEvent[] {
    const data = event.data;
    if (data === DONE) {
      this.ended = true;
      if (this.tier !== undefined && !this.usageSeen) {
        this.context.losses.add('dropped_field', '/service_tier', `service tier "${this.tier}" rides with the usage, and the stream had no usage chunk (stream_options.include_usage); dropped`);
      }
      return [this.withPending({ type: 'end' })];
    }
    if (!isObject(data)) {
      throw new InterlinguaError('invalid_type', `expected a chat.completion.chunk object or [DONE], got ${jsonType(data)}; fix the stream`, {
        path: '',
        format: FORMAT,
      });
    }
    if (data['error'] !== undefined && data['choices'] === undefined) {
      this.failed = true;
      return [this.withPending({ type: 'error', error: decodeOpenaiChatError(data, this.context) })];
    }
    return this.chunk(data, event.event);
  }

  /** The chunk texts of the stream's usual deltas (see `data-template.ts`). */
  private readonly templates = new DataTemplates<UsualDelta>();

  /**
   * A chunk that is a usual delta with another string (see {@link usualDelta}):
   * the events `decode` makes of it, without parsing it. Such a chunk's other
   * top-level fields are read only by the first chunk and by the same-format
   * hints, so once the stream has started `chunk` of just its choice
   * decodes it as the whole chunk. For the same format, a template is
   * learned only from a {@link SoleChunk}, and used while the builder has
   * the top-level fields it had then.
   */
  private textChunk(data: string, event: string | undefined): StreamEvent[] | undefined {
    if (!this.started) return undefined;
    const strings = this.templates.read(data, event);
    const slot = strings?.[0];
    if (slot === undefined) return undefined;
    const shape = this.templates.shape;
    const sole = shape.sole;
    if (this.hints && sole?.fields !== (sole?.obfuscation === true ? this.builder.fieldsButObfuscation : this.builder.fields)) return undefined;
    const delta = shape.tool === undefined ? { [shape.field]: slot } : { tool_calls: [{ index: shape.tool, function: { arguments: slot } }] };
    return this.chunk({ choices: [{ index: shape.index, delta }] }, event, data, sole?.obfuscation === true ? strings![1] : undefined);
  }

  private learnChunk(data: string, wire: WireEvent): void {
    if (!this.started || !this.templates.learning) return;
    const sole = this.lastSole;
    if (this.hints && sole === undefined) return;
    const nulls = !this.hints;
    const found = usualDelta(wire.data, nulls);
    if (found === undefined || typeof found.slot !== 'string') return;
    // OpenAI pads each chunk with a random `obfuscation` string, which only the first chunk and the same-format hints read:
    // for another format it is a slot whose string is ignored; for the same format, part of the template.
    // For the same format it is read as well when the chunk was the builder's but for its `obfuscation`.
    const chunk = wire.data as JsonObject;
    const obfuscation = chunk['obfuscation'];
    const slots: Slot[] = [{ kind: 'read', value: found.slot }];
    const obfuscated = typeof obfuscation === 'string' && (!this.hints || sole?.obfuscation === true);
    if (obfuscated) slots.push({ kind: this.hints ? 'read' : 'string', value: obfuscation });
    // Some servers (SGLang) stamp each chunk with the second it was made: for another format, read by the first chunk only.
    // Learned as a slot once a chunk says another second than the first (OpenAI's never do; a slot costs every match).
    const created = chunk['created'];
    const stamped = nulls && typeof created === 'number' && created !== this.created;
    if (stamped) slots.push({ kind: 'number', value: created, optional: true });
    this.templates.learn(data, wire.event, slots, (value, probes) => {
      const usual = usualDelta(value, nulls);
      if (usual === undefined || usual.slot !== probes[0]) return undefined;
      const object = value as JsonObject;
      if (obfuscated && object['obfuscation'] !== probes[1]) return undefined;
      // An optional number slot that stayed literal has no probe: the number is then the one learned.
      if (stamped && object['created'] !== (probes[slots.length - 1] ?? created)) return undefined;
      const shape: UsualDelta = { index: usual.index, field: usual.field };
      if (usual.tool !== undefined) shape.tool = usual.tool;
      if (this.hints && sole !== undefined) shape.sole = sole;
      return shape;
    });
  }

  flush(): StreamEvent[] {
    if (this.ended || this.failed) return [];
    const events: StreamEvent[] = [];
    this.choices.closeEvery(events);
    const error: StreamEvent = {
      type: 'error',
      error: { type: 'server', message: 'the openai-chat stream ended without "data: [DONE]"; it was truncated' },
      extensions: { [FORMAT]: { $truncated: true } },
    };
    events.push(this.withPending(error));
    return events;
  }

  /** Attach the chunks that made no event to `event`, so the encoder sends them first. */
  private withPending<T extends StreamEvent>(event: T): T {
    if (this.pending.length === 0) return event;
    const fields = ((event.extensions ??= {})[FORMAT] ??= {});
    fields['$before'] = this.pending;
    this.pending = [];
    return event;
  }

  /**
   * The events of chunk `data`. From {@link textChunk}, `data` is just the
   * choice of `text`, the chunk's text; the whole chunk is parsed only if a
   * same-format hint turns out to need it.
   */
  private chunk(data: JsonObject, eventName: string | undefined, text?: string, obfuscation?: string): StreamEvent[] {
    this.lastSole = undefined;
    const events: StreamEvent[] = [];
    const choices = data['choices'] === undefined ? [] : expectArray(data['choices'], '/choices', FORMAT);
    const usage = data['usage'];
    if (!this.started && (choices.length > 0 || isObject(usage))) {
      this.started = true;
      events.push(this.start(data));
    }
    const decoder = this.choices;
    for (let position = 0; position < choices.length; position++) decoder.choice(choices[position], position, events);
    if (isObject(usage)) events.push({ type: 'usage', usage: this.usage(usage, data['service_tier']) });
    const first = events[0];
    const extras = decoder.extras;
    decoder.extras = undefined;
    if (first === undefined) {
      if (this.hints) this.pending.push(text === undefined ? data : (JSON.parse(text) as JsonObject));
      return events;
    }
    if (extras !== undefined) Object.assign(((first.extensions ??= {})[FORMAT] ??= {}), extras);
    if (!this.hints) return events;
    const hint: ChunkHint = {};
    if (events.length > 1) hint.n = events.length;
    let sole: SoleChunk | undefined;
    if (text !== undefined) {
      const learned = this.templates.shape.sole!;
      if (this.soleKey(events) === learned.key) {
        sole = learned;
        // What the patch of the parsed chunk would be: its `obfuscation` set, unless the last chunk had the same.
        if (obfuscation !== undefined && obfuscation !== this.builder.fields['obfuscation']) {
          hint.patch = { set: { obfuscation } };
          this.builder.commitObfuscation(obfuscation);
        }
      } else data = JSON.parse(text) as JsonObject;
    }
    sole ??= this.soleChunk(events, data);
    if (sole === undefined) {
      const patch = diffChunk(this.builder.build(events), data);
      if (patch !== undefined) hint.patch = patch;
      this.builder.commit(data);
      // The builder's chunk but for its `obfuscation`: a sole chunk of that kind.
      const key = obfuscationOnly(patch) === undefined ? undefined : this.soleKey(events);
      if (key !== undefined) sole = { key, fields: this.builder.fieldsButObfuscation, obfuscation: true };
    }
    this.lastSole = sole;
    if (eventName !== undefined) hint.event = eventName;
    ((first.extensions ??= {})[FORMAT] ??= {})['$chunk'] = hint;
    this.withPending(first);
    return events;
  }

  /** The chunk is one delta, exactly as the builder would make it: no patch, and the builder's state stays as it is. */
  private soleChunk(events: StreamEvent[], data: JsonObject): SoleChunk | undefined {
    const sole = this.soleDelta(events);
    return sole !== undefined && this.builder.isSoleChunk(data, sole.choice) ? { key: sole.key, fields: this.builder.fields } : undefined;
  }

  /** The builder's key for the shape of `events` when they are one delta. */
  private soleKey(events: StreamEvent[]): string | undefined {
    return this.soleDelta(events)?.key;
  }

  private soleDelta(events: StreamEvent[]): { key: string; choice: JsonObject } | undefined {
    if (events.length !== 1) return undefined;
    const event = events[0]!;
    const text = event.type === 'text_delta' || event.type === 'reasoning_delta' ? event.text : event.type === 'tool_call_delta' ? event.arguments : undefined;
    return text === undefined ? undefined : this.builder.soleDelta(event, text);
  }

  /** The usage chunk's usage, with the tier that served the answer (the chunk's, else the first chunk's). */
  private usage(wire: JsonObject, tier: unknown): Usage {
    const usage = decodeOpenaiChatUsage(wire, '/usage');
    const named = typeof tier === 'string' ? tier : this.tier;
    if (named !== undefined) readAnswerTier(usage, named);
    this.usageSeen = true;
    return usage;
  }

  private start(data: JsonObject): StartEvent {
    const start: StartEvent = { type: 'start' };
    const { id, model, created } = data;
    this.created = created;
    if (typeof id === 'string') start.id = id;
    if (typeof model === 'string') start.model = model;
    else if (this.context.model !== undefined) start.model = this.context.model;
    if (typeof created === 'number') start.created = created;
    let fields: JsonObject | undefined;
    for (const key in data) {
      if (START_KNOWN.has(key) || data[key] === null) continue;
      // For another format the tier goes with the usage; Chat's own chunks keep it where it was.
      if (key === 'service_tier' && !this.hints && typeof data[key] === 'string') {
        this.tier = data[key];
        continue;
      }
      (fields ??= {})[key] = data[key];
    }
    if (fields !== undefined) start.extensions = { [FORMAT]: fields };
    return start;
  }
}
