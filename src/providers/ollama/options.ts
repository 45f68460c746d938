/**
 * `options` (model parameters) ↔ IR generation settings: `num_predict`,
 * `temperature`, `top_p`, `top_k`, `stop`, `seed`, `presence_penalty`,
 * `frequency_penalty`. The rest (`num_ctx`, `repeat_penalty`, `min_p`, …)
 * has no neutral slot and travels as the extension `options`. A negative
 * `num_predict` (-1 unlimited, -2 fill the context) is not a token limit and
 * stays there too.
 * @see https://github.com/ollama/ollama/blob/main/docs/modelfile.md#valid-parameters-and-values
 */
import type { Options } from 'ollama';
import type { LossCollector } from '../../core/losses.ts';
import type { Generation, Request } from '../../core/ir.ts';
import { expectNumber, expectObject, extend, extensionsOf, isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { FORMAT, ollamaHint } from './shape.ts';

/** Numeric options and their `generation` slots. */
const NUMBERS = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['top_k', 'topK'],
  ['seed', 'seed'],
  ['presence_penalty', 'presencePenalty'],
  ['frequency_penalty', 'frequencyPenalty'],
] as const satisfies readonly (readonly [keyof Options, keyof Generation])[];

type NumberSlot = (typeof NUMBERS)[number][1];

/** The IR slot of a NUMBERS option key (a switch: cheaper than a set lookup and a search per key). */
function numberSlot(key: string): NumberSlot | undefined {
  switch (key) {
    case 'temperature':
      return 'temperature';
    case 'top_p':
      return 'topP';
    case 'top_k':
      return 'topK';
    case 'seed':
      return 'seed';
    case 'presence_penalty':
      return 'presencePenalty';
    case 'frequency_penalty':
      return 'frequencyPenalty';
    default:
      return undefined;
  }
}

/** True when every item of `list` is a string. */
function allStrings(list: readonly unknown[]): boolean {
  for (let index = 0; index < list.length; index++) if (typeof list[index] !== 'string') return false;
  return true;
}

/** Decode `options` into `request.generation`; the rest stays as the `options` extension. */
export function decodeOllamaOptions(value: unknown, path: string, request: Request): void {
  const options = expectObject(value, path, FORMAT);
  const generation: Generation = request.generation ?? {};
  let rest: JsonObject | undefined;
  let read = 0;
  for (const key in options) {
    const item = options[key];
    const slot = typeof item === 'number' ? numberSlot(key) : undefined;
    if (slot !== undefined) {
      generation[slot] = Number.isFinite(item) ? (item as number) : expectNumber(item, pointer(path, key), FORMAT);
      read++;
    } else if (key === 'num_predict' && typeof item === 'number' && item >= 0) {
      generation.maxTokens = item;
      read++;
    } else if (key === 'stop' && Array.isArray(item) && allStrings(item)) {
      generation.stop = item.slice();
      read++;
    } else {
      (rest ??= {})[key] = item;
    }
  }
  if (read > 0) request.generation = generation;
  if (rest !== undefined) extend(request, FORMAT, { options: rest });
  else if (read === 0) ollamaHint(request, '$options', true);
}

/** Encode the generation settings as `options` (undefined when there is nothing to send). */
export function encodeOllamaOptions(request: Request, losses: LossCollector): JsonObject | undefined {
  const options: JsonObject = {};
  const generation = request.generation;
  if (generation !== undefined) {
    if (generation.maxTokens !== undefined) options['num_predict'] = generation.maxTokens;
    // The NUMBERS in their order, by name (a keyed read per entry costs more than the checks).
    if (generation.temperature !== undefined) options['temperature'] = generation.temperature;
    if (generation.topP !== undefined) options['top_p'] = generation.topP;
    if (generation.topK !== undefined) options['top_k'] = generation.topK;
    if (generation.seed !== undefined) options['seed'] = generation.seed;
    if (generation.presencePenalty !== undefined) options['presence_penalty'] = generation.presencePenalty;
    if (generation.frequencyPenalty !== undefined) options['frequency_penalty'] = generation.frequencyPenalty;
    if (generation.stop !== undefined) options['stop'] = generation.stop;
    if (generation.candidateCount !== undefined && generation.candidateCount !== 1) {
      losses.add('dropped_field', '/generation/candidateCount', 'Ollama generates one answer; candidate count dropped');
    }
  }
  const rest = extensionsOf(request, FORMAT)?.['options'];
  if (isObject(rest)) for (const key in rest) if (!(key in options)) options[key] = rest[key];
  for (const _key in options) return options;
  return extensionsOf(request, FORMAT)?.['$options'] === true ? options : undefined;
}
