/**
 * Tools and tool choice. Function tools map to IR function tools (strict kept,
 * and emitted explicitly because Responses is strict by default), custom
 * (free-text) tools to IR custom tools; built-in tools, and a custom tool of
 * a shape the IR does not hold, are kept whole as opaque tools.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
 */
import { unreachable, type CustomTool, type CustomToolFormat, type Extensible, type FunctionTool, type OpaqueTool, type Tool, type ToolChoice, type WebSearchTool } from '../../core/ir.ts';
import { domainList, encodeUserLocation, readUserLocation, reportWebSearchSettings } from '../../core/web-search.ts';
import type { LossCollector } from '../../core/losses.ts';
import {
  expectBoolean, expectObject, expectString, extend, hint, isObject, pointer, required, spreadExtensions, unknownKeys, type JsonObject,
} from '../../core/wire.ts';
import { FORMAT, keepNulls, ownHint, restoreNulls, wasNull } from './shape.ts';

const FUNCTION_KEYS: ReadonlySet<string> = new Set(['type', 'name', 'description', 'parameters', 'strict']);

/** A custom tool's input format in Responses' spelling (`grammar` flat), as the IR holds it; `null` for another shape. */
function decodeCustomFormat(value: unknown): CustomToolFormat | null {
  if (!isObject(value)) return null;
  const keys = Object.keys(value).length;
  if (value['type'] === 'text' && keys === 1) return { type: 'text' };
  const { syntax, definition } = value;
  return value['type'] === 'grammar' && keys === 3 && typeof syntax === 'string' && typeof definition === 'string' ? { type: 'grammar', syntax, definition } : null;
}

/** A `custom` tool as an IR custom tool (unknown keys such as `defer_loading` kept as extensions), or `undefined` for a shape the IR does not hold. */
function decodeCustomTool(wire: JsonObject): CustomTool | undefined {
  if (typeof wire['name'] !== 'string') return undefined;
  const tool: CustomTool = { type: 'custom', name: wire['name'] };
  let rest: JsonObject | undefined;
  for (const key in wire) {
    const value = wire[key];
    if (key === 'type' || key === 'name') continue;
    if (key === 'description' && typeof value === 'string') tool.description = value;
    else if (key === 'format' && value !== undefined) {
      const format = decodeCustomFormat(value);
      if (format === null) return undefined;
      tool.format = format;
    } else (rest ??= {})[key] = value;
  }
  extend(tool, FORMAT, rest);
  return tool;
}

/** A custom tool in Responses' spelling. */
function encodeCustomTool(tool: CustomTool, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(tool.extensions, FORMAT, path);
  const wire: JsonObject = { type: 'custom', name: tool.name };
  if (tool.description !== undefined) wire['description'] = tool.description;
  const format = tool.format;
  if (format !== undefined) wire['format'] = format.type === 'text' ? { type: 'text' } : { type: 'grammar', definition: format.definition, syntax: format.syntax };
  return spreadExtensions(wire, tool, FORMAT);
}

/** The web search tool's spellings: the current one first (sent for a search from another format), then the preview and dated ones. */
const WEB_SEARCH_TYPES: ReadonlySet<string> = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

/** A `web_search` tool as an IR web search, or `undefined` for a field or value the IR does not hold (it stays opaque). */
function decodeWebSearch(wire: JsonObject, type: string): WebSearchTool | undefined {
  const tool: WebSearchTool = { type: 'web_search' };
  for (const key in wire) {
    const value = wire[key];
    switch (key) {
      case 'type':
        continue;
      case 'search_context_size':
        if (typeof value !== 'string') return undefined;
        tool.contextSize = value;
        continue;
      case 'user_location':
        if (!readUserLocation(tool, value)) return undefined;
        continue;
      case 'filters': {
        const domains = domainList(isObject(value) && Object.keys(value).length === 1 ? value['allowed_domains'] : undefined);
        if (domains === undefined) return undefined;
        tool.allowedDomains = domains;
        continue;
      }
      default:
        return undefined;
    }
  }
  if (type !== 'web_search') hint(tool, FORMAT, '$webSearchType', type);
  return tool;
}

/** An IR web search as Responses' `web_search` tool. */
function encodeWebSearch(tool: WebSearchTool, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(tool.extensions, FORMAT, path);
  reportWebSearchSettings(tool, ['allowedDomains', 'userLocation', 'contextSize'], losses, path, 'OpenAI Responses');
  const type = ownHint(tool, '$webSearchType');
  const wire: JsonObject = { type: typeof type === 'string' ? type : 'web_search' };
  if (tool.allowedDomains !== undefined) wire['filters'] = { allowed_domains: tool.allowedDomains };
  if (tool.contextSize !== undefined) wire['search_context_size'] = tool.contextSize;
  if (tool.userLocation !== undefined) wire['user_location'] = encodeUserLocation(tool.userLocation, false);
  return wire;
}

/** Decode one entry of `tools`. */
export function decodeOpenaiResponsesTool(value: unknown, path: string): Tool {
  const wire = expectObject(value, path, FORMAT);
  const typeValue = wire['type'];
  const type = typeof typeValue === 'string' ? typeValue : expectString(required(wire, 'type', path, FORMAT), pointer(path, 'type'), FORMAT);
  if (type === 'custom') {
    const custom = decodeCustomTool(wire);
    if (custom !== undefined) return custom;
  } else if (WEB_SEARCH_TYPES.has(type)) {
    const search = decodeWebSearch(wire, type);
    if (search !== undefined) return search;
  }
  if (type !== 'function') return { type: 'opaque', format: FORMAT, toolType: type, value: wire } satisfies OpaqueTool;
  const name = wire['name'];
  const tool: FunctionTool = { type: 'function', name: typeof name === 'string' ? name : expectString(required(wire, 'name', path, FORMAT), pointer(path, 'name'), FORMAT) };
  const description = wire['description'];
  const parameters = wire['parameters'];
  const strict = wire['strict'];
  if (description !== undefined && description !== null) tool.description = typeof description === 'string' ? description : expectString(description, pointer(path, 'description'), FORMAT);
  if (parameters !== undefined && parameters !== null) tool.parameters = isObject(parameters) ? parameters : expectObject(parameters, pointer(path, 'parameters'), FORMAT);
  if (parameters === undefined) hint(tool, FORMAT, '$omitParameters', true);
  if (strict !== undefined && strict !== null) tool.strict = typeof strict === 'boolean' ? strict : expectBoolean(strict, pointer(path, 'strict'), FORMAT);
  if (strict === undefined) hint(tool, FORMAT, '$omitStrict', true);
  // keepNulls looks up each key; mostly none is null.
  if (description === null || parameters === null || strict === null) keepNulls(tool, wire, ['description', 'parameters', 'strict']);
  extend(tool, FORMAT, unknownKeys(wire, FUNCTION_KEYS));
  return tool;
}

/** Encode one IR tool; `undefined` (with a loss) for another format's built-in tool. */
export function encodeOpenaiResponsesTool(tool: Tool, losses: LossCollector, path: string): JsonObject | undefined {
  if (tool.type === 'opaque') {
    if (tool.format === FORMAT) return tool.value as JsonObject;
    losses.add('dropped_field', path, `${tool.format} built-in tool "${tool.toolType}" has no OpenAI Responses equivalent; dropped`);
    return undefined;
  }
  if (tool.type === 'custom') return encodeCustomTool(tool, losses, path);
  if (tool.type === 'web_search') return encodeWebSearch(tool, losses, path);
  losses.foreignExtensions(tool.extensions, FORMAT, path);
  const wire: JsonObject = { type: 'function', name: tool.name };
  if (tool.description !== undefined) wire['description'] = tool.description;
  if (tool.parameters !== undefined) wire['parameters'] = tool.parameters;
  else if (ownHint(tool, '$omitParameters') !== true && !wasNull(tool, 'parameters')) {
    wire['parameters'] = { type: 'object', properties: {} };
    losses.add('defaulted', pointer(path, 'parameters'), 'function tool without a schema sent with an empty object schema', 'info');
  }
  // Responses treats an omitted `strict` as true, which would change a non-strict tool.
  if (tool.strict !== undefined) wire['strict'] = tool.strict;
  else if (ownHint(tool, '$omitStrict') !== true && !wasNull(tool, 'strict')) wire['strict'] = false;
  return restoreNulls(spreadExtensions(wire, tool, FORMAT), tool);
}

/** Decode `tool_choice`; `undefined` when it has no neutral form (the caller keeps it raw). */
export function decodeOpenaiResponsesToolChoice(value: unknown, node: Extensible): ToolChoice | undefined {
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value).length;
  const name = value['name'];
  if ((value['type'] === 'function' || value['type'] === 'custom') && typeof name === 'string' && keys === 2) {
    if (value['type'] === 'custom') hint(node, FORMAT, '$toolChoiceCustom', true);
    return { type: 'tool', name };
  }
  if (value['type'] !== 'allowed_tools' || keys !== 3) return undefined;
  const mode = value['mode'];
  const tools = value['tools'];
  if ((mode !== 'auto' && mode !== 'required') || !Array.isArray(tools)) return undefined;
  const names: string[] = [];
  for (const entry of tools) {
    if (!isObject(entry) || entry['type'] !== 'function' || typeof entry['name'] !== 'string' || Object.keys(entry).length !== 2) return undefined;
    names.push(entry['name']);
  }
  return { type: 'allowed', names, mode };
}

/** Encode an IR tool choice. */
export function encodeOpenaiResponsesToolChoice(choice: ToolChoice, node: Extensible, customTools: ReadonlySet<string>): unknown {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool': {
      const custom = ownHint(node, '$toolChoiceCustom') === true || customTools.has(choice.name);
      return { type: custom ? 'custom' : 'function', name: choice.name };
    }
    case 'allowed':
      return { type: 'allowed_tools', mode: choice.mode, tools: choice.names.map((name) => ({ type: 'function', name })) };
    default:
      return unreachable(choice);
  }
}
