/**
 * Assistant `tool_calls` (function and custom calls) and the deprecated
 * `function_call` ↔ IR tool-call parts.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type {
  ChatCompletionMessageCustomToolCall,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions/completions';
import type { LossCollector } from '../../core/losses.ts';
import type { OpaquePart, Part, ToolCallPart } from '../../core/ir.ts';
import { argumentsAsText, parseArguments } from '../../core/tools.ts';
import { expectObject, expectString, isObject, pointer, required, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { FORMAT, chatHint, keepNestedUnknown, keepNestedUnknownOf, keepUnknownOf, keys, nestedExtras, shapeHint, stringField } from './shape.ts';

const FUNCTION_KNOWN = keys('name', 'arguments');
const CUSTOM_KNOWN = keys('name', 'input');

/** The pointer of the call at `index` of the `tool_calls` list at `base`, built only for an error or a loss. */
function callPath(base: string, index: number): string {
  return `${base}/${index}`;
}

function decodeFunctionCall(call: JsonObject, id: string, base: string, index: number, hints: boolean, parse: boolean): ToolCallPart {
  const value = call['function'];
  const fn = isObject(value) ? value : expectObject(required(call, 'function', callPath(base, index), FORMAT), `${callPath(base, index)}/function`, FORMAT);
  const name = typeof fn['name'] === 'string' ? fn['name'] : stringField(fn, 'name', `${callPath(base, index)}/function`);
  const text = fn['arguments'];
  const raw = text === undefined ? '' : typeof text === 'string' ? text : expectString(text, `${callPath(base, index)}/function/arguments`, FORMAT);
  // `parseArguments` always keeps the text it was given as `rawArguments`; without `parse` the text alone travels.
  const part: ToolCallPart = { type: 'tool_call', id, name, arguments: parse ? parseArguments(raw).arguments : undefined, rawArguments: raw };
  if (text === undefined && hints) chatHint(part, '$noArguments', true);
  keepNestedUnknownOf(part, 'function', fn, 'name', 'arguments');
  return part;
}

function decodeCustomCall(call: JsonObject, id: string, path: string): ToolCallPart {
  const customPath = pointer(path, 'custom');
  const custom = expectObject(required(call, 'custom', path, FORMAT), customPath, FORMAT);
  const name = expectString(required(custom, 'name', customPath, FORMAT), pointer(customPath, 'name'), FORMAT);
  const input = expectString(required(custom, 'input', customPath, FORMAT), pointer(customPath, 'input'), FORMAT);
  const part: ToolCallPart = { type: 'tool_call', id, name, arguments: undefined, rawArguments: input, kind: 'custom' };
  keepNestedUnknown(part, 'custom', custom, CUSTOM_KNOWN);
  return part;
}

/**
 * Decode the entry at `index` of the `tool_calls` list at `base` (whose
 * pointer is built only for an error or a loss). A call of an unknown type
 * becomes an opaque part. `hints: false` skips the shape hints only the
 * openai-chat encoder reads; `parse: false` keeps the argument text
 * unparsed (see `parsesArguments`).
 */
export function decodeOpenaiChatToolCall(value: unknown, base: string, index: number, losses: LossCollector, hints = true, parse = true): ToolCallPart | OpaquePart {
  const call = isObject(value) ? value : expectObject(value, callPath(base, index), FORMAT);
  const wireId = call['id'];
  const id = typeof wireId === 'string' ? wireId : stringField(call, 'id', callPath(base, index));
  const type = call['type'];
  let part: ToolCallPart;
  if (type === 'function') {
    part = decodeFunctionCall(call, id, base, index, hints, parse);
  } else if (type === 'custom') {
    part = decodeCustomCall(call, id, callPath(base, index));
  } else if (type === undefined && call['function'] !== undefined) {
    part = decodeFunctionCall(call, id, base, index, hints, parse);
    if (hints) chatHint(part, '$noType', true);
  } else {
    const blockType = typeof type === 'string' ? type : 'unknown';
    losses.add('unknown_block', callPath(base, index), `unknown tool call type "${blockType}"; kept as is for openai-chat only`);
    return { type: 'opaque', format: FORMAT, blockType, value: call };
  }
  keepUnknownOf(part, call, undefined, 'id', 'type', 'function', 'custom');
  return part;
}

/** Decode the deprecated assistant `function_call` into a tool call with a synthesised id. */
export function decodeOpenaiChatFunctionCall(value: unknown, path: string, id: string): ToolCallPart {
  const fn = expectObject(value, path, FORMAT);
  const name = expectString(required(fn, 'name', path, FORMAT), pointer(path, 'name'), FORMAT);
  const text = expectString(required(fn, 'arguments', path, FORMAT), pointer(path, 'arguments'), FORMAT);
  const part: ToolCallPart = { type: 'tool_call', id, syntheticId: true, name, ...parseArguments(text) };
  chatHint(part, '$functionCall', true);
  keepNestedUnknown(part, 'function', fn, FUNCTION_KNOWN);
  return part;
}

/** Encode a tool-call part as a `tool_calls` entry. */
export function encodeOpenaiChatToolCall(part: ToolCallPart, losses: LossCollector, path: string): JsonObject {
  if (part.extensions !== undefined) losses.foreignExtensions(part.extensions, FORMAT, path);
  if (part.syntheticId === true) {
    losses.addAt(part, 'synthesised_id', path, `tool call "${part.name}" had no id; sent the synthesised id "${part.id}"`, 'info');
  }
  if (part.kind === 'custom') {
    const custom = nestedExtras({ name: part.name, input: argumentsAsText(part) }, part, 'custom');
    const call = { id: part.id, type: 'custom', custom } satisfies ChatCompletionMessageCustomToolCall;
    return spreadExtensions(call, part, FORMAT);
  }
  // The part's own hints and extras, read once (what `shapeHint` reads); a call from another format has none.
  const own = part.extensions?.[FORMAT];
  if (own === undefined) return plainOpenaiChatToolCall(part);
  const fn: JsonObject = { name: part.name };
  if (own['$noArguments'] !== true) fn['arguments'] = argumentsAsText(part);
  const call: JsonObject = own['$noType'] === true ? { id: part.id, function: nestedExtras(fn, part, 'function') } : { id: part.id, type: 'function', function: nestedExtras(fn, part, 'function') };
  return spreadExtensions(call, part, FORMAT);
}

/**
 * The `tool_calls` entry of a function call without extensions or a
 * synthesised id (the common call from another format): what
 * {@link encodeOpenaiChatToolCall} writes for it, which reports nothing and
 * so needs no pointer.
 */
export function plainOpenaiChatToolCall(part: ToolCallPart): JsonObject {
  return { id: part.id, type: 'function', function: { name: part.name, arguments: argumentsAsText(part) } };
}

/** Encode a tool-call part as the deprecated `function_call`. */
export function encodeOpenaiChatFunctionCall(part: ToolCallPart, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const fn = { name: part.name, arguments: argumentsAsText(part) } satisfies ChatCompletionMessageFunctionToolCall.Function;
  return nestedExtras(fn, part, 'function');
}

/** True for a tool-call part that came from the deprecated `function_call`. */
export function isFunctionCall(part: Part): boolean {
  return part.type === 'tool_call' && shapeHint(part, '$functionCall') === true;
}
