/**
 * Decode the `messages` array into IR messages (the encoder is
 * `messages-encode.ts`).
 *
 * A user turn that holds `tool_result` blocks decodes into a `tool` message
 * (the results) plus, when the turn holds more, a `user` message with the
 * rest, marked `$joinPrevious` so the Anthropic encoder joins them back.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages
 */
import type { Message, Part } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectArray, expectObject, expectString, extend, isObject, itemPointers, required, type JsonObject } from '../../core/wire.ts';
import { decodeAnthropicBlockAt, type BlockScope } from './parts-decode.ts';
import { ANTHROPIC, anthropicHint } from './shape.ts';


/** Decode a wire `content` value (string or blocks) into parts; `true` in `fromString` when it was a string. */
export function decodeAnthropicContent(content: unknown, path: string, scope: BlockScope): { parts: Part[]; fromString: boolean } {
  return { parts: decodeContent(content, path, scope), fromString: typeof content === 'string' };
}

/** Decode a wire `content` value (string or blocks) into parts. */
export function decodeAnthropicContentParts(content: unknown, path: string, scope: BlockScope): Part[] {
  return decodeContent(content, path, scope);
}

function decodeContent(content: unknown, path: string, scope: BlockScope): Part[] {
  if (typeof content === 'string') {
    const part: Part = { type: 'text', text: content };
    if (content === '' && scope.hints !== false) anthropicHint(part, '$empty', true);
    return [scope.losses.origin(part, path)];
  }
  const blocks = Array.isArray(content) ? content : expectArray(content, path, ANTHROPIC);
  const parts: Part[] = new Array<Part>(blocks.length);
  for (let index = 0; index < blocks.length; index++) parts[index] = decodeAnthropicBlockAt(blocks[index], path, index, scope);
  return parts;
}

/** The index of the first part that is not a tool result, or `parts.length`. */
function resultsEnd(parts: readonly Part[]): number {
  let end = 0;
  while (end < parts.length && (parts[end] as Part).type === 'tool_result') end++;
  return end;
}

/**
 * Push the IR messages of one user turn: its tool results as a `tool`
 * message, the rest as a `user` message (marked to join back). Returns the
 * first message pushed.
 */
function pushUserTurn(parts: Part[], messages: Message[], hints: boolean): Message {
  const end = resultsEnd(parts);
  let results = 0;
  for (let index = end; index < parts.length; index++) if ((parts[index] as Part).type === 'tool_result') results++;
  results += end;
  if (results === 0) return push(messages, { role: 'user', parts });
  if (results === parts.length) return push(messages, { role: 'tool', parts });
  // Anthropic wants results first; remember any other order so the same body comes back.
  const resultsFirst = end === results;
  const first = push(messages, { role: 'tool', parts: resultsFirst ? parts.slice(0, end) : parts.filter((part) => part.type === 'tool_result') });
  const rest: Message = { role: 'user', parts: resultsFirst ? parts.slice(end) : parts.filter((part) => part.type !== 'tool_result') };
  if (hints) {
    anthropicHint(rest, '$joinPrevious', true);
    if (!resultsFirst) anthropicHint(rest, '$layout', parts.map((part) => part.type === 'tool_result'));
  }
  messages.push(rest);
  return first;
}

/** The keys of a wire message besides `role` and `content` (compared directly: cheaper than a set lookup per key). */
function messageExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    if (key === 'role' || key === 'content') continue;
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

function push(messages: Message[], message: Message): Message {
  messages.push(message);
  return message;
}

/** Decode the wire `messages` array. */
export function decodeAnthropicMessages(value: unknown, path: string, scope: BlockScope): Message[] {
  const messages: Message[] = [];
  decodeAnthropicMessagesInto(value, path, scope, messages);
  return messages;
}

const MESSAGE_POINTERS = itemPointers('/messages');
const CONTENT_POINTERS = itemPointers('/messages', '/content');

/** Decode the wire `messages` array, appending the IR messages to `messages`. */
export function decodeAnthropicMessagesInto(value: unknown, path: string, scope: BlockScope, messages: Message[]): void {
  const list = Array.isArray(value) ? value : expectArray(value, path, ANTHROPIC);
  const hints = scope.hints !== false;
  const losses = scope.losses;
  for (let index = 0; index < list.length; index++) {
    const messagePath = MESSAGE_POINTERS.of(path, index);
    const item = list[index];
    const object = isObject(item) ? item : expectObject(item, messagePath, ANTHROPIC);
    const wireRole = object['role'];
    const role = typeof wireRole === 'string' ? wireRole : expectString(required(object, 'role', messagePath, ANTHROPIC), `${messagePath}/role`, ANTHROPIC);
    if (role !== 'user' && role !== 'assistant' && role !== 'system') {
      throw new InterlinguaError('invalid_value', `role "${role}" is not an Anthropic role; use user, assistant or system`, {
        path: `${messagePath}/role`,
        format: ANTHROPIC,
      });
    }
    const content = required(object, 'content', messagePath, ANTHROPIC);
    const parts = decodeContent(content, CONTENT_POINTERS.of(path, index), scope);
    const start = messages.length;
    const first = role === 'user' ? pushUserTurn(parts, messages, hints) : push(messages, { role, parts });
    if (hints && typeof content === 'string') anthropicHint(first, '$contentString', true);
    extend(first, ANTHROPIC, messageExtras(object));
    if (losses.recording) for (let at = start; at < messages.length; at++) losses.origin(messages[at] as Message, messagePath);
  }
}
