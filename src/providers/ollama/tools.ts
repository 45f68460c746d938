/**
 * Request `tools`: `{type: "function", function: {name, description,
 * parameters}}`. Ollama has no tool choice and no parallel-call switch.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
 */
import type { LossCollector } from '../../core/losses.ts';
import type { FunctionTool, Request, Tool } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, extensionsOf, isObject, pointer, spreadExtensions, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { FORMAT, keepUnknown, keys } from './shape.ts';

const TOOL_KNOWN = keys('type', 'function');
const FUNCTION_KNOWN = keys('name', 'description', 'parameters');

function decodeFunctionTool(tool: JsonObject, path: string): FunctionTool {
  const functionPath = pointer(path, 'function');
  const fn = expectObject(tool['function'], functionPath, FORMAT);
  const result: FunctionTool = { type: 'function', name: expectString(fn['name'], pointer(functionPath, 'name'), FORMAT) };
  const { description, parameters } = fn;
  if (description !== undefined) result.description = expectString(description, pointer(functionPath, 'description'), FORMAT);
  if (parameters !== undefined) result.parameters = expectObject(parameters, pointer(functionPath, 'parameters'), FORMAT);
  const rest = unknownKeys(fn, FUNCTION_KNOWN);
  if (rest !== undefined) extend(result, FORMAT, { function: rest });
  keepUnknown(result, tool, TOOL_KNOWN);
  return result;
}

/** Decode the request `tools` array. A tool of another type is kept whole for Ollama only. */
export function decodeOllamaTools(value: unknown, path: string, losses: LossCollector): Tool[] {
  return expectArray(value, path, FORMAT).map((item, index): Tool => {
    const toolPath = pointer(path, index);
    const tool = expectObject(item, toolPath, FORMAT);
    const type = expectString(tool['type'], pointer(toolPath, 'type'), FORMAT);
    if (type === 'function') return decodeFunctionTool(tool, toolPath);
    losses.add('unknown_block', toolPath, `unknown tool type "${type}"; kept as is for ollama only`);
    return { type: 'opaque', format: FORMAT, toolType: type, value: tool };
  });
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
