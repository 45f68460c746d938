/**
 * Request `tools`: `{type: "function", function: {name, description,
 * parameters}}`. Ollama has no tool choice and no parallel-call switch.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
 */
import type { LossCollector } from '../../core/losses.ts';
import type { FunctionTool, Request, Tool } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, extensionsOf, isObject, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { extras, FORMAT } from './shape.ts';
import { customAsFunction } from '../../core/custom-tools.ts';

/** Decode a function tool; the pointers of `path` are built only for an error. */
function decodeFunctionTool(tool: JsonObject, path: string): FunctionTool {
  const value = tool['function'];
  const fn = isObject(value) ? value : expectObject(value, pointer(path, 'function'), FORMAT);
  const name = fn['name'];
  const result: FunctionTool = { type: 'function', name: typeof name === 'string' ? name : expectString(name, pointer(path, 'function', 'name'), FORMAT) };
  const { description, parameters } = fn;
  if (description !== undefined) result.description = typeof description === 'string' ? description : expectString(description, pointer(path, 'function', 'description'), FORMAT);
  if (parameters !== undefined) result.parameters = isObject(parameters) ? parameters : expectObject(parameters, pointer(path, 'function', 'parameters'), FORMAT);
  const rest = extras(fn, 'name', 'description', 'parameters');
  if (rest !== undefined) extend(result, FORMAT, { function: rest });
  extend(result, FORMAT, extras(tool, 'type', 'function', 'function'));
  return result;
}

/** Decode the request `tools` array. A tool of another type is kept whole for Ollama only. */
export function decodeOllamaTools(value: unknown, path: string, losses: LossCollector): Tool[] {
  const list = Array.isArray(value) ? value : expectArray(value, path, FORMAT);
  const tools: Tool[] = [];
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    const toolPath = `${path}/${index}`;
    const tool = isObject(item) ? item : expectObject(item, toolPath, FORMAT);
    const wireType = tool['type'];
    const type = typeof wireType === 'string' ? wireType : expectString(wireType, pointer(toolPath, 'type'), FORMAT);
    if (type === 'function') {
      tools.push(decodeFunctionTool(tool, toolPath));
      continue;
    }
    losses.add('unknown_block', toolPath, `unknown tool type "${type}"; kept as is for ollama only`);
    tools.push({ type: 'opaque', format: FORMAT, toolType: type, value: tool });
  }
  return tools;
}

function encodeFunctionTool(tool: FunctionTool, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(tool.extensions, FORMAT, path);
  const fn: JsonObject = { name: tool.name };
  if (tool.description !== undefined) fn['description'] = tool.description;
  if (tool.parameters !== undefined) fn['parameters'] = tool.parameters;
  if (tool.strict !== undefined) losses.addAt(tool, 'dropped_field', pointer(path, 'strict'), 'Ollama tools have no strict switch; dropped', 'info');
  const rest = extensionsOf(tool, FORMAT)?.['function'];
  if (isObject(rest)) for (const key in rest) if (!(key in fn)) fn[key] = rest[key];
  return spreadExtensions({ type: 'function', function: fn }, tool, FORMAT);
}

/** Encode IR tools as Ollama `tools`. */
export function encodeOllamaTools(tools: readonly Tool[], losses: LossCollector): JsonObject[] {
  const out: JsonObject[] = [];
  tools.forEach((tool, index) => {
    const path = pointer('/tools', index);
    switch (tool.type) {
      case 'function':
        out.push(encodeFunctionTool(tool, losses, path));
        return;
      case 'opaque':
        if (tool.format === FORMAT && isObject(tool.value)) out.push(tool.value);
        else losses.add('unsupported_part', path, `${tool.format} tool "${tool.toolType}" has no Ollama equivalent; dropped`);
        return;
      case 'custom':
        out.push(encodeFunctionTool(customAsFunction(tool, losses, path, 'Ollama'), losses, path));
        return;
      case 'web_search':
        losses.add('unsupported_part', path, 'Ollama has no web search tool; dropped');
        return;
      default:
        unreachable(tool);
    }
  });
  return out;
}

/** Report the tool settings Ollama has no slot for. Returns false when the tools must not be sent (`none`). */
export function reportOllamaToolChoice(request: Request, losses: LossCollector): boolean {
  if (request.parallelToolCalls !== undefined) losses.add('dropped_field', '/parallelToolCalls', 'Ollama has no switch for parallel tool calls; dropped', 'info');
  const choice = request.toolChoice;
  if (choice === undefined || choice.type === 'auto') return true;
  if (choice.type === 'none') {
    losses.add('approximated', '/toolChoice', 'Ollama has no tool choice; "none" was expressed by sending no tools');
    return false;
  }
  losses.add('dropped_field', '/toolChoice', `Ollama has no tool choice; "${choice.type}" was dropped and the model chooses freely`);
  return true;
}
