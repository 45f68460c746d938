/**
 * Converse `messages` and `system` → IR messages. Converse puts tool results
 * in a user turn; the IR keeps them in `tool` messages, so a user turn is
 * split into runs of results and runs of other blocks, each remembering its
 * wire turn (`$turn`) so that a same-format trip puts them back together
 * (`messages-encode.ts`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
 */
import type { Message } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectArray, expectObject, extend, hint, isObject, itemPointers, pointer, required, type JsonObject } from '../../core/wire.ts';
import { decodeBedrockBlock, decodeBedrockBlocks, type BlockScope } from './blocks-decode.ts';
import { attachCachePoint } from './cache-point.ts';
import { BEDROCK, stringField } from './shape.ts';

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
