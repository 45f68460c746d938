/**
 * Gemini `generationConfig` → IR `generation`, `reasoning` and `output`.
 * `responseModalities` → `outputModalities`. Fields without a neutral slot (`speechConfig`,
 * `mediaResolution`, `imageConfig`, …) travel in `extensions.gemini.generationConfig`.
 * @see https://ai.google.dev/api/generate-content#generationconfig
 */
import type { Generation, OutputFormat, OutputModality, ReasoningConfig, Request } from '../../core/ir.ts';
import { expectArray, expectBoolean, expectNumber, expectObject, expectString, extend, hint, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { knownKeys, Spelling } from './spelling.ts';
import { geminiSchemaToJsonSchema } from './schema.ts';
import { canonicalMimeType, NUMBER_FIELDS } from './generation.ts';

/** The keys of `generationConfig` this file does not read (the wire keys of `NUMBER_FIELDS` and the rest), in either spelling, or `undefined` (a switch: cheaper than a set lookup per key). */
function generationExtras(config: JsonObject, modalitiesRead: boolean): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in config) {
    switch (key) {
      case 'responseModalities':
      case 'response_modalities':
        if (modalitiesRead) continue;
        break;
      case 'maxOutputTokens':
      case 'max_output_tokens':
      case 'temperature':
      case 'topP':
      case 'top_p':
      case 'topK':
      case 'top_k':
      case 'candidateCount':
      case 'candidate_count':
      case 'seed':
      case 'presencePenalty':
      case 'presence_penalty':
      case 'frequencyPenalty':
      case 'frequency_penalty':
      case 'logprobs':
      case 'stopSequences':
      case 'stop_sequences':
      case 'responseLogprobs':
      case 'response_logprobs':
      case 'responseMimeType':
      case 'response_mime_type':
      case 'responseSchema':
      case 'response_schema':
      case 'responseJsonSchema':
      case 'response_json_schema':
      case '_responseJsonSchema':
      case '_response_json_schema':
      case 'thinkingConfig':
      case 'thinking_config':
        continue;
    }
    (rest ??= {})[key] = config[key];
  }
  return rest;
}

/** Gemini's `Modality` names the IR has (`MODALITY_UNSPECIFIED` has no meaning to carry). */
const MODALITIES: Readonly<Record<string, OutputModality>> = { TEXT: 'text', AUDIO: 'audio', IMAGE: 'image' };

/** `responseModalities` into `request.outputModalities` when every entry is one the IR has; false (it stays Gemini's) otherwise. */
function decodeModalities(value: unknown, request: Request): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  const modalities: OutputModality[] = [];
  for (const entry of value) {
    const modality = typeof entry === 'string' && Object.hasOwn(MODALITIES, entry) ? MODALITIES[entry] : undefined;
    if (modality === undefined || modalities.includes(modality)) return false;
    modalities.push(modality);
  }
  request.outputModalities = modalities;
  return true;
}

const KNOWN_THINKING = knownKeys(['thinkingBudget', 'thinkingLevel', 'includeThoughts']);

/** True when every key of `config` is a camelCase number field (the usual `{maxOutputTokens, temperature}`; a switch over the wire keys of `NUMBER_FIELDS`). */
function numbersOnly(config: JsonObject): boolean {
  for (const key in config) {
    switch (key) {
      case 'maxOutputTokens':
      case 'temperature':
      case 'topP':
      case 'topK':
      case 'candidateCount':
      case 'seed':
      case 'presencePenalty':
      case 'frequencyPenalty':
      case 'logprobs':
        continue;
      default:
        return false;
    }
  }
  return true;
}

/** `value`, read from `key`, as a finite number; `undefined` when absent. */
function numberField(value: unknown, path: string, key: string): number | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value))) return value;
  return expectNumber(value, pointer(path, key), 'gemini');
}

/** Decode `generationConfig` into `request`. */
export function decodeGeminiGenerationConfig(value: unknown, path: string, request: Request, lean = false): void {
  const config = expectObject(value, path, 'gemini');
  if (numbersOnly(config)) {
    // What the general path below does for such a config, without looking up every other field in both spellings;
    // the fields of NUMBER_FIELDS written out, in its order (a table loop reads and writes by computed key, which costs more).
    const maxTokens = numberField(config['maxOutputTokens'], path, 'maxOutputTokens');
    const temperature = numberField(config['temperature'], path, 'temperature');
    const topP = numberField(config['topP'], path, 'topP');
    const topK = numberField(config['topK'], path, 'topK');
    const candidateCount = numberField(config['candidateCount'], path, 'candidateCount');
    const seed = numberField(config['seed'], path, 'seed');
    const presencePenalty = numberField(config['presencePenalty'], path, 'presencePenalty');
    const frequencyPenalty = numberField(config['frequencyPenalty'], path, 'frequencyPenalty');
    const topLogprobs = numberField(config['logprobs'], path, 'logprobs');
    let generation: Generation | undefined;
    if (maxTokens !== undefined) (generation ??= {}).maxTokens = maxTokens;
    if (temperature !== undefined) (generation ??= {}).temperature = temperature;
    if (topP !== undefined) (generation ??= {}).topP = topP;
    if (topK !== undefined) (generation ??= {}).topK = topK;
    if (candidateCount !== undefined) (generation ??= {}).candidateCount = candidateCount;
    if (seed !== undefined) (generation ??= {}).seed = seed;
    if (presencePenalty !== undefined) (generation ??= {}).presencePenalty = presencePenalty;
    if (frequencyPenalty !== undefined) (generation ??= {}).frequencyPenalty = frequencyPenalty;
    if (topLogprobs !== undefined) (generation ??= {}).topLogprobs = topLogprobs;
    if (generation !== undefined) request.generation = generation;
    if (!lean) hint(request, 'gemini', '$generationConfig', true);
    return;
  }
  const spelling = new Spelling(config);
  const generation: Generation = {};
  let any = false;
  for (let field = 0; field < NUMBER_FIELDS.length; field++) {
    const [wire, neutral] = NUMBER_FIELDS[field] as (typeof NUMBER_FIELDS)[number];
    const number = spelling.read(config, wire);
    if (number === undefined) continue;
    generation[neutral] = typeof number === 'number' && Number.isFinite(number) ? number : expectNumber(number, pointer(path, Spelling.key(config, wire)), 'gemini');
    any = true;
  }
  const stop = spelling.read(config, 'stopSequences');
  if (stop !== undefined) {
    const stopKey = Spelling.key(config, 'stopSequences');
    generation.stop = expectArray(stop, pointer(path, stopKey), 'gemini').map((item, index) =>
      expectString(item, pointer(path, stopKey, index), 'gemini'),
    );
    any = true;
  }
  const logprobs = spelling.read(config, 'responseLogprobs');
  if (logprobs !== undefined) {
    generation.logprobs = expectBoolean(logprobs, pointer(path, Spelling.key(config, 'responseLogprobs')), 'gemini');
    any = true;
  }
  if (any) request.generation = generation;
  decodeOutput(config, path, spelling, request);
  const thinking = spelling.read(config, 'thinkingConfig');
  if (thinking !== undefined) decodeThinking(thinking, pointer(path, Spelling.key(config, 'thinkingConfig')), request);
  const rest = generationExtras(config, decodeModalities(spelling.read(config, 'responseModalities'), request));
  if (rest !== undefined) extend(request, 'gemini', { generationConfig: rest });
  if (!lean) hint(request, 'gemini', '$generationConfig', spelling.snake ?? true);
}

function decodeOutput(config: JsonObject, path: string, spelling: Spelling, request: Request): void {
  const mimeType = spelling.read(config, 'responseMimeType');
  if (mimeType !== undefined) expectString(mimeType, pointer(path, Spelling.key(config, 'responseMimeType')), 'gemini');
  let jsonSchema = spelling.read(config, 'responseJsonSchema');
  if (jsonSchema === undefined && config['_responseJsonSchema'] !== undefined) {
    jsonSchema = config['_responseJsonSchema'];
    hint(request, 'gemini', '$responseJsonSchemaKey', '_responseJsonSchema');
  }
  const schema = spelling.read(config, 'responseSchema');
  let output: OutputFormat | undefined;
  if (jsonSchema !== undefined) {
    output = { type: 'json_schema', schema: expectObject(jsonSchema, pointer(path, config['_responseJsonSchema'] === jsonSchema ? '_responseJsonSchema' : Spelling.key(config, 'responseJsonSchema')), 'gemini') };
    if (schema !== undefined) extend(request, 'gemini', { responseSchema: schema });
  } else if (schema !== undefined) {
    const original = expectObject(schema, pointer(path, Spelling.key(config, 'responseSchema')), 'gemini');
    output = { type: 'json_schema', schema: geminiSchemaToJsonSchema(original) };
    hint(request, 'gemini', '$responseSchema', original);
  } else if (mimeType === 'application/json') {
    output = { type: 'json' };
  } else if (mimeType === 'text/plain') {
    output = { type: 'text' };
  }
  if (output !== undefined) request.output = output;
  if (mimeType !== canonicalMimeType(output)) hint(request, 'gemini', '$responseMimeType', mimeType ?? null);
}

function decodeThinking(value: unknown, path: string, request: Request): void {
  const config = expectObject(value, path, 'gemini');
  const spelling = new Spelling(config);
  const reasoning: ReasoningConfig = {};
  const budget = spelling.read(config, 'thinkingBudget');
  if (budget !== undefined) {
    const tokens = expectNumber(budget, pointer(path, Spelling.key(config, 'thinkingBudget')), 'gemini');
    if (tokens === 0) reasoning.mode = 'disabled';
    else if (tokens < 0) reasoning.mode = 'adaptive';
    else {
      reasoning.mode = 'enabled';
      reasoning.budgetTokens = tokens;
    }
    if (tokens < 0 && tokens !== -1) hint(request, 'gemini', '$thinkingBudget', tokens);
  }
  const level = spelling.read(config, 'thinkingLevel');
  if (level !== undefined) {
    const raw = expectString(level, pointer(path, Spelling.key(config, 'thinkingLevel')), 'gemini');
    reasoning.effort = raw.toLowerCase();
    if (raw !== raw.toUpperCase()) hint(request, 'gemini', '$thinkingLevel', raw);
  }
  const include = spelling.read(config, 'includeThoughts');
  if (include !== undefined) reasoning.includeThoughts = expectBoolean(include, pointer(path, Spelling.key(config, 'includeThoughts')), 'gemini');
  request.reasoning = reasoning;
  const rest = unknownKeys(config, KNOWN_THINKING);
  if (rest !== undefined) extend(request, 'gemini', { thinkingConfig: rest });
  hint(request, 'gemini', '$thinkingConfig', spelling.snake ?? true);
}
