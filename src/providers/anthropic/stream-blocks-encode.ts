/**
 * The wire pieces of an Anthropic stream, built from IR parts and events:
 * the `message_start` message, block skeletons for `content_block_start`,
 * and the `message_delta` body. The state machine lives in `stream-encode.ts`.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import type { CodecContext } from '../../core/codec.ts';
import { randomAnswerIds } from '../../core/answer-ids.ts';
import type { Candidate, Part, ReasoningPart, Response, TextPart, ToolCallPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { FinishEvent, SseMessage, StartEvent } from '../../core/stream-events.ts';
import { isObject, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeAnthropicPart } from './parts-encode.ts';
import { encodeAnthropicResponse } from './response.ts';
import { ANTHROPIC, hasHint } from './shape.ts';
import { encodeAnthropicStopReason } from './stop-reason.ts';
import { anthropicToolId } from './tool-ids-encode.ts';

/** How a part streams on the Anthropic wire. */
export type BlockKind =
  /** A `text` block with `text_delta` and `citations_delta` (also a refusal, sent as text). */
  | 'text'
  /** A `thinking` block with `thinking_delta` and `signature_delta`, or a whole `redacted_thinking` block. */
  | 'thinking'
  /** Reasoning whose origin is not known yet: held until an Anthropic signature arrives, else dropped. */
  | 'pending'
  /** A `tool_use` block with `input_json_delta`. */
  | 'tool'
  /** An Anthropic block kept whole (server-tool calls and results, …). */
  | 'opaque';

/** The path of a part in loss reports. */
export function partPath(index: number): string {
  return pointer('/candidates/0/message/parts', index);
}

/** One SSE message whose event name is the payload's `type`, as Anthropic frames every event. */
export function sse(data: JsonObject): SseMessage {
  const type = data['type'];
  return typeof type === 'string' ? { event: type, data: JSON.stringify(data) } : { data: JSON.stringify(data) };
}

/** The reasoning state is Anthropic's own, or the part was an unsigned Anthropic thinking block. */
export function isAnthropicReasoning(part: ReasoningPart): boolean {
  return part.state?.format === ANTHROPIC || (part.state === undefined && hasHint(part, '$unsigned'));
}

/** How `part` streams, or `undefined` (with a loss) when an Anthropic stream cannot carry it. */
export function blockKind(part: Part, path: string, losses: LossCollector): BlockKind | undefined {
  switch (part.type) {
    case 'text':
      return 'text';
    case 'refusal':
      losses.add('approximated', path, 'Anthropic has no refusal block; the refusal was streamed as text');
      return 'text';
    case 'reasoning':
      if (isAnthropicReasoning(part)) return 'thinking';
      if (part.state !== undefined) {
        losses.add('reasoning_state_dropped', path, `${part.state.format} reasoning state only goes back to ${part.state.format}; the reasoning part was dropped for Anthropic`);
        return undefined;
      }
      return 'pending';
    case 'tool_call':
      return 'tool';
    case 'opaque':
      if (part.format === ANTHROPIC && isObject(part.value)) return 'opaque';
      losses.add('unsupported_part', path, `${part.format} block "${part.blockType}" has no Anthropic equivalent; dropped`);
      return undefined;
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
    case 'tool_result':
      losses.add('unsupported_part', path, `an Anthropic response stream cannot carry a ${part.type} part; dropped`);
      return undefined;
    default:
      return unreachable(part);
  }
}

function textSkeleton(part: Part, startText: string, path: string, losses: LossCollector): JsonObject {
  const base: TextPart = part.type === 'text' ? part : { type: 'text', text: '' };
  const text: TextPart = { ...base, text: startText };
  if (startText === '' && !hasHint(text, '$empty')) text.extensions = { ...text.extensions, anthropic: { ...text.extensions?.anthropic, $empty: true } };
  return encodeAnthropicPart(text, path, losses) ?? { type: 'text', text: '' };
}

function thinkingSkeleton(part: Part, startText: string, path: string, losses: LossCollector): JsonObject {
  if (part.type !== 'reasoning') return { type: 'thinking', thinking: '', signature: '' };
  if (part.state?.kind === 'redacted') return encodeAnthropicPart(part, path, losses) ?? { type: 'redacted_thinking', data: part.state.value };
  losses.foreignExtensions(part.extensions, ANTHROPIC, path);
  const wire: JsonObject = { type: 'thinking', thinking: startText };
  const signature = part.extensions?.anthropic?.['$startSignature'];
  if (!hasHint(part, '$unsigned')) wire['signature'] = typeof signature === 'string' ? signature : '';
  return spreadExtensions(wire, part, ANTHROPIC);
}

function toolSkeleton(part: ToolCallPart, path: string, losses: LossCollector): JsonObject {
  losses.foreignExtensions(part.extensions, ANTHROPIC, path);
  if (part.syntheticId) losses.add('synthesised_id', pointer(path, 'id'), `the tool call "${part.name}" had no id; sent the synthesised id "${part.id}"`, 'info');
  const input = part.extensions?.anthropic?.['$startInput'];
  const wire: JsonObject = { type: 'tool_use', id: anthropicToolId(part.id, pointer(path, 'id'), losses), name: part.name, input: isObject(input) ? input : {} };
  return spreadExtensions(wire, part, ANTHROPIC);
}

/**
 * The `content_block` of a `content_block_start` for `part`. Text and
 * thinking start with `startText` (the skeleton's own text, usually `''`),
 * never with `part.text`: a part may already have grown by its deltas.
 */
export function blockSkeleton(part: Part, kind: BlockKind, startText: string, path: string, losses: LossCollector): JsonObject {
  switch (kind) {
    case 'text':
      return textSkeleton(part, startText, path, losses);
    case 'thinking':
    case 'pending':
      return thinkingSkeleton(part, startText, path, losses);
    case 'tool':
      return part.type === 'tool_call' ? toolSkeleton(part, path, losses) : { type: 'tool_use', id: 'toolu_unknown', name: '', input: {} };
    case 'opaque':
      return part.type === 'opaque' && isObject(part.value) ? part.value : {};
    default:
      return unreachable(kind);
  }
}

/** Keys of a start event that belong to the stream, not to the message body. */
const START_HINTS: ReadonlySet<string> = new Set(['$stream', '$candidate', '$whole', '$inline', '$before', 'eventFields']);

/** The `message` of `message_start`: what the start event knows, usage `0` where nothing is known yet. */
export function startMessage(start: StartEvent | undefined, context: CodecContext): JsonObject {
  const hints = start?.extensions?.anthropic;
  const candidate: Candidate = { index: 0, message: { role: 'assistant', parts: [] } };
  const candidateHints = hints?.['$candidate'];
  if (isObject(candidateHints)) candidate.extensions = { anthropic: candidateHints };
  const response: Response = { candidates: [candidate] };
  if (start?.id !== undefined) response.id = start.id;
  else if (hints === undefined) {
    // Another format's answer without an id (Ollama's): clients dedupe and chain by it, so it gets a fresh one.
    response.id = (context.ids ?? randomAnswerIds).id('msg_');
    context.losses.add('synthesised_id', '/id', `Anthropic messages need an id; "${response.id}" was made up`, 'info');
  }
  const model = start?.model ?? context.model;
  if (model !== undefined) response.model = model;
  if (start?.usage !== undefined) response.usage = start.usage;
  if (start?.extensions !== undefined) {
    const extensions = { ...start.extensions };
    if (hints !== undefined) extensions.anthropic = Object.fromEntries(Object.entries(hints).filter(([key]) => !START_HINTS.has(key)));
    response.extensions = extensions;
  }
  // message_start starts from zero usage, the wire's own convention (no default to report); id and model stay as the source had them.
  const anthropic = response.extensions?.anthropic;
  if (anthropic?.['$absent'] === undefined) response.extensions = { ...response.extensions, anthropic: { ...anthropic, $absent: ['id', 'model', 'usage'] } };
  const message = encodeAnthropicResponse(response, context);
  if (message['usage'] === undefined) message['usage'] = { input_tokens: 0, output_tokens: 0 };
  return message;
}

/** The `delta` of a `message_delta` for a finish event. */
export function finishDelta(finish: FinishEvent, losses: LossCollector): JsonObject {
  const reason = finish.stopReason;
  losses.foreignExtensions(finish.extensions, ANTHROPIC, '/candidates/0/stopReason');
  const delta: JsonObject = { stop_reason: encodeAnthropicStopReason(reason, '/candidates/0/stopReason', losses) };
  if (!hasHint(finish, '$stopSequenceAbsent')) delta['stop_sequence'] = reason.sequence ?? null;
  if (hasHint(finish, '$stopDetailsNull')) delta['stop_details'] = null;
  return spreadExtensions(delta, finish, ANTHROPIC);
}

/** Keep only the usage keys the source's `message_delta` had (`null` where it had `null`). */
export function pickUsage(full: JsonObject, keys: unknown, nulls: unknown): JsonObject {
  if (!Array.isArray(keys)) return full;
  const nullKeys = Array.isArray(nulls) ? nulls : [];
  const picked: JsonObject = {};
  for (const key of keys) {
    if (typeof key !== 'string') continue;
    picked[key] = nullKeys.includes(key) ? null : (full[key] ?? null);
  }
  return picked;
}
