/**
 * The pieces of an Ollama message that become IR parts: `images` (bare
 * base64 strings, media type sniffed from the first bytes) and `tool_calls`
 * (arguments as a JSON object, no id).
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-images
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { ImagePart, Message, Part, ToolCallPart } from '../../core/ir.ts';
import { sniffBase64 } from '../../core/media.ts';
import { parseArguments } from '../../core/tools.ts';
import { expectArray, expectObject, expectString, extend, isObject, pointer, tooDeep } from '../../core/wire.ts';
import { syntheticCallId, type PendingCalls } from './ids.ts';
import { extras, FORMAT, ollamaHint } from './shape.ts';

/** Decode `images` into image parts appended to `parts`; `null` and `[]` are kept as hints on `message` (unless `hints` is false). */
export function decodeOllamaImages(value: unknown, path: string, message: Message, parts: Part[], hints = true): void {
  if (value === undefined) return;
  if (value === null) {
    if (hints) ollamaHint(message, '$images', null);
    return;
  }
  const list = expectArray(value, path, FORMAT);
  if (list.length === 0 && hints) ollamaHint(message, '$images', 'empty');
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    const data = typeof item === 'string' ? item : expectString(item, pointer(path, index), FORMAT);
    const part: ImagePart = { type: 'image', source: { kind: 'base64', data, mediaType: sniffBase64(data, 'image/jpeg') } };
    parts.push(part);
  }
}

/** Where the ids of a message's tool calls come from. */
export interface CallScope {
  /** Names the message (its index) or response, for synthesised ids. */
  scope: string | number;
  pending: PendingCalls;
  /**
   * Whether to keep the shape hints only the Ollama encoder reads (`false`
   * when the IR is headed for another format); unset keeps them.
   */
  hints?: boolean;
}

/** The pointer of the call at `index` of the `tool_calls` list at `base`, or `base` itself for `index` -1; built only for an error. */
function callPath(base: string, index: number): string {
  return index < 0 ? base : `${base}/${index}`;
}

function decodeArguments(value: unknown, base: string, index: number, part: ToolCallPart, hints: boolean): void {
  if (value === undefined) {
    part.arguments = {};
    if (hints) ollamaHint(part, '$arguments', 'absent');
  } else if (typeof value === 'string') {
    // Some clients send the argument text, as OpenAI does; keep it as text.
    Object.assign(part, parseArguments(value));
    if (hints) ollamaHint(part, '$arguments', 'text');
  } else if (isObject(value) && tooDeep(value) === undefined) {
    part.arguments = value;
  } else {
    const path = `${callPath(base, index)}/function/arguments`;
    expectObject(value, path, FORMAT);
    throw new InterlinguaError('invalid_value', 'tool-call arguments nest too deep; flatten them', { path, format: FORMAT });
  }
}

/** Decode one entry of `tool_calls`. */
export function decodeOllamaToolCall(value: unknown, path: string, callIndex: number, calls: CallScope): ToolCallPart {
  return decodeToolCall(value, path, -1, callIndex, calls);
}

/** {@link decodeOllamaToolCall} for the entry at `index` of the list at `base` (see {@link callPath}). */
function decodeToolCall(value: unknown, base: string, index: number, callIndex: number, calls: CallScope): ToolCallPart {
  const hints = calls.hints !== false;
  const call = isObject(value) ? value : expectObject(value, callPath(base, index), FORMAT);
  const wireFunction = call['function'];
  const fn = isObject(wireFunction) ? wireFunction : expectObject(wireFunction, `${callPath(base, index)}/function`, FORMAT);
  const wireName = fn['name'];
  const name = typeof wireName === 'string' ? wireName : expectString(wireName, `${callPath(base, index)}/function/name`, FORMAT);
  const part: ToolCallPart = { type: 'tool_call', id: '', name, arguments: undefined };
  const id = call['id'];
  if (typeof id === 'string' && id !== '') {
    part.id = id;
    if (hints) ollamaHint(part, '$id', true);
  } else {
    if (id !== undefined && hints) ollamaHint(part, '$idValue', id);
    part.id = syntheticCallId(calls.scope, callIndex);
    part.syntheticId = true;
  }
  decodeArguments(fn['arguments'], base, index, part, hints);
  if (fn['index'] !== undefined && hints) ollamaHint(part, '$index', fn['index']);
  const callRest = extras(call, 'function', 'id', 'id');
  if (callRest !== undefined) extend(part, FORMAT, { call: callRest });
  const functionRest = extras(fn, 'name', 'arguments', 'index');
  if (functionRest !== undefined) extend(part, FORMAT, { function: functionRest });
  calls.pending.add(name, part.id);
  return part;
}

/** Decode `tool_calls` into parts appended to `parts`. */
export function decodeOllamaToolCalls(value: unknown, path: string, message: Message, parts: Part[], calls: CallScope): void {
  if (value === undefined) return;
  const hints = calls.hints !== false;
  if (value === null) {
    if (hints) ollamaHint(message, '$toolCalls', null);
    return;
  }
  const list = Array.isArray(value) ? value : expectArray(value, path, FORMAT);
  if (list.length === 0 && hints) ollamaHint(message, '$toolCalls', 'empty');
  for (let index = 0; index < list.length; index++) parts.push(decodeToolCall(list[index], path, index, index, calls));
}
