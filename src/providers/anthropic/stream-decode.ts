/**
 * Anthropic Messages stream → IR stream events. A small state machine: the
 * blocks open right now (normally one), the wire usage so far (message_delta
 * usage is cumulative and may leave fields out), and the keep-alive events
 * waiting to ride on the next IR event.
 *
 * Shape hints the encoder reads back (all `$`-prefixed, in `extensions.anthropic`):
 * - `$before` on any event: wire events (pings) that came just before it.
 * - `$stream` on `start`: the source was an Anthropic stream, so pings are exactly as hinted.
 * - `$candidate` on `start`: the candidate's shape hints of the `message_start` message.
 * - `$whole` on `start`: the source sent one whole `message` object instead of events.
 * - `$inline` on `start`: how many of the following events came from content inside `message_start`.
 * - `$startInput`, `$startText`, `$startSignature` on `part_start`: non-empty `input`, text or signature of the skeleton.
 * - `$noStop` on `part_end`: the block was never stopped on the wire (closed by `message_delta`).
 * - `$messageDelta`, `$usageKeys`, `$usageNulls`, `$usageAbsent`, `$delta` on `usage`: the shape of a `message_delta`.
 * - `$stopSequenceAbsent` on `finish`: the delta had no `stop_sequence`.
 *
 * Wire fields without an IR slot: `eventFields` (unknown keys of the wire event itself) on its first IR
 * event; `stop_details`, `container` of a `message_delta` on `finish`, its other keys on `usage`.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import { responseToEvents } from '../../core/accumulate.ts';
import type { CodecContext } from '../../core/codec.ts';
import { DataTemplates, hasExactKeys } from '../../core/data-template.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { Extensible, Part, Response, StopReason, Usage } from '../../core/ir.ts';
import type { StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { CallNames, parseArguments } from '../../core/tools.ts';
import { expectNumber, expectObject, expectString, isObject, pointer, required, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeAnthropicError } from './error.ts';
import { decodeAnthropicBlock, type BlockScope } from './parts-decode.ts';
import { decodeAnthropicResponse } from './response.ts';
import { ANTHROPIC } from './shape.ts';
import { decodeAnthropicStopReason } from './stop-reason.ts';
import { TOOL_INPUT_TYPES } from './block-types.ts';
import { decodeAnthropicUsage } from './usage.ts';

/** A block between `content_block_start` and `content_block_stop`: its skeleton and what its deltas added. */
interface OpenBlock {
  skeleton: JsonObject;
  /** Text, thinking, partial JSON or compaction content received so far. */
  text: string;
  /** Citations received by `citations_delta`. */
  citations: unknown[];
  /** Whether any delta changed the skeleton in a way the accumulator cannot follow. */
  rebuilt: boolean;
}

const DELTA_KEYS: ReadonlySet<string> = new Set(['stop_reason', 'stop_sequence']);
const DELTA_KEYS_NULL_DETAILS: ReadonlySet<string> = new Set([...DELTA_KEYS, 'stop_details']);
const START_KEYS: ReadonlySet<string> = new Set(['type', 'message']);
const BLOCK_START_KEYS: ReadonlySet<string> = new Set(['type', 'index', 'content_block']);
const BLOCK_DELTA_KEYS: ReadonlySet<string> = new Set(['type', 'index', 'delta']);
const BLOCK_STOP_KEYS: ReadonlySet<string> = new Set(['type', 'index']);
const MESSAGE_DELTA_KEYS: ReadonlySet<string> = new Set(['type', 'delta', 'usage']);

function eventPath(count: number): string {
  return `/events/${count}`;
}

function blockIndex(data: JsonObject, path: string): number {
  const index = data['index'];
  // The pointer is built only for the error.
  if (typeof index === 'number' && Number.isFinite(index)) return index;
  return expectNumber(required(data, 'index', path, ANTHROPIC), pointer(path, 'index'), ANTHROPIC);
}

/** `object[key]` as an object; the error (with its pointer) only when it is not one. */
function objectField(object: JsonObject, key: string, path: string): JsonObject {
  const value = object[key];
  return isObject(value) ? value : expectObject(required(object, key, path, ANTHROPIC), pointer(path, key), ANTHROPIC);
}

/** `object[key]` as a string; the error (with its pointer, `path` then `within`) only when it is not one. */
function stringField(object: JsonObject, key: string, path: string, within?: string): string {
  const value = object[key];
  if (typeof value === 'string') return value;
  const base = within === undefined ? path : pointer(path, within);
  return expectString(required(object, key, base, ANTHROPIC), pointer(base, key), ANTHROPIC);
}

/** The `message_start` message (or a whole `message`) as a start event plus the events of any content it carries. */
function startEvents(message: unknown, path: string, context: CodecContext, whole: boolean): StreamEvent[] {
  const response: Response = decodeAnthropicResponse(message, context);
  const candidate = response.candidates[0];
  const events = responseToEvents(response);
  const start = events[0];
  if (start?.type !== 'start') throw new InterlinguaError('stream_error', 'no start event', { path, format: ANTHROPIC });
  const hints: JsonObject = { ...start.extensions?.anthropic, $stream: true };
  if (candidate?.extensions?.anthropic !== undefined) hints['$candidate'] = candidate.extensions.anthropic;
  if (whole) hints['$whole'] = true;
  start.extensions = { ...start.extensions, anthropic: hints };
  // Every part_end carries its final part, so the whole message survives any in-place growth of the start parts.
  for (const event of events) {
    if (event.type === 'part_end' && event.part === undefined) {
      const part = candidate?.message.parts[event.index];
      if (part !== undefined) event.part = part;
    }
  }
  if (whole) return events;
  // message_start: usage belongs to the start; content and a stop reason come only where the API answers
  // whole inside message_start (programmatic tool calls), and `$inline` counts the events they became.
  if (response.usage !== undefined) start.usage = response.usage;
  const inline = events.filter((event) => event.type !== 'end' && event.type !== 'usage');
  if (inline.length > 1) hints['$inline'] = inline.length - 1;
  return inline;
}

/** Fields of the wire event itself that no IR field holds ride on its first IR event as `eventFields`. */
function withEventFields(events: StreamEvent[], data: JsonObject, known: ReadonlySet<string>): StreamEvent[] {
  const rest = unknownKeys(data, known);
  const first = events[0];
  if (rest !== undefined && first !== undefined) first.extensions = { ...first.extensions, anthropic: { ...first.extensions?.anthropic, eventFields: rest } };
  return events;
}

/** Add one Anthropic shape hint to a node, without touching the extensions object it may share. */
function addHint(node: Extensible, key: `$${string}`, value: unknown): void {
  node.extensions = { ...node.extensions, anthropic: { ...node.extensions?.anthropic, [key]: value } };
}

/** Overlay a `message_delta` usage on the wire usage so far: absent and `null` fields keep their earlier value. */
function overlayUsage(previous: JsonObject, delta: JsonObject): JsonObject {
  const merged: JsonObject = { ...previous };
  for (const key in delta) if (delta[key] !== null) merged[key] = delta[key];
  return merged;
}

/** The delta types whose one string a usual block delta carries, and the field it is in. */
const STRING_DELTAS = { text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'partial_json' } as const;
type StringDeltaType = keyof typeof STRING_DELTAS;

/** A usual block delta: its block index and delta type. */
interface UsualBlockDelta {
  index: number;
  type: StringDeltaType;
}

/**
 * `{"type": "content_block_delta", "index", "delta": {"type", <field>}}` with
 * exactly these keys, a finite index and a text, thinking or input JSON
 * delta: its index, type and string; else `undefined`.
 */
function usualBlockDelta(data: unknown): (UsualBlockDelta & { value: unknown }) | undefined {
  if (!hasExactKeys(data, 'type', 'index', 'delta') || data['type'] !== 'content_block_delta') return undefined;
  const index = data['index'];
  const delta = data['delta'];
  if (typeof index !== 'number' || !Number.isFinite(index) || !isObject(delta)) return undefined;
  const type = delta['type'];
  if (type !== 'text_delta' && type !== 'thinking_delta' && type !== 'input_json_delta') return undefined;
  const field = STRING_DELTAS[type];
  return hasExactKeys(delta, 'type', field) ? { index, type, value: delta[field] } : undefined;
}

/** A fresh Anthropic stream decoder. */
export function createAnthropicStreamDecoder(context: CodecContext): StreamDecoder {
  const scope: BlockScope = { losses: context.losses, calls: new CallNames() };
  const blocks = new Map<number, OpenBlock>();
  let before: unknown[] = [];
  let wireUsage: JsonObject = {};
  let count = -1;
  let started = false;
  let ended = false;
  let failed = false;

  /** Attach waiting keep-alive events to the first event of this batch. */
  function withBefore(events: StreamEvent[]): StreamEvent[] {
    const first = events[0];
    if (first === undefined || before.length === 0) return events;
    first.extensions = { ...first.extensions, anthropic: { ...first.extensions?.anthropic, $before: before } };
    before = [];
    return events;
  }

  function messageStart(data: JsonObject, path: string): StreamEvent[] {
    const message = expectObject(required(data, 'message', path, ANTHROPIC), pointer(path, 'message'), ANTHROPIC);
    started = true;
    ended = false;
    blocks.clear();
    const usage = message['usage'];
    wireUsage = isObject(usage) ? usage : {};
    return startEvents(message, pointer(path, 'message'), context, false);
  }

  function blockStart(data: JsonObject, path: string): StreamEvent[] {
    const index = blockIndex(data, path);
    const skeleton = expectObject(required(data, 'content_block', path, ANTHROPIC), pointer(path, 'content_block'), ANTHROPIC);
    const type = expectString(required(skeleton, 'type', pointer(path, 'content_block'), ANTHROPIC), pointer(path, 'content_block', 'type'), ANTHROPIC);
    blocks.set(index, { skeleton, text: '', citations: [], rebuilt: false });
    let part = decodeAnthropicBlock(skeleton, pointer(path, 'content_block'), scope);
    // Deltas grow the part in place downstream, so the skeleton's own text and signature travel as hints too.
    const startText = type === 'text' ? skeleton['text'] : type === 'thinking' ? skeleton['thinking'] : undefined;
    if (typeof startText === 'string' && startText !== '') addHint(part, '$startText', startText);
    if (type === 'thinking' && typeof skeleton['signature'] === 'string' && skeleton['signature'] !== '') addHint(part, '$startSignature', skeleton['signature']);
    if (part.type === 'tool_call' && type === 'tool_use') {
      const { arguments: input, ...rest } = part;
      part = { ...rest, arguments: undefined, rawArguments: '' };
      if (input !== undefined && Object.keys(input).length > 0) addHint(part, '$startInput', input);
    }
    return [{ type: 'part_start', candidate: 0, index, part }];
  }

  /** The event of a text, thinking or input JSON delta of block `index`. */
  function stringDelta(index: number, type: StringDeltaType, value: string): StreamEvent[] {
    switch (type) {
      case 'text_delta': {
        const block = blocks.get(index);
        if (block !== undefined) block.text += value;
        return [{ type: 'text_delta', candidate: 0, index, text: value }];
      }
      case 'thinking_delta':
        return [{ type: 'reasoning_delta', candidate: 0, index, text: value }];
      case 'input_json_delta': {
        const block = blocks.get(index);
        if (block !== undefined) block.text += value;
        return [{ type: 'tool_call_delta', candidate: 0, index, arguments: value }];
      }
    }
  }

  function blockDelta(data: JsonObject, path: string): StreamEvent[] {
    const index = blockIndex(data, path);
    const delta = objectField(data, 'delta', path);
    const type = stringField(delta, 'type', path, 'delta');
    const block = blocks.get(index);
    switch (type) {
      case 'text_delta':
        return stringDelta(index, type, stringField(delta, 'text', path, 'delta'));
      case 'thinking_delta':
        return stringDelta(index, type, stringField(delta, 'thinking', path, 'delta'));
      case 'signature_delta':
        return [{ type: 'reasoning_signature', candidate: 0, index, state: { format: ANTHROPIC, kind: 'signature', value: stringField(delta, 'signature', path, 'delta') } }];
      case 'input_json_delta':
        return stringDelta(index, type, stringField(delta, 'partial_json', path, 'delta'));
      case 'citations_delta': {
        const citation = expectObject(required(delta, 'citation', pointer(path, 'delta'), ANTHROPIC), pointer(path, 'delta', 'citation'), ANTHROPIC);
        if (block !== undefined) {
          block.citations.push(citation);
          block.rebuilt = true;
        }
        // The wire citation is a hint for a trip back; every other format gets it decoded on the block's final form (part_end).
        return [{ type: 'text_delta', candidate: 0, index, text: '', extensions: { anthropic: { $citation: citation } } }];
      }
      case 'compaction_delta': {
        const value = delta['content'];
        if (block !== undefined && typeof value === 'string') {
          block.text += value;
          block.rebuilt = true;
        }
        return [{ type: 'text_delta', candidate: 0, index, text: '', extensions: { anthropic: { $delta: delta } } }];
      }
      default:
        context.losses.add('unknown_block', pointer(path, 'delta'), `unknown Anthropic delta type "${type}"; kept for Anthropic only`);
        return [{ type: 'text_delta', candidate: 0, index, text: '', extensions: { anthropic: { delta } } }];
    }
  }

  /** The final part of a block whose deltas the accumulator cannot apply itself (tool input, citations, compaction). */
  function finalPart(block: OpenBlock, path: string): Part | undefined {
    const type = block.skeleton['type'];
    if (typeof type === 'string' && TOOL_INPUT_TYPES.has(type)) {
      if (block.text.trim() === '') return type === 'tool_use' ? decodeAnthropicBlock(block.skeleton, path, scope) : undefined;
      const parsed = parseArguments(block.text);
      if (parsed.arguments === undefined) {
        if (type !== 'tool_use') return undefined;
        const part = decodeAnthropicBlock(block.skeleton, path, scope);
        return part.type === 'tool_call' ? { ...part, arguments: undefined, rawArguments: block.text } : part;
      }
      return decodeAnthropicBlock({ ...block.skeleton, input: parsed.arguments }, path, scope);
    }
    if (!block.rebuilt) return undefined;
    if (type === 'text') {
      const previous = Array.isArray(block.skeleton['citations']) ? block.skeleton['citations'] : [];
      return decodeAnthropicBlock({ ...block.skeleton, text: `${String(block.skeleton['text'] ?? '')}${block.text}`, citations: [...previous, ...block.citations] }, path, scope);
    }
    if (type === 'compaction') return decodeAnthropicBlock({ ...block.skeleton, content: block.text }, path, scope);
    return undefined;
  }

  function blockEnd(index: number, path: string, onWire: boolean): StreamEvent {
    const block = blocks.get(index);
    blocks.delete(index);
    const event: StreamEvent = { type: 'part_end', candidate: 0, index };
    const part = block === undefined ? undefined : finalPart(block, path);
    if (part !== undefined) event.part = part;
    if (!onWire) event.extensions = { anthropic: { $noStop: true } };
    return event;
  }

  /** Blocks still open when the message moves on were never stopped on the wire: close them in the IR. */
  function closeOpenBlocks(path: string): StreamEvent[] {
    return [...blocks.keys()].map((index) => blockEnd(index, path, false));
  }

  function finishEvent(delta: JsonObject, path: string): StreamEvent | undefined {
    const raw = delta['stop_reason'];
    if (typeof raw !== 'string') return undefined;
    const stopReason: StopReason = decodeAnthropicStopReason(raw);
    const sequence = delta['stop_sequence'];
    if (typeof sequence === 'string') stopReason.sequence = sequence;
    else if (sequence !== null && sequence !== undefined) expectString(sequence, pointer(path, 'stop_sequence'), ANTHROPIC);
    const event: StreamEvent = { type: 'finish', candidate: 0, stopReason };
    // A `null` stop_details (any stop but a refusal's) says nothing: a shape hint, as in a whole answer.
    const details = delta['stop_details'] === null;
    const fields: JsonObject = { ...unknownKeys(delta, details ? DELTA_KEYS_NULL_DETAILS : DELTA_KEYS) };
    if (details) fields['$stopDetailsNull'] = true;
    if (sequence === undefined) fields['$stopSequenceAbsent'] = true;
    if (Object.keys(fields).length > 0) event.extensions = { anthropic: fields };
    return event;
  }

  function usageEvent(data: JsonObject, delta: JsonObject, hasFinish: boolean, path: string): StreamEvent {
    const hints: JsonObject = { $messageDelta: true, ...unknownKeys(data, MESSAGE_DELTA_KEYS) };
    if (!hasFinish) hints['$delta'] = delta;
    const wire = data['usage'];
    let usage: Usage = {};
    if (wire === undefined || wire === null) hints['$usageAbsent'] = wire === undefined ? true : 'null';
    else {
      const deltaUsage = expectObject(wire, pointer(path, 'usage'), ANTHROPIC);
      wireUsage = overlayUsage(wireUsage, deltaUsage);
      hints['$usageKeys'] = Object.keys(deltaUsage);
      const nulls = Object.keys(deltaUsage).filter((key) => deltaUsage[key] === null);
      if (nulls.length > 0) hints['$usageNulls'] = nulls;
      if (wireUsage['input_tokens'] !== undefined && wireUsage['output_tokens'] !== undefined) usage = decodeAnthropicUsage(wireUsage, pointer(path, 'usage'));
      else if (typeof wireUsage['output_tokens'] === 'number') usage = { outputTokens: wireUsage['output_tokens'] };
    }
    return { type: 'usage', usage, extensions: { anthropic: hints } };
  }

  function messageDelta(data: JsonObject, path: string): StreamEvent[] {
    const delta = expectObject(required(data, 'delta', path, ANTHROPIC), pointer(path, 'delta'), ANTHROPIC);
    const events = closeOpenBlocks(path);
    const finish = finishEvent(delta, pointer(path, 'delta'));
    if (finish !== undefined) events.push(finish);
    events.push(usageEvent(data, delta, finish !== undefined, path));
    return events;
  }

  function messageStop(data: JsonObject, path: string): StreamEvent[] {
    const events = closeOpenBlocks(path);
    ended = true;
    const end: StreamEvent = { type: 'end' };
    const rest = unknownKeys(data, new Set(['type']));
    if (rest !== undefined) end.extensions = { anthropic: rest };
    events.push(end);
    return events;
  }

  function decodeData(data: JsonObject, path: string): StreamEvent[] {
    const type = stringField(data, 'type', path);
    switch (type) {
      case 'message_start':
        return withEventFields(messageStart(data, path), data, START_KEYS);
      case 'content_block_start':
        return withEventFields(blockStart(data, path), data, BLOCK_START_KEYS);
      case 'content_block_delta':
        return withEventFields(blockDelta(data, path), data, BLOCK_DELTA_KEYS);
      case 'content_block_stop':
        return withEventFields([blockEnd(blockIndex(data, path), path, true)], data, BLOCK_STOP_KEYS);
      case 'message_delta':
        return messageDelta(data, path);
      case 'message_stop':
        return messageStop(data, path);
      case 'ping':
        before.push(data);
        return [];
      case 'error':
        failed = true;
        return [{ type: 'error', error: decodeAnthropicError(data, context) }];
      case 'message':
        // A whole message where events were expected (Vertex answers some stream requests this way).
        started = true;
        ended = true;
        return startEvents(data, path, context, true);
      default:
        context.losses.add('unknown_block', path, `unknown Anthropic stream event "${type}"; kept for Anthropic only`);
        before.push(data);
        return [];
    }
  }

  /** The event texts of the stream's usual block deltas (see `data-template.ts`). */
  const templates = new DataTemplates<UsualBlockDelta>();

  return {
    decode(event: WireEvent): StreamEvent[] {
      count++;
      const path = eventPath(count);
      if (failed) return [];
      const data = expectObject(event.data, path, ANTHROPIC);
      return withBefore(decodeData(data, path));
    },
    // A usual block delta with another string: the events `decode` makes of it, without parsing it.
    decodeText(data: string, event: string | undefined): StreamEvent[] | undefined {
      const value = templates.read(data, event)?.[0];
      if (value === undefined) return undefined;
      count++;
      if (failed) return [];
      const shape = templates.shape;
      return withBefore(stringDelta(shape.index, shape.type, value));
    },
    learn(data: string, wire: WireEvent): void {
      if (!templates.learning) return;
      const found = usualBlockDelta(wire.data);
      if (found === undefined || typeof found.value !== 'string') return;
      templates.learn(data, wire.event, [{ kind: 'read', value: found.value }], (value, [probe]) => {
        const usual = usualBlockDelta(value);
        return usual !== undefined && usual.value === probe ? { index: usual.index, type: usual.type } : undefined;
      });
    },
    flush(): StreamEvent[] {
      if (failed || (started && ended)) return [];
      failed = true;
      const where = started ? 'before message_stop' : 'before message_start';
      return [{ type: 'error', error: { type: 'server', message: `the Anthropic stream was truncated: it ended ${where}` } }];
    },
  };
}
