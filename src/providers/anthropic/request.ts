/**
 * Anthropic Messages requests (`POST /v1/messages`), including the Bedrock and
 * Vertex bodies that carry `anthropic_version` and no `model`.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Generation, Message, Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import {
  expectArray,
  expectBoolean,
  expectNumber,
  expectObject,
  expectString,
  extend,
  pointer,
  required,
  spreadExtensions,
  unknownKeys,
  type JsonObject,
} from '../../core/wire.ts';
import { decodeAnthropicOutputConfig, decodeAnthropicOutputFormat, decodeAnthropicThinking, encodeAnthropicConfig } from './config.ts';
import { encodeAnthropicMessages } from './messages-encode.ts';
import { encodeAnthropicGeneration } from './generation-encode.ts';
import { decodeAnthropicContentParts, decodeAnthropicMessagesInto } from './messages-decode.ts';
import { keepsHints, type BlockScope } from './parts-decode.ts';
import { ANTHROPIC, anthropicHint, hasHint } from './shape.ts';
import { cacheControlBreakpoint, cacheControlOf } from './cache-control.ts';
import { mapValue, valueTable } from '../../core/mapped-values.ts';
import { decodeAnthropicToolChoice, decodeAnthropicTools, encodeAnthropicToolChoice, encodeAnthropicTools } from './tools.ts';
import { noConversation, reportOutputModalities, reportUncarriedSettings } from '../../core/request-settings.ts';
import { allToolsDropped } from '../../core/tools.ts';
import { fitThinking } from './thinking-limits-encode.ts';
import { fitRequestBounds } from '../../core/bounds.ts';

/** The keys of the body without a neutral slot, which travel as extensions (a switch: cheaper than a set lookup per key). */
function requestExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'model':
      case 'messages':
      case 'system':
      case 'max_tokens':
      case 'temperature':
      case 'top_p':
      case 'top_k':
      case 'stop_sequences':
      case 'stream':
      case 'tools':
      case 'tool_choice':
      case 'thinking':
      case 'output_config':
      case 'output_format':
      case 'metadata':
      case 'service_tier':
        continue;
      case 'cache_control':
        // Read as the automatic breakpoint, unless it is not the ephemeral marker.
        if (cacheControlBreakpoint(object[key]) !== undefined) continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** Where IR request fields come from on the wire, for loss paths. */
const REQUEST_ORIGINS = {
  toolChoice: 'tool_choice',
  parallelToolCalls: 'tool_choice',
  reasoning: ['thinking', 'output_config'],
  output: ['output_config', 'output_format'],
  user: 'metadata',
  metadata: 'metadata',
  serviceTier: 'service_tier',
  model: 'model',
  stream: 'stream',
} as const;
const GENERATION_ORIGINS = { maxTokens: 'max_tokens', temperature: 'temperature', topP: 'top_p', topK: 'top_k', stop: 'stop_sequences' } as const;

function decodeSystem(value: unknown, scope: BlockScope): Message {
  const message: Message = scope.losses.origin({ role: 'system', parts: decodeAnthropicContentParts(value, '/system', scope) }, '/system');
  if (scope.hints !== false) {
    // The message is new: its hints are set in one object (what two `hint` calls would build).
    message.extensions = { anthropic: typeof value === 'string' ? { $systemField: true, $contentString: true } : { $systemField: true } };
  }
  return message;
}

/** A number read from the body (named reads at the call: a keyed read per key costs more than the check). */
function number(value: unknown, key: string): number | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value))) return value;
  return expectNumber(value, pointer('', key), ANTHROPIC);
}

function decodeGeneration(body: JsonObject): Generation | undefined {
  const maxTokens = number(body['max_tokens'], 'max_tokens');
  const temperature = number(body['temperature'], 'temperature');
  const topP = number(body['top_p'], 'top_p');
  const topK = number(body['top_k'], 'top_k');
  const stop = body['stop_sequences'];
  if (maxTokens === undefined && temperature === undefined && topP === undefined && topK === undefined && stop === undefined) return undefined;
  const generation: Generation = {};
  if (maxTokens !== undefined) generation.maxTokens = maxTokens;
  if (temperature !== undefined) generation.temperature = temperature;
  if (topP !== undefined) generation.topP = topP;
  if (topK !== undefined) generation.topK = topK;
  if (stop !== undefined) {
    generation.stop = expectArray(stop, '/stop_sequences', ANTHROPIC).map((item, index) => expectString(item, pointer('/stop_sequences', index), ANTHROPIC));
  }
  return generation;
}

const METADATA_KEYS: ReadonlySet<string> = new Set(['user_id']);

function decodeMetadata(value: unknown, request: Request, hints: boolean): void {
  const metadata = expectObject(value, '/metadata', ANTHROPIC);
  const userId = metadata['user_id'];
  if (typeof userId === 'string') request.user = userId;
  else if (userId === null) {
    if (hints) anthropicHint(request, '$userIdNull', true);
  } else if (userId !== undefined) expectString(userId, '/metadata/user_id', ANTHROPIC);
  const rest = unknownKeys(metadata, METADATA_KEYS);
  // `metadata` has only `user_id` on the wire; anything else travels whole so nothing is silently lost.
  if (rest !== undefined) extend(request, ANTHROPIC, { metadata: rest });
  else if (userId === undefined && hints) anthropicHint(request, '$metadataEmpty', true);
}

/**
 * Decode an Anthropic Messages request body into the IR.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export function decodeAnthropicRequest(body: unknown, context: CodecContext): Request {
  const object = expectObject(body, '', ANTHROPIC);
  const hints = keepsHints(context.target);
  const losses = context.losses;
  const scope: BlockScope = { losses, hints };
  // The request is new: its one hint is set in the literal (what `anthropicHint` would build).
  const request: Request = hints ? { messages: [], extensions: { anthropic: { $keepTurns: true } } } : { messages: [] };
  const model = object['model'];
  if (model !== undefined) request.model = typeof model === 'string' ? model : expectString(model, '/model', ANTHROPIC);
  const system = object['system'];
  if (system !== undefined && system !== null) request.messages.push(decodeSystem(system, scope));
  else if (system === null && hints) anthropicHint(request, '$systemNull', true);
  decodeAnthropicMessagesInto(required(object, 'messages', '', ANTHROPIC), '/messages', scope, request.messages);
  if (object['tools'] !== undefined) {
    request.tools = decodeAnthropicTools(object['tools'], '/tools', scope.losses);
    if (losses.recording) request.tools.forEach((tool, index) => losses.origin(tool, pointer('/tools', index)));
  }
  if (object['tool_choice'] !== undefined) decodeAnthropicToolChoice(object['tool_choice'], '/tool_choice', request);
  const generation = decodeGeneration(object);
  if (generation !== undefined) request.generation = generation;
  if (object['thinking'] !== undefined) decodeAnthropicThinking(object['thinking'], '/thinking', request);
  if (object['output_config'] !== undefined) decodeAnthropicOutputConfig(object['output_config'], '/output_config', request);
  if (object['output_format'] !== undefined) decodeAnthropicOutputFormat(object['output_format'], '/output_format', request);
  if (object['metadata'] !== undefined) decodeMetadata(object['metadata'], request, hints);
  if (object['stream'] !== undefined) request.stream = expectBoolean(object['stream'], '/stream', ANTHROPIC);
  if (object['service_tier'] !== undefined) request.serviceTier = expectString(object['service_tier'], '/service_tier', ANTHROPIC);
  if (object['cache_control'] !== undefined) {
    const cache = cacheControlBreakpoint(object['cache_control']);
    if (cache !== undefined) request.cache = losses.anchorItem(cache, '/cache_control');
  }
  extend(request, ANTHROPIC, requestExtras(object));
  losses.originFields(request, object, '', REQUEST_ORIGINS);
  losses.originFields(request.generation, object, '', GENERATION_ORIGINS);
  return request;
}

function encodeMetadata(request: Request, losses: LossCollector): JsonObject | undefined {
  // The common case: nothing that becomes metadata, and no hint about it.
  if (request.user === undefined && request.metadata === undefined) {
    const hints = request.extensions?.anthropic;
    if (hints === undefined) return undefined;
    const kept = hints['metadata'];
    if ((kept === undefined || kept === null || typeof kept !== 'object') && !isSet(hints['$userIdNull']) && !isSet(hints['$metadataEmpty'])) return undefined;
  }
  const extra = request.extensions?.anthropic?.['metadata'];
  const metadata: JsonObject = extra !== undefined && typeof extra === 'object' ? { ...(extra as JsonObject) } : {};
  if (request.user !== undefined) metadata['user_id'] = request.user;
  else if (hasHint(request, '$userIdNull')) metadata['user_id'] = null;
  if (request.metadata !== undefined) losses.add('dropped_field', '/metadata', 'Anthropic metadata holds only user_id; the key-value metadata was dropped');
  return Object.keys(metadata).length > 0 || hasHint(request, '$metadataEmpty') ? metadata : undefined;
}

/** A hint value that counts as set (what `hasHint` checks). */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== false;
}

/** Service tiers Anthropic takes; no other format's tier means either. */
const SERVICE_TIERS = valueTable({ auto: ['auto', true], standard_only: ['standard_only', true] });

function encodeServiceTier(tier: string, exact: boolean, losses: LossCollector): string | undefined {
  return exact ? tier : mapValue(tier, SERVICE_TIERS, losses, '/serviceTier', 'service tier', 'Anthropic');
}

/**
 * Encode an IR request as an Anthropic Messages request body.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export function encodeAnthropicRequest(request: Request, context: CodecContext): JsonObject {
  const losses = context.losses;
  losses.foreignExtensions(request.extensions, ANTHROPIC, '');
  const hints = request.extensions?.anthropic;
  const exact = hints !== undefined && isSet(hints['$keepTurns']);
  if (!exact) request = fitRequestBounds(request, ANTHROPIC, losses);
  const body: JsonObject = {};
  // `options.model` names the model when the source body had none (a Gemini body, whose model is in the URL; a Bedrock body).
  const model = request.model ?? context.model;
  if (model !== undefined) body['model'] = model;
  const conversation = encodeAnthropicMessages(request.messages, exact, losses);
  if (conversation.messages.length === 0 && !exact) {
    // Anthropic needs a message: a request of a system prompt alone (which OpenAI takes) sends it as the user's.
    if (conversation.system === undefined) throw noConversation('Anthropic', '/messages');
    conversation.messages.push({ role: 'user', content: conversation.system });
    delete conversation.system;
    losses.add('moved_content', '/messages/0', 'Anthropic needs a message, and the request has only a system prompt; it was sent as the user message');
  }
  if (conversation.system !== undefined) body['system'] = conversation.system;
  else if (hints !== undefined && isSet(hints['$systemNull'])) body['system'] = null;
  body['messages'] = conversation.messages;
  encodeAnthropicGeneration(request.generation, body, exact, losses, context.maxTokensDefault);
  let toolless = false;
  if (request.tools !== undefined) {
    const tools = encodeAnthropicTools(request.tools, losses);
    toolless = allToolsDropped(request, tools.length, losses, 'Anthropic');
    if (!toolless) body['tools'] = tools;
  }
  const toolChoice = toolless ? undefined : encodeAnthropicToolChoice(request, losses);
  if (toolChoice !== undefined) body['tool_choice'] = toolChoice;
  encodeAnthropicConfig(request, body, losses);
  if (!exact) fitThinking(body, losses);
  const metadata = encodeMetadata(request, losses);
  if (metadata !== undefined) body['metadata'] = metadata;
  if (request.stream !== undefined) body['stream'] = request.stream;
  if (request.serviceTier !== undefined) {
    const tier = encodeServiceTier(request.serviceTier, exact, losses);
    if (tier !== undefined) body['service_tier'] = tier;
  }
  if (request.cache !== undefined) body['cache_control'] = cacheControlOf(request.cache, '', losses);
  reportUncarriedSettings(request, losses, 'Anthropic');
  reportOutputModalities(request, losses, 'Anthropic');
  return spreadExtensions(body, request, ANTHROPIC);
}
