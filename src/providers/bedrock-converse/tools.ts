/**
 * Converse `toolConfig` ↔ IR tools and tool choice. `toolSpec` tools are
 * functions; Amazon Nova's web search (`systemTool` `nova_grounding`) is
 * the IR web search; other `systemTool` entries are kept whole, and a
 * `cachePoint` after a tool is its breakpoint.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html
 */
import type { FunctionTool, Request, Tool, ToolChoice, WebSearchTool } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectArray, expectBoolean, expectObject, expectString, extend, hint, isObject, pointer, required, spreadExtensions, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { attachCachePoint, cachePointBlock } from './cache-point.ts';
import { BEDROCK, hasHint, isNovaModel, stringField } from './shape.ts';
import { reportWebSearchSettings } from '../../core/web-search.ts';
import { allToolsDropped } from '../../core/tools.ts';
import { customAsFunction } from '../../core/custom-tools.ts';

const SPEC_KEYS: ReadonlySet<string> = new Set(['name', 'description', 'inputSchema', 'strict']);

/** The system tool that is Amazon Nova's web search. */
const NOVA_GROUNDING = 'nova_grounding';

function decodeTool(value: unknown, path: string): Tool {
  const wire = expectObject(value, path, BEDROCK);
  const system = wire['systemTool'];
  if (isObject(system) && system['name'] === NOVA_GROUNDING && Object.keys(system).length === 1 && Object.keys(wire).length === 1) {
    // A Converse body's own search goes back whatever model the conversion names.
    const search: WebSearchTool = { type: 'web_search' };
    hint(search, BEDROCK, '$novaGrounding', true);
    return search;
  }
  const spec = wire['toolSpec'];
  if (!isObject(spec) || Object.keys(wire).length !== 1) {
    return { type: 'opaque', format: BEDROCK, toolType: Object.keys(wire)[0] ?? 'unknown', value: wire };
  }
  const specPath = pointer(path, 'toolSpec');
  const tool: FunctionTool = { type: 'function', name: stringField(spec, 'name', specPath) };
  if (spec['description'] !== undefined) tool.description = expectString(spec['description'], pointer(specPath, 'description'), BEDROCK);
  if (spec['strict'] !== undefined) tool.strict = expectBoolean(spec['strict'], pointer(specPath, 'strict'), BEDROCK);
  const schema = spec['inputSchema'];
  if (schema !== undefined) {
    const wireSchema = expectObject(schema, pointer(specPath, 'inputSchema'), BEDROCK);
    if (isObject(wireSchema['json']) && Object.keys(wireSchema).length === 1) tool.parameters = wireSchema['json'];
    else extend(tool, BEDROCK, { inputSchema: wireSchema });
  } else hint(tool, BEDROCK, '$noSchema', true);
  extend(tool, BEDROCK, unknownKeys(spec, SPEC_KEYS));
  return tool;
}

function decodeToolChoice(value: unknown, path: string, request: Request): void {
  const wire = expectObject(value, path, BEDROCK);
  let choice: ToolChoice | undefined;
  if (isObject(wire['auto']) && Object.keys(wire).length === 1) choice = { type: 'auto' };
  else if (isObject(wire['any']) && Object.keys(wire).length === 1) choice = { type: 'required' };
  else if (isObject(wire['tool']) && Object.keys(wire).length === 1) choice = { type: 'tool', name: stringField(wire['tool'], 'name', pointer(path, 'tool')) };
  if (choice === undefined) extend(request, BEDROCK, { toolChoice: wire });
  else request.toolChoice = choice;
}

const TOOL_CONFIG_KEYS: ReadonlySet<string> = new Set(['tools', 'toolChoice']);

/** Decode `toolConfig` into `request.tools` and `request.toolChoice`. */
export function decodeBedrockToolConfig(value: unknown, request: Request, losses: LossCollector): void {
  const wire = expectObject(value, '/toolConfig', BEDROCK);
  const list = expectArray(required(wire, 'tools', '/toolConfig', BEDROCK), '/toolConfig/tools', BEDROCK);
  const tools: Tool[] = [];
  for (let index = 0; index < list.length; index++) {
    const path = pointer('/toolConfig/tools', index);
    // A cache point right after a function tool is that tool's breakpoint.
    const previous = tools[tools.length - 1];
    if (attachCachePoint(previous?.type === 'function' ? previous : undefined, list[index], path, losses)) continue;
    const tool = decodeTool(list[index], path);
    tools.push(losses.recording ? losses.origin(tool, path) : tool);
  }
  request.tools = tools;
  if (list.length === 0) hint(request, BEDROCK, '$emptyTools', true);
  if (wire['toolChoice'] !== undefined) {
    decodeToolChoice(wire['toolChoice'], '/toolConfig/toolChoice', request);
    if (request.toolChoice !== undefined) losses.originField(request, 'toolChoice', '/toolConfig/toolChoice');
  }
  const rest = unknownKeys(wire, TOOL_CONFIG_KEYS);
  if (rest !== undefined) extend(request, BEDROCK, { toolConfig: rest });
}

function encodeTool(tool: Tool, losses: LossCollector, path: string, model: string | undefined): JsonObject | undefined {
  if (tool.type === 'opaque') {
    if (tool.format === BEDROCK && isObject(tool.value)) return tool.value;
    losses.addAt(tool, 'unsupported_part', path, `${tool.format} tool "${tool.toolType}" does not exist on Bedrock; dropped`);
    return undefined;
  }
  if (tool.type === 'custom') return encodeTool(customAsFunction(tool, losses, path, 'Converse'), losses, path, model);
  if (tool.type === 'web_search') {
    // Converse searches the web only with Amazon Nova models (`nova_grounding`).
    if (!isNovaModel(model) && !hasHint(tool, '$novaGrounding')) {
      losses.addAt(tool, 'unsupported_part', path, `Converse has a web search only for Amazon Nova models (nova_grounding), and ${model === undefined ? 'the request names no model' : `"${model}" is not one`}; dropped`);
      return undefined;
    }
    losses.foreignExtensions(tool.extensions, BEDROCK, path);
    reportWebSearchSettings(tool, [], losses, path, 'Amazon Nova');
    return { systemTool: { name: NOVA_GROUNDING } };
  }
  losses.foreignExtensions(tool.extensions, BEDROCK, path);
  const spec: JsonObject = { name: tool.name };
  if (tool.description !== undefined) spec['description'] = tool.description;
  if (tool.parameters !== undefined) spec['inputSchema'] = { json: tool.parameters };
  else if (!hasHint(tool, '$noSchema') && tool.extensions?.['bedrock-converse']?.['inputSchema'] === undefined) {
    spec['inputSchema'] = { json: { type: 'object', properties: {} } };
  }
  if (tool.strict !== undefined) spec['strict'] = tool.strict;
  return { toolSpec: spreadExtensions(spec, tool, BEDROCK) };
}

function encodeToolChoice(request: Request, losses: LossCollector): JsonObject | undefined {
  const choice = request.toolChoice;
  if (choice === undefined) {
    const raw = request.extensions?.['bedrock-converse']?.['toolChoice'];
    return isObject(raw) ? raw : undefined;
  }
  switch (choice.type) {
    case 'auto':
      return { auto: {} };
    case 'required':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
    case 'none':
      losses.add('approximated', '/toolChoice', 'Converse has no "none" tool choice; the tools were sent with auto', 'warning');
      return { auto: {} };
    case 'allowed':
      losses.add('approximated', '/toolChoice', 'Converse cannot restrict the choice to some tools; sent as auto/any over all tools', 'warning');
      return choice.mode === 'required' ? { any: {} } : { auto: {} };
  }
}

/**
 * The `toolConfig` Converse needs for a conversation that holds tool calls
 * or results but offers no tools (it refuses such a request: "The toolConfig
 * field must be defined when using toolUse and toolResult content blocks"):
 * the tools the conversation's calls name, each taking any object, or
 * `undefined` when it holds no tool blocks. Reported: the model may call
 * them again.
 */
export function historyToolConfig(messages: readonly JsonObject[], losses: LossCollector): JsonObject | undefined {
  let blocks = false;
  const names = new Set<string>();
  // Indexed loops: a conversation of many blocks is walked before its loops are optimised, and an iterator there makes a result object per block.
  for (let index = 0; index < messages.length; index++) {
    const content = (messages[index] as JsonObject)['content'];
    if (!Array.isArray(content)) continue;
    for (let at = 0; at < content.length; at++) {
      const block = content[at] as JsonObject;
      const use = block['toolUse'];
      if (isObject(use)) {
        blocks = true;
        if (typeof use['name'] === 'string') names.add(use['name']);
      } else if (block['toolResult'] !== undefined) blocks = true;
    }
  }
  if (!blocks) return undefined;
  // Results alone (their calls cut from the history) name no tool: one stands in so the list is not empty.
  if (names.size === 0) names.add('tool');
  const list = [...names];
  losses.add(
    'approximated',
    '/tools',
    `Converse refuses tool calls and results in a conversation that offers no tools; declared the ${list.length} tool${list.length === 1 ? '' : 's'} its calls name (${list.join(', ')}), each taking any object, which the model may call again`,
  );
  return { tools: list.map((name) => ({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } })) };
}

/** Encode `request.tools` and `request.toolChoice` as `toolConfig`, or `undefined` when there are no tools. */
export function encodeBedrockToolConfig(request: Request, losses: LossCollector, model: string | undefined): JsonObject | undefined {
  const rest = request.extensions?.['bedrock-converse']?.['toolConfig'];
  if (request.tools === undefined) {
    if (request.toolChoice !== undefined && request.toolChoice.type !== 'none') {
      losses.add('dropped_field', '/toolChoice', 'Converse has a tool choice only together with tools; dropped');
    }
    return undefined;
  }
  const tools: JsonObject[] = [];
  let sent = 0;
  request.tools.forEach((tool, index) => {
    const encoded = encodeTool(tool, losses, `/tools/${index}`, model);
    if (encoded === undefined) return;
    tools.push(encoded);
    sent++;
    if (tool.type === 'function' && tool.cache !== undefined) tools.push(cachePointBlock(tool.cache, `/tools/${index}`, losses));
  });
  // Converse takes at least one tool: none sent is no toolConfig (a Converse body's own empty list goes back).
  if (allToolsDropped(request, sent, losses, 'Converse') || (sent === 0 && !hasHint(request, '$emptyTools'))) return undefined;
  const config: JsonObject = { ...(isObject(rest) ? rest : {}), tools };
  const choice = encodeToolChoice(request, losses);
  if (choice !== undefined) config['toolChoice'] = choice;
  if (request.parallelToolCalls !== undefined) losses.add('dropped_field', '/parallelToolCalls', 'Converse has no parallel-tool-calls switch; dropped', 'info');
  return config;
}
