/**
 * Ollama `POST /api/chat` request bodies ↔ IR requests. `stream` defaults to
 * true in Ollama: a body without it is decoded as a streaming request (and
 * an IR request that does not ask for a stream is sent with `stream: false`).
 * `/api/generate` bodies (`prompt`, `system`, `images`) are decoded too, as a
 * system and a user message, and written back in that shape.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-completion
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Message, OutputFormat, Request } from '../../core/ir.ts';
import { expectBoolean, expectNumber, expectString, expectObject, extend, extensionsOf, hint, isObject, pointer, spreadExtensions, unknownKeys, type JsonObject } from '../../core/wire.ts';
import type { LossCollector } from '../../core/losses.ts';
import { decodeOllamaMessages } from './messages-decode.ts';
import { encodeOllamaMessages } from './messages-encode.ts';
import { decodeOllamaOptions, encodeOllamaOptions } from './options.ts';
import { decodeOllamaThink, encodeOllamaThink } from './think.ts';
import { decodeOllamaTools, encodeOllamaTools, reportOllamaToolChoice } from './tools.ts';
import { decodeOllamaGeneratePrompt, encodeOllamaGeneratePrompt } from './generate.ts';
import { FORMAT, keepsHints, keys, ollamaHint } from './shape.ts';
import { dropRequestCacheBreakpoints } from '../../core/cache-points.ts';
import { reportOutputModalities, reportUncarriedSettings } from '../../core/request-settings.ts';

const GENERATE_KNOWN = keys('model', 'prompt', 'system', 'images', 'format', 'options', 'stream', 'think', 'logprobs', 'top_logprobs');

/** The keys of a chat body this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function chatExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'model':
      case 'messages':
      case 'tools':
      case 'format':
      case 'options':
      case 'stream':
      case 'think':
      case 'logprobs':
      case 'top_logprobs':
        continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

function decodeFormat(value: unknown, request: Request): void {
  if (value === 'json') request.output = { type: 'json' };
  else if (isObject(value)) request.output = { type: 'json_schema', schema: value };
  // "" is no format (as langchaingo sends it): nothing another format lacks, so a shape hint.
  else if (value === '') hint(request, FORMAT, '$formatEmpty', true);
  // Anything else travels as it is.
  else extend(request, FORMAT, { format: value });
}

function encodeFormat(output: OutputFormat, losses: LossCollector): unknown {
  switch (output.type) {
    case 'text':
      return undefined;
    case 'json':
      return 'json';
    case 'json_schema':
      if (output.name !== undefined || output.description !== undefined || output.strict !== undefined) {
        losses.add('dropped_field', '/output', 'Ollama takes only the JSON schema; its name, description and strict switch were dropped', 'info');
      }
      return output.schema;
  }
}

/** Where IR request fields come from on the wire, for loss paths. */
const REQUEST_ORIGINS = { output: 'format', reasoning: 'think', model: 'model', stream: 'stream', generation: 'options' } as const;
const OPTION_ORIGINS = {
  maxTokens: 'num_predict',
  temperature: 'temperature',
  topP: 'top_p',
  topK: 'top_k',
  seed: 'seed',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
  stop: 'stop',
} as const;
const GENERATION_ORIGINS = { logprobs: 'logprobs', topLogprobs: 'top_logprobs' } as const;

/** Decode an Ollama chat (or generate) request body. */
export function decodeOllamaRequest(body: unknown, context: CodecContext): Request {
  const object = expectObject(body, '', FORMAT);
  // Without messages the body is a generate body (`{"model": …}` alone loads a model there).
  const generate = object['messages'] === undefined;
  const messages: Message[] = generate
    ? decodeOllamaGeneratePrompt(object, context.losses)
    : decodeOllamaMessages(object['messages'], '/messages', context.losses, keepsHints(context.target));
  const request: Request = { messages };
  if (generate) ollamaHint(request, '$generate', true);
  const model = object['model'];
  if (model !== undefined) request.model = expectString(model, '/model', FORMAT);
  else if (context.model !== undefined) request.model = context.model;
  if (object['tools'] !== undefined) {
    request.tools = decodeOllamaTools(object['tools'], '/tools', context.losses);
    if (context.losses.recording) request.tools.forEach((tool, index) => context.losses.origin(tool, pointer('/tools', index)));
  }
  if (object['format'] !== undefined) decodeFormat(object['format'], request);
  if (object['options'] !== undefined) decodeOllamaOptions(object['options'], '/options', request);
  if (object['think'] !== undefined) request.reasoning = decodeOllamaThink(object['think'], '/think');
  const logprobs = object['logprobs'];
  const topLogprobs = object['top_logprobs'];
  if (logprobs !== undefined || topLogprobs !== undefined) {
    const generation = (request.generation ??= {});
    if (logprobs !== undefined) generation.logprobs = expectBoolean(logprobs, '/logprobs', FORMAT);
    if (topLogprobs !== undefined) generation.topLogprobs = expectNumber(topLogprobs, '/top_logprobs', FORMAT);
  }
  const stream = object['stream'];
  if (stream === undefined) {
    request.stream = true;
    ollamaHint(request, '$streamDefault', true);
  } else {
    request.stream = expectBoolean(stream, '/stream', FORMAT);
  }
  extend(request, FORMAT, generate ? unknownKeys(object, GENERATE_KNOWN) : chatExtras(object));
  context.losses.originFields(request, object, '', REQUEST_ORIGINS);
  if (isObject(object['options'])) context.losses.originFields(request.generation, object['options'], '/options', OPTION_ORIGINS);
  context.losses.originFields(request.generation, object, '', GENERATION_ORIGINS);
  return request;
}

/** Encode an IR request as an Ollama chat (or, for a decoded generate body, generate) request body. */
export function encodeOllamaRequest(request: Request, context: CodecContext): JsonObject {
  const { losses } = context;
  losses.foreignExtensions(request.extensions, FORMAT, '');
  dropRequestCacheBreakpoints(request, losses, FORMAT);
  const ollama = extensionsOf(request, FORMAT);
  const wire: JsonObject = {};
  if (request.model !== undefined) wire['model'] = request.model;
  if (ollama?.['$generate'] === true) Object.assign(wire, encodeOllamaGeneratePrompt(request.messages, losses));
  else wire['messages'] = encodeOllamaMessages(request.messages, losses);
  const sendTools = reportOllamaToolChoice(request, losses);
  if (request.tools !== undefined && sendTools) {
    const tools = encodeOllamaTools(request.tools, losses);
    if (tools.length > 0 || request.tools.length === 0) wire['tools'] = tools;
  }
  if (request.output !== undefined) {
    const format = encodeFormat(request.output, losses);
    if (format !== undefined) wire['format'] = format;
  } else if (ollama?.['$formatEmpty'] === true) wire['format'] = '';
  const options = encodeOllamaOptions(request, losses);
  if (options !== undefined) wire['options'] = options;
  if (request.reasoning !== undefined) {
    const think = encodeOllamaThink(request.reasoning, losses);
    if (think !== undefined) wire['think'] = think;
  }
  const generation = request.generation;
  if (generation?.logprobs !== undefined) wire['logprobs'] = generation.logprobs;
  if (generation?.topLogprobs !== undefined) wire['top_logprobs'] = generation.topLogprobs;
  if (!(request.stream === true && ollama?.['$streamDefault'] === true)) wire['stream'] = request.stream === true;
  if (request.user !== undefined) losses.add('dropped_field', '/user', 'Ollama has no end-user id; dropped');
  if (request.metadata !== undefined) losses.add('dropped_field', '/metadata', 'Ollama has no request metadata; dropped');
  if (request.serviceTier !== undefined) losses.add('dropped_field', '/serviceTier', 'Ollama has no service tier; dropped');
  reportUncarriedSettings(request, losses, 'Ollama');
  reportOutputModalities(request, losses, 'Ollama');
  return spreadExtensions(wire, request, FORMAT);
}
