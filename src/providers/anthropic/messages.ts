/**
 * Decode the `messages` array into IR messages, and encode IR messages into
 * Anthropic turns.
 *
 * A user turn that holds `tool_result` blocks decodes into a `tool` message
 * (the results) plus, when the turn holds more, a `user` message with the
 * rest, marked `$joinPrevious` so the Anthropic encoder joins them back.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages
 */
import type { Message, Part, Role } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectArray, expectObject, expectString, extend, hint, pointer, required, unknownKeys } from '../../core/wire.ts';
import { decodeAnthropicBlock, type BlockScope } from './parts.ts';
import { ANTHROPIC } from './shape.ts';

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['role', 'content']);
const WIRE_ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'system']);

/** Decode a wire `content` value (string or blocks) into parts; `true` in `fromString` when it was a string. */
export function decodeAnthropicContent(content: unknown, path: string, scope: BlockScope): { parts: Part[]; fromString: boolean } {
  if (typeof content === 'string') {
    const part: Part = { type: 'text', text: content };
    if (content === '') hint(part, ANTHROPIC, '$empty', true);
    return { parts: [scope.losses.origin(part, path)], fromString: true };
  }
  const blocks = expectArray(content, path, ANTHROPIC);
  const parts: Part[] = [];
  for (let index = 0; index < blocks.length; index++) parts.push(decodeAnthropicBlock(blocks[index], pointer(path, index), scope));
  return { parts, fromString: false };
}

function splitUserTurn(parts: Part[]): Message[] {
  const results: Part[] = [];
  const others: Part[] = [];
  for (const part of parts) (part.type === 'tool_result' ? results : others).push(part);
  if (results.length === 0) return [{ role: 'user', parts }];
  if (others.length === 0) return [{ role: 'tool', parts }];
  const rest: Message = { role: 'user', parts: others };
  hint(rest, ANTHROPIC, '$joinPrevious', true);
  // Anthropic wants results first; remember any other order so the same body comes back.
  const resultsFirst = parts.every((part, index) => (part.type === 'tool_result') === index < results.length);
  if (!resultsFirst) hint(rest, ANTHROPIC, '$layout', parts.map((part) => part.type === 'tool_result'));
  return [{ role: 'tool', parts: results }, rest];
}

/** Decode the wire `messages` array. */
export function decodeAnthropicMessages(value: unknown, path: string, scope: BlockScope): Message[] {
  const list = expectArray(value, path, ANTHROPIC);
  const messages: Message[] = [];
  for (let index = 0; index < list.length; index++) {
    const messagePath = pointer(path, index);
    const object = expectObject(list[index], messagePath, ANTHROPIC);
    const role = expectString(required(object, 'role', messagePath, ANTHROPIC), pointer(messagePath, 'role'), ANTHROPIC);
    if (!WIRE_ROLES.has(role)) {
      throw new InterlinguaError('invalid_value', `role "${role}" is not an Anthropic role; use user, assistant or system`, {
        path: pointer(messagePath, 'role'),
        format: ANTHROPIC,
      });
    }
    const content = required(object, 'content', messagePath, ANTHROPIC);
    const { parts, fromString } = decodeAnthropicContent(content, pointer(messagePath, 'content'), scope);
    const decoded = role === 'user' ? splitUserTurn(parts) : [{ role: role as Role, parts }];
    const first = decoded[0] as Message;
    if (fromString) hint(first, ANTHROPIC, '$contentString', true);
    extend(first, ANTHROPIC, unknownKeys(object, MESSAGE_KEYS));
    for (const message of decoded) messages.push(scope.losses.origin(message, messagePath));
  }
  return messages;
}
