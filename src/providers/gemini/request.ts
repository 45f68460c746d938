/**
 * Gemini `generateContent` request body ↔ IR request. The body is
 * proto3-JSON: lowerCamelCase is emitted, snake_case is accepted (and spelled
 * back when the source used it). The model is in the URL (`context.model`);
 * a top-level `model` key, as some recorders write, is read and kept.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
import type { CodecContext } from '../../core/codec.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { Request } from '../../core/ir.ts';
import { expectObject, expectString, extend, extensionsOf, hint, isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { mapValue, valueTable } from '../../core/mapped-values.ts';
import { respell, snakeCase, Spelling } from './spelling.ts';
import { decodeGeminiContents, decodeGeminiSystemInstruction } from './contents-decode.ts';
import { encodeGeminiContents } from './contents-encode.ts';
import { decodeGeminiTools, encodeGeminiTools } from './tools.ts';
import { decodeGeminiToolConfig, encodeGeminiToolConfig } from './tool-config.ts';
import { decodeGeminiGenerationConfig } from './generation-decode.ts';
import { NUMBER_FIELDS } from './generation.ts';
import { encodeGeminiGenerationConfig } from './generation-encode.ts';
import { dropRequestCacheBreakpoints } from '../../core/cache-points.ts';
import { noConversation, reportUncarriedSettings } from '../../core/request-settings.ts';
import { allToolsDropped } from '../../core/tools.ts';
import { fitRequestBounds } from '../../core/bounds.ts';

/** The keys of a request body this file does not read, in either spelling, or `undefined` (a switch: cheaper than a set lookup per key). */
function requestExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'model':
      case 'contents':
      case 'systemInstruction':
      case 'system_instruction':
      case 'tools':
      case 'toolConfig':
      case 'tool_config':
      case 'generationConfig':
      case 'generation_config':
      case 'labels':
      case 'serviceTier':
      case 'service_tier':
        continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** Both spellings of a wire key, for loss paths. */
function spellings(key: string): readonly string[] {
  return [key, snakeCase(key)];
}

/** Where IR request fields come from on the wire, for loss paths. */
const REQUEST_ORIGINS = {
  generation: spellings('generationConfig'),
  reasoning: spellings('generationConfig'),
  output: spellings('generationConfig'),
  toolChoice: spellings('toolConfig'),
  parallelToolCalls: spellings('toolConfig'),
  serviceTier: spellings('serviceTier'),
  metadata: 'labels',
  model: 'model',
};
const GENERATION_ORIGINS = {
  ...Object.fromEntries(NUMBER_FIELDS.map(([wire, neutral]) => [neutral, spellings(wire)])),
  stop: spellings('stopSequences'),
  logprobs: spellings('responseLogprobs'),
};

/** The pointer of the top-level field `camel` of `object` (`camelPointer` when it is spelled camelCase; made only for the snake_case spelling). */
function topPointer(object: JsonObject, camel: string, camelPointer: string): string {
  return object[camel] !== undefined ? camelPointer : `/${Spelling.key(object, camel)}`;
}

/** Decode a Gemini request body into the IR. */
export function decodeGeminiRequest(body: unknown, context: CodecContext): Request {
  const object = expectObject(body, '', 'gemini');
  const spelling = new Spelling(object);
  const request: Request = { messages: [] };
  const model = object['model'];
  if (model !== undefined) {
    request.model = expectString(model, '/model', 'gemini');
    hint(request, 'gemini', '$model', true);
  } else if (context.model !== undefined) {
    request.model = context.model;
  }
  const system = spelling.read(object, 'systemInstruction');
  if (system !== undefined) request.messages.push(decodeGeminiSystemInstruction(system, topPointer(object, 'systemInstruction', '/systemInstruction'), context.losses));
  const contents = object['contents'];
  if (contents === undefined) {
    throw new InterlinguaError('missing_field', '"contents" is required: a list of {role, parts} turns', { path: '/contents', format: 'gemini' });
  }
  // Headed for another format: skip the hints only a trip back to Gemini needs.
  const lean = context.target !== undefined && context.target !== 'gemini';
  decodeGeminiContents(contents, '/contents', context.losses, request.messages, lean, context.target === 'gemini');
  const tools = object['tools'];
  if (tools !== undefined) {
    request.tools = decodeGeminiTools(tools, '/tools', context.losses);
    if (isObject(tools)) hint(request, 'gemini', '$toolsObject', true);
  }
  const toolConfig = spelling.read(object, 'toolConfig');
  if (toolConfig !== undefined) decodeGeminiToolConfig(toolConfig, topPointer(object, 'toolConfig', '/toolConfig'), request);
  const generation = spelling.read(object, 'generationConfig');
  if (generation !== undefined) {
    const generationPath = topPointer(object, 'generationConfig', '/generationConfig');
    decodeGeminiGenerationConfig(generation, generationPath, request, lean);
    context.losses.originFields(request.generation, generation as JsonObject, generationPath, GENERATION_ORIGINS);
  }
  context.losses.originFields(request, object, '', REQUEST_ORIGINS);
  decodeLabels(object['labels'], request);
  const tier = spelling.read(object, 'serviceTier');
  if (tier !== undefined) request.serviceTier = expectString(tier, pointer('', Spelling.key(object, 'serviceTier')), 'gemini');
  extend(request, 'gemini', requestExtras(object));
  // Marks the IR as Gemini's own, so the encoder keeps its turn boundaries.
  if (!lean) hint(request, 'gemini', '$native', spelling.snake ?? true);
  return request;
}

function decodeLabels(value: unknown, request: Request): void {
  if (value === undefined) return;
  const labels = expectObject(value, '/labels', 'gemini');
  for (const key in labels) {
    if (typeof labels[key] !== 'string') {
      extend(request, 'gemini', { labels });
      return;
    }
  }
  request.metadata = labels as Record<string, string>;
}

/** Encode an IR request as a Gemini request body. */
export function encodeGeminiRequest(request: Request, context: CodecContext): JsonObject {
  const losses = context.losses;
  const gemini = extensionsOf(request, 'gemini');
  const native = gemini?.['$native'] !== undefined;
  losses.foreignExtensions(request.extensions, 'gemini', '');
  if (!native) request = fitRequestBounds(request, 'gemini', losses);
  dropRequestCacheBreakpoints(request, losses, 'gemini');
  const conversation = encodeGeminiContents(request.messages, native, losses);
  const body: JsonObject = {};
  if (gemini?.['$model'] === true && request.model !== undefined) body['model'] = request.model;
  if (conversation.contents.length === 0 && !native) {
    // Gemini needs contents: a request of a system prompt alone (which OpenAI takes) sends it as the user's.
    const system = conversation.systemInstruction;
    if (system === undefined) throw noConversation('Gemini', '/messages');
    conversation.contents.push({ role: 'user', parts: isObject(system) ? system['parts'] : [{ text: system }] });
    delete conversation.systemInstruction;
    losses.add('moved_content', '/messages/0', 'Gemini needs contents, and the request has only a system prompt; it was sent as the user turn');
  }
  if (conversation.systemInstruction !== undefined) body['systemInstruction'] = conversation.systemInstruction;
  body['contents'] = conversation.contents;
  let toolless = false;
  if (request.tools !== undefined) {
    const tools = encodeGeminiTools(request.tools, losses);
    toolless = allToolsDropped(request, tools.length, losses, 'Gemini');
    if (!toolless) body['tools'] = tools.length === 1 && extensionsOf(request, 'gemini')?.['$toolsObject'] === true ? (tools[0] as JsonObject) : tools;
  }
  const toolConfig = toolless ? undefined : encodeGeminiToolConfig(request, losses);
  if (toolConfig !== undefined) body['toolConfig'] = toolConfig;
  const generation = encodeGeminiGenerationConfig(request, losses);
  if (generation !== undefined) body['generationConfig'] = generation;
  // `labels` exist only on Vertex AI; the Gemini API rejects them. Gemini's own labels (a Vertex body) go back.
  if (request.metadata !== undefined) {
    if (native) body['labels'] = request.metadata;
    else losses.add('dropped_field', '/metadata', 'Gemini has no request metadata (Vertex AI labels are not accepted by the Gemini API); dropped');
  }
  if (request.serviceTier !== undefined) {
    const tier = native ? request.serviceTier : mapValue(request.serviceTier, SERVICE_TIERS, losses, '/serviceTier', 'service tier', 'Gemini');
    if (tier !== undefined) body['serviceTier'] = tier;
  }
  if (request.user !== undefined) losses.add('dropped_field', '/user', 'Gemini has no end-user id field; dropped');
  reportUncarriedSettings(request, losses, 'Gemini');
  spreadRequestExtensions(body, request);
  return respell(body, gemini?.['$native']);
}

/** Service tiers of every format (OpenAI `default`, Anthropic `standard_only`) in Gemini's spelling. */
const SERVICE_TIERS = valueTable({
  flex: ['flex', true],
  standard: ['standard', true],
  priority: ['priority', true],
  default: ['standard', true],
  standard_only: ['standard', false],
});

/** Extension keys that belong inside nested objects, not at the top level. */
const NESTED: ReadonlySet<string> = new Set(['generationConfig', 'thinkingConfig', 'toolConfig', 'functionCallingConfig', 'responseSchema']);

function spreadRequestExtensions(body: JsonObject, request: Request): void {
  const fields = extensionsOf(request, 'gemini');
  if (fields === undefined) return;
  for (const key in fields) {
    if (key.charCodeAt(0) === 36 || NESTED.has(key) || key in body) continue;
    body[key] = fields[key];
  }
}

