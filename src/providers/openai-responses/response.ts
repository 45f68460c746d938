/**
 * Responses: Responses `Response` objects ⇄ IR responses. The output items
 * form the one candidate's assistant message. The request settings a
 * response echoes (`instructions`, `tools`, `temperature`, …) are kept
 * together as the `$echo` hint: they restate the request and carry nothing
 * about the answer, so other formats need not report them. Fields that
 * describe the answer (`billing`, a failed response's
 * `error`, …) are extensions.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
import type { LossCollector } from '../../core/losses.ts';
import type { CodecContext } from '../../core/codec.ts';
import { randomAnswerIds } from '../../core/answer-ids.ts';
import type { Message, Part, Response, Usage } from '../../core/ir.ts';
import {
  expectArray, expectNumber, expectObject, expectString, extend, hint, isObject, pointer, required, spreadExtensions, type JsonObject,
} from '../../core/wire.ts';
import { decodeOpenaiResponsesOutput } from './items-decode.ts';
import { encodeOpenaiResponsesOutput } from './items-encode.ts';
import { FORMAT, keepNulls, present, restoreNulls } from './shape.ts';
import { decodeOpenaiResponsesStopReason, encodeOpenaiResponsesStopReason, isIncompleteReason, openaiResponsesStatusOf } from './stop-reason.ts';
import { answerTier, decodeOpenaiResponsesUsage, encodeOpenaiResponsesUsage, readAnswerTier } from './usage.ts';
import { dropResponseCacheBreakpoints } from '../../core/cache-points.ts';


/** Request settings that a response echoes. */
const ECHO: ReadonlySet<string> = new Set([
  'background', 'completed_at', 'conversation', 'context_management', 'frequency_penalty', 'include', 'input', 'instructions', 'max_output_tokens',
  'max_tool_calls', 'metadata', 'moderation', 'parallel_tool_calls', 'presence_penalty', 'previous_response_id', 'prompt',
  'prompt_cache_key', 'prompt_cache_options', 'prompt_cache_retention', 'reasoning', 'safety_identifier', 'store', 'temperature',
  'text', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user',
]);

const NONE: readonly string[] = [];

/**
 * The request settings every OpenAI answer restates, with the values it
 * gives a request that did not set them (recorded answers in the corpus,
 * such as lingua `codeInterpreterToolParam`; the SDK's `Response` type).
 * The object-valued ones (`metadata`, `reasoning`, `text`, `tools`) are
 * written fresh per body in {@link writeEcho}.
 */
const SCALAR_ECHO: readonly (readonly [string, unknown])[] = [
  ['background', false],
  ['frequency_penalty', 0],
  ['instructions', null],
  ['max_output_tokens', null],
  ['max_tool_calls', null],
  ['parallel_tool_calls', true],
  ['presence_penalty', 0],
  ['previous_response_id', null],
  ['prompt_cache_key', null],
  ['safety_identifier', null],
  ['store', true],
  ['temperature', 1],
  ['tool_choice', 'auto'],
  ['top_logprobs', 0],
  ['top_p', 1],
  ['truncation', 'disabled'],
  ['user', null],
];

/**
 * Echo, for a response of another format, the settings of the request it
 * answers (`request`, the caller's Responses body, when known) as OpenAI
 * does: the values the request sent, else OpenAI's defaults.
 */
function writeEcho(body: JsonObject, request: unknown): void {
  const sent = isObject(request) ? request : undefined;
  for (let index = 0; index < SCALAR_ECHO.length; index++) {
    const [key, fallback] = SCALAR_ECHO[index] as readonly [string, unknown];
    const value = sent?.[key];
    body[key] = (value === undefined ? fallback : value) as JsonObject[string];
  }
  const metadata = sent?.['metadata'];
  body['metadata'] = isObject(metadata) ? metadata : {};
  const tools = sent?.['tools'];
  body['tools'] = Array.isArray(tools) ? tools : [];
  const reasoning = sent?.['reasoning'];
  body['reasoning'] = { effort: null, summary: null, ...(isObject(reasoning) ? reasoning : {}) };
  const text = sent?.['text'];
  body['text'] = { format: { type: 'text' }, verbosity: 'medium', ...(isObject(text) ? text : {}) };
  // `service_tier` is the tier that served the answer (`Usage.serviceTier`), written with the usage when known: one made up here would read back as a served tier.
  // Completed answers say when; another format's answer says only when it was made.
  body['completed_at'] = body['status'] === 'completed' && typeof body['created_at'] === 'number' ? body['created_at'] : null;
}

/** Whether some message item of `output` holds a refusal part. */
function hasRefusal(output: readonly JsonObject[]): boolean {
  for (let index = 0; index < output.length; index++) {
    const content = (output[index] as JsonObject)['content'];
    if (!Array.isArray(content)) continue;
    for (let part = 0; part < content.length; part++) {
      const entry: unknown = content[part];
      if (isObject(entry) && entry['type'] === 'refusal') return true;
    }
  }
  return false;
}

/** `output_text`: the SDK's concatenation of every output_text part. */
function outputText(output: unknown[]): string {
  let text = '';
  for (const item of output) {
    if (!isObject(item) || item['type'] !== 'message' || !Array.isArray(item['content'])) continue;
    for (const part of item['content']) if (isObject(part) && part['type'] === 'output_text' && typeof part['text'] === 'string') text += part['text'];
  }
  return text;
}

/** Is `key` a field decoded into a neutral slot or the stop reason? (A switch: cheaper than a set lookup per key of a response that echoes some thirty settings.) */
function isKnown(key: string): boolean {
  switch (key) {
    case 'id':
    case 'object':
    case 'created_at':
    case 'model':
    case 'output':
    case 'usage':
    case 'status':
    case 'incomplete_details':
    case 'error':
    case 'output_text':
      return true;
    default:
      return false;
  }
}

function splitFields(wire: JsonObject, response: Response, tierRead: boolean): void {
  // Always set, even empty: it also marks the response as decoded from this format.
  const echo: JsonObject = {};
  let rest: JsonObject | undefined;
  for (const key in wire) {
    if (isKnown(key) || (tierRead && key === 'service_tier')) continue;
    if (ECHO.has(key)) echo[key] = wire[key];
    else (rest ??= {})[key] = wire[key];
  }
  hint(response, FORMAT, '$echo', echo);
  extend(response, FORMAT, rest);
}

function decodeStatusFields(wire: JsonObject, response: Response, parts: Part[], losses: LossCollector): Response['candidates'][number] {
  const message: Message = losses.origin({ role: 'assistant', parts }, '/output');
  const candidate: Response['candidates'][number] = { index: 0, message };
  const absent = ['object', 'error', 'incomplete_details', 'output_text'].filter((key) => wire[key] === undefined);
  if (absent.length > 0) hint(response, FORMAT, '$absent', absent);
  const status = wire['status'];
  const details = wire['incomplete_details'];
  let reason: string | undefined;
  if (isObject(details)) {
    const raw = details['reason'];
    // An incomplete reason the codec does not know travels whole as an extension (the stop reason then says `incomplete`).
    if (typeof raw === 'string' && Object.keys(details).length === 1 && isIncompleteReason(raw)) reason = raw;
    else extend(response, FORMAT, { incomplete_details: details });
  }
  if (present(status)) candidate.stopReason = losses.origin(decodeOpenaiResponsesStopReason(expectString(status, '/status', FORMAT), reason, parts), '/status');
  else if (reason !== undefined) extend(response, FORMAT, { incomplete_details: details });
  if (status === undefined) {
    hint(response, FORMAT, '$noStatus', true);
    // No status (some gateways and test doubles omit it): the output says what happened, as it would for `completed`.
    if (candidate.stopReason === undefined) candidate.stopReason = { unified: parts.some((part) => part.type === 'tool_call') ? 'tool_calls' : 'end_turn', format: FORMAT };
  }
  if (present(wire['error'])) extend(response, FORMAT, { error: wire['error'] });
  const object = wire['object'];
  if (object !== undefined && object !== 'response') extend(response, FORMAT, { object });
  return candidate;
}

/** Decode a Responses response body into an IR response. */
export function decodeOpenaiResponsesResponse(body: unknown, context: CodecContext): Response {
  const wire = expectObject(body, '', FORMAT);
  const output = expectArray(required(wire, 'output', '', FORMAT), '/output', FORMAT);
  const parts = decodeOpenaiResponsesOutput(output, '/output', context.losses, context.target);
  const response: Response = { candidates: [] };
  if (present(wire['id'])) response.id = expectString(wire['id'], '/id', FORMAT);
  if (present(wire['model'])) response.model = expectString(wire['model'], '/model', FORMAT);
  if (present(wire['created_at'])) response.created = expectNumber(wire['created_at'], '/created_at', FORMAT);
  if (present(wire['usage'])) response.usage = context.losses.anchor(decodeOpenaiResponsesUsage(wire['usage'], '/usage'), '/usage');
  // The tier that served the answer is the usage's (it prices the tokens); without usage it stays the body's own.
  const tier = wire['service_tier'];
  const tierRead = response.usage !== undefined && typeof tier === 'string';
  if (tierRead) readAnswerTier(response.usage as Usage, tier as string);
  response.candidates.push(decodeStatusFields(wire, response, parts, context.losses));
  const text = wire['output_text'];
  if (text !== undefined) hint(response, FORMAT, '$outputText', text === outputText(output) ? true : text);
  // keepNulls looks up each key; mostly none is null.
  if (wire['id'] === null || wire['model'] === null || wire['created_at'] === null || wire['usage'] === null) keepNulls(response, wire, ['id', 'model', 'created_at', 'usage']);
  splitFields(wire, response, tierRead);
  return response;
}

/** Encode an IR response as a Responses response body. */
export function encodeOpenaiResponsesResponse(response: Response, context: CodecContext): JsonObject {
  const losses = context.losses;
  losses.foreignExtensions(response.extensions, FORMAT, '');
  dropResponseCacheBreakpoints(response, losses, FORMAT);
  const candidate = response.candidates[0];
  for (let index = 1; index < response.candidates.length; index++) {
    losses.add('dropped_field', pointer('/candidates', index), 'OpenAI Responses returns one candidate; extra candidates dropped');
  }
  const own = response.extensions?.[FORMAT];
  const absent = own?.['$absent'];
  const omitted: readonly string[] = Array.isArray(absent) ? (absent as string[]) : NONE;
  const body: JsonObject = {};
  const echo = own?.['$echo'];
  const native = echo !== undefined;
  if (response.id !== undefined) body['id'] = response.id;
  else if (!native) {
    body['id'] = (context.ids ?? randomAnswerIds).id('resp_');
    losses.add('synthesised_id', '/id', 'response id made up by interlingua', 'info');
  }
  if (!omitted.includes('object')) body['object'] = 'response';
  if (response.created !== undefined) body['created_at'] = response.created;
  else if (!native) {
    body['created_at'] = (context.ids ?? randomAnswerIds).now();
    losses.add('defaulted', '/created', `OpenAI Responses needs created_at; ${String(body['created_at'])} (the time of the answer) was used`, 'info');
  }
  if (response.model !== undefined) body['model'] = response.model;
  const message: Message = candidate?.message ?? { role: 'assistant', parts: [] };
  if (candidate !== undefined) {
    losses.foreignExtensions(candidate.extensions, FORMAT, '/candidates/0');
    losses.foreignExtensions(message.extensions, FORMAT, '/candidates/0/message');
  }
  const stop = candidate?.stopReason;
  const output = encodeOpenaiResponsesOutput(message, '/candidates/0/message', {
    losses,
    target: 'response',
    messageStatus: openaiResponsesStatusOf(stop).status === 'incomplete' ? 'incomplete' : 'completed',
    textAsRefusal: stop !== undefined && stop.format !== FORMAT && stop.unified === 'refusal',
  });
  body['output'] = output;
  const refusalParts = hasRefusal(output);
  const status = encodeOpenaiResponsesStopReason(stop, losses, '/candidates/0/stopReason', refusalParts);
  if (own?.['$noStatus'] !== true) {
    body['status'] = status.status;
    if (status.reason !== undefined) body['incomplete_details'] = { reason: status.reason };
  }
  if (response.usage !== undefined) {
    body['usage'] = encodeOpenaiResponsesUsage(response.usage, losses, '/usage');
    const tier = answerTier(response.usage, losses);
    if (tier !== undefined) body['service_tier'] = tier;
  }
  if (isObject(echo)) Object.assign(body, echo);
  else if (!native) writeEcho(body, context.request);
  if (own !== undefined) {
    const text = own['$outputText'];
    if (text === true) body['output_text'] = outputText(output);
    else if (typeof text === 'string') body['output_text'] = text;
    restoreNulls(spreadExtensions(body, response, FORMAT), response);
  }
  if (body['error'] === undefined && !('error' in body) && !omitted.includes('error')) body['error'] = null;
  if (body['incomplete_details'] === undefined && !('incomplete_details' in body) && !omitted.includes('incomplete_details')) body['incomplete_details'] = null;
  return body;
}
