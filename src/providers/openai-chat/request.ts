/**
 * Chat Completions request bodies ↔ IR requests.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Message, Request, Tool } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import {
  expectBoolean,
  expectObject,
  expectString,
  extend,
  extensionsOf,
  isObject,
  pointer,
  required,
  spreadExtensions,
  type JsonObject,
} from '../../core/wire.ts';
import { decodeOpenaiChatMessages } from './messages-decode.ts';
import { encodeOpenaiChatMessages } from './messages-encode.ts';
import { decodeOpenaiChatReasoningEffort, encodeOpenaiChatReasoningEffort } from './reasoning.ts';
import { decodeOpenaiChatResponseFormat, encodeOpenaiChatResponseFormat } from './response-format.ts';
import {
  decodeWebSearchOptions,
  encodeWebSearchOptions,
  decodeOpenaiChatFunctionChoice,
  decodeOpenaiChatFunctions,
  decodeOpenaiChatToolChoice,
  decodeOpenaiChatTools,
  encodeOpenaiChatFunctionChoice,
  encodeOpenaiChatToolChoice,
  encodeOpenaiChatTools,
} from './tools.ts';
import { FORMAT, chatHint, keepUnknown, keepsHints, keys, parsesArguments, shapeHint } from './shape.ts';
import { activeDialect, noteDialect, type OpenaiChatDialect } from './dialects.ts';
import { noteOwnTier, ownOrMapped, valueTable } from '../../core/mapped-values.ts';
import { decodeOpenrouterReasoning, encodeOpenrouterReasoning } from './dialect-request.ts';
import { dropRequestCacheBreakpoints, placeAutomaticBreakpoint } from '../../core/cache-points.ts';
import { allToolsDropped } from '../../core/tools.ts';
import { automaticCacheControl, CACHE_CONTROL_KEY, CARRIED, liftAutomaticBreakpoint, requestMode, writesAutomatic } from './cache-breakpoint.ts';
import { noConversation } from '../../core/request-settings.ts';
import { fitRequestBounds, outOfBounds } from '../../core/bounds.ts';
import { decodeOpenaiChatModalities, encodeOpenaiChatModalities } from './modalities.ts';
import { BIT, present, scanBody } from './request-keys-decode.ts';
import { decodeOpenaiChatGeneration, encodeOpenaiChatGeneration, GENERATION_ORIGINS } from './generation.ts';

/** Where the IR web search's settings come from in `web_search_options`, for loss paths. */
const WEB_SEARCH_FIELDS = { contextSize: 'search_context_size', userLocation: 'user_location' } as const;

/** Where IR request fields come from on the wire, for loss paths. */
const REQUEST_ORIGINS = {
  toolChoice: ['tool_choice', 'function_call'],
  parallelToolCalls: 'parallel_tool_calls',
  reasoning: ['reasoning_effort', 'reasoning'],
  output: 'response_format',
  user: ['safety_identifier', 'user'],
  metadata: 'metadata',
  serviceTier: 'service_tier',
  model: 'model',
  stream: 'stream',
  store: 'store',
  promptCacheKey: 'prompt_cache_key',
  promptCacheRetention: 'prompt_cache_retention',
  verbosity: 'verbosity',
} as const;

/** The {@link BIT}s of the settings Chat shares with Responses only (see {@link decodeOpenaiSettings}). */
const OPENAI_SETTINGS_BITS = BIT.store | BIT.prompt_cache_key | BIT.prompt_cache_retention | BIT.verbosity | BIT.stream_options;

/** `store`, the prompt-cache key and retention, `verbosity` and `stream_options`: settings OpenAI Responses has too (`text.verbosity`, its own `stream_options`). */
function decodeOpenaiSettings(body: JsonObject, request: Request, fields: number, losses: LossCollector): void {
  if (present(fields, BIT.store)) request.store = expectBoolean(body['store'], '/store', FORMAT);
  if (present(fields, BIT.prompt_cache_key)) request.promptCacheKey = expectString(body['prompt_cache_key'], '/prompt_cache_key', FORMAT);
  if (present(fields, BIT.prompt_cache_retention)) request.promptCacheRetention = expectString(body['prompt_cache_retention'], '/prompt_cache_retention', FORMAT);
  if (present(fields, BIT.verbosity)) request.verbosity = expectString(body['verbosity'], '/verbosity', FORMAT);
  if (present(fields, BIT.stream_options)) decodeStreamOptions(body['stream_options'], request, losses);
}

/** `stream_options`: `include_usage` and `include_obfuscation` into the IR; other keys (or an empty object) stay the body's own. */
function decodeStreamOptions(value: unknown, request: Request, losses: LossCollector): void {
  const options = expectObject(value, '/stream_options', FORMAT);
  let rest: JsonObject | undefined;
  let read = false;
  for (const key in options) {
    const entry = options[key];
    if (key === 'include_usage' && typeof entry === 'boolean') request.streamUsage = entry;
    else if (key === 'include_obfuscation' && typeof entry === 'boolean') {
      request.streamObfuscation = entry;
      losses.originField(request, 'streamObfuscation', '/stream_options/include_obfuscation');
    } else {
      (rest ??= {})[key] = entry;
      continue;
    }
    read = true;
  }
  if (rest !== undefined || !read) extend(request, FORMAT, { stream_options: rest ?? {} });
}

/**
 * `stream_options` from the IR's stream settings and the body's own keys;
 * `undefined` when there are none. A stream from another format asks for
 * its usage, which every other format's stream reports unasked.
 */
function encodeStreamOptions(request: Request): JsonObject | undefined {
  const usage = request.streamUsage ?? (request.stream === true && shapeHint(request, '$noStreamUsage') !== true ? true : undefined);
  if (usage === undefined && request.streamObfuscation === undefined) return undefined;
  const kept = extensionsOf(request, FORMAT)?.['stream_options'];
  const options: JsonObject = isObject(kept) ? { ...kept } : {};
  if (usage !== undefined) options['include_usage'] = usage;
  if (request.streamObfuscation !== undefined) options['include_obfuscation'] = request.streamObfuscation;
  return options;
}

function decodeUser(body: JsonObject, request: Request): void {
  const safety = body['safety_identifier'];
  const user = body['user'];
  if (typeof safety === 'string') {
    request.user = safety;
    if (user !== undefined && user !== null) keepUnknown(request, { user: expectString(user, '/user', FORMAT) }, keys());
  } else if (user !== undefined && user !== null) {
    request.user = expectString(user, '/user', FORMAT);
    chatHint(request, '$userField', 'user');
  } else if (safety !== undefined && safety !== null) {
    expectString(safety, '/safety_identifier', FORMAT);
  }
}

function decodeMetadata(value: unknown, request: Request): void {
  const metadata = expectObject(value, '/metadata', FORMAT);
  const strings: Record<string, string> = {};
  for (const key in metadata) strings[key] = expectString(metadata[key], pointer('/metadata', key), FORMAT);
  request.metadata = strings;
}

/** Service tiers Chat Completions takes (`fast` since openai 7), and the nearest for other formats' (Gemini `standard`, Anthropic `standard_only`, Responses `ultrafast`). */
const SERVICE_TIERS = valueTable({
  auto: ['auto', true],
  default: ['default', true],
  flex: ['flex', true],
  scale: ['scale', true],
  priority: ['priority', true],
  fast: ['fast', true],
  standard: ['default', true],
  standard_only: ['default', false],
  ultrafast: ['fast', false],
});

/** Decode a Chat Completions request body. */
export function decodeOpenaiChatRequest(body: unknown, context: CodecContext): Request {
  const object = expectObject(body, '', FORMAT);
  const target = context.target;
  const messages = decodeOpenaiChatMessages(required(object, 'messages', '', FORMAT), '/messages', context.losses, keepsHints(target), parsesArguments(target));
  const request: Request = { messages };
  if (messages.length === 0 && keepsHints(target)) chatHint(request, '$emptyMessages', true);
  for (let index = 0; index < messages.length; index++) {
    const extensions = (messages[index] as Message).extensions;
    if (extensions !== undefined) noteDialect(request, extensions[FORMAT]?.['$dialect'] as OpenaiChatDialect | undefined);
  }
  const { present: fields, rest } = scanBody(object);
  decodeOpenaiChatModalities(rest, request);
  extend(request, FORMAT, rest?.[CACHE_CONTROL_KEY] === undefined ? rest : liftAutomaticBreakpoint(request, rest, context.losses));
  if (present(fields, BIT.model)) request.model = expectString(object['model'], '/model', FORMAT);
  else if (context.model !== undefined) request.model = context.model;
  if (present(fields, BIT.tools)) {
    request.tools = decodeOpenaiChatTools(object['tools'], '/tools', context.losses);
    if (request.tools.length === 0 && keepsHints(target)) chatHint(request, '$emptyTools', true);
    if (context.losses.recording) request.tools.forEach((tool, index) => context.losses.origin(tool, pointer('/tools', index)));
    else {
      // A `strict` flag is dropped by Gemini and Ollama, which report it on the tool (`addAt`): anchored, as the Responses decoder does.
      const tools = request.tools;
      for (let index = 0; index < tools.length; index++) {
        const tool = tools[index] as Tool;
        if (tool.type === 'function' && tool.strict !== undefined) context.losses.anchorItem(tool, `/tools/${index}`);
      }
    }
  }
  if (present(fields, BIT.web_search_options)) {
    const search = decodeWebSearchOptions(object['web_search_options']);
    if (search === undefined) keepUnknown(request, { web_search_options: object['web_search_options'] }, keys());
    else {
      // Chat spells the search as a request setting, not a tool: it goes back there (and to a Chat body without a tools list, none is written).
      chatHint(search, '$webSearchOptions', true);
      (request.tools ??= []).push(context.losses.anchorItem(search, '/web_search_options'));
      context.losses.originFields(search, object['web_search_options'] as JsonObject, '/web_search_options', WEB_SEARCH_FIELDS);
    }
  }
  if (present(fields, BIT.functions)) {
    const functions = decodeOpenaiChatFunctions(object['functions'], '/functions');
    functions.forEach((tool, index) => context.losses.origin(tool, pointer('/functions', index)));
    request.tools = [...(request.tools ?? []), ...functions];
  }
  if (present(fields, BIT.tool_choice)) {
    const choice = decodeOpenaiChatToolChoice(object['tool_choice'], '/tool_choice', request.tools);
    if (choice === undefined) keepUnknown(request, { tool_choice: object['tool_choice'] }, keys());
    else request.toolChoice = choice;
  }
  if (present(fields, BIT.function_call) && request.toolChoice === undefined) {
    const choice = decodeOpenaiChatFunctionChoice(object['function_call']);
    if (choice === undefined) {
      keepUnknown(request, { function_call: object['function_call'] }, keys());
    } else {
      request.toolChoice = choice;
      chatHint(request, '$legacyFunctionCall', true);
    }
  } else if (present(fields, BIT.function_call)) {
    // Beside a `tool_choice`, it travels as it is (a `null` one travels with the scan's rest).
    keepUnknown(request, { function_call: object['function_call'] }, keys());
  }
  if (present(fields, BIT.parallel_tool_calls)) {
    request.parallelToolCalls = expectBoolean(object['parallel_tool_calls'], '/parallel_tool_calls', FORMAT);
  }
  if (present(fields, BIT.response_format)) {
    const output = decodeOpenaiChatResponseFormat(object['response_format'], '/response_format', request);
    if (output === undefined) keepUnknown(request, { response_format: object['response_format'] }, keys());
    else request.output = output;
  }
  if (present(fields, BIT.reasoning_effort)) {
    request.reasoning = decodeOpenaiChatReasoningEffort(expectString(object['reasoning_effort'], '/reasoning_effort', FORMAT));
  }
  const generation = decodeOpenaiChatGeneration(object, request, fields);
  if (generation !== undefined) request.generation = generation;
  if (present(fields, BIT.user) || present(fields, BIT.safety_identifier)) decodeUser(object, request);
  if (present(fields, BIT.metadata)) decodeMetadata(object['metadata'], request);
  if (present(fields, BIT.service_tier)) {
    const tier = expectString(object['service_tier'], '/service_tier', FORMAT);
    request.serviceTier = tier;
    // A tier this codec does not list goes back to Chat as it came, and nowhere else.
    noteOwnTier(request, FORMAT, SERVICE_TIERS, tier);
  }
  if ((fields & OPENAI_SETTINGS_BITS) !== 0) decodeOpenaiSettings(object, request, fields, context.losses);
  if (present(fields, BIT.stream)) {
    request.stream = expectBoolean(object['stream'], '/stream', FORMAT);
    // A stream that did not ask for its usage goes back to Chat without asking (other formats' streams get it asked for).
    if (request.stream && request.streamUsage === undefined && keepsHints(target)) chatHint(request, '$noStreamUsage', true);
  }
  decodeOpenrouterReasoning(request);
  context.losses.originFields(request, object, '', REQUEST_ORIGINS);
  context.losses.originFields(request.generation, object, '', GENERATION_ORIGINS);
  // A value outside Chat's own bounds (a body OpenAI refused, kept as recorded) goes back to Chat as it came.
  if (keepsHints(target) && outOfBounds(request, FORMAT)) chatHint(request, '$outOfBounds', true);
  return request;
}


/** Encode an IR request as a Chat Completions request body. */
export function encodeOpenaiChatRequest(request: Request, context: CodecContext): JsonObject {
  const { losses } = context;
  if (request.extensions !== undefined) losses.foreignExtensions(request.extensions, FORMAT, '');
  const wire: JsonObject = {};
  // `options.model` names the model when the source body had none (a Gemini body, whose model is in the URL; a Bedrock body).
  const model = request.model ?? context.model;
  if (model !== undefined) wire['model'] = model;
  const dialect = activeDialect(request, context.dialect);
  // The bounds are plain OpenAI's; a dialect's server has its own (vLLM's `top_k: -1`, …).
  if (dialect === 'openai' && shapeHint(request, '$outOfBounds') !== true) request = fitRequestBounds(request, FORMAT, losses);
  // Plain OpenAI and OpenRouter write the breakpoints of content parts and tool results in their spelling, the other dialects those spelled in Chat (see cache-breakpoint.ts).
  const mode = requestMode(dialect);
  const automatic = writesAutomatic(request, mode);
  // Automatic caching: a top-level cache_control for OpenRouter (or back to the dialect it came from), else plain OpenAI's breakpoint on the last part that takes one, as Anthropic places it.
  const placed = mode === 'openai' && !automatic ? placeAutomaticBreakpoint(request, CARRIED.openai, losses, FORMAT) : request;
  dropRequestCacheBreakpoints(placed, losses, dialect === 'openai' ? FORMAT : `${FORMAT} (${dialect})`, CARRIED[mode], automatic);
  const messages = encodeOpenaiChatMessages(placed.messages, losses, dialect);
  // Chat refuses an empty list: only a Chat body that had one gets it back.
  if (messages.length === 0 && shapeHint(request, '$emptyMessages') !== true) throw noConversation('Chat Completions', '/messages');
  wire['messages'] = messages;
  const search = encodeWebSearchOptions(request.tools, model, losses);
  if (search !== undefined) wire['web_search_options'] = search;
  let toolless = false;
  if (request.tools !== undefined) {
    const { tools, functions } = encodeOpenaiChatTools(request.tools, losses);
    // OpenAI refuses an empty list (`empty_array`): only a Chat body that had one gets it back.
    if (tools.length > 0 || (functions.length === 0 && request.tools.length === 0 && shapeHint(request, '$emptyTools') === true)) wire['tools'] = tools;
    if (functions.length > 0) wire['functions'] = functions;
    toolless = allToolsDropped(request, tools.length + functions.length, losses, 'Chat Completions');
  }
  if (request.toolChoice !== undefined && !toolless) {
    const legacy = shapeHint(request, '$legacyFunctionCall') === true ? encodeOpenaiChatFunctionChoice(request.toolChoice) : undefined;
    if (legacy === undefined) wire['tool_choice'] = encodeOpenaiChatToolChoice(request.toolChoice, request.tools);
    else wire['function_call'] = legacy;
  }
  if (request.parallelToolCalls !== undefined && !toolless) wire['parallel_tool_calls'] = request.parallelToolCalls;
  if (request.output !== undefined) wire['response_format'] = encodeOpenaiChatResponseFormat(request.output, request, losses);
  if (request.reasoning !== undefined && dialect === 'openrouter') {
    wire['reasoning'] = encodeOpenrouterReasoning(request.reasoning, request);
  } else if (request.reasoning !== undefined) {
    const effort = encodeOpenaiChatReasoningEffort(request.reasoning, losses);
    if (effort !== undefined) wire['reasoning_effort'] = effort;
  }
  if (request.generation !== undefined) encodeOpenaiChatGeneration(request.generation, request, wire, context);
  if (request.user !== undefined) wire[shapeHint(request, '$userField') === 'user' ? 'user' : 'safety_identifier'] = request.user;
  if (request.metadata !== undefined) wire['metadata'] = request.metadata;
  if (request.serviceTier !== undefined) {
    const tier = ownOrMapped(request, FORMAT, request.serviceTier, SERVICE_TIERS, losses, '/serviceTier', 'service tier', 'Chat Completions');
    if (tier !== undefined) wire['service_tier'] = tier;
  }
  if (request.stream !== undefined) wire['stream'] = request.stream;
  if (request.store !== undefined) wire['store'] = request.store;
  if (request.promptCacheKey !== undefined) wire['prompt_cache_key'] = request.promptCacheKey;
  if (request.promptCacheRetention !== undefined) wire['prompt_cache_retention'] = request.promptCacheRetention;
  if (request.verbosity !== undefined) wire['verbosity'] = request.verbosity;
  const streamOptions = encodeStreamOptions(request);
  if (streamOptions !== undefined) wire['stream_options'] = streamOptions;
  if (automatic && request.cache !== undefined) wire[CACHE_CONTROL_KEY] = automaticCacheControl(request.cache, losses);
  encodeOpenaiChatModalities(request, wire, losses);
  return spreadExtensions(wire, request, FORMAT);
}
