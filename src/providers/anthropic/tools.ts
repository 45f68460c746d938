/**
 * Tools and tool choice. Custom tools map to IR function tools, the web
 * search server tool (`web_search_20250305`, …) to the IR web search tool;
 * other server tools (`bash_20250124`, …), and a web search with fields the
 * IR does not hold, travel whole as opaque tools.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-tools
 * @see https://docs.anthropic.com/en/api/messages#body-tool-choice
 */
import type { FunctionTool, Request, Tool, ToolChoice, WebSearchTool } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import {
  expectArray,
  expectBoolean,
  expectObject,
  expectString,
  extend,
  pointer,
  required,
  spreadExtensions,
  unknownKeys,
  type JsonObject,
} from '../../core/wire.ts';
import { cacheControlOf, liftCacheControl } from './cache-control.ts';
import { ANTHROPIC, anthropicHint, hasHint } from './shape.ts';
import { customAsFunction } from '../../core/custom-tools.ts';
import { domainList, encodeUserLocation, readUserLocation, reportWebSearchSettings } from '../../core/web-search.ts';

const CUSTOM_TOOL_KEYS: ReadonlySet<string> = new Set(['type', 'name', 'description', 'input_schema', 'strict']);

/** The web search tool's versions (`web_search_20250305`, `web_search_20260209`). */
const WEB_SEARCH_TYPE = /^web_search_\d{8}$/;
/** Where the IR web search's settings come from in Anthropic's tool, for loss paths. */
const WEB_SEARCH_FIELDS = { maxUses: 'max_uses', allowedDomains: 'allowed_domains', blockedDomains: 'blocked_domains', userLocation: 'user_location' } as const;
/** The web search version sent for a search from another format. */
const WEB_SEARCH_VERSION = 'web_search_20250305';

/** The web search server tool as an IR web search, or `undefined` for a field or value the IR does not hold (it stays opaque). */
function decodeWebSearch(object: JsonObject, type: string): WebSearchTool | undefined {
  if (object['name'] !== 'web_search') return undefined;
  const tool: WebSearchTool = { type: 'web_search' };
  for (const key in object) {
    const value = object[key];
    switch (key) {
      case 'type':
      case 'name':
        continue;
      case 'max_uses':
        if (typeof value !== 'number') return undefined;
        tool.maxUses = value;
        continue;
      case 'allowed_domains':
      case 'blocked_domains': {
        const list = domainList(value);
        if (list === undefined) return undefined;
        tool[key === 'allowed_domains' ? 'allowedDomains' : 'blockedDomains'] = list;
        continue;
      }
      case 'user_location':
        if (!readUserLocation(tool, value)) return undefined;
        continue;
      default:
        return undefined;
    }
  }
  if (type !== WEB_SEARCH_VERSION) anthropicHint(tool, '$webSearchType', type);
  return tool;
}

/** An IR web search as Anthropic's server tool; Anthropic takes allowed or blocked domains, not both. */
function encodeWebSearch(tool: WebSearchTool, path: string, losses: LossCollector): JsonObject {
  reportWebSearchSettings(tool, ['allowedDomains', 'blockedDomains', 'userLocation', 'maxUses'], losses, path, 'Anthropic');
  const type = tool.extensions?.anthropic?.['$webSearchType'];
  const wire: JsonObject = { type: typeof type === 'string' ? type : WEB_SEARCH_VERSION, name: 'web_search' };
  if (tool.maxUses !== undefined) wire['max_uses'] = tool.maxUses;
  if (tool.allowedDomains !== undefined) wire['allowed_domains'] = tool.allowedDomains;
  if (tool.blockedDomains !== undefined) {
    if (tool.allowedDomains === undefined) wire['blocked_domains'] = tool.blockedDomains;
    else losses.add('dropped_field', `${path}/blockedDomains`, 'Anthropic\'s web search takes allowed or blocked domains, not both; the blocked ones were dropped');
  }
  if (tool.userLocation !== undefined) wire['user_location'] = encodeUserLocation(tool.userLocation, false);
  return wire;
}

function decodeTool(value: unknown, path: string, losses: LossCollector): Tool {
  const object = expectObject(value, path, ANTHROPIC);
  const type = object['type'];
  if (type !== undefined && type !== null && type !== 'custom') {
    const toolType = expectString(type, pointer(path, 'type'), ANTHROPIC);
    const search = WEB_SEARCH_TYPE.test(toolType) ? decodeWebSearch(object, toolType) : undefined;
    if (search !== undefined) {
      losses.originFields(search, object, path, WEB_SEARCH_FIELDS);
      return search;
    }
    return { type: 'opaque', format: ANTHROPIC, toolType, value: object };
  }
  const tool: FunctionTool = { type: 'function', name: expectString(required(object, 'name', path, ANTHROPIC), pointer(path, 'name'), ANTHROPIC) };
  if (type === 'custom') anthropicHint(tool, '$typeCustom', true);
  if (type === null) anthropicHint(tool, '$typeNull', true);
  if (object['description'] !== undefined) tool.description = expectString(object['description'], pointer(path, 'description'), ANTHROPIC);
  tool.parameters = expectObject(required(object, 'input_schema', path, ANTHROPIC), pointer(path, 'input_schema'), ANTHROPIC);
  if (object['strict'] !== undefined) tool.strict = expectBoolean(object['strict'], pointer(path, 'strict'), ANTHROPIC);
  extend(tool, ANTHROPIC, liftCacheControl(tool, unknownKeys(object, CUSTOM_TOOL_KEYS)));
  if (tool.cache !== undefined) losses.anchorItem(tool.cache, `${path}/cache_control`);
  return tool;
}

/** Decode the wire `tools` array. */
export function decodeAnthropicTools(value: unknown, path: string, losses: LossCollector): Tool[] {
  return expectArray(value, path, ANTHROPIC).map((tool, index) => decodeTool(tool, pointer(path, index), losses));
}

function encodeTool(tool: Tool, path: string, losses: LossCollector): JsonObject | undefined {
  losses.foreignExtensions(tool.extensions, ANTHROPIC, path);
  if (tool.type === 'opaque') {
    if (tool.format === ANTHROPIC) return tool.value as JsonObject;
    losses.addAt(tool, 'dropped_field', path, `${tool.format} built-in tool "${tool.toolType}" has no Anthropic equivalent; dropped`);
    return undefined;
  }
  if (tool.type === 'custom') return encodeTool(customAsFunction(tool, losses, path, 'Anthropic'), path, losses);
  if (tool.type === 'web_search') return encodeWebSearch(tool, path, losses);
  const wire: JsonObject = {};
  if (hasHint(tool, '$typeCustom')) wire['type'] = 'custom';
  else if (hasHint(tool, '$typeNull')) wire['type'] = null;
  wire['name'] = tool.name;
  if (tool.description !== undefined) wire['description'] = tool.description;
  wire['input_schema'] = tool.parameters ?? { type: 'object', properties: {} };
  if (tool.strict !== undefined) wire['strict'] = tool.strict;
  if (tool.cache !== undefined) wire['cache_control'] = cacheControlOf(tool.cache, path, losses);
  return spreadExtensions(wire, tool, ANTHROPIC);
}

/** Encode IR tools; tools of other vendors are dropped and reported. */
export function encodeAnthropicTools(tools: readonly Tool[], losses: LossCollector): JsonObject[] {
  const encoded: JsonObject[] = [];
  for (let index = 0; index < tools.length; index++) {
    const wire = encodeTool(tools[index] as Tool, pointer('/tools', index), losses);
    if (wire !== undefined) encoded.push(wire);
  }
  return encoded;
}

const TOOL_CHOICE_KEYS: ReadonlySet<string> = new Set(['type', 'name', 'disable_parallel_tool_use']);

/** Decode `tool_choice` into `request.toolChoice` and `request.parallelToolCalls`. */
export function decodeAnthropicToolChoice(value: unknown, path: string, request: Request): void {
  const object = expectObject(value, path, ANTHROPIC);
  const type = expectString(required(object, 'type', path, ANTHROPIC), pointer(path, 'type'), ANTHROPIC);
  let choice: ToolChoice;
  switch (type) {
    case 'auto':
      choice = { type: 'auto' };
      break;
    case 'any':
      choice = { type: 'required' };
      break;
    case 'none':
      choice = { type: 'none' };
      break;
    case 'tool':
      choice = { type: 'tool', name: expectString(required(object, 'name', path, ANTHROPIC), pointer(path, 'name'), ANTHROPIC) };
      break;
    default:
      throw new InterlinguaError('invalid_value', `tool_choice type "${type}" is not auto, any, tool or none`, { path: pointer(path, 'type'), format: ANTHROPIC });
  }
  request.toolChoice = choice;
  const disable = object['disable_parallel_tool_use'];
  if (disable !== undefined) request.parallelToolCalls = !expectBoolean(disable, pointer(path, 'disable_parallel_tool_use'), ANTHROPIC);
  const extras = unknownKeys(object, TOOL_CHOICE_KEYS);
  if (extras !== undefined) anthropicHint(request, '$toolChoiceExtras', extras);
}

function encodeChoice(choice: ToolChoice, losses: LossCollector): JsonObject {
  switch (choice.type) {
    case 'auto':
    case 'none':
      return { type: choice.type };
    case 'required':
      return { type: 'any' };
    case 'tool':
      return { type: 'tool', name: choice.name };
    case 'allowed': {
      const only = choice.names[0];
      if (choice.mode === 'required' && choice.names.length === 1 && only !== undefined) return { type: 'tool', name: only };
      losses.add('approximated', '/toolChoice', `Anthropic cannot restrict the choice to ${choice.names.join(', ')}; sent "${choice.mode === 'required' ? 'any' : 'auto'}" over all tools`);
      return { type: choice.mode === 'required' ? 'any' : 'auto' };
    }
    default:
      return unreachable(choice);
  }
}

/** Encode `toolChoice` and `parallelToolCalls` into `tool_choice`, or `undefined` when neither says anything. */
export function encodeAnthropicToolChoice(request: Request, losses: LossCollector): JsonObject | undefined {
  const parallel = request.parallelToolCalls;
  if (request.toolChoice === undefined && parallel !== false) return undefined;
  const wire = encodeChoice(request.toolChoice ?? { type: 'auto' }, losses);
  if (parallel !== undefined) {
    if (wire['type'] === 'none' && !hasHint(request, '$keepTurns')) {
      if (!parallel) losses.add('dropped_field', '/parallelToolCalls', 'tool_choice "none" takes no disable_parallel_tool_use', 'info');
    } else wire['disable_parallel_tool_use'] = !parallel;
  }
  const extras = request.extensions?.anthropic?.['$toolChoiceExtras'];
  return extras !== undefined && typeof extras === 'object' ? Object.assign(wire, extras) : wire;
}
