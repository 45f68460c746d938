/**
 * Decode the Chat Completions `messages` array. Roles: `system`,
 * `developer` (IR system + `developer: true`), `user`, `assistant`, `tool`,
 * and the deprecated `function`.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Message, Part, ToolResultPart } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectArray, expectObject, expectString, isObject, itemPointers, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiChatAssistant } from './assistant-decode.ts';
import { decodeOpenaiChatContent } from './content-shape.ts';
import { FORMAT, chatHint, keepUnknown, keepUnknownOf, keys, stringField } from './shape.ts';

const FUNCTION_KNOWN = keys('role', 'content', 'name');
const MESSAGE_POINTERS = itemPointers('/messages');
const NULLABLE = keys('content');

/** What decoding one message needs to know about earlier ones. */
interface History {
  /** Whether to keep the shape hints only the openai-chat encoder reads. */
  hints: boolean;
  /** Whether to parse tool-call argument text (see `parsesArguments`). */
  parse: boolean;
  /** The assistant messages so far, for the names of the tools whose results follow. */
  assistants: Message[];
  /** Tool names by call id for the first `indexed` assistant messages, made when a result answers an older call than the latest message's. */
  names: Map<string, string> | undefined;
  indexed: number;
  /** The id given to the latest deprecated `function_call`. */
  lastFunctionCallId: string | undefined;
}

/** The name of the tool call `callId` answers: the latest call with that id. */
function toolName(history: History, callId: string): string | undefined {
  const assistants = history.assistants;
  // Checked first: reading index -1 of an empty list is a slow named-property lookup.
  if (assistants.length === 0) return undefined;
  const latest = assistants[assistants.length - 1] as Message;
  // Most results answer the message right before them: look there first, newest call first.
  for (let index = latest.parts.length - 1; index >= 0; index--) {
    const part = latest.parts[index] as Part;
    if (part.type === 'tool_call' && part.id === callId) return part.name;
  }
  const names = (history.names ??= new Map());
  for (; history.indexed < assistants.length; history.indexed++) {
    for (const part of (assistants[history.indexed] as Message).parts) if (part.type === 'tool_call') names.set(part.id, part.name);
  }
  return names.get(callId);
}

function decodeTextual(object: JsonObject, path: string, role: 'system' | 'user', history: History, losses: LossCollector): Message {
  const content = object['content'];
  let message: Message;
  if (typeof content === 'string') {
    // The common spelling, which needs no hint: one text part (what `decodeOpenaiChatContent` gives), no pointer built.
    const part: Part = { type: 'text', text: content };
    message = { role, parts: [losses.recording ? losses.origin(part, `${path}/content`) : part] };
  } else {
    const parts: Part[] = [];
    message = { role, parts };
    decodeOpenaiChatContent(content, path, message, parts, 'string', losses, history.hints);
  }
  const name = object['name'];
  if (typeof name === 'string') message.name = name;
  else if (name !== undefined && name !== null) expectString(name, `${path}/name`, FORMAT);
  keepUnknownOf(message, object, 'content', 'role', 'content', 'name');
  return message;
}

function decodeTool(object: JsonObject, path: string, history: History, losses: LossCollector): Message {
  // Read by name here (a shared reader's keyed read is a generic lookup); `stringField` builds the error.
  const wireId = object['tool_call_id'];
  const callId = typeof wireId === 'string' ? wireId : stringField(object, 'tool_call_id', path);
  const name = toolName(history, callId);
  const content = object['content'];
  // A string (the common spelling): the one text part `decodeOpenaiChatContent` makes of it, in a list made with it (`[]` grown by `push` takes room for 17).
  const simple = typeof content === 'string' && !losses.recording;
  const parts: Part[] = simple ? [{ type: 'text', text: content }] : [];
  // Made whole, its name in the literal: a key added afterwards changes the object's shape once more.
  const result: ToolResultPart = name === undefined ? { type: 'tool_result', callId, content: parts } : { type: 'tool_result', callId, content: parts, name };
  if (!simple) decodeOpenaiChatContent(content, path, result, parts, 'string', losses, history.hints);
  keepUnknownOf(result, object, 'content', 'role', 'content', 'tool_call_id');
  if (result.extensions !== undefined) losses.anchorExtensions(result.extensions, path);
  return { role: 'tool', parts: [losses.origin(result, path)] };
}

function decodeFunction(object: JsonObject, path: string, history: History, losses: LossCollector): Message {
  const name = stringField(object, 'name', path);
  const content: Part[] = [];
  const result: ToolResultPart = {
    type: 'tool_result',
    callId: history.lastFunctionCallId ?? `call_function_${name}`,
    syntheticId: true,
    name,
    content,
  };
  chatHint(result, '$functionRole', true);
  decodeOpenaiChatContent(object['content'], path, result, content, 'string', losses);
  keepUnknown(result, object, FUNCTION_KNOWN, NULLABLE);
  return { role: 'tool', parts: [losses.origin(result, path)] };
}

function remember(message: Message, object: JsonObject, history: History): void {
  history.assistants.push(message);
  // Only a deprecated `function_call` gives a call a synthesised id.
  if (object['function_call'] === undefined || object['function_call'] === null) return;
  for (const part of message.parts) if (part.type === 'tool_call' && part.syntheticId === true) history.lastFunctionCallId = part.id;
}

/** Decode one message. */
function decodeMessage(value: unknown, path: string, index: number, history: History, losses: LossCollector): Message {
  const object = isObject(value) ? value : expectObject(value, path, FORMAT);
  // Read by name here (a shared reader's keyed read is a generic lookup); `stringField` builds the error.
  const wireRole = object['role'];
  const role = typeof wireRole === 'string' ? wireRole : stringField(object, 'role', path);
  switch (role) {
    case 'system':
      return decodeTextual(object, path, 'system', history, losses);
    case 'developer': {
      const message = decodeTextual(object, path, 'system', history, losses);
      message.developer = true;
      return message;
    }
    case 'user':
      return decodeTextual(object, path, 'user', history, losses);
    case 'assistant': {
      const message = decodeOpenaiChatAssistant(object, path, losses, 'request', index, history.hints, history.parse);
      remember(message, object, history);
      return message;
    }
    case 'tool':
      return decodeTool(object, path, history, losses);
    case 'function':
      return decodeFunction(object, path, history, losses);
    default:
      throw new InterlinguaError(
        'invalid_value',
        `unknown message role "${role}"; use system, developer, user, assistant, tool or function`,
        { path: `${path}/role`, format: FORMAT },
      );
  }
}

/**
 * Anchor the reasoning parts of an assistant message (from dialect fields,
 * with this format's state), which every other target drops with a loss,
 * at the message's pointer: they record no origin of their own, so that is
 * where such a loss points.
 */
function anchorReasoning(message: Message, messagePath: string, losses: LossCollector): void {
  for (const part of message.parts) if (part.type === 'reasoning') losses.anchorItem(part, messagePath);
}

/**
 * Decode the request `messages` array; `hints: false` skips the shape hints
 * only the openai-chat encoder reads, `parse: false` the parse of tool-call
 * argument text (see `parsesArguments`).
 */
export function decodeOpenaiChatMessages(value: unknown, path: string, losses: LossCollector, hints = true, parse = true): Message[] {
  const list = Array.isArray(value) ? value : expectArray(value, path, FORMAT);
  const history: History = { hints, parse, assistants: [], names: undefined, indexed: 0, lastFunctionCallId: undefined };
  const messages: Message[] = new Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const messagePath = MESSAGE_POINTERS.of(path, index);
    const message = losses.origin(decodeMessage(list[index], messagePath, index, history, losses), messagePath);
    if (message.extensions !== undefined) losses.anchorExtensions(message.extensions, messagePath);
    if (message.role === 'assistant' && !hints && !losses.recording) anchorReasoning(message, messagePath, losses);
    messages[index] = message;
  }
  return messages;
}
