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
import type { FormatId, Message, OpaquePart, Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { appended, expectArray, expectObject, expectString, extend, hint, isObject, required, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiResponsesContent, type TextType } from './content-decode.ts';
import { decodeOpenaiResponsesReasoning } from './reasoning.ts';
import { FORMAT, INPUT_POINTERS, MESSAGE_KEY_PREFIX, present } from './shape.ts';
import { decodeOpenaiResponsesToolCall, decodeOpenaiResponsesToolOutput } from './tool-items.ts';

/** The keys of a message item this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function messageExtras(item: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in item) {
    switch (key) {
      case 'type':
      case 'role':
      case 'content':
      case 'id':
      case 'status':
        continue;
    }
    (rest ??= {})[key] = item[key];
  }
  return rest;
}

/**
 * Item types of built-in tools and state that have no neutral meaning: kept
 * whole as opaque parts without a loss (they are known, only not portable).
 * A tool output is one when it answers no call of the conversation: in a
 * response's output (the server ran the tool), or in the input without a
 * `call_id` (optional since openai 7: an output of a `program` caller).
 */
const BUILT_IN_ITEMS: ReadonlySet<string> = new Set([
  'web_search_call', 'file_search_call', 'computer_call', 'computer_call_output', 'code_interpreter_call',
  'image_generation_call', 'local_shell_call', 'local_shell_call_output', 'shell_call', 'shell_call_output',
  'apply_patch_call', 'apply_patch_call_output', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response',
  'mcp_call', 'tool_search_call', 'tool_search_output', 'compaction', 'compaction_trigger', 'item_reference',
  'program', 'program_output', 'additional_tools', 'configuration_update', 'function_call_output', 'custom_tool_call_output',
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
  if (id !== undefined) result.id = id === null ? null : expectString(id, `${path}/id`, FORMAT);
  if (status !== undefined) result.status = status === null ? null : expectString(status, `${path}/status`, FORMAT);
  if (typeof item['content'] === 'string') result.string = true;
  return result;
}

/** The checks of {@link itemHint} without the hint, for IR headed to another format. */
function checkItemFields(item: JsonObject, path: string): void {
  const id = item['id'];
  const status = item['status'];
  if (id !== undefined && id !== null && typeof id !== 'string') expectString(id, `${path}/id`, FORMAT);
  if (status !== undefined && status !== null && typeof status !== 'string') expectString(status, `${path}/status`, FORMAT);
}

/**
 * Decode a message item's `content` into parts. `lean` (IR headed for
 * another format): a part with fields of its own has its extensions
 * anchored (`losses.anchorExtensions`), since every other target reports them.
 */
function decodeMessageContent(item: JsonObject, path: string, textType: TextType, losses: LossCollector, lean: boolean): Part[] {
  const content = item['content'];
  if (typeof content === 'string') {
    const text: Part = { type: 'text', text: content };
    return [losses.recording ? losses.origin(text, `${path}/content`) : text];
  }
  if (content === undefined) required(item, 'content', path, FORMAT);
  const list = Array.isArray(content) ? content : expectArray(content, `${path}/content`, FORMAT);
  const parts: Part[] = new Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const entry = list[index];
    if (entry === undefined && !(index in list)) continue;
    const entryPath = `${path}/content/${index}`;
    const part = decodeOpenaiResponsesContent(entry, entryPath, textType, losses);
    if (losses.recording) losses.origin(part, entryPath);
    else if (lean && part.extensions !== undefined) losses.anchorExtensions(part.extensions, entryPath);
    parts[index] = part;
  }
  return parts;
}

/** Decode a user, system or developer message item into its own IR message. */
function decodeInputMessage(item: JsonObject, role: string, path: string, losses: LossCollector, lean: boolean): Message {
  const message: Message = { role: role === 'user' ? 'user' : 'system', parts: decodeMessageContent(item, path, 'input_text', losses, lean) };
  if (role === 'developer') message.developer = true;
  if (lean) checkItemFields(item, path);
  else hint(message, FORMAT, '$item', itemHint(item, path));
  extend(message, FORMAT, messageExtras(item));
  return message;
}

/** A list of parts being filled (an assistant message's). */
interface PartList {
  parts: Part[];
}

/** Append `part` to `into.parts` (see {@link appended}). */
function addPart(into: PartList, part: Part): void {
  into.parts = appended(into.parts, part);
}

/** Decode an assistant message item into parts; its first part carries the item's hint and item-level fields. */
function decodeAssistantMessage(item: JsonObject, path: string, losses: LossCollector, lean: boolean, into: PartList): void {
  const parts = decodeMessageContent(item, path, 'output_text', losses, lean);
  const first = parts[0];
  if (first === undefined) {
    addPart(into, losses.origin({ type: 'opaque', format: FORMAT, blockType: 'message', value: item }, path));
    return;
  }
  if (!lean) for (const part of parts) if (part.type === 'opaque') hint(part, FORMAT, '$content', true);
  // The item's own list, when it starts the turn.
  if (into.parts.length === 0) into.parts = parts;
  else for (const part of parts) into.parts.push(part);
  if (lean) checkItemFields(item, path);
  else hint(first, FORMAT, '$item', itemHint(item, path));
  const rest = messageExtras(item);
  if (rest !== undefined) {
    const prefixed: JsonObject = {};
    for (const key in rest) prefixed[MESSAGE_KEY_PREFIX + key] = rest[key];
    extend(first, FORMAT, prefixed);
    // The pointer decodeMessageContent gives the first part.
    if (lean) losses.anchorExtensions(first.extensions as object, typeof item['content'] === 'string' ? `${path}/content` : `${path}/content/0`);
  }
}

function roleOf(item: JsonObject, path: string): string {
  const role = item['role'];
  if (role === 'user' || role === 'assistant' || role === 'system' || role === 'developer') return role;
  if (role === undefined) required(item, 'role', path, FORMAT);
  expectString(role, `${path}/role`, FORMAT);
  throw new InterlinguaError('invalid_value', `unknown message role "${role as string}"; use user, assistant, system or developer`, {
    path: `${path}/role`,
    format: FORMAT,
  });
}

function opaqueItem(item: JsonObject, type: string, path: string, losses: LossCollector): OpaquePart {
  if (!BUILT_IN_ITEMS.has(type)) losses.add('unknown_block', path, `unknown OpenAI Responses item type "${type}"; kept as an opaque part`);
  return { type: 'opaque', format: FORMAT, blockType: type, value: item };
}

/** Decode one assistant-side item (not a user/system message, not a tool output) into parts, appended to `into`. */
function decodeAssistantItem(item: JsonObject, type: string, path: string, losses: LossCollector, target: FormatId | undefined, into: PartList): void {
  const lean = target !== undefined && target !== FORMAT;
  switch (type) {
    case 'message':
      decodeAssistantMessage(item, path, losses, lean, into);
      return;
    case 'function_call':
      // Back to Responses or on to Chat, whose encoders send the argument text as it came: not parsed.
      addPart(into, anchoredFields(decodeOpenaiResponsesToolCall(item, false, path, lean, target === FORMAT || target === 'openai-chat'), path, losses, lean));
      return;
    case 'custom_tool_call':
      addPart(into, anchoredFields(decodeOpenaiResponsesToolCall(item, true, path, lean), path, losses, lean));
      return;
    case 'reasoning': {
      const part = decodeOpenaiResponsesReasoning(item, path);
      if (part !== undefined) {
        addPart(into, anchoredItem(part, path, losses, lean));
        return;
      }
      losses.add('unknown_block', path, 'reasoning item with summary or content entries of an unknown kind; kept as an opaque part');
      addPart(into, anchoredItem({ type: 'opaque', format: FORMAT, blockType: type, value: item }, path, losses, lean));
      return;
    }
    default:
      addPart(into, anchoredItem(opaqueItem(item, type, path, losses), path, losses, lean));
  }
}

/**
 * `losses.origin(part, path)`, for a part most other targets drop with a
 * loss (reasoning, opaque built-in items): headed for another format
 * (`lean`), anchored instead, so that loss needs no recording decode.
 */
function anchoredItem<T extends Part>(part: T, path: string, losses: LossCollector, lean: boolean): T {
  if (!lean) return losses.origin(part, path);
  losses.anchorItem(part, path);
  if (part.extensions !== undefined) losses.anchorExtensions(part.extensions, path);
  return part;
}

/** `losses.origin(part, path)`; headed for another format (`lean`), a part with fields of its own has its extensions anchored. */
function anchoredFields<T extends Part>(part: T, path: string, losses: LossCollector, lean: boolean): T {
  if (lean && part.extensions !== undefined) losses.anchorExtensions(part.extensions, path);
  return losses.origin(part, path);
}

function itemType(item: JsonObject, path: string): string {
  const type = item['type'];
  if (typeof type === 'string') return type;
  if (type === undefined) {
    if (item['role'] === undefined) required(item, 'type', path, FORMAT);
    return 'message';
  }
  return expectString(type, `${path}/type`, FORMAT);
}

/**
 * Decode a request's `input` item list into IR messages, appended to
 * `messages` (a new list when not given) and returned. `target`: the format
 * the IR is headed for; for another format the hints only a trip back here
 * needs are skipped (see {@link decodeOpenaiResponsesToolCall} for this one).
 */
export function decodeOpenaiResponsesInput(items: unknown[], path: string, losses: LossCollector, target?: FormatId, messages: Message[] = []): Message[] {
  const lean = target !== undefined && target !== FORMAT;
  let assistant: Message | undefined;
  let tool: Message | undefined;
  for (let index = 0; index < items.length; index++) {
    const value = items[index];
    if (value === undefined && !(index in items)) continue;
    const itemPath = INPUT_POINTERS.of(path, index);
    const item = isObject(value) ? value : expectObject(value, itemPath, FORMAT);
    const type = itemType(item, itemPath);
    if (type === 'message') {
      const role = roleOf(item, itemPath);
      if (role !== 'assistant') {
        messages.push(losses.origin(decodeInputMessage(item, role, itemPath, losses, lean), itemPath));
        assistant = tool = undefined;
        continue;
      }
    }
    if ((type === 'function_call_output' || type === 'custom_tool_call_output') && present(item['call_id'])) {
      if (tool === undefined) messages.push((tool = losses.origin<Message>({ role: 'tool', parts: [] }, itemPath)));
      addPart(tool, losses.origin(decodeOpenaiResponsesToolOutput(item, type === 'custom_tool_call_output', itemPath, losses, lean), itemPath));
      assistant = undefined;
      continue;
    }
    if (assistant === undefined) messages.push((assistant = losses.origin<Message>({ role: 'assistant', parts: [] }, itemPath)));
    decodeAssistantItem(item, type, itemPath, losses, target, assistant);
    tool = undefined;
  }
  return messages;
}

/** Decode a response's `output` item list into the parts of one assistant message. */
export function decodeOpenaiResponsesOutput(items: unknown[], path: string, losses: LossCollector, target?: FormatId): Part[] {
  const list: PartList = { parts: [] };
  for (let index = 0; index < items.length; index++) {
    const value = items[index];
    if (value === undefined && !(index in items)) continue;
    const itemPath = INPUT_POINTERS.of(path, index);
    const item = isObject(value) ? value : expectObject(value, itemPath, FORMAT);
    const type = itemType(item, itemPath);
    if (type === 'message' && roleOf(item, itemPath) !== 'assistant') {
      throw new InterlinguaError('invalid_value', 'response output messages must have role "assistant"', { path: `${itemPath}/role`, format: FORMAT });
    }
    decodeAssistantItem(item, type, itemPath, losses, target, list);
  }
  return list.parts;
}
