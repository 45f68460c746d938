/**
 * Requests: `POST /v1/responses` bodies ⇄ IR requests.
 *
 * `instructions` becomes a leading system message marked with an
 * `$instructions` hint. For requests from other formats, every leading system
 * message is joined into `instructions` (several are joined with blank lines
 * and reported as approximated); later system messages stay input items.
 * Vendor-held state (`previous_response_id`, `conversation`, `store`,
 * `prompt`, …) travels as `openai-responses` extensions, which other encoders
 * report.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import type { CodecContext } from '../../core/codec.ts';
import type { FormatId, Generation, Message, Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import {
  expectArray, expectBoolean, expectNumber, expectObject, expectString, extend, hint, isObject, pointer, spreadExtensions,
  type JsonObject,
} from '../../core/wire.ts';
import { decodeOpenaiResponsesInput } from './items-decode.ts';
import { encodeOpenaiResponsesItems } from './items-encode.ts';
import {
  decodeOpenaiResponsesReasoningConfig, decodeOpenaiResponsesText, encodeOpenaiResponsesReasoningConfig, encodeOpenaiResponsesText,
} from './request-fields.ts';
import { FORMAT, keepNulls, own, ownHint, present, restoreNulls } from './shape.ts';
import { noteOwnTier, ownOrMapped, valueTable } from '../../core/mapped-values.ts';
import { messagePointer } from '../../core/ir-pointers.ts';
import { decodeOpenaiResponsesTool, decodeOpenaiResponsesToolChoice, encodeOpenaiResponsesTool, encodeOpenaiResponsesToolChoice } from './tools.ts';
import { dropRequestCacheBreakpoints, placeAutomaticBreakpoint } from '../../core/cache-points.ts';
import { responsesCarries } from './cache-breakpoint.ts';
import { allToolsDropped } from '../../core/tools.ts';
import { fitRequestBounds } from '../../core/bounds.ts';
import { reportOutputModalities } from '../../core/request-settings.ts';

const KNOWN_KEYS: readonly string[] = [
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'text', 'reasoning', 'max_output_tokens',
  'temperature', 'top_p', 'top_logprobs', 'stream', 'metadata', 'user', 'safety_identifier', 'service_tier', 'store',
  'prompt_cache_key', 'prompt_cache_retention', 'include', 'stream_options',
];

/** The keys of a request body this file does not read (those of `KNOWN_KEYS`), or `undefined` (a switch: cheaper than a set lookup per key). */
function requestExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'model':
      case 'input':
      case 'instructions':
      case 'tools':
      case 'tool_choice':
      case 'parallel_tool_calls':
      case 'text':
      case 'reasoning':
      case 'max_output_tokens':
      case 'temperature':
      case 'top_p':
      case 'top_logprobs':
      case 'stream':
      case 'metadata':
      case 'user':
      case 'safety_identifier':
      case 'service_tier':
      case 'store':
      case 'prompt_cache_key':
      case 'prompt_cache_retention':
      case 'include':
      case 'stream_options':
        continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

const GENERATION_FIELDS = [
  ['max_output_tokens', 'maxTokens'],
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['top_logprobs', 'topLogprobs'],
] as const;

/** Where the IR web search's settings come from in the `web_search` tool, for loss paths (`filters.allowed_domains` placed apart). */
const WEB_SEARCH_FIELDS = { contextSize: 'search_context_size', userLocation: 'user_location' } as const;

/** Where IR request fields come from on the wire, for loss paths. */
const REQUEST_ORIGINS = {
  toolChoice: 'tool_choice',
  parallelToolCalls: 'parallel_tool_calls',
  reasoning: 'reasoning',
  output: 'text',
  user: ['safety_identifier', 'user'],
  metadata: 'metadata',
  serviceTier: 'service_tier',
  model: 'model',
  stream: 'stream',
  store: 'store',
  promptCacheKey: 'prompt_cache_key',
  promptCacheRetention: 'prompt_cache_retention',
} as const;
const GENERATION_ORIGINS = Object.fromEntries(GENERATION_FIELDS.map(([key, field]) => [field, key]));

function decodeGeneration(wire: JsonObject): Generation | undefined {
  // GENERATION_FIELDS written out: a table loop costs more than the one or two fields a request sets.
  const maxTokens = wire['max_output_tokens'];
  const temperature = wire['temperature'];
  const topP = wire['top_p'];
  const topLogprobs = wire['top_logprobs'];
  if (!present(maxTokens) && !present(temperature) && !present(topP) && !present(topLogprobs)) return undefined;
  const generation: Generation = {};
  if (present(maxTokens)) generation.maxTokens = generationNumber(maxTokens, 'max_output_tokens');
  if (present(temperature)) generation.temperature = generationNumber(temperature, 'temperature');
  if (present(topP)) generation.topP = generationNumber(topP, 'top_p');
  if (present(topLogprobs)) generation.topLogprobs = generationNumber(topLogprobs, 'top_logprobs');
  return generation;
}

function generationNumber(value: unknown, key: string): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : expectNumber(value, pointer('', key), FORMAT);
}

function decodeMetadata(value: unknown, request: Request): void {
  const metadata = expectObject(value, '/metadata', FORMAT);
  for (const key in metadata) {
    if (typeof metadata[key] !== 'string') {
      extend(request, FORMAT, { metadata });
      return;
    }
  }
  request.metadata = metadata as Record<string, string>;
}

/** The `include` entry that asks for the output text's log probabilities: the IR's `generation.logprobs`. */
const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

/**
 * Read `include`: its logprobs entry is `generation.logprobs` (Chat's
 * `logprobs: true`), the other entries stay the body's own, with the
 * entry's place noted for a trip back.
 */
function decodeInclude(value: unknown, request: Request, losses: LossCollector, lean: boolean): void {
  const list = expectArray(value, '/include', FORMAT);
  const at = list.indexOf(LOGPROBS_INCLUDE);
  if (at === -1) {
    extend(request, FORMAT, { include: list });
    return;
  }
  (request.generation ??= {}).logprobs = true;
  losses.originField(request.generation, 'logprobs', `/include/${at}`);
  if (list.length === 1) return;
  extend(request, FORMAT, { include: list.filter((_, index) => index !== at) });
  if (!lean && at !== list.length - 1) hint(request, FORMAT, '$logprobsAt', at);
}

/** `include` from `generation.logprobs` and the body's own entries: the logprobs entry back at its place. */
function encodeInclude(request: Request, body: JsonObject): void {
  if (request.generation?.logprobs !== true) return;
  const kept = own(request)?.['include'];
  if (!Array.isArray(kept)) {
    body['include'] = [LOGPROBS_INCLUDE];
    return;
  }
  if (kept.includes(LOGPROBS_INCLUDE)) return;
  const at = ownHint(request, '$logprobsAt');
  const list = kept.slice();
  list.splice(typeof at === 'number' ? at : list.length, 0, LOGPROBS_INCLUDE);
  body['include'] = list;
}

/** `store` and the prompt-cache key and retention: settings OpenAI Chat has too. */
function decodeOpenaiSettings(wire: JsonObject, request: Request): void {
  const store = wire['store'];
  if (present(store)) request.store = expectBoolean(store, '/store', FORMAT);
  const key = wire['prompt_cache_key'];
  if (present(key)) request.promptCacheKey = expectString(key, '/prompt_cache_key', FORMAT);
  const retention = wire['prompt_cache_retention'];
  if (present(retention)) request.promptCacheRetention = expectString(retention, '/prompt_cache_retention', FORMAT);
  const options = wire['stream_options'];
  if (present(options)) decodeStreamOptions(options, request);
}

/** `stream_options`: `include_obfuscation` into the IR; other keys (or an empty object) stay the body's own. */
function decodeStreamOptions(value: unknown, request: Request): void {
  const options = expectObject(value, '/stream_options', FORMAT);
  let rest: JsonObject | undefined;
  let read = false;
  for (const key in options) {
    const entry = options[key];
    if (key === 'include_obfuscation' && typeof entry === 'boolean') {
      request.streamObfuscation = entry;
      read = true;
    } else (rest ??= {})[key] = entry;
  }
  if (rest !== undefined || !read) extend(request, FORMAT, { stream_options: rest ?? {} });
}

/** `stream_options` from `streamObfuscation` and the body's own keys (a Responses stream always reports its usage: Chat's `include_usage` needs no field). */
function encodeStreamOptions(request: Request, body: JsonObject): void {
  if (request.streamObfuscation === undefined) return;
  const kept = own(request)?.['stream_options'];
  body['stream_options'] = { ...(isObject(kept) ? kept : {}), include_obfuscation: request.streamObfuscation };
}

function decodeUser(wire: JsonObject, request: Request): void {
  const safety = wire['safety_identifier'];
  const user = wire['user'];
  if (present(safety)) {
    request.user = expectString(safety, '/safety_identifier', FORMAT);
    if (present(user)) extend(request, FORMAT, { user: expectString(user, '/user', FORMAT) });
  } else if (present(user)) {
    request.user = expectString(user, '/user', FORMAT);
    hint(request, FORMAT, '$userField', 'user');
  }
}

function decodeMessages(wire: JsonObject, request: Request, losses: LossCollector, target: FormatId | undefined): void {
  const lean = target !== undefined && target !== FORMAT;
  const instructions = wire['instructions'];
  if (present(instructions)) {
    const text = losses.origin({ type: 'text' as const, text: expectString(instructions, '/instructions', FORMAT) }, '/instructions');
    const message: Message = losses.origin({ role: 'system', parts: [text] }, '/instructions');
    hint(message, FORMAT, '$instructions', true);
    request.messages.push(message);
  } else if (!lean) {
    hint(request, FORMAT, '$noInstructions', true);
  }
  const input = wire['input'];
  if (input === undefined || input === null) {
    if (!lean) hint(request, FORMAT, '$noInput', true);
  } else if (typeof input === 'string') {
    request.messages.push(losses.origin({ role: 'user', parts: [losses.origin({ type: 'text', text: input }, '/input')] }, '/input'));
    if (!lean) hint(request, FORMAT, '$inputString', true);
  } else {
    decodeOpenaiResponsesInput(expectArray(input, '/input', FORMAT), '/input', losses, target, request.messages);
  }
}

/** Service tiers Responses takes (`fast`, `ultrafast` since openai 7), and the nearest for other formats' (Gemini `standard`, Anthropic `standard_only`). */
const SERVICE_TIERS = valueTable({
  auto: ['auto', true],
  default: ['default', true],
  flex: ['flex', true],
  scale: ['scale', true],
  priority: ['priority', true],
  fast: ['fast', true],
  ultrafast: ['ultrafast', true],
  standard: ['default', true],
  standard_only: ['default', false],
});

/** Decode a Responses request body into an IR request. */
export function decodeOpenaiResponsesRequest(body: unknown, context: CodecContext): Request {
  const wire = expectObject(body, '', FORMAT);
  const request: Request = { messages: [] };
  const model = wire['model'];
  if (present(model)) request.model = expectString(model, '/model', FORMAT);
  else if (context.model !== undefined) request.model = context.model;
  // Headed for another format: skip the hints only a trip back to Responses needs.
  const lean = context.target !== undefined && context.target !== FORMAT;
  decodeMessages(wire, request, context.losses, context.target);
  const tools = wire['tools'];
  if (present(tools)) {
    // Anchored, not only recorded: several targets report a loss against a tool (Gemini and Ollama drop `strict`), which then needs no recording decode.
    request.tools = expectArray(tools, '/tools', FORMAT).map((tool, index) => {
      const decoded = context.losses.anchorItem(decodeOpenaiResponsesTool(tool, `/tools/${index}`), `/tools/${index}`);
      if (decoded.type === 'web_search') {
        context.losses.originFields(decoded, tool as JsonObject, `/tools/${index}`, WEB_SEARCH_FIELDS);
        if (decoded.allowedDomains !== undefined) context.losses.originField(decoded, 'allowedDomains', `/tools/${index}/filters/allowed_domains`);
      }
      if (lean && decoded.extensions !== undefined) context.losses.anchorExtensions(decoded.extensions, `/tools/${index}`);
      return decoded;
    });
  }
  const toolChoice = wire['tool_choice'];
  if (present(toolChoice)) {
    const choice = decodeOpenaiResponsesToolChoice(toolChoice, request);
    if (choice !== undefined) request.toolChoice = choice;
    else extend(request, FORMAT, { tool_choice: toolChoice });
  }
  const parallel = wire['parallel_tool_calls'];
  if (present(parallel)) request.parallelToolCalls = expectBoolean(parallel, '/parallel_tool_calls', FORMAT);
  if (present(wire['text'])) decodeOpenaiResponsesText(wire['text'], request, '/text');
  if (present(wire['reasoning'])) decodeOpenaiResponsesReasoningConfig(wire['reasoning'], request, '/reasoning');
  const generation = decodeGeneration(wire);
  if (generation !== undefined) request.generation = generation;
  if (present(wire['include'])) decodeInclude(wire['include'], request, context.losses, lean);
  if (request.verbosity !== undefined) context.losses.originField(request, 'verbosity', '/text/verbosity');
  const stream = wire['stream'];
  if (present(stream)) request.stream = expectBoolean(stream, '/stream', FORMAT);
  if (present(wire['metadata'])) decodeMetadata(wire['metadata'], request);
  decodeUser(wire, request);
  decodeOpenaiSettings(wire, request);
  if (request.streamObfuscation !== undefined) context.losses.originField(request, 'streamObfuscation', '/stream_options/include_obfuscation');
  const tier = wire['service_tier'];
  if (present(tier)) {
    const value = expectString(tier, '/service_tier', FORMAT);
    request.serviceTier = value;
    // A tier this codec does not list goes back to Responses as it came, and nowhere else.
    noteOwnTier(request, FORMAT, SERVICE_TIERS, value);
  }
  if (!lean) keepNulls(request, wire, KNOWN_KEYS);
  extend(request, FORMAT, requestExtras(wire));
  context.losses.originFields(request, wire, '', REQUEST_ORIGINS);
  context.losses.originFields(request.generation, wire, '', GENERATION_ORIGINS);
  return request;
}

function textOf(message: Message, path: string, losses: LossCollector): string {
  let text = '';
  let texts = 0;
  for (let index = 0; index < message.parts.length; index++) {
    const part = message.parts[index];
    if (part === undefined) continue;
    if (part.extensions !== undefined) losses.foreignExtensions(part.extensions, FORMAT, `${path}/parts/${index}`);
    if (part.cache !== undefined) {
      losses.addAt(part.cache, 'dropped_field', `${path}/parts/${index}/cache`, 'OpenAI Responses instructions are one string, with no place for a prompt-cache breakpoint; dropped');
    }
    if (part.type === 'text') text = texts++ === 0 ? part.text : `${text}\n${part.text}`;
    else losses.add('unsupported_part', `${path}/parts/${index}`, `a ${part.type} part cannot go into OpenAI Responses instructions; dropped`);
  }
  return text;
}

/** True when a leading system message has a part with a prompt-cache breakpoint. */
function cachedSystem(messages: readonly Message[]): boolean {
  for (let index = 0; index < messages.length && messages[index]?.role === 'system'; index++) {
    for (const part of (messages[index] as Message).parts) if (part.cache !== undefined) return true;
  }
  return false;
}

/**
 * Put leading system messages into `instructions`; returns the index of the
 * first message left for `input`. A system prompt with a prompt-cache
 * breakpoint stays in `input` instead, as system messages whose
 * `input_text` carries it: `instructions` is one string with no place for
 * one, and is itself a system message put first in the model's context.
 */
function encodeInstructions(request: Request, body: JsonObject, losses: LossCollector): number {
  const messages = request.messages;
  const first = messages[0];
  if (ownHint(request, '$noInstructions') === true || first === undefined || first.role !== 'system') return 0;
  if (ownHint(first, '$instructions') !== true && cachedSystem(messages)) return 0;
  if (ownHint(first, '$instructions') === true) {
    body['instructions'] = textOf(first, '/messages/0', losses);
    return 1;
  }
  let end = 0;
  const texts: string[] = [];
  while (messages[end]?.role === 'system') {
    const message = messages[end] as Message;
    const path = messagePointer(end);
    losses.foreignExtensions(message.extensions, FORMAT, path);
    texts.push(textOf(message, path, losses));
    end++;
  }
  if (end > 1) losses.add('approximated', '/messages/0', `${end} leading system messages joined into one instructions text`, 'info');
  body['instructions'] = texts.join('\n\n');
  return end;
}

/** Generation settings Responses has no field for. */
const UNSUPPORTED_GENERATION = ['topK', 'stop', 'seed', 'presencePenalty', 'frequencyPenalty'] as const;

function encodeGeneration(request: Request, body: JsonObject, losses: LossCollector): void {
  const generation = request.generation;
  if (generation === undefined) return;
  if (generation.maxTokens !== undefined) body['max_output_tokens'] = generation.maxTokens;
  if (generation.temperature !== undefined) body['temperature'] = generation.temperature;
  if (generation.topP !== undefined) body['top_p'] = generation.topP;
  if (generation.topLogprobs !== undefined) body['top_logprobs'] = generation.topLogprobs;
  if (generation.topK !== undefined || generation.stop !== undefined || generation.seed !== undefined
    || generation.presencePenalty !== undefined || generation.frequencyPenalty !== undefined) {
    for (let index = 0; index < UNSUPPORTED_GENERATION.length; index++) {
      const field = UNSUPPORTED_GENERATION[index] as (typeof UNSUPPORTED_GENERATION)[number];
      if (generation[field] !== undefined) losses.add('dropped_field', `/generation/${field}`, `OpenAI Responses has no "${field}"; dropped`);
    }
  }
  if (generation.candidateCount !== undefined && generation.candidateCount > 1) losses.add('dropped_field', '/generation/candidateCount', 'OpenAI Responses returns one candidate; dropped');
}

function customToolNames(body: JsonObject): Set<string> {
  const names = new Set<string>();
  const tools = body['tools'];
  if (Array.isArray(tools)) for (const tool of tools) if (isObject(tool) && tool['type'] === 'custom' && typeof tool['name'] === 'string') names.add(tool['name']);
  return names;
}

function encodeInput(request: Request, body: JsonObject, start: number, losses: LossCollector): void {
  const items = encodeOpenaiResponsesItems(request.messages, start, { losses, target: 'request' });
  const only = items[0];
  if (ownHint(request, '$inputString') === true && items.length === 1 && only?.['role'] === 'user' && typeof only['content'] === 'string' && Object.keys(only).length === 2) {
    body['input'] = only['content'];
  } else if (items.length > 0 || ownHint(request, '$noInput') !== true) {
    body['input'] = items;
  }
}

/** Encode an IR request as a Responses request body. */
export function encodeOpenaiResponsesRequest(request: Request, context: CodecContext): JsonObject {
  const losses = context.losses;
  losses.foreignExtensions(request.extensions, FORMAT, '');
  // The bounds (max_output_tokens at least 16: 400 "integer_below_min_value", recorded in the corpus) hold for another format's values.
  if (own(request) === undefined) request = fitRequestBounds(request, FORMAT, losses);
  reportOutputModalities(request, losses, 'OpenAI Responses');
  // Responses has no automatic caching: its breakpoint goes on the last part that takes one, as Anthropic places it.
  const placed = placeAutomaticBreakpoint(request, responsesCarries, losses, FORMAT);
  dropRequestCacheBreakpoints(placed, losses, FORMAT, responsesCarries);
  const body: JsonObject = {};
  // `options.model` names the model when the source body had none (a Gemini body, whose model is in the URL; a Bedrock body).
  const model = request.model ?? context.model;
  if (model !== undefined) body['model'] = model;
  encodeInput(placed, body, encodeInstructions(placed, body, losses), losses);
  let toolless = false;
  if (request.tools !== undefined) {
    const tools: JsonObject[] = [];
    request.tools.forEach((tool, index) => {
      const encoded = encodeOpenaiResponsesTool(tool, losses, pointer('/tools', index));
      if (encoded !== undefined) tools.push(encoded);
    });
    toolless = allToolsDropped(request, tools.length, losses, 'OpenAI Responses');
    if (!toolless) body['tools'] = tools;
  }
  if (request.toolChoice !== undefined && !toolless) body['tool_choice'] = encodeOpenaiResponsesToolChoice(request.toolChoice, request, customToolNames(body));
  if (request.parallelToolCalls !== undefined && !toolless) body['parallel_tool_calls'] = request.parallelToolCalls;
  const text = encodeOpenaiResponsesText(request, losses);
  if (text !== undefined) body['text'] = text;
  const reasoning = encodeOpenaiResponsesReasoningConfig(request, losses);
  if (reasoning !== undefined) body['reasoning'] = reasoning;
  encodeGeneration(request, body, losses);
  encodeInclude(request, body);
  if (request.stream !== undefined) body['stream'] = request.stream;
  if (request.store !== undefined) body['store'] = request.store;
  if (request.promptCacheKey !== undefined) body['prompt_cache_key'] = request.promptCacheKey;
  if (request.promptCacheRetention !== undefined) body['prompt_cache_retention'] = request.promptCacheRetention;
  encodeStreamOptions(request, body);
  if (request.metadata !== undefined) body['metadata'] = request.metadata;
  if (request.user !== undefined) body[ownHint(request, '$userField') === 'user' ? 'user' : 'safety_identifier'] = request.user;
  if (request.serviceTier !== undefined) {
    const tier = ownOrMapped(request, FORMAT, request.serviceTier, SERVICE_TIERS, losses, '/serviceTier', 'service tier', 'OpenAI Responses');
    if (tier !== undefined) body['service_tier'] = tier;
  }
  return restoreNulls(spreadExtensions(body, request, FORMAT), request);
}
