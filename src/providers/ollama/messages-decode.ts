/**
 * Ollama `messages` → IR messages. A message is flat: `role`, `content` (one
 * string), `thinking`, `images`, `tool_calls`, and on tool messages
 * `tool_name` (newer servers also `tool_call_id`).
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { Message, Part, Role, ToolResultPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { appended, expectArray, expectObject, expectString, extend, isObject, itemPointers, lookupTable, pointer, type JsonObject } from '../../core/wire.ts';
import { PendingCalls, syntheticCallId } from './ids.ts';
import { decodeOllamaImages, decodeOllamaToolCalls, type CallScope } from './parts-decode.ts';
import { FORMAT, keepUnknown, keys, ollamaHint } from './shape.ts';


const ROLES: Readonly<Record<string, Role>> = lookupTable({ system: 'system', user: 'user', assistant: 'assistant', tool: 'tool' });

/** Decode `content` (a string) into a text part; `""` is no part, absent or `null` a hint (unless `hints` is false). */
function decodeOllamaContent(object: JsonObject, path: string, message: Message, hints = true): Part | undefined {
  const content = object['content'];
  if (content === undefined || content === null) {
    if (hints) ollamaHint(message, '$content', content === null ? null : 'absent');
    return undefined;
  }
  const text = typeof content === 'string' ? content : expectString(content, `${path}/content`, FORMAT);
  return text === '' ? undefined : { type: 'text', text };
}

/** Decode `thinking` into a reasoning part; `""` is kept as a hint (unless `hints` is false). */
export function decodeOllamaThinking(object: JsonObject, path: string, message: Message, parts: Part[], hints = true): void {
  const thinking = object['thinking'];
  if (thinking === undefined) return;
  const text = typeof thinking === 'string' ? thinking : expectString(thinking, `${path}/thinking`, FORMAT);
  if (text === '') {
    if (hints) ollamaHint(message, '$thinking', '');
  } else parts.push({ type: 'reasoning', text });
}

function decodeToolMessage(object: JsonObject, path: string, message: Message, pending: PendingCalls, index: number, hints: boolean): void {
  // Lists made with their first part (`[]` grown by `push` takes room for 17; most hold one).
  const text = decodeOllamaContent(object, path, message, hints);
  const content: Part[] = text === undefined ? [] : [text];
  const images = object['images'];
  if (images !== undefined) decodeOllamaImages(images, `${path}/images`, message, content, hints);
  const result: ToolResultPart = { type: 'tool_result', callId: '', content };
  const name = object['tool_name'];
  if (name !== undefined) result.name = typeof name === 'string' ? name : expectString(name, `${path}/tool_name`, FORMAT);
  const id = object['tool_call_id'];
  if (typeof id === 'string' && id !== '') {
    result.callId = id;
    if (hints) ollamaHint(result, '$id', true);
    const call = pending.answer(id);
    if (result.name === undefined && call !== undefined) {
      result.name = call.name;
      if (hints) ollamaHint(result, '$noName', true);
    }
  } else {
    if (id !== undefined) expectString(id, `${path}/tool_call_id`, FORMAT);
    const call = pending.take(result.name);
    result.callId = call?.id ?? syntheticCallId(index, 0);
    result.syntheticId = true;
    if (result.name === undefined && call !== undefined) {
      result.name = call.name;
      if (hints) ollamaHint(result, '$noName', true);
    }
  }
  message.parts = [result];
}

const NONE: ReadonlySet<string> = keys();

/** The keys of a wire message this file does not read, which travel as extensions (a switch: cheaper than a set lookup per key). */
function messageExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'role':
      case 'content':
      case 'thinking':
      case 'images':
      case 'tool_calls':
      case 'tool_name':
      case 'tool_call_id':
        continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** Decode one message; `index` is its place in `messages`, for the ids of unpaired tool results. */
export function decodeOllamaMessage(value: unknown, path: string, index: number, calls: CallScope): Message {
  const hints = calls.hints !== false;
  const object = isObject(value) ? value : expectObject(value, path, FORMAT);
  const wireRole = object['role'];
  const rawRole = typeof wireRole === 'string' ? wireRole : expectString(wireRole, `${path}/role`, FORMAT);
  const role = ROLES[rawRole];
  if (role === undefined) {
    throw new InterlinguaError('invalid_value', `Ollama message role must be system, user, assistant or tool, got ${JSON.stringify(rawRole)}`, {
      path: `${path}/role`,
      format: FORMAT,
    });
  }
  const message: Message = { role, parts: [] };
  if (role === 'tool') {
    decodeToolMessage(object, path, message, calls.pending, index, hints);
  } else {
    decodeOllamaThinking(object, path, message, message.parts, hints);
    const text = decodeOllamaContent(object, path, message, hints);
    if (text !== undefined) message.parts = appended(message.parts, text);
    const images = object['images'];
    if (images !== undefined) decodeOllamaImages(images, `${path}/images`, message, message.parts, hints);
    const toolCalls = object['tool_calls'];
    if (toolCalls !== undefined) decodeOllamaToolCalls(toolCalls, `${path}/tool_calls`, message, message.parts, calls);
    if (object['tool_name'] !== undefined) keepUnknown(message, { tool_name: object['tool_name'] }, NONE);
    if (object['tool_call_id'] !== undefined) keepUnknown(message, { tool_call_id: object['tool_call_id'] }, NONE);
  }
  extend(message, FORMAT, messageExtras(object));
  return message;
}

const MESSAGE_POINTERS = itemPointers('/messages');

/** Decode `messages`; `hints: false` skips the shape hints only the Ollama encoder reads. */
export function decodeOllamaMessages(value: unknown, path: string, losses: LossCollector, hints = true): Message[] {
  const list = Array.isArray(value) ? value : expectArray(value, path, FORMAT);
  // One scope for the whole list, renamed per message (decoding reads it synchronously).
  const calls: CallScope = { scope: 0, pending: new PendingCalls(), hints };
  const messages: Message[] = new Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const messagePath = MESSAGE_POINTERS.of(path, index);
    calls.scope = index;
    const message = decodeOllamaMessage(list[index], messagePath, index, calls);
    messages[index] = losses.recording ? recordOllamaOrigins(message, list[index] as JsonObject, messagePath, losses) : anchorMadeUpIds(message, list[index] as JsonObject, messagePath, losses);
  }
  return messages;
}

/**
 * Anchor the calls and results of a decoded message whose ids were made up
 * (see `LossCollector.anchor`): every target that carries ids reports them,
 * and anchored, they need no recording decode. The pointers are those
 * {@link recordOllamaOrigins} records.
 */
export function anchorMadeUpIds(message: Message, wire: JsonObject, path: string, losses: LossCollector): Message {
  const parts = message.parts;
  let call = 0;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if (part.type === 'tool_call') {
      if (part.syntheticId === true && Array.isArray(wire['tool_calls']) && call < wire['tool_calls'].length) losses.anchorItem(part, `${path}/tool_calls/${call}`);
      call++;
    } else if (part.type === 'tool_result' && part.syntheticId === true) losses.anchorItem(part, path);
  }
  return message;
}

/**
 * Tell `losses` where a decoded message and its parts came from (for loss
 * paths): text from `content`, reasoning from `thinking`, the n-th image and
 * tool call from the n-th entry of `images` and `tool_calls`, a tool result
 * from the message itself.
 */
export function recordOllamaOrigins(message: Message, wire: JsonObject, path: string, losses: LossCollector): Message {
  losses.origin(message, path);
  const images = Array.isArray(wire['images']) ? wire['images'].length : 0;
  const calls = Array.isArray(wire['tool_calls']) ? wire['tool_calls'].length : 0;
  let image = 0;
  let call = 0;
  for (const part of message.parts) {
    if (part.type === 'text' && typeof wire['content'] === 'string') losses.origin(part, pointer(path, 'content'));
    else if (part.type === 'reasoning' && typeof wire['thinking'] === 'string') losses.origin(part, pointer(path, 'thinking'));
    else if (part.type === 'image' && image < images) losses.origin(part, pointer(path, 'images', image++));
    else if (part.type === 'tool_call' && call < calls) losses.origin(part, pointer(path, 'tool_calls', call++));
    else losses.origin(part, path);
  }
  return message;
}
