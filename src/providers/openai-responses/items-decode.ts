/**
 * Decode Responses items (request `input`, response `output`) into IR
 * messages. Consecutive assistant-side items (output messages, reasoning,
 * function and custom tool calls, built-in tool items) form one assistant
 * message, in order; the first part of each output message item carries an
 * `$item` hint (id, status, spelling) so the encoder rebuilds the item
 * boundaries exactly. Consecutive tool outputs form one `tool` message.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */
import type { Message, OpaquePart, Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectArray, expectObject, expectString, extend, hint, pointer, required, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiResponsesContent, type TextType } from './content-decode.ts';
import { decodeOpenaiResponsesReasoning } from './reasoning.ts';
import { FORMAT, MESSAGE_KEY_PREFIX } from './shared.ts';
import { decodeOpenaiResponsesToolCall, decodeOpenaiResponsesToolOutput } from './tool-items.ts';

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['type', 'role', 'content', 'id', 'status']);

/**
 * Item types of built-in tools and state that have no neutral meaning: kept
 * whole as opaque parts without a loss (they are known, only not portable).
 */
const BUILT_IN_ITEMS: ReadonlySet<string> = new Set([
  'web_search_call', 'file_search_call', 'computer_call', 'computer_call_output', 'code_interpreter_call',
  'image_generation_call', 'local_shell_call', 'local_shell_call_output', 'shell_call', 'shell_call_output',
  'apply_patch_call', 'apply_patch_call_output', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response',
  'mcp_call', 'tool_search_call', 'tool_search_output', 'compaction', 'item_reference', 'program', 'program_output',
  'additional_tools',
]);

/** How a message item was spelled, kept as the `$item` hint. */
export interface MessageItemHint {
  /** The item had `type: "message"`. */
  type?: true;
  /** The item id; `null` when the sender spelled it so (agent frameworks replay items with `"id": null`). */
  id?: string | null;
  /** The item status; `null` when the sender spelled it so. */
  status?: string | null;
  /** `content` was a bare string. */
  string?: true;
}

function itemHint(item: JsonObject, path: string): MessageItemHint {
  const result: MessageItemHint = {};
  if (item['type'] !== undefined) result.type = true;
  const id = item['id'];
  const status = item['status'];
  if (id !== undefined) result.id = id === null ? null : expectString(id, pointer(path, 'id'), FORMAT);
  if (status !== undefined) result.status = status === null ? null : expectString(status, pointer(path, 'status'), FORMAT);
  if (typeof item['content'] === 'string') result.string = true;
  return result;
}

function decodeMessageContent(item: JsonObject, path: string, textType: TextType, losses: LossCollector): Part[] {
  const content = required(item, 'content', path, FORMAT);
  if (typeof content === 'string') return [losses.origin({ type: 'text', text: content }, pointer(path, 'content'))];
  const list = expectArray(content, pointer(path, 'content'), FORMAT);
  return list.map((entry, index) => losses.origin(decodeOpenaiResponsesContent(entry, pointer(path, 'content', index), textType, losses), pointer(path, 'content', index)));
}

/** Decode a user, system or developer message item into its own IR message. */
function decodeInputMessage(item: JsonObject, role: string, path: string, losses: LossCollector): Message {
  const message: Message = { role: role === 'user' ? 'user' : 'system', parts: decodeMessageContent(item, path, 'input_text', losses) };
  if (role === 'developer') message.developer = true;
  hint(message, FORMAT, '$item', itemHint(item, path));
  extend(message, FORMAT, unknownKeys(item, MESSAGE_KEYS));
  return message;
}

/** Decode an assistant message item into parts; its first part carries the item's hint and item-level fields. */
function decodeAssistantMessage(item: JsonObject, path: string, losses: LossCollector): Part[] {
  const parts = decodeMessageContent(item, path, 'output_text', losses);
  const first = parts[0];
  if (first === undefined) return [losses.origin({ type: 'opaque', format: FORMAT, blockType: 'message', value: item }, path)];
  for (const part of parts) if (part.type === 'opaque') hint(part, FORMAT, '$content', true);
  hint(first, FORMAT, '$item', itemHint(item, path));
  const rest = unknownKeys(item, MESSAGE_KEYS);
  if (rest !== undefined) {
    const prefixed: JsonObject = {};
    for (const key in rest) prefixed[MESSAGE_KEY_PREFIX + key] = rest[key];
    extend(first, FORMAT, prefixed);
  }
  return parts;
}

function roleOf(item: JsonObject, path: string): string {
  const role = expectString(required(item, 'role', path, FORMAT), pointer(path, 'role'), FORMAT);
  if (role === 'user' || role === 'assistant' || role === 'system' || role === 'developer') return role;
  throw new InterlinguaError('invalid_value', `unknown message role "${role}"; use user, assistant, system or developer`, {
    path: pointer(path, 'role'),
    format: FORMAT,
  });
}

function opaqueItem(item: JsonObject, type: string, path: string, losses: LossCollector): OpaquePart {
  if (!BUILT_IN_ITEMS.has(type)) losses.add('unknown_block', path, `unknown OpenAI Responses item type "${type}"; kept as an opaque part`);
  return { type: 'opaque', format: FORMAT, blockType: type, value: item };
}

/** Decode one assistant-side item (not a user/system message, not a tool output) into parts. */
function decodeAssistantItem(item: JsonObject, type: string, path: string, losses: LossCollector): Part[] {
  switch (type) {
    case 'message':
      return decodeAssistantMessage(item, path, losses);
    case 'function_call':
      return [losses.origin(decodeOpenaiResponsesToolCall(item, false, path), path)];
    case 'custom_tool_call':
      return [losses.origin(decodeOpenaiResponsesToolCall(item, true, path), path)];
    case 'reasoning': {
      const part = decodeOpenaiResponsesReasoning(item, path);
      if (part !== undefined) return [losses.origin(part, path)];
      losses.add('unknown_block', path, 'reasoning item with summary or content entries of an unknown kind; kept as an opaque part');
      return [losses.origin({ type: 'opaque', format: FORMAT, blockType: type, value: item }, path)];
    }
    default:
      return [losses.origin(opaqueItem(item, type, path, losses), path)];
  }
}

function itemType(item: JsonObject, path: string): string {
  const type = item['type'];
  if (type === undefined) {
    if (item['role'] === undefined) required(item, 'type', path, FORMAT);
    return 'message';
  }
  return expectString(type, pointer(path, 'type'), FORMAT);
}

/** Decode a request's `input` item list into IR messages. */
export function decodeOpenaiResponsesInput(items: unknown[], path: string, losses: LossCollector): Message[] {
  const messages: Message[] = [];
  let assistant: Message | undefined;
  let tool: Message | undefined;
  items.forEach((value, index) => {
    const itemPath = pointer(path, index);
    const item = expectObject(value, itemPath, FORMAT);
    const type = itemType(item, itemPath);
    if (type === 'message') {
      const role = roleOf(item, itemPath);
      if (role !== 'assistant') {
        messages.push(losses.origin(decodeInputMessage(item, role, itemPath, losses), itemPath));
        assistant = tool = undefined;
        return;
      }
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      if (tool === undefined) messages.push((tool = losses.origin<Message>({ role: 'tool', parts: [] }, itemPath)));
      tool.parts.push(losses.origin(decodeOpenaiResponsesToolOutput(item, type === 'custom_tool_call_output', itemPath, losses), itemPath));
      assistant = undefined;
      return;
    }
    if (assistant === undefined) messages.push((assistant = losses.origin<Message>({ role: 'assistant', parts: [] }, itemPath)));
    assistant.parts.push(...decodeAssistantItem(item, type, itemPath, losses));
    tool = undefined;
  });
  return messages;
}

/** Decode a response's `output` item list into the parts of one assistant message. */
export function decodeOpenaiResponsesOutput(items: unknown[], path: string, losses: LossCollector): Part[] {
  const parts: Part[] = [];
  items.forEach((value, index) => {
    const itemPath = pointer(path, index);
    const item = expectObject(value, itemPath, FORMAT);
    const type = itemType(item, itemPath);
    if (type === 'message' && roleOf(item, itemPath) !== 'assistant') {
      throw new InterlinguaError('invalid_value', 'response output messages must have role "assistant"', { path: pointer(itemPath, 'role'), format: FORMAT });
    }
    parts.push(...decodeAssistantItem(item, type, itemPath, losses));
  });
  return parts;
}
