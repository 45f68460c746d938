/**
 * Request `tools` and `tool_choice`. Function tools map to IR function tools,
 * custom (free-text) tools to IR custom tools; a custom tool of a shape the
 * IR does not hold travels as an opaque tool.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
 */
import type {
  ChatCompletionAllowedToolChoice,
  ChatCompletionFunctionTool,
  ChatCompletionNamedToolChoice,
} from 'openai/resources/chat/completions/completions';
import type { LossCollector } from '../../core/losses.ts';
import type { CustomTool, CustomToolFormat, FunctionTool, Tool, ToolChoice, WebSearchTool } from '../../core/ir.ts';
import { decodeUserLocation, encodeUserLocation, reportWebSearchSettings } from '../../core/web-search.ts';
import { unreachable } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import {
  expectArray,
  expectObject,
  expectString,
  extend,
  isObject,
  pointer,
  required,
  spreadExtensions,
  type JsonObject,
} from '../../core/wire.ts';
import { FORMAT, chatHint, keepUnknownOf, nestedExtras, sameJson } from './shape.ts';

/**
 * Decode the function tool `tool[key]` (`key` empty: the deprecated
 * `functions` entry wrapped as `{ function: entry }`, checked already). The
 * pointers of `path` are built only for an error.
 */
function decodeFunctionTool(tool: JsonObject, path: string, key = 'function'): FunctionTool {
  const value = tool[key === '' ? 'function' : key];
  const fn = isObject(value) ? value : expectObject(key === '' ? value : required(tool, key, path, FORMAT), key === '' ? path : pointer(path, key), FORMAT);
  const wireName = fn['name'];
  const result: FunctionTool = { type: 'function', name: typeof wireName === 'string' ? wireName : functionName(fn, key === '' ? path : pointer(path, key)) };
  const { description, parameters, strict } = fn;
  if (typeof description === 'string') result.description = description;
  if (isObject(parameters)) result.parameters = parameters;
  if (typeof strict === 'boolean') result.strict = strict;
  // Fields of unexpected types (such as an explicit null) travel as they are (a direct check per key: cheaper than a set of the read ones).
  let rest: JsonObject | undefined;
  for (const field in fn) {
    switch (field) {
      case 'name':
        continue;
      case 'description':
        if (result.description !== undefined) continue;
        break;
      case 'parameters':
        if (result.parameters !== undefined) continue;
        break;
      case 'strict':
        if (result.strict !== undefined) continue;
        break;
    }
    (rest ??= {})[field] = fn[field];
  }
  if (rest !== undefined) extend(result, FORMAT, { function: rest });
  keepUnknownOf(result, tool, undefined, 'type', 'function');
  return result;
}

/** The `invalid_type` or `missing_field` error of a function's `name` that is not a string. */
function functionName(fn: JsonObject, functionPath: string): string {
  return expectString(required(fn, 'name', functionPath, FORMAT), pointer(functionPath, 'name'), FORMAT);
}

/** A custom tool's input format in Chat's spelling (`grammar` nested), as the IR holds it; `null` for another shape. */
function decodeCustomFormat(value: unknown): CustomToolFormat | null {
  if (!isObject(value)) return null;
  const keys = Object.keys(value).length;
  if (value['type'] === 'text' && keys === 1) return { type: 'text' };
  const grammar = value['grammar'];
  if (value['type'] !== 'grammar' || keys !== 2 || !isObject(grammar) || Object.keys(grammar).length !== 2) return null;
  const { syntax, definition } = grammar;
  return typeof syntax === 'string' && typeof definition === 'string' ? { type: 'grammar', syntax, definition } : null;
}

/** A `custom` tool as an IR custom tool (its unknown keys kept as extensions), or `undefined` for a shape the IR does not hold. */
function decodeCustomTool(tool: JsonObject): CustomTool | undefined {
  const custom = tool['custom'];
  if (!isObject(custom) || typeof custom['name'] !== 'string') return undefined;
  const result: CustomTool = { type: 'custom', name: custom['name'] };
  let rest: JsonObject | undefined;
  for (const key in custom) {
    const value = custom[key];
    if (key === 'name') continue;
    if (key === 'description' && typeof value === 'string') result.description = value;
    else if (key === 'format' && value !== undefined) {
      const format = decodeCustomFormat(value);
      if (format === null) return undefined;
      result.format = format;
    } else (rest ??= {})[key] = value;
  }
  if (rest !== undefined) extend(result, FORMAT, { custom: rest });
  keepUnknownOf(result, tool, undefined, 'type', 'custom');
  return result;
}

/** A custom tool in Chat's spelling. */
function encodeCustomTool(tool: CustomTool, losses: LossCollector, path: string): JsonObject {
  if (tool.extensions !== undefined) losses.foreignExtensions(tool.extensions, FORMAT, path);
  const custom: JsonObject = { name: tool.name };
  if (tool.description !== undefined) custom['description'] = tool.description;
  const format = tool.format;
  if (format !== undefined) custom['format'] = format.type === 'text' ? { type: 'text' } : { type: 'grammar', grammar: { definition: format.definition, syntax: format.syntax } };
  return spreadExtensions({ type: 'custom', custom: nestedExtras(custom, tool, 'custom') }, tool, FORMAT);
}

/** `web_search_options` (a request setting in Chat, for its search models) as an IR web search, or `undefined` for a shape the IR does not hold. */
export function decodeWebSearchOptions(value: unknown): WebSearchTool | undefined {
  if (!isObject(value)) return undefined;
  const tool: WebSearchTool = { type: 'web_search' };
  for (const key in value) {
    const entry = value[key];
    if (key === 'search_context_size' && typeof entry === 'string') tool.contextSize = entry;
    else if (key === 'user_location') {
      const location = decodeUserLocation(entry, true);
      if (location === undefined) return undefined;
      tool.userLocation = location;
    } else return undefined;
  }
  return tool;
}

/**
 * The `web_search_options` of the request's web search, or `undefined`
 * when it has none. Chat searches the web only with its search models
 * (`gpt-4o-search-preview`, `gpt-5-search-api`): for another model the
 * search is reported dropped, since others refuse the setting.
 */
export function encodeWebSearchOptions(tools: readonly Tool[] | undefined, model: string | undefined, losses: LossCollector): JsonObject | undefined {
  if (tools === undefined) return undefined;
  for (let index = 0; index < tools.length; index++) {
    const tool = tools[index] as Tool;
    if (tool.type !== 'web_search') continue;
    const path = `/tools/${index}`;
    if (tool.extensions?.[FORMAT]?.['$webSearchOptions'] !== true && model?.includes('search') !== true) {
      losses.add('dropped_field', path, `Chat Completions searches the web only with its search models (such as gpt-4o-search-preview), and ${model === undefined ? 'the request names no model' : `"${model}" is not one`}; the web search was dropped`);
      return undefined;
    }
    losses.foreignExtensions(tool.extensions, FORMAT, path);
    reportWebSearchSettings(tool, ['userLocation', 'contextSize'], losses, path, 'Chat Completions');
    const options: JsonObject = {};
    if (tool.contextSize !== undefined) options['search_context_size'] = tool.contextSize;
    if (tool.userLocation !== undefined) options['user_location'] = encodeUserLocation(tool.userLocation, true);
    return options;
  }
  return undefined;
}

/** Decode the request `tools` array. */
export function decodeOpenaiChatTools(value: unknown, path: string, losses: LossCollector): Tool[] {
  const list = Array.isArray(value) ? value : expectArray(value, path, FORMAT);
  const tools: Tool[] = [];
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    const toolPath = `${path}/${index}`;
    const tool = isObject(item) ? item : expectObject(item, toolPath, FORMAT);
    const wireType = tool['type'];
    const type = typeof wireType === 'string' ? wireType : expectString(required(tool, 'type', toolPath, FORMAT), pointer(toolPath, 'type'), FORMAT);
    if (type === 'function') {
      tools.push(decodeFunctionTool(tool, toolPath));
      continue;
    }
    if (type === 'custom') {
      const custom = decodeCustomTool(tool);
      if (custom !== undefined) {
        tools.push(custom);
        continue;
      }
    } else losses.add('unknown_block', toolPath, `unknown tool type "${type}"; kept as is for openai-chat only`);
    tools.push({ type: 'opaque', format: FORMAT, toolType: type, value: tool });
  }
  return tools;
}

/** Decode the deprecated request `functions` array into function tools marked to go back there. */
export function decodeOpenaiChatFunctions(value: unknown, path: string): Tool[] {
  return expectArray(value, path, FORMAT).map((item, index) => {
    const functionPath = pointer(path, index);
    const tool = decodeFunctionTool({ function: expectObject(item, functionPath, FORMAT) }, functionPath, '');
    chatHint(tool, '$legacyFunction', true);
    return tool;
  });
}

/** The tools split into `tools` and the deprecated `functions`. */
export interface EncodedTools {
  tools: JsonObject[];
  functions: JsonObject[];
}

/** Encode the IR tools; tools of other formats are reported and dropped. */
export function encodeOpenaiChatTools(tools: readonly Tool[], losses: LossCollector): EncodedTools {
  const out: JsonObject[] = [];
  const functions: JsonObject[] = [];
  for (let index = 0; index < tools.length; index++) {
    const tool = tools[index] as Tool;
    switch (tool.type) {
      case 'function': {
        if (tool.extensions !== undefined) losses.foreignExtensions(tool.extensions, FORMAT, `/tools/${index}`);
        const fn: ChatCompletionFunctionTool['function'] = { name: tool.name };
        if (tool.description !== undefined) fn.description = tool.description;
        if (tool.parameters !== undefined) fn.parameters = tool.parameters;
        if (tool.strict !== undefined) fn.strict = tool.strict;
        // The tool's own hints and extras (what `shapeHint` reads); a tool from another format has none.
        const own = tool.extensions?.[FORMAT];
        if (own === undefined) out.push({ type: 'function', function: fn });
        else if (own['$legacyFunction'] === true) functions.push({ ...nestedExtras(fn, tool, 'function') });
        else out.push(spreadExtensions({ type: 'function', function: nestedExtras(fn, tool, 'function') }, tool, FORMAT));
        continue;
      }
      case 'custom':
        out.push(encodeCustomTool(tool, losses, `/tools/${index}`));
        continue;
      case 'web_search':
        // A request setting in Chat (`web_search_options`), written by the request encoder.
        continue;
      case 'opaque':
        if (tool.format === FORMAT) out.push(tool.value as JsonObject);
        else losses.add('dropped_field', `/tools/${index}`, `${tool.format} tool "${tool.toolType}" has no Chat Completions equivalent; dropped`);
        continue;
      default:
        unreachable(tool);
    }
  }
  return { tools: out, functions };
}

function choiceName(choice: JsonObject, path: string): string {
  const type = choice['type'];
  const key = type === 'custom' ? 'custom' : 'function';
  // The pointers are built only for an error.
  const value = choice[key];
  const inner = isObject(value) ? value : expectObject(required(choice, key, path, FORMAT), pointer(path, key), FORMAT);
  const name = inner['name'];
  return typeof name === 'string' ? name : expectString(required(inner, 'name', pointer(path, key), FORMAT), pointer(path, key, 'name'), FORMAT);
}

/**
 * Decode `tool_choice`. Returns `undefined` (the caller keeps the value as an
 * extension) for shapes whose exact spelling the neutral form cannot rebuild.
 */
export function decodeOpenaiChatToolChoice(value: unknown, path: string, tools: readonly Tool[] | undefined): ToolChoice | undefined {
  if (value === 'none' || value === 'auto' || value === 'required') return { type: value };
  if (typeof value === 'string') {
    throw new InterlinguaError('invalid_value', `unknown tool_choice "${value}"; use none, auto, required or a named tool`, {
      path,
      format: FORMAT,
    });
  }
  const choice = expectObject(value, path, FORMAT);
  const type = choice['type'];
  if (type === 'function' || type === 'custom') {
    const name = choiceName(choice, path);
    const rebuilt = encodeNamed(name, tools);
    return sameJson(rebuilt, choice) ? { type: 'tool', name } : undefined;
  }
  if (type === 'allowed_tools') {
    const allowedPath = pointer(path, 'allowed_tools');
    const allowed = expectObject(required(choice, 'allowed_tools', path, FORMAT), allowedPath, FORMAT);
    const mode = allowed['mode'];
    if (mode !== 'auto' && mode !== 'required') return undefined;
    const list = expectArray(required(allowed, 'tools', allowedPath, FORMAT), pointer(allowedPath, 'tools'), FORMAT);
    const names = list.map((item, index) => choiceName(expectObject(item, pointer(allowedPath, 'tools', index), FORMAT), pointer(allowedPath, 'tools', index)));
    const neutral: ToolChoice = { type: 'allowed', names, mode };
    return sameJson(encodeOpenaiChatToolChoice(neutral, tools), choice) ? neutral : undefined;
  }
  return undefined;
}

function isCustomTool(name: string, tools: readonly Tool[] | undefined): boolean {
  return (tools ?? []).some((tool) => {
    if (tool.type === 'custom') return tool.name === name;
    if (tool.type !== 'opaque' || tool.format !== FORMAT || tool.toolType !== 'custom') return false;
    const custom = (tool.value as JsonObject)['custom'];
    return isObject(custom) && custom['name'] === name;
  });
}

function encodeNamed(name: string, tools: readonly Tool[] | undefined): JsonObject {
  if (isCustomTool(name, tools)) return { type: 'custom', custom: { name } };
  const named: ChatCompletionNamedToolChoice = { type: 'function', function: { name } };
  return named as unknown as JsonObject;
}

/** Encode the neutral tool choice. */
export function encodeOpenaiChatToolChoice(choice: ToolChoice, tools: readonly Tool[] | undefined): unknown {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return encodeNamed(choice.name, tools);
    case 'allowed': {
      const allowed: ChatCompletionAllowedToolChoice = {
        type: 'allowed_tools',
        allowed_tools: { mode: choice.mode, tools: choice.names.map((name) => encodeNamed(name, tools)) },
      };
      return allowed;
    }
    default:
      return unreachable(choice);
  }
}

/** Decode the deprecated request `function_call` (`none`, `auto` or `{ name }`); `undefined` for other shapes. */
export function decodeOpenaiChatFunctionChoice(value: unknown): ToolChoice | undefined {
  if (value === 'none' || value === 'auto') return { type: value };
  if (isObject(value) && typeof value['name'] === 'string' && Object.keys(value).length === 1) return { type: 'tool', name: value['name'] };
  return undefined;
}

/** Encode a tool choice as the deprecated `function_call`; `undefined` when it cannot say it. */
export function encodeOpenaiChatFunctionChoice(choice: ToolChoice): unknown {
  if (choice.type === 'none' || choice.type === 'auto') return choice.type;
  if (choice.type === 'tool') return { name: choice.name };
  return undefined;
}
