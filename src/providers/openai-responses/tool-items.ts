/**
 * Function and custom tool calls and their outputs: `function_call`,
 * `custom_tool_call`, `function_call_output`, `custom_tool_call_output` ⇄ IR
 * `tool_call` / `tool_result` parts. `call_id` is the IR call id; the item id
 * (`fc_…`) and status are kept as shape hints, since another model's history
 * must be replayed without them.
 *
 * @see https://platform.openai.com/docs/guides/function-calling
 */
import type { Part, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { argumentsAsText, argumentsObject } from '../../core/tools.ts';
import { expectArray, expectString, extend, hint, required, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiResponsesContent } from './content-decode.ts';
import { encodeOpenaiResponsesContent } from './content-encode.ts';
import { FORMAT, keepNulls, own, ownHint, restoreNulls, type ItemTarget } from './shape.ts';
import { withPartMarker } from '../../core/cache-points.ts';
import { BREAKPOINT_KEY, RESPONSES_BREAKPOINT, takesBreakpoint } from './cache-breakpoint.ts';

/** The keys of a tool call item this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function callExtras(item: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in item) {
    switch (key) {
      case 'type':
      case 'id':
      case 'call_id':
      case 'name':
      case 'arguments':
      case 'input':
      case 'status':
        continue;
    }
    (rest ??= {})[key] = item[key];
  }
  return rest;
}

/** The keys of a tool output item this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function outputExtras(item: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in item) {
    switch (key) {
      case 'type':
      case 'id':
      case 'call_id':
      case 'output':
      case 'status':
        continue;
    }
    (rest ??= {})[key] = item[key];
  }
  return rest;
}

/** What item encoders share while encoding one list of items. */
export interface ItemEncodeContext {
  losses: LossCollector;
  target: ItemTarget;
  /** Call ids of custom tool calls seen so far, so their results become `custom_tool_call_output`; made at the first custom call. */
  customCalls?: Set<string>;
  /** Status for message items of other formats in a response (`completed` or `incomplete`). */
  messageStatus?: string;
  /** Send text parts of other formats as refusal parts (the response stopped for a refusal). */
  textAsRefusal?: boolean;
}

const BOOKKEEPING_KEYS = ['id', 'status'] as const;

function keepItemBookkeeping(part: Part, item: JsonObject, path: string, lean: boolean): void {
  const id = item['id'];
  const status = item['status'];
  if (id !== undefined && id !== null) {
    if (typeof id !== 'string') expectString(id, `${path}/id`, FORMAT);
    if (!lean) hint(part, FORMAT, '$id', id);
  }
  if (status !== undefined && status !== null) {
    if (typeof status !== 'string') expectString(status, `${path}/status`, FORMAT);
    if (!lean) hint(part, FORMAT, '$status', status);
  }
  // Agent frameworks replay items with `"id": null, "status": null`: optional, so absent in meaning, written back as sent.
  if (!lean && (id === null || status === null)) keepNulls(part, item, BOOKKEEPING_KEYS);
}

/** `item[key]` as a string: a `missing_field` or `invalid_type` error naming `path/key` otherwise. */
function stringField(item: JsonObject, key: string, path: string): string {
  const value = item[key];
  if (typeof value === 'string') return value;
  return expectString(required(item, key, path, FORMAT), `${path}/${key}`, FORMAT);
}

/**
 * Decode a `function_call` or `custom_tool_call` item; `lean` skips the hints
 * only a trip back here needs. `keepText`: the IR goes back to Responses
 * or on to OpenAI Chat, whose encoders send the argument text as it came
 * (`rawArguments`), so the text is not parsed.
 */
export function decodeOpenaiResponsesToolCall(item: JsonObject, custom: boolean, path: string, lean = false, keepText = false): ToolCallPart {
  // Named reads (a read by a key passed in is a lookup per call); stringField only for what is not a string, to throw.
  const callIdValue = item['call_id'];
  const nameValue = item['name'];
  const textValue = custom ? item['input'] : item['arguments'];
  const callId = typeof callIdValue === 'string' ? callIdValue : stringField(item, 'call_id', path);
  const name = typeof nameValue === 'string' ? nameValue : stringField(item, 'name', path);
  const text = typeof textValue === 'string' ? textValue : stringField(item, custom ? 'input' : 'arguments', path);
  const part: ToolCallPart = custom
    ? { type: 'tool_call', id: callId, name, arguments: undefined, rawArguments: text, kind: 'custom' }
    : { type: 'tool_call', id: callId, name, arguments: keepText ? undefined : argumentsObject(text), rawArguments: text };
  keepItemBookkeeping(part, item, path, lean);
  extend(part, FORMAT, callExtras(item));
  return part;
}

/** Decode a `function_call_output` or `custom_tool_call_output` item. */
export function decodeOpenaiResponsesToolOutput(item: JsonObject, custom: boolean, path: string, losses: LossCollector, lean = false): ToolResultPart {
  const callIdValue = item['call_id'];
  const callId = typeof callIdValue === 'string' ? callIdValue : stringField(item, 'call_id', path);
  const output = item['output'];
  if (output === undefined) required(item, 'output', path, FORMAT);
  const part: ToolResultPart = { type: 'tool_result', callId, content: [] };
  if (typeof output === 'string') {
    // A list made with its one part (`[]` grown by `push` takes room for 17).
    part.content = [{ type: 'text', text: output }];
  } else {
    const outputPath = `${path}/output`;
    const list = expectArray(output, outputPath, FORMAT);
    part.content = list.map((entry, index) => decodeOpenaiResponsesContent(entry, `${outputPath}/${index}`, 'input_text', losses));
    if (!lean) hint(part, FORMAT, '$outputList', true);
  }
  if (custom) hint(part, FORMAT, '$custom', true);
  keepItemBookkeeping(part, item, path, lean);
  extend(part, FORMAT, outputExtras(item));
  return part;
}

function finishItem(item: JsonObject, part: Part, context: ItemEncodeContext, path: string): JsonObject {
  context.losses.foreignExtensions(part.extensions, FORMAT, path);
  const id = ownHint(part, '$id');
  const status = ownHint(part, '$status');
  if (typeof id === 'string') item['id'] = id;
  if (typeof status === 'string') item['status'] = status;
  else if (context.target === 'response' && own(part) === undefined) item['status'] = 'completed';
  return restoreNulls(spreadExtensions(item, part, FORMAT), part);
}

/** The prefix of the item id interlingua gives a call OpenAI would have named: `fc_` for function calls, `ctc_` for custom calls (as OpenAI's own). */
export function callItemPrefix(part: ToolCallPart): string {
  return part.kind === 'custom' ? 'ctc_interlingua_' : 'fc_interlingua_';
}

/**
 * Encode a tool call as a `function_call` (or `custom_tool_call`) item, at
 * `index` in the output. In a response, an item OpenAI would have given an
 * id (`fc_…` or `ctc_…`, which the SDK's `ResponseFunctionToolCall` carries
 * and strict schemas require) and the source did not gets interlingua's, as
 * the stream encoder names it (`fc_interlingua_<n>`, `ctc_interlingua_<n>`).
 */
export function encodeOpenaiResponsesToolCall(part: ToolCallPart, context: ItemEncodeContext, path: string, index?: number): JsonObject {
  if (part.syntheticId === true) context.losses.addAt(part, 'synthesised_id', `${path}/id`, `call id "${part.id}" was made up by interlingua`, 'info');
  let item: JsonObject;
  if (part.kind === 'custom') {
    (context.customCalls ??= new Set()).add(part.id);
    const input = part.rawArguments ?? JSON.stringify(part.arguments ?? {});
    item = finishItem({ type: 'custom_tool_call', call_id: part.id, name: part.name, input }, part, context, path);
  } else {
    item = finishItem({ type: 'function_call', call_id: part.id, name: part.name, arguments: argumentsAsText(part) }, part, context, path);
  }
  if (context.target === 'response' && index !== undefined && item['id'] === undefined && own(part) === undefined) {
    item['id'] = `${callItemPrefix(part)}${index}`;
    context.losses.addAt(part, 'synthesised_id', path, `${part.kind === 'custom' ? 'custom' : 'function'} call item id made up by interlingua`, 'info');
  }
  return item;
}

/** Encode a tool result as a `function_call_output` (or `custom_tool_call_output`) item. */
export function encodeOpenaiResponsesToolOutput(part: ToolResultPart, context: ItemEncodeContext, path: string): JsonObject {
  const losses = context.losses;
  if (part.syntheticId === true) losses.addAt(part, 'synthesised_id', `${path}/callId`, `call id "${part.callId}" was made up by interlingua`, 'info');
  const custom = ownHint(part, '$custom') === true || context.customCalls?.has(part.callId) === true;
  const item: JsonObject = { type: custom ? 'custom_tool_call_output' : 'function_call_output', call_id: part.callId, output: encodeOutput(part, losses, path, context.target === 'request') };
  return finishItem(item, part, context, path);
}

/** Prefix that marks a failed tool result, since Responses outputs have no error flag (as the Chat codec does). */
export const TOOL_ERROR_PREFIX = 'Error: ';

function encodeOutput(part: ToolResultPart, losses: LossCollector, path: string, breakpoints: boolean): string | JsonObject[] {
  const output = encodeOutputValue(part, losses, path, breakpoints);
  if (part.isError !== true) return output;
  losses.add('approximated', path, `OpenAI Responses tool outputs have no error flag; the output was prefixed with "${TOOL_ERROR_PREFIX}"`);
  if (typeof output === 'string') return TOOL_ERROR_PREFIX + output;
  const first = output[0];
  if (first !== undefined && first['type'] === 'input_text' && typeof first['text'] === 'string') output[0] = { ...first, text: TOOL_ERROR_PREFIX + first['text'] };
  else output.unshift({ type: 'input_text', text: TOOL_ERROR_PREFIX.trimEnd() });
  return output;
}

function encodeOutputValue(part: ToolResultPart, losses: LossCollector, path: string, breakpoints: boolean): string | JsonObject[] {
  const first = part.content[0];
  const cached = breakpoints && (part.cache !== undefined || first?.cache !== undefined);
  if (ownHint(part, '$outputList') !== true && !cached) {
    if (first === undefined) return '';
    if (part.content.length === 1 && first.type === 'text' && own(first) === undefined && first.citations === undefined) {
      if (first.extensions !== undefined) losses.foreignExtensions(first.extensions, FORMAT, `${path}/content/0`);
      return first.text;
    }
  }
  const list: JsonObject[] = [];
  part.content.forEach((inner, index) => {
    const encoded = encodeOpenaiResponsesContent(inner, 'input_text', losses, `${path}/content/${index}`, breakpoints);
    if (encoded !== undefined) list.push(encoded);
  });
  // The output's own breakpoint ends it: on its last part.
  if (breakpoints && part.cache !== undefined) {
    const last = list[list.length - 1];
    if (last === undefined || !takesBreakpoint(last['type'])) losses.addAt(part.cache, 'dropped_field', `${path}/cache`, 'this OpenAI Responses tool output has no input part to carry the prompt-cache breakpoint; dropped');
    else if (last[BREAKPOINT_KEY] === undefined) list[list.length - 1] = withPartMarker({ ...last }, part.cache, path, losses, RESPONSES_BREAKPOINT);
  }
  return list;
}
