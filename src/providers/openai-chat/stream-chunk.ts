/**
 * The `chat.completion.chunk` shapes both stream halves share: the chunk a
 * group of IR events makes by default, and the patch that turns that default
 * into the exact chunk a source sent.
 *
 * The decoder builds the default chunk for the events it produced and keeps
 * only the difference to the real chunk (obfuscation padding, explicit
 * `null`s, `logprobs`, vendor keys…) as a `$chunk` shape hint on the chunk's
 * first event. The encoder builds the same default from the same events and
 * applies the patch: a same-format trip is exact by construction, and the
 * hints stay small because a typical chunk differs only in its padding.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions/completions';
import type { LossCollector } from '../../core/losses.ts';
import { randomAnswerIds, type AnswerIds } from '../../core/answer-ids.ts';
import type { StartEvent, StreamEvent } from '../../core/stream-events.ts';
import { unreachable } from '../../core/ir.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiChatFinishReason } from './stop-reason.ts';
import { encodeOpenaiChatUsage } from './usage.ts';
import { FORMAT } from './shape.ts';

/** The `object` every chunk names. */
export const CHUNK_OBJECT = 'chat.completion.chunk' satisfies ChatCompletionChunk['object'];

/** The difference between two JSON objects (or same-length arrays): keys to set, keys to drop, keys to patch in place. */
export interface ChunkPatch {
  set?: JsonObject;
  drop?: string[];
  into?: Record<string, ChunkPatch>;
}

/** The `$chunk` hint on the first IR event of a wire chunk. */
export interface ChunkHint {
  /** How many IR events the chunk made (this one included), when more than one. */
  n?: number;
  /** How the real chunk differs from the default one. */
  patch?: ChunkPatch;
  /** The SSE event name, for the rare source that sends one. */
  event?: string;
}

/** A copy of a JSON container (patches change chunks in place), or the value itself. */
function copy(value: unknown): unknown {
  return isContainer(value) ? structuredClone(value) : value;
}

function isContainer(value: unknown): value is JsonObject | unknown[] {
  return typeof value === 'object' && value !== null;
}

/** The patch that turns `built` into `actual`, or `undefined` when they are equal. */
export function diffChunk(built: JsonObject | unknown[], actual: JsonObject | unknown[]): ChunkPatch | undefined {
  const from = built as JsonObject;
  const to = actual as JsonObject;
  let patch: ChunkPatch | undefined;
  for (const key in to) {
    const target = to[key];
    if (!(key in from)) {
      ((patch ??= {}).set ??= {})[key] = target;
      continue;
    }
    const source = from[key];
    if (source === target) continue;
    const nested =
      (isObject(source) && isObject(target)) || (Array.isArray(source) && Array.isArray(target) && source.length === target.length);
    if (nested) {
      const inner = diffChunk(source as JsonObject, target as JsonObject);
      if (inner !== undefined) ((patch ??= {}).into ??= {})[key] = inner;
    } else {
      ((patch ??= {}).set ??= {})[key] = target;
    }
  }
  for (const key in from) if (!(key in to)) ((patch ??= {}).drop ??= []).push(key);
  return patch;
}

/** Apply a patch made by {@link diffChunk} in place. */
export function applyChunkPatch(target: JsonObject | unknown[], patch: ChunkPatch): void {
  const object = target as JsonObject;
  for (const key of patch.drop ?? []) delete object[key];
  if (patch.set !== undefined) for (const key in patch.set) object[key] = patch.set[key];
  if (patch.into !== undefined) {
    for (const key in patch.into) {
      const inner = object[key];
      const innerPatch = patch.into[key];
      if (isContainer(inner) && innerPatch !== undefined) applyChunkPatch(inner, innerPatch);
    }
  }
}

/** The top-level chunk fields a `start` event implies: id, object, created, model and this format's extension fields. */
export function baselineTop(start: StartEvent, model: string | undefined): JsonObject {
  const top: JsonObject = {};
  if (start.id !== undefined) top['id'] = start.id;
  top['object'] = CHUNK_OBJECT;
  if (start.created !== undefined) top['created'] = start.created;
  const name = start.model ?? model;
  if (name !== undefined) top['model'] = name;
  const fields = start.extensions?.[FORMAT];
  if (fields !== undefined) {
    for (const key in fields) if (key.charCodeAt(0) !== 36 /* $ */) top[key] = fields[key];
  }
  return top;
}

/** What the builder knows of one candidate: the wire index of each of its tool calls, by part index. */
interface CandidateTools {
  byPart: Map<number, number>;
  next: number;
}

/**
 * Builds default chunks from IR events and remembers the top-level fields of
 * the last chunk (the fields every chunk repeats), so that a patch only has
 * to carry what changed.
 */
export class ChunkBuilder {
  /** Top-level fields of the last committed chunk, without `choices` and without a usage object. */
  private top: JsonObject = { object: CHUNK_OBJECT };
  /** Replaced with {@link top} by `begin` and `commit`, not by {@link commitObfuscation}: while it is the same object, so are the top-level fields but `obfuscation`. */
  private base: object = this.top;
  private readonly candidates = new Map<number, CandidateTools>();
  /** Refusal parts (`candidate:index`), whose text deltas go to `delta.refusal`. */
  private readonly refusals = new Set<string>();
  /** Custom (free-form) tool calls, whose text travels in `custom.input`. */
  private readonly customs = new Set<string>();

  constructor(
    private readonly losses: LossCollector,
    private readonly model: string | undefined,
    private readonly ids: AnswerIds = randomAnswerIds,
  ) {}

  /** The top-level fields every chunk repeats now: a new object whenever they change. */
  get fields(): JsonObject {
    return this.top;
  }

  /** The same object while the top-level fields but `obfuscation` stay as they are (see {@link commitObfuscation}). */
  get fieldsButObfuscation(): object {
    return this.base;
  }

  /**
   * Set the top-level fields from a `start` event; `fingerprint`: another
   * format's answer gets `system_fingerprint: null` in every chunk, as
   * OpenAI's own chunks carry it (plain OpenAI, not its dialects).
   */
  begin(start: StartEvent, fingerprint: boolean): void {
    this.top = baselineTop(start, this.model);
    if (start.extensions?.[FORMAT] === undefined) {
      // Another format's answer: every chunk needs an id and `created` (the spec requires both), the same in every chunk.
      if (this.top['id'] === undefined) {
        this.top['id'] = this.ids.id('chatcmpl-');
        this.losses.add('synthesised_id', '/id', `Chat Completions chunks need an id; "${String(this.top['id'])}" was made up`, 'info');
      }
      if (this.top['created'] === undefined) this.top = { id: this.top['id'], object: this.top['object'], created: this.ids.now(), ...this.top };
      if (fingerprint) this.top['system_fingerprint'] = null;
    }
    this.base = this.top;
  }

  private tools(candidate: number): CandidateTools {
    let tools = this.candidates.get(candidate);
    if (tools === undefined) {
      tools = { byPart: new Map(), next: 0 };
      this.candidates.set(candidate, tools);
    }
    return tools;
  }

  /** The wire `index` of a tool call: its part's, or the next free one for a new call. */
  toolIndex(candidate: number, part: number): number {
    const tools = this.tools(candidate);
    let index = tools.byPart.get(part);
    if (index === undefined) {
      index = tools.next++;
      tools.byPart.set(part, index);
    }
    return index;
  }

  /** True when the candidate has opened a tool call. */
  hasToolCalls(candidate: number): boolean {
    return (this.candidates.get(candidate)?.next ?? 0) > 0;
  }

  /** A chunk with the current top-level fields around `choices` (and `usage` when given). */
  assemble(choices: JsonObject[], usage?: JsonObject): JsonObject {
    const chunk: JsonObject = {};
    for (const key in this.top) if (key !== 'usage' && key !== 'obfuscation') chunk[key] = copy(this.top[key]);
    chunk['choices'] = choices;
    if (usage !== undefined) chunk['usage'] = usage;
    else if ('usage' in this.top) chunk['usage'] = copy(this.top['usage']);
    if ('obfuscation' in this.top) chunk['obfuscation'] = this.top['obfuscation'];
    return chunk;
  }

  /** The default chunk for the IR events of one wire chunk. Reads only fields the accumulator never changes. */
  build(events: readonly StreamEvent[]): JsonObject {
    const choices: JsonObject[] = [];
    let usage: JsonObject | undefined;
    for (const event of events) {
      switch (event.type) {
        case 'start':
          this.begin(event, false);
          break;
        case 'part_start':
          if (event.part.type === 'tool_call') {
            const index = this.toolIndex(event.candidate, event.index);
            const fragment =
              event.part.kind === 'custom'
                ? { index, id: event.part.id, type: 'custom', custom: { name: event.part.name, input: '' } }
                : { index, id: event.part.id, type: 'function', function: { name: event.part.name, arguments: '' } };
            if (event.part.kind === 'custom') this.customs.add(`${event.candidate}:${event.index}`);
            const target = deltaOf(choices, event.candidate);
            ((target['tool_calls'] ??= []) as JsonObject[]).push(fragment);
          } else {
            if (event.part.type === 'refusal') this.refusals.add(`${event.candidate}:${event.index}`);
            choiceOf(choices, event.candidate);
          }
          break;
        case 'text_delta':
        case 'reasoning_delta': {
          const target = deltaOf(choices, event.candidate);
          const key =
            event.type === 'reasoning_delta'
              ? 'reasoning_content'
              : this.refusals.has(`${event.candidate}:${event.index}`)
                ? 'refusal'
                : 'content';
          target[key] = (typeof target[key] === 'string' ? target[key] : '') + event.text;
          break;
        }
        case 'tool_call_delta': {
          const target = deltaOf(choices, event.candidate);
          const calls = (target['tool_calls'] ??= []) as JsonObject[];
          const index = this.toolIndex(event.candidate, event.index);
          const key = this.customs.has(`${event.candidate}:${event.index}`) ? ['custom', 'input'] as const : ['function', 'arguments'] as const;
          const existing = calls.find((call) => call['index'] === index);
          const body = existing?.[key[0]];
          if (existing !== undefined && isObject(body)) {
            body[key[1]] = String(body[key[1]] ?? '') + event.arguments;
          } else {
            calls.push({ index, [key[0]]: { [key[1]]: event.arguments } });
          }
          break;
        }
        case 'part_end':
        case 'reasoning_signature':
          choiceOf(choices, event.candidate);
          break;
        case 'finish':
          choiceOf(choices, event.candidate)['finish_reason'] = encodeOpenaiChatFinishReason(
            event.stopReason,
            this.hasToolCalls(event.candidate),
            this.losses,
            `/candidates/${event.candidate}/stopReason`,
          );
          break;
        case 'usage':
          usage = encodeOpenaiChatUsage(event.usage, this.losses, '/usage');
          break;
        case 'error':
        case 'end':
          break;
        default:
          unreachable(event);
      }
    }
    return this.assemble(choices, usage);
  }

  /**
   * For a chunk that is one text, reasoning or argument delta: where its text
   * sits in the choice `build` makes (`key` names the shape, the same for
   * every such chunk of this part) and that choice with `value` in its place;
   * `undefined` for any other event. Changes no state `build` would not.
   */
  soleDelta(event: StreamEvent, value: string): { key: string; choice: JsonObject } | undefined {
    switch (event.type) {
      case 'text_delta':
      case 'reasoning_delta': {
        const field = event.type === 'reasoning_delta' ? 'reasoning_content' : this.refusals.has(`${event.candidate}:${event.index}`) ? 'refusal' : 'content';
        return { key: `${event.candidate}:${field}`, choice: { index: event.candidate, delta: { [field]: value }, finish_reason: null } };
      }
      case 'tool_call_delta': {
        const tools = this.candidates.get(event.candidate);
        const index = tools?.byPart.get(event.index);
        if (index === undefined) return undefined;
        const [outer, inner] = this.customs.has(`${event.candidate}:${event.index}`) ? ['custom', 'input'] : ['function', 'arguments'];
        return { key: `${event.candidate}:${index}:${outer}`, choice: { index: event.candidate, delta: { tool_calls: [{ index, [outer]: { [inner]: value } }] }, finish_reason: null } };
      }
      default:
        return undefined;
    }
  }

  /**
   * True when `chunk` is exactly the chunk `build` makes of one sole delta
   * (`choice` from {@link soleDelta} with the real text): the top-level
   * fields the last chunk had, all primitive, and that choice. Then the chunk
   * needs no patch and leaves the top-level fields as they are.
   */
  isSoleChunk(chunk: JsonObject, choice: JsonObject): boolean {
    const top = this.top;
    let count = 0;
    for (const key in chunk) {
      if (key === 'choices') {
        const choices = chunk[key];
        if (!Array.isArray(choices) || choices.length !== 1 || !sameJson(choices[0], choice)) return false;
      } else {
        const value = chunk[key];
        if (typeof value === 'object' && value !== null) return false;
        if (top[key] !== value || !(key in top)) return false;
      }
      count++;
    }
    for (const _key in top) count--;
    return count === 1;
  }

  /** Remember the top-level fields of the chunk that was sent. */
  commit(chunk: JsonObject): void {
    const top: JsonObject = {};
    for (const key in chunk) {
      if (key === 'choices' || (key === 'usage' && isObject(chunk[key]))) continue;
      top[key] = chunk[key];
    }
    this.top = top;
    this.base = top;
  }

  /**
   * Remember a chunk whose patch set only `obfuscation` (OpenAI pads every
   * chunk with its own): what {@link commit} of it would remember, the
   * other top-level fields kept as they are.
   */
  commitObfuscation(value: string): void {
    this.top = { ...this.top, obfuscation: value };
  }
}

/** `patch` sets only `obfuscation`, to a string: its value; else `undefined`. */
export function obfuscationOnly(patch: ChunkPatch | undefined): string | undefined {
  if (patch === undefined || patch.drop !== undefined || patch.into !== undefined || patch.set === undefined) return undefined;
  let value: unknown;
  for (const key in patch.set) {
    if (key !== 'obfuscation') return undefined;
    value = patch.set[key];
  }
  return typeof value === 'string' ? value : undefined;
}

/** Deep equality of two JSON values (objects with the same keys, arrays of the same length). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as JsonObject;
  const right = b as JsonObject;
  let count = 0;
  for (const key in left) {
    if (!(key in right) || !sameJson(left[key], right[key])) return false;
    count++;
  }
  for (const _key in right) count--;
  return count === 0;
}

/** The choice of `candidate` in a chunk being built, added on first use. */
function choiceOf(choices: JsonObject[], candidate: number): JsonObject {
  for (const choice of choices) if (choice['index'] === candidate) return choice;
  const choice: JsonObject = { index: candidate, delta: {}, finish_reason: null };
  choices.push(choice);
  return choice;
}

/** The `delta` of `candidate`'s choice in a chunk being built. */
function deltaOf(choices: JsonObject[], candidate: number): JsonObject {
  return choiceOf(choices, candidate)['delta'] as JsonObject;
}
