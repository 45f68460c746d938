/**
 * Converse `messages` and `system` ↔ IR messages. Converse puts tool results
 * in a user turn; the IR keeps them in `tool` messages, so a user turn is
 * split into runs of results and runs of other blocks, each remembering its
 * wire turn (`$turn`) so that a same-format trip puts them back together.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
 */
import type { Message, Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { appended, expectArray, expectObject, extend, extensionsOf, hint, isObject, itemPointers, pointer, required, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { decodeBedrockBlock, decodeBedrockBlocks, type BlockScope } from './blocks-decode.ts';
import { encodeBedrockPart } from './blocks-encode.ts';
import { attachCachePoint, cachePointBlock, trailingBreakpoint } from './cache-point.ts';
import { BEDROCK, stringField } from './shape.ts';
import { messagePointer, partPointer } from '../../core/ir-pointers.ts';

/** The keys of a message other than `role` and `content`, or `undefined` (a switch: cheaper than a set lookup per key). */
export function messageExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'role':
      case 'content':
        continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

/** Decode `system[]` into one system message. */
export function decodeBedrockSystem(value: unknown, losses: LossCollector): Message {
  const message: Message = losses.origin({ role: 'system', parts: decodeBedrockBlocks(value, '/system', { losses, role: 'system' }) }, '/system');
  hint(message, BEDROCK, '$systemField', true);
  return message;
}

function decodeUserTurn(wire: JsonObject, content: unknown[], path: string, turn: number, losses: LossCollector, lean: boolean): Message[] {
  const messages: Message[] = [];
  let current: Message | undefined;
  const scope: BlockScope = { losses, role: 'user' };
  for (let index = 0; index < content.length; index++) {
    const item = content[index];
    if (item === undefined && !(index in content)) continue;
    const blockPath = `${path}/content/${index}`;
    if (current !== undefined && attachCachePoint(current.parts[current.parts.length - 1], item, blockPath, losses)) continue;
    const part = decodeBedrockBlock(item, blockPath, scope);
    if (losses.recording) losses.origin(part, blockPath);
    const role = part.type === 'tool_result' ? 'tool' : 'user';
    if (current === undefined || current.role !== role) {
      current = losses.origin<Message>({ role, parts: [] }, path);
      if (!lean) hint(current, BEDROCK, '$turn', turn);
      messages.push(current);
    }
    current.parts.push(part);
  }
  if (messages.length === 0) {
    const empty: Message = losses.origin({ role: 'user', parts: [] }, path);
    if (!lean) hint(empty, BEDROCK, '$turn', turn);
    messages.push(empty);
  }
  extend(messages[0] as Message, BEDROCK, messageExtras(wire));
  return messages;
}

const MESSAGE_POINTERS = itemPointers('/messages');
const CONTENT_POINTERS = itemPointers('/messages', '/content');

/** Decode `messages[]`; `lean` skips the hints only a trip back to Converse needs. */
export function decodeBedrockMessages(value: unknown, losses: LossCollector, lean = false): Message[] {
  const out: Message[] = [];
  const list = expectArray(value, '/messages', BEDROCK);
  for (let turn = 0; turn < list.length; turn++) {
    const item = list[turn];
    if (item === undefined && !(turn in list)) continue;
    const path = MESSAGE_POINTERS.at(turn);
    const wire = isObject(item) ? item : expectObject(item, path, BEDROCK);
    const roleValue = wire['role'];
    const role = typeof roleValue === 'string' ? roleValue : stringField(wire, 'role', path);
    const contentValue = wire['content'];
    const content = Array.isArray(contentValue) ? contentValue : expectArray(required(wire, 'content', path, BEDROCK), `${path}/content`, BEDROCK);
    if (role === 'user') {
      const messages = decodeUserTurn(wire, content, path, turn, losses, lean);
      for (let index = 0; index < messages.length; index++) out.push(messages[index] as Message);
    } else if (role === 'assistant') {
      const message: Message = losses.origin({ role: 'assistant', parts: decodeBedrockBlocks(content, CONTENT_POINTERS.at(turn), { losses, role: 'assistant' }) }, path);
      if (!lean) hint(message, BEDROCK, '$turn', turn);
      extend(message, BEDROCK, messageExtras(wire));
      out.push(message);
    } else {
      throw new InterlinguaError('invalid_value', `Converse roles are "user" and "assistant", got ${JSON.stringify(role)}; fix the role`, {
        path: pointer(path, 'role'),
        format: BEDROCK,
      });
    }
  }
  return out;
}

/** The encoded conversation: `system` blocks (when any) and `messages`. */
export interface EncodedConversation {
  system?: JsonObject[];
  messages: JsonObject[];
}

function turnOf(message: Message): unknown {
  return extensionsOf(message, BEDROCK)?.['$turn'];
}

function foldedSystem(message: Message, losses: LossCollector, path: string): Part[] {
  losses.add('moved_content', path, 'Converse has system blocks only before the conversation; this system message was sent as user text prefixed "System: "', 'warning');
  const parts: Part[] = [];
  message.parts.forEach((part, index) => {
    if (part.type === 'text') parts.push(part.cache === undefined ? { type: 'text', text: `System: ${part.text}` } : { type: 'text', text: `System: ${part.text}`, cache: part.cache });
    else losses.add('unsupported_part', pointer(path, 'parts', index), `a ${part.type} part in a mid-conversation system message has no place in Converse; dropped`);
  });
  return parts;
}

/**
 * Is `part` a text Converse refuses ("The text field in the ContentBlock
 * object … is blank": empty or whitespace only)? Reported at `path` when
 * it is; such a part (a Chat assistant's `""` beside its tool calls) is
 * left out.
 */
function blankText(part: Part | undefined, losses: LossCollector, path: string): boolean {
  if (part?.type !== 'text' || part.text.trim() !== '') return false;
  losses.add('dropped_field', path, 'Converse refuses blank text blocks; an empty or whitespace-only text was left out', 'info');
  return true;
}

/** Encode IR messages as Converse `system` and `messages`. */
export function encodeBedrockMessages(messages: readonly Message[], losses: LossCollector): EncodedConversation {
  const result: EncodedConversation = { messages: [] };
  let index = 0;
  for (; index < messages.length && messages[index]?.role === 'system'; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    losses.foreignExtensions(message.extensions, BEDROCK, path);
    const system = (result.system ??= []);
    for (let partIndex = 0; partIndex < message.parts.length; partIndex++) {
      const part = message.parts[partIndex];
      if ((part === undefined && !(partIndex in message.parts)) || blankText(part, losses, partPointer(path, index, partIndex))) continue;
      const encoded = encodeBedrockPart(part as Part, losses, partPointer(path, index, partIndex));
      if (encoded === undefined) continue;
      system.push(encoded);
      if (part?.cache !== undefined) system.push(cachePointBlock(part.cache, partPointer(path, index, partIndex), losses));
    }
  }
  let last: { wire: JsonObject; turn: unknown; role: string; results: number } | undefined;
  for (; index < messages.length; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    losses.foreignExtensions(message.extensions, BEDROCK, path);
    if (message.name !== undefined) losses.add('dropped_field', path, 'Converse messages have no participant name; dropped', 'info');
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const parts = message.role === 'system' ? foldedSystem(message, losses, path) : message.parts;
    let blocks: JsonObject[] | undefined;
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex];
      if ((part === undefined && !(partIndex in parts)) || blankText(part, losses, partPointer(path, index, partIndex))) continue;
      const encoded = encodeBedrockPart(part as Part, losses, partPointer(path, index, partIndex));
      if (encoded === undefined) continue;
      blocks = appended(blocks, encoded);
      const cache = trailingBreakpoint(part as Part);
      if (cache !== undefined) blocks.push(cachePointBlock(cache, partPointer(path, index, partIndex), losses));
    }
    // Another format's message whose every part was dropped (each with its loss), or that had none: Converse refuses a message with empty content.
    if (blocks === undefined && extensionsOf(message, BEDROCK) === undefined) {
      if (parts.length === 0) losses.add('dropped_field', path, 'Converse refuses a message with empty content; an empty message was left out', 'info');
      continue;
    }
    const content = blocks ?? [];
    const turn = turnOf(message);
    if (last !== undefined && last.role === role && last.turn === turn) {
      const existing = last.wire['content'] as JsonObject[];
      // Results go first in a merged user turn, as Converse expects them right after the calls.
      if (message.role === 'tool' && turn === undefined) {
        // Mostly the turn holds only results so far (one Chat tool message per result): they are appended.
        if (last.results === existing.length) for (let block = 0; block < content.length; block++) existing.push(content[block] as JsonObject);
        else existing.splice(last.results, 0, ...content);
        last.results += content.length;
      } else for (let block = 0; block < content.length; block++) existing.push(content[block] as JsonObject);
      continue;
    }
    const wire: JsonObject = spreadExtensions({ role, content }, message, BEDROCK);
    result.messages.push(wire);
    last = { wire, turn, role, results: message.role === 'tool' ? content.length : 0 };
  }
  return result;
}
