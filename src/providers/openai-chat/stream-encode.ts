/**
 * IR stream events → Chat Completions stream chunks. Events from this
 * format's own decoder carry `$chunk` hints and come back as the exact
 * chunks they were decoded from; events from any other decoder become the
 * chunks OpenAI itself sends: a role chunk first (with the first part, or
 * as soon as a part that is dropped begins), one chunk per delta, tool
 * calls numbered 0..k per choice, a finish chunk per choice, the usage chunk
 * (`choices: []`) last unless `context.streamUsage` is false (OpenAI sends it
 * only for `stream_options.include_usage`), then `data: [DONE]`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
import type { CodecContext } from '../../core/codec.ts';
import type { ApiError, Part, Usage } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { SseMessage, StreamEncoder, StreamEvent } from '../../core/stream-events.ts';
import { argumentsAsText } from '../../core/tools.ts';
import { isObject, jsonString, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiChatError } from './error.ts';
import { encodeOpenaiChatFinishReason } from './stop-reason.ts';
import { answerTier, encodeOpenaiChatUsage } from './usage.ts';
import { applyChunkPatch, ChunkBuilder, obfuscationOnly, type ChunkHint } from './stream-chunk.ts';
import { dialectOwns, isOpenaiChatDialect, reasoningField, type OpenaiChatDialect } from './dialects.ts';
import { FORMAT } from './shape.ts';

/** The `data:` text that ends a Chat stream. */
const DONE = '[DONE]';

/** A text no wire value holds, whose JSON marks where a delta's text goes in a chunk template. */
const TEMPLATE_MARK = '\u0000interlingua-delta\u0000';
const TEMPLATE_MARK_JSON = JSON.stringify(TEMPLATE_MARK);
/** The same for the chunk's `obfuscation`. */
const OBFUSCATION_MARK = '\u0000interlingua-obfuscation\u0000';
const OBFUSCATION_MARK_JSON = JSON.stringify(OBFUSCATION_MARK);

/** How a foreign part travels: as text, as a refusal, as a tool call, or not at all. */
type PartSlot =
  | { kind: 'text' | 'refusal'; sent: number }
  | { kind: 'tool'; wire: number; argumentsSent: boolean; custom: boolean }
  | { kind: 'skip'; stateReported: boolean }
  /** Reasoning text sent in the dialect's own field (`reasoning_content`, `reasoning`). */
  | { kind: 'reasoning'; field: string };

/** What the encoder knows of one candidate of a foreign stream. */
interface CandidateState {
  /** The role chunk went out. */
  role: boolean;
  parts: Map<number, PartSlot>;
}

/** A fresh Chat Completions stream encoder. */
export function createOpenaiChatStreamEncoder(context: CodecContext): StreamEncoder {
  return new OpenaiChatStreamEncoder(context);
}

function partPath(candidate: number, index: number): string {
  return `/candidates/${candidate}/message/parts/${index}`;
}

/** Where an event's losses point: its part, its candidate, or the response. */
function eventPath(event: StreamEvent): string {
  if ('index' in event) return partPath(event.candidate, event.index);
  return event.type === 'finish' ? `/candidates/${event.candidate}` : '';
}

class OpenaiChatStreamEncoder implements StreamEncoder {
  private readonly builder: ChunkBuilder;
  /** The events come from this format's decoder (its `start` carried a `$chunk` hint). */
  private own = false;
  /** Own mode: the events of the chunk being collected, and how many are still to come. */
  private group: StreamEvent[] = [];
  private remaining = 0;
  private hint: ChunkHint | undefined;
  /** Foreign mode. */
  private readonly candidates = new Map<number, CandidateState>();
  private usage: Usage | undefined;
  private sent = false;
  /** Foreign mode: the JSON text of a one-text-delta chunk before and after its text, per candidate and key; reset by `start`. */
  private readonly templates = new Map<string, readonly [string, string]>();
  /** Own mode: the same, for chunks that are one unpatched delta; cleared by every chunk built the general way and every new `obfuscation`. */
  private readonly ownTemplates = new Map<string, readonly [string, string]>();
  /** Own mode: the same around the delta and the `obfuscation`, for chunks that are one delta patched with just that; cleared by every chunk built the general way. */
  private readonly obfuscatedTemplates = new Map<string, readonly [string, string, string]>();

  /** The dialect written for events from other formats (`context.dialect`, else plain OpenAI). */
  private readonly dialect: OpenaiChatDialect;

  constructor(private readonly context: CodecContext) {
    this.dialect = isOpenaiChatDialect(context.dialect) ? context.dialect : 'openai';
    this.builder = new ChunkBuilder(context.losses, context.model, context.ids);
  }

  encode(event: StreamEvent): SseMessage[] {
    const out: SseMessage[] = [];
    const fields = event.extensions?.[FORMAT];
    const before = fields?.['$before'];
    if (Array.isArray(before)) for (const chunk of before) out.push({ data: JSON.stringify(chunk) });
    if (event.type === 'start' && isObject(fields?.['$chunk'])) this.own = true;
    if (event.type === 'error') {
      if (fields?.['$truncated'] !== true) out.push(this.error(event.error));
      return out;
    }
    if (this.own) this.encodeOwn(event, fields, out);
    else this.encodeForeign(event, out);
    return out;
  }

  flush(): SseMessage[] {
    return this.remaining > 0 ? [this.sendGroup()] : [];
  }

  private error(error: ApiError): SseMessage {
    return { data: JSON.stringify(encodeOpenaiChatError(error, this.context) ?? null) };
  }

  // -------------------------------------------------------------------------
  // Own events: rebuild each chunk and apply its patch.

  private encodeOwn(event: StreamEvent, fields: JsonObject | undefined, out: SseMessage[]): void {
    if (this.remaining > 0) {
      this.group.push(event);
      if (--this.remaining === 0) out.push(this.sendGroup());
      return;
    }
    const hint = fields?.['$chunk'];
    if (isObject(hint)) {
      this.hint = hint as ChunkHint;
      this.group = [event];
      this.remaining = (typeof hint['n'] === 'number' ? hint['n'] : 1) - 1;
      if (this.remaining === 0) out.push(this.sendGroup());
      return;
    }
    switch (event.type) {
      case 'end':
        out.push({ data: DONE });
        return;
      case 'part_end':
        // Parts closed by the decoder's flush: nothing on the wire.
        return;
      default:
        this.hint = undefined;
        this.group = [event];
        out.push(this.sendGroup());
    }
  }

  /**
   * A chunk that is one unpatched delta (the source sent exactly the chunk
   * `build` makes): the envelope around the text is serialised once and kept
   * until a chunk takes the general path (which may change the top-level
   * fields every chunk repeats); the text is what `sendGroup` would write.
   * Likewise a chunk that is one delta patched with just its `obfuscation`
   * (see {@link obfuscatedDelta}).
   */
  private soleDelta(event: StreamEvent, hint: ChunkHint): SseMessage | undefined {
    if (hint.n !== undefined || hint.event !== undefined) return undefined;
    const obfuscation = obfuscationOnly(hint.patch);
    if (hint.patch !== undefined && obfuscation === undefined) return undefined;
    const text = event.type === 'text_delta' || event.type === 'reasoning_delta' ? event.text : event.type === 'tool_call_delta' ? event.arguments : undefined;
    if (text === undefined) return undefined;
    const sole = this.builder.soleDelta(event, TEMPLATE_MARK);
    if (sole === undefined) return undefined;
    if (obfuscation !== undefined) return this.obfuscatedDelta(sole, text, obfuscation);
    let template = this.ownTemplates.get(sole.key);
    if (template === undefined) {
      const parts = JSON.stringify(this.builder.assemble([sole.choice])).split(TEMPLATE_MARK_JSON);
      if (parts.length !== 2) return undefined;
      template = [parts[0]!, parts[1]!];
      this.ownTemplates.set(sole.key, template);
    }
    return { data: template[0] + jsonString(text) + template[1] };
  }

  /**
   * One delta whose patch sets only `obfuscation` (OpenAI pads every chunk
   * with its own): the chunk `sendGroup` writes (the patch sets the key where
   * `assemble` puts it, or adds it last) from an envelope serialised once,
   * and what its commit would remember.
   */
  private obfuscatedDelta(sole: { key: string; choice: JsonObject }, text: string, obfuscation: string): SseMessage | undefined {
    let template = this.obfuscatedTemplates.get(sole.key);
    if (template === undefined) {
      const chunk = this.builder.assemble([sole.choice]);
      chunk['obfuscation'] = OBFUSCATION_MARK;
      const [before, rest, ...others] = JSON.stringify(chunk).split(TEMPLATE_MARK_JSON);
      const parts = rest?.split(OBFUSCATION_MARK_JSON);
      if (others.length !== 0 || parts?.length !== 2) return undefined;
      template = [before!, parts[0]!, parts[1]!];
      this.obfuscatedTemplates.set(sole.key, template);
    }
    this.builder.commitObfuscation(obfuscation);
    // The unpatched templates hold the last chunk's `obfuscation`.
    this.ownTemplates.clear();
    return { data: template[0] + jsonString(text) + template[1] + jsonString(obfuscation) + template[2] };
  }

  private sendGroup(): SseMessage {
    const sole = this.group.length === 1 && this.hint !== undefined ? this.soleDelta(this.group[0]!, this.hint) : undefined;
    if (sole !== undefined) {
      this.group = [];
      this.remaining = 0;
      this.hint = undefined;
      return sole;
    }
    this.ownTemplates.clear();
    this.obfuscatedTemplates.clear();
    const chunk = this.builder.build(this.group);
    const hint = this.hint;
    if (hint?.patch !== undefined) applyChunkPatch(chunk, hint.patch);
    this.builder.commit(chunk);
    this.group = [];
    this.remaining = 0;
    this.hint = undefined;
    const message: SseMessage = { data: JSON.stringify(chunk) };
    if (typeof hint?.event === 'string') message.event = hint.event;
    return message;
  }

  // -------------------------------------------------------------------------
  // Foreign events: the chunks OpenAI sends.

  private candidate(index: number): CandidateState {
    let state = this.candidates.get(index);
    if (state === undefined) {
      state = { role: false, parts: new Map() };
      this.candidates.set(index, state);
    }
    return state;
  }

  /** One chunk for one choice; the first chunk of a choice also names the role. */
  private chunk(candidate: number, delta: JsonObject, finishReason: string | null = null): SseMessage {
    const state = this.candidate(candidate);
    let body = delta;
    if (!state.role) {
      state.role = true;
      body = { role: 'assistant', content: null, ...delta };
      if (!('refusal' in body)) body['refusal'] = null;
    }
    this.sent = true;
    return { data: JSON.stringify(this.builder.assemble([{ index: candidate, delta: body, finish_reason: finishReason }])) };
  }

  /**
   * A chunk whose delta is one text (content or refusal) of a choice that
   * already named its role: the constant envelope is serialised once per
   * stream, and only the text is serialised per delta. The text is what
   * `chunk` would write, byte for byte.
   */
  private textChunk(candidate: number, key: string, text: string): SseMessage {
    return this.templated(candidate, key, (value) => ({ [key]: value }), text);
  }

  /**
   * A chunk whose delta is `delta(text)` for a choice that already named its
   * role, from a template made once per stream and `id` (what the delta's
   * shape depends on besides the text); the text is what `chunk` would write.
   */
  private templated(candidate: number, id: string, delta: (value: string) => JsonObject, text: string): SseMessage {
    if (!this.candidate(candidate).role) return this.chunk(candidate, delta(text));
    const key = `${candidate}:${id}`;
    let template = this.templates.get(key);
    if (template === undefined) {
      const whole = JSON.stringify(this.builder.assemble([{ index: candidate, delta: delta(TEMPLATE_MARK), finish_reason: null }]));
      const parts = whole.split(TEMPLATE_MARK_JSON);
      if (parts.length !== 2) return this.chunk(candidate, delta(text));
      template = [parts[0]!, parts[1]!];
      this.templates.set(key, template);
    }
    this.sent = true;
    return { data: template[0] + jsonString(text) + template[1] };
  }

  private encodeForeign(event: StreamEvent, out: SseMessage[]): void {
    const { losses } = this.context;
    losses.foreignExtensions(event.extensions, FORMAT, eventPath(event));
    switch (event.type) {
      case 'start':
        this.builder.begin(event, this.dialect === 'openai');
        this.templates.clear();
        if (event.usage !== undefined) this.usage = { ...event.usage };
        return;
      case 'part_start':
        this.partStart(event.candidate, event.index, event.part, out);
        return;
      case 'text_delta': {
        const slot = this.candidate(event.candidate).parts.get(event.index);
        if (event.text === '' || (slot?.kind !== 'text' && slot?.kind !== 'refusal')) return;
        slot.sent += event.text.length;
        out.push(this.textChunk(event.candidate, slot.kind === 'text' ? 'content' : 'refusal', event.text));
        return;
      }
      case 'reasoning_delta': {
        const slot = this.candidate(event.candidate).parts.get(event.index);
        if (slot?.kind === 'reasoning' && event.summaryIndex === undefined && event.text !== '') out.push(this.textChunk(event.candidate, slot.field, event.text));
        return;
      }
      case 'reasoning_signature': {
        const slot = this.candidate(event.candidate).parts.get(event.index);
        if (slot?.kind === 'reasoning' && dialectOwns(this.dialect, event.state)) return;
        if (slot?.kind === 'reasoning') {
          losses.add('reasoning_state_dropped', partPath(event.candidate, event.index), `${event.state.format} reasoning state only goes back to ${event.state.format}; dropped for openai-chat`);
          return;
        }
        if (slot?.kind === 'skip' && !slot.stateReported) {
          slot.stateReported = true;
          losses.add('reasoning_state_dropped', partPath(event.candidate, event.index), `${event.state.format} reasoning state only goes back to ${event.state.format}; dropped for openai-chat`);
        }
        return;
      }
      case 'tool_call_delta': {
        const slot = this.candidate(event.candidate).parts.get(event.index);
        if (slot?.kind !== 'tool' || event.arguments === '') return;
        slot.argumentsSent = true;
        out.push(this.templated(event.candidate, `tool:${slot.wire}:${slot.custom}`, (value) => ({ tool_calls: [toolFragment(slot.wire, slot.custom, value)] }), event.arguments));
        return;
      }
      case 'part_end':
        this.partEnd(event.candidate, event.index, event.part, out);
        return;
      case 'usage':
        this.usage = { ...this.usage, ...event.usage };
        return;
      case 'finish': {
        const slots = [...this.candidate(event.candidate).parts.values()];
        const reason = encodeOpenaiChatFinishReason(
          event.stopReason,
          this.builder.hasToolCalls(event.candidate),
          losses,
          `/candidates/${event.candidate}/stopReason`,
          slots.some((slot) => slot.kind === 'refusal'),
        );
        out.push(this.chunk(event.candidate, {}, reason));
        return;
      }
      case 'end':
        if (!this.sent) out.push(this.chunk(0, {}));
        // OpenAI sends the usage chunk (empty `choices`) only when the request asked (`stream_options.include_usage`);
        // unasked, what the usage could not carry is still reported, as the whole answer's conversion reports it.
        if (this.usage !== undefined && this.context.streamUsage === false) encodeOpenaiChatUsage(this.usage, losses, '/usage');
        else if (this.usage !== undefined) {
          const usage = encodeOpenaiChatUsage(this.usage, losses, '/usage');
          const chunk = this.builder.assemble([], usage);
          // The tier that served the answer rides with its usage (the usage chunk is the one chunk that has it).
          const tier = answerTier(this.usage, losses);
          if (tier !== undefined) chunk['service_tier'] = tier;
          out.push({ data: JSON.stringify(chunk) });
        }
        out.push({ data: DONE });
        return;
      case 'error':
        return;
      default:
        unreachable(event);
    }
  }

  private partStart(candidate: number, index: number, part: Part, out: SseMessage[]): void {
    const { losses } = this.context;
    const state = this.candidate(candidate);
    const path = partPath(candidate, index);
    switch (part.type) {
      case 'text':
      case 'refusal': {
        state.parts.set(index, { kind: part.type, sent: part.text.length });
        losses.foreignExtensions(part.extensions, FORMAT, path);
        const key = part.type === 'text' ? 'content' : 'refusal';
        if (!state.role) out.push(this.chunk(candidate, { [key]: part.text }));
        else if (part.text !== '') out.push(this.chunk(candidate, { [key]: part.text }));
        return;
      }
      case 'tool_call': {
        losses.foreignExtensions(part.extensions, FORMAT, path);
        if (part.syntheticId === true) losses.add('synthesised_id', path, `tool call "${part.name}" had no id; sent the synthesised id "${part.id}"`, 'info');
        const wire = this.builder.toolIndex(candidate, index);
        const initial = part.rawArguments ?? '';
        const custom = part.kind === 'custom';
        state.parts.set(index, { kind: 'tool', wire, argumentsSent: initial !== '', custom });
        // A free-form (custom) call goes out as the whole-response encoder writes it: `type: "custom"`, its text in `custom.input`.
        const fragment = custom
          ? { index: wire, id: part.id, type: 'custom', custom: { name: part.name, input: initial } }
          : { index: wire, id: part.id, type: 'function', function: { name: part.name, arguments: initial } };
        out.push(this.chunk(candidate, { tool_calls: [fragment] }));
        return;
      }
      case 'reasoning':
        {
          const field = reasoningField(this.dialect);
          if (field !== undefined && (part.state === undefined || dialectOwns(this.dialect, part.state))) {
            state.parts.set(index, { kind: 'reasoning', field });
            losses.foreignExtensions(part.extensions, FORMAT, path);
            if (part.text !== '') out.push(this.chunk(candidate, { [field]: part.text }));
            return;
          }
        }
        state.parts.set(index, { kind: 'skip', stateReported: part.state !== undefined });
        losses.add('unsupported_part', path, 'Chat Completions streams no reasoning text; the reasoning part was dropped');
        if (part.state !== undefined) {
          losses.add('reasoning_state_dropped', path, `${part.state.format} reasoning state only goes back to ${part.state.format}; dropped for openai-chat`);
        }
        this.roleNow(candidate, out);
        return;
      case 'image':
      case 'audio':
      case 'video':
      case 'document':
      case 'tool_result':
      case 'opaque':
        state.parts.set(index, { kind: 'skip', stateReported: true });
        losses.add('unsupported_part', path, `a streamed "${part.type === 'opaque' ? part.blockType : part.type}" part has no Chat Completions chunk form; dropped`);
        this.roleNow(candidate, out);
        return;
      default:
        unreachable(part);
    }
  }

  /**
   * A part this encoder drops (reasoning without a dialect field, media)
   * sends the choice's role chunk now if it has not gone out, as OpenAI's
   * reasoning models do before they think (`{"role":"assistant","content":"","refusal":null}`):
   * a thinking phase of another format would otherwise leave a Chat caller
   * without a byte until the first text.
   */
  private roleNow(candidate: number, out: SseMessage[]): void {
    if (!this.candidate(candidate).role) out.push(this.chunk(candidate, { content: '' }));
  }

  private partEnd(candidate: number, index: number, part: Part | undefined, out: SseMessage[]): void {
    const slot = this.candidate(candidate).parts.get(index);
    if (slot?.kind === 'tool' && !slot.argumentsSent && part?.type === 'tool_call') {
      slot.argumentsSent = true;
      const text = argumentsAsText(part);
      if (text !== '') out.push(this.chunk(candidate, { tool_calls: [toolFragment(slot.wire, slot.custom, text)] }));
    }
    // The final part may hold text its deltas did not carry (a Responses `output_text.done` is the whole text): send the rest, as a whole answer would have it.
    if ((slot?.kind === 'text' || slot?.kind === 'refusal') && (part?.type === 'text' || part?.type === 'refusal') && part.text.length > slot.sent) {
      const rest = part.text.slice(slot.sent);
      slot.sent = part.text.length;
      out.push(this.chunk(candidate, { [slot.kind === 'text' ? 'content' : 'refusal']: rest }));
    }
    if ((slot?.kind === 'text' || slot?.kind === 'refusal') && part?.type === 'text' && part.citations !== undefined && part.citations.length > 0) {
      this.context.losses.add('dropped_field', partPath(candidate, index), 'citations of a streamed text part have no Chat Completions chunk form; dropped');
    }
  }
}

/** A continuation fragment of a streamed tool call: argument text for a function call, input text for a custom call. */
function toolFragment(index: number, custom: boolean, text: string): JsonObject {
  return custom ? { index, custom: { input: text } } : { index, function: { arguments: text } };
}
