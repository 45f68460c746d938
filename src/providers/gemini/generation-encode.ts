/**
 * IR `generation`, `reasoning` and `output` → Gemini `generationConfig`.
 * @see https://ai.google.dev/api/generate-content#generationconfig
 */
import type { LossCollector } from '../../core/losses.ts';
import type { ReasoningConfig, Request } from '../../core/ir.ts';
import { extensionsOf, isObject, type JsonObject } from '../../core/wire.ts';
import { respell } from './spelling.ts';
import { jsonEqual } from './json.ts';
import { canonicalMimeType } from './generation.ts';
import { geminiSchemaToJsonSchema, jsonSchemaToGeminiSchema } from './schema.ts';
import { stopsWithin } from '../../core/request-settings.ts';
import { FORMAT_BOUNDS } from '../../core/bounds.ts';

/** `thinkingLevel` values (`XHIGH` since @google/genai 3.x), lower-cased as the IR spells efforts. */
const LEVELS: ReadonlySet<string> = new Set(['minimal', 'low', 'medium', 'high', 'xhigh']);

function isEmpty(object: JsonObject): boolean {
  for (const _ in object) return false;
  return true;
}

/** The most stop sequences Gemini takes. */
const GEMINI_MAX_STOPS = FORMAT_BOUNDS['gemini'].stopCount ?? Infinity;

/** Encode the generation settings of `request`, or `undefined` when there are none. */
export function encodeGeminiGenerationConfig(request: Request, losses: LossCollector): JsonObject | undefined {
  const gemini = extensionsOf(request, 'gemini');
  const rest = gemini?.['generationConfig'];
  const config: JsonObject = isObject(rest) ? { ...rest } : {};
  const generation = request.generation;
  // The fields of NUMBER_FIELDS written out: a table loop costs more than the few fields a request sets.
  if (generation !== undefined) {
    if (generation.maxTokens !== undefined) config['maxOutputTokens'] = generation.maxTokens;
    if (generation.temperature !== undefined) config['temperature'] = generation.temperature;
    if (generation.topP !== undefined) config['topP'] = generation.topP;
    if (generation.topK !== undefined) config['topK'] = generation.topK;
    if (generation.candidateCount !== undefined) config['candidateCount'] = generation.candidateCount;
    if (generation.seed !== undefined) config['seed'] = generation.seed;
    if (generation.presencePenalty !== undefined) config['presencePenalty'] = generation.presencePenalty;
    if (generation.frequencyPenalty !== undefined) config['frequencyPenalty'] = generation.frequencyPenalty;
    if (generation.topLogprobs !== undefined) config['logprobs'] = generation.topLogprobs;
    if (generation.stop !== undefined) {
      const stop = stopsWithin(generation.stop, GEMINI_MAX_STOPS, losses, 'Gemini');
      if (stop !== undefined) config['stopSequences'] = stop;
      else if (gemini !== undefined) config['stopSequences'] = generation.stop;
    }
    if (generation.logprobs !== undefined) config['responseLogprobs'] = generation.logprobs;
  }
  if (request.outputModalities !== undefined) config['responseModalities'] = request.outputModalities.map((modality) => modality.toUpperCase());
  if (gemini !== undefined || request.output !== undefined) encodeOutput(request, gemini, config, losses);
  if (gemini !== undefined || request.reasoning !== undefined) {
    const thinking = encodeThinking(request, gemini, losses);
    if (thinking !== undefined) config['thinkingConfig'] = thinking;
  }
  if (gemini === undefined) return isEmpty(config) ? undefined : config;
  if (isEmpty(config) && gemini['$generationConfig'] === undefined) return undefined;
  return respell(config, gemini['$generationConfig']);
}

function encodeOutput(request: Request, gemini: JsonObject | undefined, config: JsonObject, losses: LossCollector): void {
  const output = request.output;
  const rawMimeType = gemini?.['$responseMimeType'];
  const mimeType = rawMimeType === undefined ? canonicalMimeType(output) : rawMimeType;
  if (typeof mimeType === 'string') config['responseMimeType'] = mimeType;
  const extraSchema = gemini?.['responseSchema'];
  if (extraSchema !== undefined) config['responseSchema'] = extraSchema;
  if (output?.type !== 'json_schema') return;
  const original = gemini?.['$responseSchema'];
  if (isObject(original)) {
    config['responseSchema'] = jsonEqual(geminiSchemaToJsonSchema(original), output.schema)
      ? original
      : jsonSchemaToGeminiSchema(output.schema, losses, '/output/schema');
  } else {
    const key = gemini?.['$responseJsonSchemaKey'] === '_responseJsonSchema' ? '_responseJsonSchema' : 'responseJsonSchema';
    config[key] = output.schema;
  }
  if (output.name !== undefined) losses.add('dropped_field', '/output/name', 'Gemini structured output has no schema name; dropped', 'info');
  if (output.description !== undefined) {
    losses.add('dropped_field', '/output/description', 'Gemini structured output has no schema description; dropped', 'info');
  }
  if (output.strict !== undefined) losses.add('dropped_field', '/output/strict', 'Gemini structured output has no strict flag; dropped', 'info');
}

function encodeThinking(request: Request, gemini: JsonObject | undefined, losses: LossCollector): JsonObject | undefined {
  const reasoning = request.reasoning;
  const rest = gemini?.['thinkingConfig'];
  const native = gemini?.['$thinkingConfig'] !== undefined;
  if (reasoning === undefined && !isObject(rest) && !native) return undefined;
  const config: JsonObject = isObject(rest) ? { ...rest } : {};
  if (reasoning !== undefined) {
    if (native) encodeNativeThinking(reasoning, config, gemini);
    else encodeForeignThinking(reasoning, config, losses);
    if (reasoning.includeThoughts !== undefined) config['includeThoughts'] = reasoning.includeThoughts;
    if (reasoning.summary !== undefined) {
      losses.add('dropped_field', '/reasoning/summary', 'Gemini has no reasoning summary style; dropped', 'info');
    }
  }
  if (isEmpty(config) && !native) return undefined;
  return respell(config, gemini?.['$thinkingConfig']);
}

function encodeNativeThinking(reasoning: ReasoningConfig, config: JsonObject, gemini: JsonObject | undefined): void {
  if (reasoning.budgetTokens !== undefined) config['thinkingBudget'] = reasoning.budgetTokens;
  else if (reasoning.mode === 'disabled') config['thinkingBudget'] = 0;
  else if (reasoning.mode === 'adaptive') config['thinkingBudget'] = gemini?.['$thinkingBudget'] ?? -1;
  if (reasoning.effort !== undefined) {
    const raw = gemini?.['$thinkingLevel'];
    config['thinkingLevel'] = typeof raw === 'string' && raw.toLowerCase() === reasoning.effort ? raw : reasoning.effort.toUpperCase();
  }
}

function encodeForeignThinking(reasoning: ReasoningConfig, config: JsonObject, losses: LossCollector): void {
  if (reasoning.mode === 'disabled' || reasoning.effort === 'none') {
    config['thinkingBudget'] = 0;
    return;
  }
  if (reasoning.budgetTokens !== undefined) {
    config['thinkingBudget'] = reasoning.budgetTokens;
    if (reasoning.effort !== undefined) {
      losses.add('dropped_field', '/reasoning/effort', 'Gemini takes a thinking budget or a thinking level, not both; the effort was dropped');
    }
    return;
  }
  if (reasoning.effort !== undefined) {
    if (LEVELS.has(reasoning.effort)) config['thinkingLevel'] = reasoning.effort.toUpperCase();
    else {
      // `max` (Anthropic, OpenAI) is above Gemini's highest level; anything else unknown is sent as the usual high level.
      const level = reasoning.effort === 'max' ? 'XHIGH' : 'HIGH';
      config['thinkingLevel'] = level;
      losses.add('approximated', '/reasoning/effort', `Gemini has no thinking level "${reasoning.effort}"; sent as ${level}`);
    }
    return;
  }
  if (reasoning.mode === 'adaptive') config['thinkingBudget'] = -1;
}
