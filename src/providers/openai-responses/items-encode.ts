/**
 * Encode IR messages as Responses items: user and system messages become
 * message items, an assistant message becomes its output items in order
 * (text and refusals grouped into message items as the `$item` hints say),
 * tool results become `function_call_output` items.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */
import { unreachable, type Message, type Part } from '../../core/ir.ts';
import { spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiResponsesContent } from './content-encode.ts';
import type { MessageItemHint } from './items-decode.ts';
import { encodeOpenaiResponsesReasoning } from './reasoning.ts';
import { FORMAT, MESSAGE_KEY_PREFIX, own, ownHint, restoreNulls } from './shape.ts';
import { encodeOpenaiResponsesToolCall, encodeOpenaiResponsesToolOutput, type ItemEncodeContext } from './tool-items.ts';
import { messagePointer } from '../../core/ir-pointers.ts';

function hintOf(value: unknown): MessageItemHint | undefined {
  return typeof value === 'object' && value !== null ? (value as MessageItemHint) : undefined;
}

/** The text of a content list that is one plain `output_text`/`input_text` part, for the bare-string form. */
function singleText(content: JsonObject[], type: string): string | undefined {
  const first = content[0];
  if (content.length !== 1 || first === undefined || first['type'] !== type || typeof first['text'] !== 'string') return undefined;
  const annotations = first['annotations'];
  const keys = Object.keys(first).length;
  if (annotations === undefined ? keys !== 2 : !Array.isArray(annotations) || annotations.length > 0 || keys !== 3) return undefined;
  return first['text'];
}

/** Encode a user or system IR message as a message item. */
function encodeInputMessage(message: Message, path: string, context: ItemEncodeContext): JsonObject {
  const role = message.role === 'system' ? (message.developer === true ? 'developer' : 'system') : 'user';
  const hint = hintOf(ownHint(message, '$item'));
  const bare = hint === undefined || hint.string === true;
  const only = message.parts.length === 1 ? message.parts[0] : undefined;
  let content: JsonObject[] | string;
  const breakpoints = context.target === 'request';
  if (bare && only?.type === 'text' && own(only) === undefined && only.citations === undefined && (only.cache === undefined || !breakpoints)) {
    // One plain text part: the bare string that encoding it and `singleText` would give.
    if (only.extensions !== undefined) context.losses.foreignExtensions(only.extensions, FORMAT, `${path}/parts/0`);
    content = only.text;
  } else {
    const list: JsonObject[] = [];
    for (let index = 0; index < message.parts.length; index++) {
      const part = message.parts[index];
      if (part === undefined) continue;
      // A text with nothing but its text (most parts of other formats): what encoding it gives, without its pointer, since nothing can be lost.
      if (part.type === 'text' && part.extensions === undefined && part.citations === undefined && (part.cache === undefined || !breakpoints)) {
        list.push({ type: 'input_text', text: part.text });
        continue;
      }
      const encoded = encodeOpenaiResponsesContent(part, 'input_text', context.losses, `${path}/parts/${index}`, breakpoints);
      if (encoded !== undefined) list.push(encoded);
    }
    content = (bare ? singleText(list, 'input_text') : undefined) ?? list;
  }
  const item: JsonObject = {};
  if (hint?.type === true) item['type'] = 'message';
  item['role'] = role;
  item['content'] = content;
  if (hint?.id !== undefined) item['id'] = hint.id;
  if (hint?.status !== undefined) item['status'] = hint.status;
  return restoreNulls(spreadExtensions(item, message, FORMAT), message);
}

/** True for parts that live inside a message item's `content` rather than as items of their own. */
function contentLevel(part: Part): boolean {
  switch (part.type) {
    case 'text':
    case 'refusal':
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
      return true;
    case 'opaque':
      return ownHint(part, '$content') === true;
    case 'reasoning':
    case 'tool_call':
    case 'tool_result':
      return false;
    default:
      return unreachable(part);
  }
}

function openMessageItem(part: Part, context: ItemEncodeContext, path: string, index: number): JsonObject {
  const hint = hintOf(ownHint(part, '$item'));
  const item: JsonObject = {};
  if (hint === undefined) {
    if (context.target === 'response') {
      item['id'] = `msg_interlingua_${index}`;
      item['type'] = 'message';
      item['status'] = context.messageStatus ?? 'completed';
      context.losses.addAt(part, 'synthesised_id', path, 'message item id made up by interlingua', 'info');
    }
  } else {
    if (hint.type === true) item['type'] = 'message';
    if (hint.id !== undefined) item['id'] = hint.id;
    if (hint.status !== undefined) item['status'] = hint.status;
  }
  item['role'] = 'assistant';
  item['content'] = [];
  const fields = own(part);
  if (fields !== undefined) {
    for (const key in fields) if (key.startsWith(MESSAGE_KEY_PREFIX)) item[key.slice(MESSAGE_KEY_PREFIX.length)] = fields[key];
  }
  return item;
}

/** Turn message items into the bare-string form where their hint (or, for other formats' requests, their shape) allows. */
function closeMessageItem(item: JsonObject, hint: MessageItemHint | undefined, context: ItemEncodeContext, path: string): void {
  const wantsString = hint === undefined ? context.target === 'request' : hint.string === true;
  if (!wantsString) return;
  const content = item['content'] as JsonObject[];
  const text = singleText(content, 'output_text');
  if (text !== undefined) item['content'] = text;
  else if (hint === undefined) joinHistory(item, content, context, path);
}

/**
 * Another format's assistant turn in a request: an input message takes its
 * content as a string (its content list holds input parts only, and an
 * output message needs an id the caller never had), so the texts and
 * refusals are joined; annotations cannot come along.
 */
function joinHistory(item: JsonObject, content: JsonObject[], context: ItemEncodeContext, path: string): void {
  let text = '';
  let annotated = false;
  for (const entry of content) {
    const type = entry['type'];
    if (type !== 'output_text' && type !== 'refusal') return;
    text += String(entry[type === 'refusal' ? 'refusal' : 'text'] ?? '');
    if (type === 'refusal') context.losses.add('approximated', path, 'a refusal in assistant history was sent as text', 'info');
    const annotations = entry['annotations'];
    if (Array.isArray(annotations) && annotations.length > 0) annotated = true;
  }
  if (annotated) context.losses.add('dropped_field', path, 'citations of assistant history have no place in an OpenAI Responses input message; dropped');
  item['content'] = text;
}

/** Encode the parts of an assistant IR message as output items, appended to `items`. */
function encodeAssistantParts(message: Message, path: string, context: ItemEncodeContext, items: JsonObject[]): void {
  let current: JsonObject | undefined;
  let currentHint: MessageItemHint | undefined;
  // `parts` may be sparse (the stream encoder passes one item's parts at their IR indexes).
  for (let index = 0; index < message.parts.length; index++) {
    const part = message.parts[index];
    if (part === undefined) continue;
    const partPath = `${path}/parts/${index}`;
    if (context.target === 'response' && (part.type === 'image' || part.type === 'audio' || part.type === 'video' || part.type === 'document')) {
      // An output message holds output_text and refusal only: a generated image or audio (Gemini) has no place there.
      context.losses.add('unsupported_part', partPath, `an OpenAI Responses output message cannot carry a generated ${part.type}; dropped`);
      continue;
    }
    if (contentLevel(part)) {
      const hint = ownHint(part, '$item');
      if (hint !== undefined || current === undefined) {
        if (current !== undefined) closeMessageItem(current, currentHint, context, path);
        current = openMessageItem(part, context, partPath, items.length);
        currentHint = hintOf(hint);
        items.push(current);
      }
      const encoded = encodeOpenaiResponsesContent(asRefusal(part, context, partPath), 'output_text', context.losses, partPath);
      // A response's OutputTextContent requires `logprobs`: another format's text has none to give, which is the empty list.
      if (encoded !== undefined && context.target === 'response' && encoded['type'] === 'output_text' && !('logprobs' in encoded) && own(part) === undefined) {
        encoded['logprobs'] = [];
      }
      if (encoded !== undefined) (current['content'] as JsonObject[]).push(encoded);
      continue;
    }
    if (current !== undefined) closeMessageItem(current, currentHint, context, path);
    current = undefined;
    const item = encodeAssistantItem(part, context, partPath, items.length);
    if (item !== undefined) items.push(item);
  }
  if (current !== undefined) closeMessageItem(current, currentHint, context, path);
}

/** A text part of another format as a refusal part, when the response stopped for a refusal. */
function asRefusal(part: Part, context: ItemEncodeContext, path: string): Part {
  if (context.textAsRefusal !== true || part.type !== 'text' || own(part) !== undefined) return part;
  context.losses.add('approximated', path, 'text of a response that stopped for a refusal sent as a refusal part', 'info');
  return part.extensions === undefined ? { type: 'refusal', text: part.text } : { type: 'refusal', text: part.text, extensions: part.extensions };
}

function encodeAssistantItem(part: Part, context: ItemEncodeContext, path: string, index: number): JsonObject | undefined {
  switch (part.type) {
    case 'reasoning':
      return encodeOpenaiResponsesReasoning(part, context, path, index);
    case 'tool_call':
      return encodeOpenaiResponsesToolCall(part, context, path, index);
    case 'tool_result':
      return encodeOpenaiResponsesToolOutput(part, context, path);
    case 'opaque':
      if (part.format === FORMAT) return part.value as JsonObject;
      context.losses.addAt(part, 'unsupported_part', path, `${part.format} "${part.blockType}" block has no OpenAI Responses equivalent; dropped`);
      return undefined;
    default:
      context.losses.addAt(part, 'unsupported_part', path, `a ${part.type} part cannot stand as an OpenAI Responses item; dropped`);
      return undefined;
  }
}

function encodeToolMessage(message: Message, path: string, context: ItemEncodeContext, items: JsonObject[]): void {
  for (let index = 0; index < message.parts.length; index++) {
    const part = message.parts[index];
    if (part === undefined) continue;
    const partPath = `${path}/parts/${index}`;
    if (part.type === 'tool_result') items.push(encodeOpenaiResponsesToolOutput(part, context, partPath));
    else context.losses.add('unsupported_part', partPath, `a ${part.type} part in a tool message has no OpenAI Responses item; dropped`);
  }
}

/** Encode IR messages (from `start`) as Responses items. */
export function encodeOpenaiResponsesItems(messages: readonly Message[], start: number, context: ItemEncodeContext): JsonObject[] {
  const items: JsonObject[] = [];
  for (let index = start; index < messages.length; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    context.losses.foreignExtensions(message.extensions, FORMAT, path);
    if (message.name !== undefined) context.losses.add('dropped_field', `${path}/name`, 'OpenAI Responses messages have no participant name; dropped');
    switch (message.role) {
      case 'user':
      case 'system':
        items.push(encodeInputMessage(message, path, context));
        break;
      case 'assistant':
        encodeAssistantParts(message, path, context, items);
        break;
      case 'tool':
        encodeToolMessage(message, path, context, items);
        break;
      default:
        unreachable(message.role);
    }
  }
  return items;
}

/** Encode the parts of a response's assistant message as `output` items. */
export function encodeOpenaiResponsesOutput(message: Message, path: string, context: ItemEncodeContext): JsonObject[] {
  const items: JsonObject[] = [];
  encodeAssistantParts(message, path, context, items);
  return items;
}
