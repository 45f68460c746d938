/**
 * Gemini `tools` ↔ IR tools. Each `functionDeclarations` entry becomes one
 * IR function tool per declaration; a bare `googleSearch` the IR web search;
 * every other tool (`codeExecution`, `urlContext`, a `googleSearch` with a
 * time range, …) is kept whole as an opaque tool.
 * @see https://ai.google.dev/api/caching#Tool
 */
import type { LossCollector } from '../../core/losses.ts';
import type { FunctionTool, Tool, WebSearchTool } from '../../core/ir.ts';
import { reportWebSearchSettings } from '../../core/web-search.ts';
import { expectArray, expectObject, expectString, extend, extensionsOf, hint, isObject, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { knownKeys, respell, Spelling } from './spelling.ts';
import { missing } from './json.ts';
import { geminiSchemaToJsonSchema, jsonSchemaToGeminiSchema } from './schema.ts';
import { jsonEqual } from './json.ts';
import { customAsFunction } from '../../core/custom-tools.ts';

const KNOWN_DECLARATION = knownKeys(['name', 'description', 'parameters', 'parametersJsonSchema']);

/** A bare `googleSearch` entry (`{googleSearch: {}}`, or `google_search`) as the IR web search; `undefined` for any other entry. */
function decodeGoogleSearch(entry: JsonObject): WebSearchTool | undefined {
  const keys = Object.keys(entry);
  const key = keys[0];
  if (keys.length !== 1 || (key !== 'googleSearch' && key !== 'google_search')) return undefined;
  const search = entry[key];
  if (!isObject(search) || Object.keys(search).length !== 0) return undefined;
  const tool: WebSearchTool = { type: 'web_search' };
  if (key === 'google_search') hint(tool, 'gemini', '$snakeSearch', true);
  return tool;
}

/** Decode `tools` into IR tools. */
export function decodeGeminiTools(value: unknown, path: string, losses: LossCollector): Tool[] {
  // One tool object instead of a list: the Gemini API answers 200 to it (recorded traffic, issue 39), so it
  // is read as a list of one, and the request's `$toolsObject` hint writes it back as it came.
  const single = isObject(value);
  const entries = single ? [value] : expectArray(value, path, 'gemini');
  const tools: Tool[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entryPath = single ? path : `${path}/${index}`;
    const entry = expectObject(entries[index], entryPath, 'gemini');
    const spelling = new Spelling(entry);
    const declarations = spelling.read(entry, 'functionDeclarations');
    const list = declarations === undefined ? [] : expectArray(declarations, pointer(entryPath, Spelling.key(entry, 'functionDeclarations')), 'gemini');
    if (list.length === 0) {
      const search = decodeGoogleSearch(entry);
      tools.push(losses.origin(search ?? { type: 'opaque', format: 'gemini', toolType: Object.keys(entry)[0] ?? 'empty', value: entry }, entryPath));
      continue;
    }
    const listPath = pointer(entryPath, Spelling.key(entry, 'functionDeclarations'));
    for (let declaration = 0; declaration < list.length; declaration++) {
      const declarationPath = `${listPath}/${declaration}`;
      const tool = losses.origin(decodeDeclaration(list[declaration], declarationPath), declarationPath);
      hint(tool, 'gemini', '$entry', index);
      if (declaration === 0) {
        const rest = unknownKeys(entry, FUNCTION_ENTRY);
        if (rest !== undefined) extend(tool, 'gemini', { toolEntry: rest });
        if (spelling.snake !== undefined) hint(tool, 'gemini', '$snakeEntry', spelling.snake);
      }
      tools.push(tool);
    }
  }
  return tools;
}

const FUNCTION_ENTRY = knownKeys(['functionDeclarations']);

function decodeDeclaration(value: unknown, path: string): FunctionTool {
  const declaration = expectObject(value, path, 'gemini');
  const name = declaration['name'];
  if (name === undefined) throw missing(pointer(path, 'name'), 'name');
  const tool: FunctionTool = { type: 'function', name: typeof name === 'string' ? name : expectString(name, pointer(path, 'name'), 'gemini') };
  const spelling = new Spelling(declaration);
  const description = spelling.read(declaration, 'description');
  if (description === null) hint(tool, 'gemini', '$description', null);
  else if (description !== undefined) tool.description = expectString(description, pointer(path, 'description'), 'gemini');
  const jsonSchema = spelling.read(declaration, 'parametersJsonSchema');
  const schema = spelling.read(declaration, 'parameters');
  if (jsonSchema !== undefined) {
    tool.parameters = expectObject(jsonSchema, pointer(path, Spelling.key(declaration, 'parametersJsonSchema')), 'gemini');
    if (schema !== undefined) extend(tool, 'gemini', { parameters: schema });
  } else if (schema !== undefined) {
    const original = expectObject(schema, pointer(path, 'parameters'), 'gemini');
    tool.parameters = geminiSchemaToJsonSchema(original);
    hint(tool, 'gemini', '$parameters', original);
  }
  extend(tool, 'gemini', unknownKeys(declaration, KNOWN_DECLARATION));
  if (spelling.snake !== undefined) hint(tool, 'gemini', '$snake', spelling.snake);
  return tool;
}

/** Encode IR tools into Gemini `tools` entries; consecutive function tools share one entry. */
export function encodeGeminiTools(tools: readonly Tool[], losses: LossCollector): JsonObject[] {
  const entries: JsonObject[] = [];
  let current: JsonObject[] | undefined;
  let currentEntry: unknown;
  for (let index = 0; index < tools.length; index++) {
    const path = pointer('/tools', index);
    const given = tools[index] as Tool;
    losses.foreignExtensions(given.extensions, 'gemini', path);
    // A custom tool goes as the function that stands for it, in the entry of the functions around it.
    const tool = given.type === 'custom' ? customAsFunction(given, losses, path, 'Gemini') : given;
    if (tool.type === 'opaque') {
      current = undefined;
      if (tool.format === 'gemini') entries.push(tool.value as JsonObject);
      else losses.add('dropped_field', path, `${tool.format} tool "${tool.toolType}" has no Gemini equivalent; dropped`);
      continue;
    }
    if (tool.type === 'web_search') {
      current = undefined;
      reportWebSearchSettings(tool, [], losses, path, 'Gemini');
      entries.push(extensionsOf(tool, 'gemini')?.['$snakeSearch'] === true ? { google_search: {} } : { googleSearch: {} });
      continue;
    }
    const gemini = extensionsOf(tool, 'gemini');
    const entryIndex = gemini?.['$entry'];
    if (current === undefined || entryIndex !== currentEntry) {
      current = [];
      currentEntry = entryIndex;
      const entry: JsonObject = { functionDeclarations: current };
      const rest = gemini?.['toolEntry'];
      if (isObject(rest)) Object.assign(entry, rest);
      entries.push(respell(entry, gemini?.['$snakeEntry']));
    }
    current.push(encodeDeclaration(tool, path, losses));
  }
  return entries;
}

function encodeDeclaration(tool: FunctionTool, path: string, losses: LossCollector): JsonObject {
  const declaration: JsonObject = { name: tool.name };
  const gemini = extensionsOf(tool, 'gemini');
  if (tool.description !== undefined) declaration['description'] = tool.description;
  else if (gemini?.['$description'] === null) declaration['description'] = null;
  const original = gemini?.['$parameters'];
  if (tool.parameters !== undefined) {
    if (isObject(original)) {
      declaration['parameters'] = jsonEqual(geminiSchemaToJsonSchema(original), tool.parameters)
        ? original
        : jsonSchemaToGeminiSchema(tool.parameters, losses, pointer(path, 'parameters'));
    } else {
      declaration['parametersJsonSchema'] = tool.parameters;
    }
  }
  if (tool.strict !== undefined) {
    losses.addAt(tool, 'dropped_field', path, 'Gemini function declarations have no "strict" flag (use toolConfig mode VALIDATED); dropped', 'info');
  }
  for (const key in gemini) {
    if (key.charCodeAt(0) === 36 || key === 'toolEntry' || key in declaration) continue;
    declaration[key] = gemini[key];
  }
  return respell(declaration, gemini?.['$snake']);
}
