/**
 * The choice half of the Chat Completions stream decoder: the state machine
 * of each choice's parts. A choice's `delta` opens and grows text, refusal
 * and reasoning parts (each open one closes the others) and tool calls
 * (fragments keyed by their own `index`, open until the finish); its
 * `finish_reason` closes them all. stream-decode.ts reads the chunks around
 * it (start, usage, `[DONE]`, same-format hints).
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
import type { CodecContext } from '../../core/codec.ts';
import type { ToolCallPart } from '../../core/ir.ts';
import type { StreamEvent } from '../../core/stream-events.ts';
import { expectArray, expectObject, isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiChatFinishReason } from './stop-reason.ts';
import { FORMAT } from './shape.ts';
import type { OpenaiChatDialect } from './dialects.ts';

/** Delta fields of reasoning text and the dialect each stands for. */
const REASONING_FIELDS: readonly (readonly [string, OpenaiChatDialect])[] = [
  ['reasoning_content', 'deepseek'],
  ['reasoning', 'vllm'],
];

/**
 * Delta keys with meaning but no IR stream event (audio output, legacy
 * function calls, web-search annotations). The chunk patch carries them back
 * to openai-chat; they are also set as extension fields of the candidate's
 * first event, so that other encoders report what they drop.
 */
const UNSTREAMED: readonly string[] = ['audio', 'function_call', 'annotations'];

/** What the decoder knows of one choice: its open parts. */
interface CandidateState {
  /** The next free part index. */
  next: number;
  text?: number;
  refusal?: number;
  /** A refusal was streamed: a `stop` finish then means a refusal. */
  refused?: boolean;
  reasoning?: number;
  /** Open tool calls: wire `index` → part index. */
  tools: Map<number, number>;
  /** `content: ""` arrived while no part was open (an empty answer is one empty text part). */
  emptyContent: boolean;
  /** The dialect whose field carried the open reasoning text; its state is sent when the part closes. */
  reasoningDialect?: OpenaiChatDialect;
}

/** The open parts of every choice of one stream, and the events its chunks make of them. */
export class ChoiceDecoder {
  private readonly candidates = new Map<number, CandidateState>();
  /** Extension fields of a choice that made no event, for the chunk's first event (the chunk decoder takes them). */
  extras: JsonObject | undefined;

  constructor(private readonly context: CodecContext) {}

  /** Close every open part of every choice (a stream that ended without `[DONE]`). */
  closeEvery(events: StreamEvent[]): void {
    for (const [candidate, state] of this.candidates) this.closeAll(candidate, state, events);
  }

  private candidate(index: number): CandidateState {
    let state = this.candidates.get(index);
    if (state === undefined) {
      state = { next: 0, tools: new Map(), emptyContent: false };
      this.candidates.set(index, state);
    }
    return state;
  }

  /** The events of the choice at `position` of a chunk's `choices`. */
  choice(value: unknown, position: number, events: StreamEvent[]): void {
    // Pointers are built only where they are used (an error, a loss), not for every chunk.
    const choice = isObject(value) ? value : expectObject(value, pointer('/choices', position), FORMAT);
    const candidate = typeof choice['index'] === 'number' ? choice['index'] : position;
    const state = this.candidate(candidate);
    const mark = events.length;
    const delta = choice['delta'];
    let extras: JsonObject | undefined;
    if (delta !== undefined && delta !== null) {
      const object = isObject(delta) ? delta : expectObject(delta, pointer('/choices', position, 'delta'), FORMAT);
      this.delta(object, position, candidate, state, events);
      for (const key of UNSTREAMED) if (object[key] !== undefined && object[key] !== null) (extras ??= {})[key] = object[key];
    }
    const logprobs = choice['logprobs'];
    if (logprobs !== undefined && logprobs !== null) (extras ??= {})['logprobs'] = logprobs;
    const finish = choice['finish_reason'];
    if (typeof finish === 'string') this.finish(candidate, state, finish, events);
    if (extras === undefined) return;
    const carrier = events[mark];
    if (carrier === undefined) this.extras = { ...this.extras, ...extras };
    else Object.assign(((carrier.extensions ??= {})[FORMAT] ??= {}), extras);
  }

  private finish(candidate: number, state: CandidateState, finish: string, events: StreamEvent[]): void {
    if (state.next === 0 && state.emptyContent) {
      // `content: ""` and nothing else: the whole answer is one empty text, as in the non-streamed body.
      const address = { candidate, index: state.next++ };
      events.push({ type: 'part_start', ...address, part: { type: 'text', text: '' } }, { type: 'part_end', ...address });
    }
    this.closeAll(candidate, state, events);
    state.emptyContent = false;
    events.push({ type: 'finish', candidate, stopReason: decodeOpenaiChatFinishReason(finish, state.refused === true) });
  }

  private delta(delta: JsonObject, position: number, candidate: number, state: CandidateState, events: StreamEvent[]): void {
    // DeepSeek spells reasoning text `reasoning_content`; vLLM, Ollama and OpenRouter `reasoning`.
    for (let at = 0; at < REASONING_FIELDS.length; at++) {
      const [field, dialect] = REASONING_FIELDS[at]!;
      const reasoning = delta[field];
      if (typeof reasoning !== 'string' || reasoning === '') continue;
      const index = (state.reasoning ??= this.open(candidate, state, events, 'reasoning'));
      state.reasoningDialect ??= dialect;
      events.push({ type: 'reasoning_delta', candidate, index, text: reasoning });
    }
    const content = delta['content'];
    if (typeof content === 'string') {
      if (content !== '') {
        const index = (state.text ??= this.open(candidate, state, events, 'text'));
        events.push({ type: 'text_delta', candidate, index, text: content });
      } else if (state.text === undefined) {
        state.emptyContent = true;
      }
    }
    const refusal = delta['refusal'];
    if (typeof refusal === 'string' && refusal !== '') {
      const index = (state.refusal ??= this.open(candidate, state, events, 'refusal'));
      state.refused = true;
      events.push({ type: 'text_delta', candidate, index, text: refusal });
    }
    const toolCalls = delta['tool_calls'];
    if (toolCalls !== undefined && toolCalls !== null) {
      const list = Array.isArray(toolCalls) ? toolCalls : expectArray(toolCalls, pointer('/choices', position, 'delta', 'tool_calls'), FORMAT);
      for (let at = 0; at < list.length; at++) this.toolFragment(list[at], position, at, candidate, state, events);
    }
  }

  private toolFragment(value: unknown, choice: number, position: number, candidate: number, state: CandidateState, events: StreamEvent[]): void {
    const fragment = isObject(value) ? value : expectObject(value, pointer('/choices', choice, 'delta', 'tool_calls', position), FORMAT);
    const wire = typeof fragment['index'] === 'number' ? fragment['index'] : position;
    // The first fragment of a custom call says `type: "custom"`; the ones after it carry only `custom.input`.
    const custom = isObject(fragment['custom']) ? fragment['custom'] : undefined;
    const body = custom ?? (isObject(fragment['function']) ? fragment['function'] : undefined);
    const text = body?.[custom === undefined ? 'arguments' : 'input'];
    let index = state.tools.get(wire);
    if (index === undefined) {
      index = this.open(candidate, state, events, 'tool_call');
      state.tools.set(wire, index);
      const id = fragment['id'];
      const name = body?.['name'];
      const part: ToolCallPart = {
        type: 'tool_call',
        id: typeof id === 'string' ? id : `call_${candidate}_${wire}`,
        name: typeof name === 'string' ? name : '',
        arguments: undefined,
        rawArguments: '',
      };
      if (typeof id !== 'string') {
        part.syntheticId = true;
        this.context.losses.add('synthesised_id', pointer('/choices', choice, 'delta', 'tool_calls', position), `the first fragment of tool call ${wire} has no id; synthesised "${part.id}"`, 'info');
      }
      if (custom !== undefined) part.kind = 'custom';
      events.push({ type: 'part_start', candidate, index, part });
    }
    if (typeof text === 'string' && text !== '') events.push({ type: 'tool_call_delta', candidate, index, arguments: text });
  }

  /** Open a part: text, refusal and reasoning follow each other; tool calls end them and stay open until the finish. */
  private open(candidate: number, state: CandidateState, events: StreamEvent[], type: 'text' | 'refusal' | 'reasoning' | 'tool_call'): number {
    if (type !== 'text') this.close(candidate, state, 'text', events);
    if (type !== 'refusal') this.close(candidate, state, 'refusal', events);
    if (type !== 'reasoning') this.close(candidate, state, 'reasoning', events);
    const index = state.next++;
    if (type !== 'tool_call') events.push({ type: 'part_start', candidate, index, part: { type, text: '' } });
    return index;
  }

  private close(candidate: number, state: CandidateState, key: 'text' | 'refusal' | 'reasoning', events: StreamEvent[]): void {
    const index = state[key];
    if (index === undefined) return;
    delete state[key];
    if (key === 'reasoning') this.reasoningState(candidate, index, state, events);
    events.push({ type: 'part_end', candidate, index });
  }

  /** The dialect's text state of a closing reasoning part: the text goes back to that dialect on later turns. */
  private reasoningState(candidate: number, index: number, state: CandidateState, events: StreamEvent[]): void {
    const dialect = state.reasoningDialect;
    if (dialect === undefined) return;
    delete state.reasoningDialect;
    events.push({ type: 'reasoning_signature', candidate, index, state: { format: FORMAT, kind: 'text', value: '', dialect } });
  }

  /** Close every open part of a candidate, in part order. */
  private closeAll(candidate: number, state: CandidateState, events: StreamEvent[]): void {
    const open = [state.text, state.refusal, state.reasoning, ...state.tools.values()].filter((index) => index !== undefined);
    open.sort((left, right) => left - right);
    for (const index of open) {
      if (index === state.reasoning) this.reasoningState(candidate, index, state, events);
      events.push({ type: 'part_end', candidate, index });
    }
    delete state.text;
    delete state.refusal;
    delete state.reasoning;
    state.tools.clear();
  }
}
