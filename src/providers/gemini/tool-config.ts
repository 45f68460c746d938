/**
 * Gemini `toolConfig.functionCallingConfig` ↔ IR `toolChoice`.
 * `AUTO` → auto, `NONE` → none, `ANY` → required, `ANY` with one allowed name
 * → that tool, with several → allowed (required); `AUTO` with names →
 * allowed (auto). `VALIDATED` has no neutral twin: it is read as auto and the
 * raw mode kept for the trip back.
 * @see https://ai.google.dev/api/caching#FunctionCallingConfig
 */
import { CALLING_MODE_NAMES, readGeminiEnum } from './enums.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { Request, ToolChoice } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, extensionsOf, hint, isObject, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { knownKeys, respell, Spelling } from './spelling.ts';

const KNOWN_TOOL_CONFIG = knownKeys(['functionCallingConfig']);
const KNOWN_CALLING_CONFIG = knownKeys(['mode', 'allowedFunctionNames']);
const MODES: ReadonlySet<string> = new Set(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']);

/** Decode `toolConfig` into `request.toolChoice` (+ extensions for the rest). */
export function decodeGeminiToolConfig(value: unknown, path: string, request: Request): void {
  const config = expectObject(value, path, 'gemini');
  const spelling = new Spelling(config);
  const calling = spelling.read(config, 'functionCallingConfig');
  const rest = unknownKeys(config, KNOWN_TOOL_CONFIG);
  hint(request, 'gemini', '$toolConfig', spelling.snake ?? true);
  if (rest !== undefined) extend(request, 'gemini', { toolConfig: rest });
  if (calling === undefined) return;
  const callingPath = pointer(path, Spelling.key(config, 'functionCallingConfig'));
  const callingConfig = expectObject(calling, callingPath, 'gemini');
  const callingSpelling = new Spelling(callingConfig);
  const mode = callingSpelling.read(callingConfig, 'mode');
  const namesValue = callingSpelling.read(callingConfig, 'allowedFunctionNames');
  const names = namesValue === undefined ? undefined : expectArray(namesValue, pointer(callingPath, Spelling.key(callingConfig, 'allowedFunctionNames')), 'gemini').map(
    (name, index) => expectString(name, pointer(callingPath, Spelling.key(callingConfig, 'allowedFunctionNames'), index), 'gemini'),
  );
  let modeName: string | undefined;
  if (mode !== undefined) {
    modeName = readGeminiEnum(mode, CALLING_MODE_NAMES, pointer(callingPath, 'mode')).name;
    if (modeName === undefined || !MODES.has(modeName)) {
      throw new InterlinguaError('invalid_value', `functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED (or their numbers 1-4), got ${JSON.stringify(mode)}`, {
        path: pointer(callingPath, 'mode'),
        format: 'gemini',
      });
    }
  }
  const choice = toolChoiceOf(modeName, names);
  request.toolChoice = choice;
  if (mode !== canonicalMode(choice)) hint(request, 'gemini', '$mode', mode ?? null);
  if (names !== undefined && names.length === 0) hint(request, 'gemini', '$emptyNames', true);
  hint(request, 'gemini', '$functionCallingConfig', callingSpelling.snake ?? true);
  const callingRest = unknownKeys(callingConfig, KNOWN_CALLING_CONFIG);
  if (callingRest !== undefined) extend(request, 'gemini', { functionCallingConfig: callingRest });
}

function toolChoiceOf(mode: string | undefined, names: string[] | undefined): ToolChoice {
  const restricted = names !== undefined && names.length > 0;
  switch (mode) {
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      if (names !== undefined && names.length === 1) return { type: 'tool', name: names[0] as string };
      return restricted ? { type: 'allowed', names, mode: 'required' } : { type: 'required' };
    default:
      return restricted ? { type: 'allowed', names, mode: 'auto' } : { type: 'auto' };
  }
}

function canonicalMode(choice: ToolChoice): string {
  switch (choice.type) {
    case 'auto':
      return 'AUTO';
    case 'none':
      return 'NONE';
    case 'required':
    case 'tool':
      return 'ANY';
    case 'allowed':
      return choice.mode === 'auto' ? 'AUTO' : 'ANY';
    default:
      return unreachable(choice);
  }
}

/** Encode `request.toolChoice` (+ extensions) into `toolConfig`, or `undefined` when there is nothing to send. */
export function encodeGeminiToolConfig(request: Request, losses: LossCollector): JsonObject | undefined {
  const gemini = extensionsOf(request, 'gemini');
  const choice = request.toolChoice;
  let calling: JsonObject | undefined;
  if (choice !== undefined) {
    calling = {};
    const rawMode = gemini?.['$mode'];
    if (rawMode === undefined) calling['mode'] = canonicalMode(choice);
    else if (typeof rawMode === 'string' || typeof rawMode === 'number') calling['mode'] = rawMode;
    if (choice.type === 'tool') calling['allowedFunctionNames'] = [choice.name];
    if (choice.type === 'allowed') calling['allowedFunctionNames'] = choice.names;
    else if (gemini?.['$emptyNames'] === true) calling['allowedFunctionNames'] = [];
  }
  const callingRest = gemini?.['functionCallingConfig'];
  if (isObject(callingRest) || gemini?.['$functionCallingConfig'] !== undefined) {
    calling = Object.assign(calling ?? {}, isObject(callingRest) ? callingRest : {});
    respell(calling, gemini?.['$functionCallingConfig']);
  }
  if (request.parallelToolCalls === false) {
    losses.add('dropped_field', '/parallelToolCalls', 'Gemini has no switch to disable parallel function calls; dropped');
  }
  const rest = gemini?.['toolConfig'];
  if (calling === undefined && !isObject(rest) && gemini?.['$toolConfig'] === undefined) return undefined;
  const config: JsonObject = isObject(rest) ? { ...rest } : {};
  if (calling !== undefined) config['functionCallingConfig'] = calling;
  return respell(config, gemini?.['$toolConfig']);
}
