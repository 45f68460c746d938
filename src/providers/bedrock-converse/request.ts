/**
 * Converse requests (`POST /model/{modelId}/converse` and `/converse-stream`).
 * The model lives in the URL (`context.model`); whether to stream is the
 * path's choice, so the body has no `stream` flag.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Generation, Message, Request } from '../../core/ir.ts';
import { expectArray, expectNumber, expectObject, expectString, extend, extensionsOf, hint, isObject, pointer, required, type JsonObject } from '../../core/wire.ts';
import { decodeBedrockMessages, decodeBedrockSystem } from './messages-decode.ts';
import { encodeBedrockMessages } from './messages-encode.ts';
import { decodeBedrockToolConfig, encodeBedrockToolConfig, historyToolConfig } from './tools.ts';
import { decodeBedrockAdditionalFields, decodeBedrockOutputConfig, encodeBedrockAdditionalFields, encodeBedrockOutputConfig, fitBedrockThinking } from './request-config.ts';
import { BEDROCK, hasHint } from './shape.ts';
import { placeAutomaticBreakpoint } from '../../core/cache-points.ts';
import { takesCachePoint } from './cache-point.ts';
import { noteOwnTier, ownOrMapped, valueTable } from '../../core/mapped-values.ts';
import { noConversation, reportOutputModalities, reportUncarriedSettings } from '../../core/request-settings.ts';
import { fitRequestBounds } from '../../core/bounds.ts';

/** The keys of a request body this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function requestExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'messages':
      case 'system':
      case 'inferenceConfig':
      case 'toolConfig':
      case 'additionalModelRequestFields':
      case 'outputConfig':
      case 'requestMetadata':
      case 'serviceTier':
        continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** The keys of `inferenceConfig` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function inferenceExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'maxTokens':
      case 'temperature':
      case 'topP':
      case 'stopSequences':
        continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

/** Request extension keys that belong inside a wire object, not at the top. */
const NESTED_KEYS: ReadonlySet<string> = new Set(['inferenceConfig', 'toolConfig', 'toolChoice', 'additionalModelRequestFields', 'outputConfig', 'serviceTier']);

function decodeInferenceConfig(value: unknown, request: Request): void {
  const wire = expectObject(value, '/inferenceConfig', BEDROCK);
  const generation: Generation = {};
  const maxTokens = wire['maxTokens'];
  const temperature = wire['temperature'];
  const topP = wire['topP'];
  if (maxTokens !== undefined) generation.maxTokens = inferenceNumber(maxTokens, 'maxTokens');
  if (temperature !== undefined) generation.temperature = inferenceNumber(temperature, 'temperature');
  if (topP !== undefined) generation.topP = inferenceNumber(topP, 'topP');
  if (wire['stopSequences'] !== undefined) {
    generation.stop = expectArray(wire['stopSequences'], '/inferenceConfig/stopSequences', BEDROCK).map((stop, index) =>
      expectString(stop, pointer('/inferenceConfig/stopSequences', index), BEDROCK),
    );
  }
  request.generation = generation;
  const rest = inferenceExtras(wire);
  if (rest !== undefined) extend(request, BEDROCK, { inferenceConfig: rest });
  // An empty one comes back even when a top-k (which Converse sends elsewhere) is all the settings there are.
  else if (Object.keys(wire).length === 0) hint(request, BEDROCK, '$emptyInference', true);
}

function inferenceNumber(value: unknown, key: string): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : expectNumber(value, pointer('/inferenceConfig', key), BEDROCK);
}

function decodeMetadata(value: unknown, request: Request): void {
  const wire = expectObject(value, '/requestMetadata', BEDROCK);
  const metadata: Record<string, string> = {};
  for (const key in wire) metadata[key] = expectString(wire[key], pointer('/requestMetadata', key), BEDROCK);
  request.metadata = metadata;
}

/** Service tiers Converse takes, and the nearest for other formats' (OpenAI `auto` and `scale`, which have none, are dropped). */
const SERVICE_TIERS = valueTable({
  default: ['default', true],
  flex: ['flex', true],
  priority: ['priority', true],
  reserved: ['reserved', true],
  standard: ['default', true],
  standard_only: ['default', false],
});

function decodeServiceTier(value: unknown, request: Request): void {
  const wire = expectObject(value, '/serviceTier', BEDROCK);
  const type = wire['type'];
  if (typeof type === 'string' && Object.keys(wire).length === 1) {
    request.serviceTier = type;
    // A tier this codec does not list goes back to Converse as it came, and nowhere else.
    noteOwnTier(request, BEDROCK, SERVICE_TIERS, type);
  } else extend(request, BEDROCK, { serviceTier: wire });
}

/** Where the decoded settings were on the wire, for loss paths into the source. */
function recordOrigins(request: Request, object: JsonObject, context: CodecContext): void {
  const losses = context.losses;
  if (isObject(object['inferenceConfig'])) {
    losses.originFields(request.generation, object['inferenceConfig'], '/inferenceConfig', { maxTokens: 'maxTokens', temperature: 'temperature', topP: 'topP', stop: 'stopSequences' });
  }
  const fields = extensionsOf(request, BEDROCK);
  if (request.generation?.topK !== undefined) losses.originField(request.generation, 'topK', fields?.['$novaTopK'] === true ? '/additionalModelRequestFields/inferenceConfig/topK' : '/additionalModelRequestFields/top_k');
  if (request.reasoning !== undefined) {
    const key = fields?.['$reasoningKey'];
    losses.originField(request, 'reasoning', `/additionalModelRequestFields/${typeof key === 'string' ? key : 'thinking'}`);
  }
  if (request.output !== undefined) losses.originField(request, 'output', '/outputConfig');
  if (request.metadata !== undefined) losses.originField(request, 'metadata', '/requestMetadata');
  if (request.serviceTier !== undefined) losses.originField(request, 'serviceTier', '/serviceTier');
}

/** Decode a Converse request body into the IR. */
export function decodeBedrockRequest(body: unknown, context: CodecContext): Request {
  const object = expectObject(body, '', BEDROCK);
  const request: Request = { messages: [] };
  if (context.model !== undefined) request.model = context.model;
  if (object['system'] !== undefined) request.messages.push(decodeBedrockSystem(object['system'], context.losses));
  // Headed for another format: skip the hints only a trip back to Converse needs.
  const lean = context.target !== undefined && context.target !== BEDROCK;
  const messages = decodeBedrockMessages(required(object, 'messages', '', BEDROCK), context.losses, lean);
  for (let index = 0; index < messages.length; index++) request.messages.push(messages[index] as Message);
  if (messages.length === 0 && !lean) hint(request, BEDROCK, '$emptyMessages', true);
  if (object['inferenceConfig'] !== undefined) decodeInferenceConfig(object['inferenceConfig'], request);
  if (object['toolConfig'] !== undefined) decodeBedrockToolConfig(object['toolConfig'], request, context.losses);
  if (object['additionalModelRequestFields'] !== undefined) decodeBedrockAdditionalFields(object['additionalModelRequestFields'], request);
  if (object['outputConfig'] !== undefined) decodeBedrockOutputConfig(object['outputConfig'], request);
  if (object['requestMetadata'] !== undefined) decodeMetadata(object['requestMetadata'], request);
  if (object['serviceTier'] !== undefined) decodeServiceTier(object['serviceTier'], request);
  // Marks IR decoded from Converse; nothing reads it on IR headed for another format.
  if (!lean) hint(request, BEDROCK, '$source', true);
  recordOrigins(request, object, context);
  extend(request, BEDROCK, requestExtras(object));
  return request;
}

/** Generation settings Converse has no field for. */
const UNSUPPORTED_GENERATION = ['seed', 'presencePenalty', 'frequencyPenalty', 'candidateCount', 'logprobs', 'topLogprobs'] as const;

function encodeInferenceConfig(request: Request, context: CodecContext): JsonObject | undefined {
  const rest = extensionsOf(request, BEDROCK)?.['inferenceConfig'];
  const generation = request.generation;
  if (generation === undefined && rest === undefined) return undefined;
  const config: JsonObject = isObject(rest) ? { ...rest } : {};
  if (generation?.maxTokens !== undefined) config['maxTokens'] = generation.maxTokens;
  if (generation?.temperature !== undefined) {
    // Converse takes 0–1 (a Converse body's own value goes back as it came).
    config['temperature'] = generation.temperature;
  }
  if (generation?.topP !== undefined) config['topP'] = generation.topP;
  if (generation?.stop !== undefined) config['stopSequences'] = generation.stop;
  if (generation !== undefined && (generation.seed !== undefined || generation.presencePenalty !== undefined || generation.frequencyPenalty !== undefined
    || generation.candidateCount !== undefined || generation.logprobs !== undefined || generation.topLogprobs !== undefined)) {
    for (let index = 0; index < UNSUPPORTED_GENERATION.length; index++) {
      const key = UNSUPPORTED_GENERATION[index] as (typeof UNSUPPORTED_GENERATION)[number];
      if (generation[key] !== undefined) context.losses.add('dropped_field', `/generation/${key}`, `Converse has no ${key}; dropped`);
    }
  }
  // Settings that all went elsewhere (a top-k to the model's own fields) or were dropped leave no empty inferenceConfig behind; an empty one from the source stays.
  if (rest === undefined && Object.keys(config).length === 0 && extensionsOf(request, BEDROCK)?.['$emptyInference'] !== true) return undefined;
  return config;
}

/** Encode an IR request as a Converse request body. */
export function encodeBedrockRequest(request: Request, context: CodecContext): JsonObject {
  const losses = context.losses;
  losses.foreignExtensions(request.extensions, BEDROCK, '');
  if (!hasHint(request, '$source')) request = fitRequestBounds(request, BEDROCK, losses);
  const body: JsonObject = {};
  // Converse has no automatic caching: its breakpoint goes after the last block that takes a cache point, as Anthropic places it.
  const conversation = encodeBedrockMessages(placeAutomaticBreakpoint(request, takesCachePoint, losses, BEDROCK).messages, losses);
  if (conversation.messages.length === 0 && conversation.system !== undefined) {
    // A conversation starts with a user message: a request of a system prompt alone (which OpenAI takes) sends it as the user's.
    conversation.messages.push({ role: 'user', content: conversation.system });
    delete conversation.system;
    losses.add('moved_content', '/messages/0', 'Converse needs a user message, and the request has only a system prompt; it was sent as the user message');
  } else if (conversation.messages.length === 0 && !hasHint(request, '$emptyMessages')) throw noConversation('Converse', '/messages');
  body['messages'] = conversation.messages;
  if (conversation.system !== undefined) body['system'] = conversation.system;
  const inference = encodeInferenceConfig(request, context);
  if (inference !== undefined) body['inferenceConfig'] = inference;
  // The body names no model: the one it goes to is the caller's (`options.model`, the proxy's mapped id), else the source's.
  const model = context.model ?? request.model;
  const toolConfig = encodeBedrockToolConfig(request, losses, model) ?? historyToolConfig(conversation.messages, losses);
  if (toolConfig !== undefined) body['toolConfig'] = toolConfig;
  const additional = encodeBedrockAdditionalFields(request, losses, model);
  if (additional !== undefined) body['additionalModelRequestFields'] = additional;
  const output = encodeBedrockOutputConfig(request, losses);
  if (output !== undefined) body['outputConfig'] = output;
  if (request.metadata !== undefined) body['requestMetadata'] = request.metadata;
  const fields = extensionsOf(request, BEDROCK);
  const tier = fields?.['serviceTier'];
  if (request.serviceTier !== undefined) {
    const type = ownOrMapped(request, BEDROCK, request.serviceTier, SERVICE_TIERS, losses, '/serviceTier', 'service tier', 'Converse');
    if (type !== undefined) body['serviceTier'] = { type };
  } else if (isObject(tier)) body['serviceTier'] = tier;
  if (request.user !== undefined) losses.add('dropped_field', '/user', 'Converse has no end-user id; dropped (requestMetadata is for logs only)', 'info');
  reportUncarriedSettings(request, losses, 'Converse');
  reportOutputModalities(request, losses, 'Converse');
  if (fields !== undefined) {
    for (const key in fields) if (key.charCodeAt(0) !== 36 && !NESTED_KEYS.has(key) && !(key in body)) body[key] = fields[key];
  }
  fitBedrockThinking(request, body, losses);
  return body;
}
