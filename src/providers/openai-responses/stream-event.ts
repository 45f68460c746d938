/**
 * What the OpenAI Responses stream decoder and encoder share: the names of
 * the stream shape hints, JSON deep equality, and the item builders that
 * turn IR parts into the `item` objects of `response.output_item.*` events
 * through the non-streaming codec (so a streamed item and the same item in
 * `response.completed` are always spelled alike).
 *
 * How a same-format round trip stays exact: the encoder writes, for every IR
 * event, a fixed (canonical) list of wire events. The decoder runs an
 * encoder of its own beside it and compares, for each group of wire events
 * that produced IR events, what the encoder would write with what the wire
 * had. Wire events the encoder would not write travel verbatim in the
 * `$before` hint of the first IR event of the group; when the group differs
 * in any other way, the whole group travels as `$wire` (and the other IR
 * events of the group get `$quiet`).
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { Extensible, Message, Part } from '../../core/ir.ts';
import { LossCollector } from '../../core/losses.ts';
import type { StreamEvent } from '../../core/stream-events.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiResponsesOutput } from './items-encode.ts';
import { FORMAT } from './shape.ts';

/** Wire events the encoder would not write, to emit verbatim before the event's own (hint). */
export const BEFORE = '$before';
/** The whole group of wire events, verbatim, instead of the event's own (hint). */
export const WIRE = '$wire';
/** The event's wire events are in the `$wire` of an earlier event of its group (hint). */
export const QUIET = '$quiet';

/** Start hints: the source had no `response.in_progress`, or no `response.created`. */
export const NO_IN_PROGRESS = '$noInProgress';
export const NO_CREATED = '$noCreated';
/** Delta hints: the `obfuscation` padding of a delta event; a text delta without `logprobs`. */
export const OBFUSCATION = '$obfuscation';
export const NO_LOGPROBS = '$noLogprobs';
/** Part-end hints: annotations already announced on the wire; a `*.done` event without `name`; a message item left open. */
export const ANNOTATED = '$annotated';
export const NO_NAME = '$noName';
export const ITEM_OPEN = '$itemOpen';
/** Part-start hint: a content part that continues the open message item (its second or later content part). */
export const SAME_ITEM = '$sameItem';
/** Error hints: carried by `response.failed` (no `error` event); a stream cut short; an `error` event with flat fields. */
export const FAILED = '$failed';
export const TRUNCATED = '$truncated';
export const FLAT_ERROR = '$flat';
/** End hints: response-level fields that the terminal response no longer has; terminal overrides of id, model, created_at; output items as the terminal response spelled them. */
export const REMOVED = '$removed';
export const TERMINAL = '$terminal';
export const OUTPUT = '$output';

/** Every hint above: they describe the stream, not the response, and never reach the response encoder. */
export const STREAM_HINTS: ReadonlySet<string> = new Set([
  BEFORE, WIRE, QUIET, NO_IN_PROGRESS, NO_CREATED, OBFUSCATION, NO_LOGPROBS, ANNOTATED, NO_NAME, ITEM_OPEN, SAME_ITEM,
  FAILED, TRUNCATED, FLAT_ERROR, REMOVED, TERMINAL, OUTPUT,
]);

/** The `openai-responses` hint `key` of a stream event, if set. */
export function streamHint(event: StreamEvent, key: string): unknown {
  return event.extensions?.[FORMAT]?.[key];
}

/** Set one `openai-responses` hint on a stream event (its extensions are always its own object). */
export function setStreamHint(event: StreamEvent, key: string, value: unknown): void {
  const extensions = (event.extensions ??= {});
  (extensions[FORMAT] ??= {})[key] = value;
}

/** The `openai-responses` fields of `node` without the stream hints: what the response encoder may read. */
export function responseFields(node: Extensible): JsonObject {
  const fields: JsonObject = {};
  const own = node.extensions?.[FORMAT];
  if (own !== undefined) for (const key in own) if (!STREAM_HINTS.has(key)) fields[key] = own[key];
  return fields;
}

/** Deep equality of JSON values; a key whose value is `undefined` counts as absent. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index]));
  }
  const a = left as JsonObject;
  const b = right as JsonObject;
  let count = 0;
  for (const key in a) {
    if (a[key] === undefined) continue;
    count++;
    if (!jsonEqual(a[key], b[key])) return false;
  }
  for (const key in b) if (b[key] !== undefined) count--;
  return count === 0;
}

/**
 * Encode the parts of one output item (a reasoning part, a tool call, an
 * opaque item, or the content parts of one message) as that item. `parts`
 * may be sparse (indexed by IR part index) so loss paths point at the parts.
 */
export function encodeItem(parts: Part[], losses: LossCollector): JsonObject | undefined {
  const message: Message = { role: 'assistant', parts };
  return encodeOpenaiResponsesOutput(message, '/candidates/0/message', { losses, target: 'response', customCalls: new Set() })[0];
}

/** A scratch loss collector, for encodes whose losses are reported elsewhere. */
export function scratch(): LossCollector {
  return new LossCollector();
}

/** A JSON object copy of `value`'s own keys (shallow), or an empty object. */
export function shallow(value: unknown): JsonObject {
  return isObject(value) ? { ...value } : {};
}
