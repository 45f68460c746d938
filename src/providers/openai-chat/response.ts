/**
 * Chat Completions response bodies (`chat.completion`) ↔ IR responses.
 * Every choice is kept as a candidate.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 */
import type { CodecContext } from '../../core/codec.ts';
import { randomAnswerIds } from '../../core/answer-ids.ts';
import type { Candidate, Part, Response, Usage } from '../../core/ir.ts';
import {
  expectArray,
  expectNumber,
  expectObject,
  expectString,
  extend,
  required,
  spreadExtensions,
  type JsonObject,
} from '../../core/wire.ts';
import type { LossCollector } from '../../core/losses.ts';
import { decodeOpenaiChatAssistant } from './assistant-decode.ts';
import { encodeOpenaiChatAssistant } from './assistant-encode.ts';
import { decodeOpenaiChatFinishReason, encodeOpenaiChatFinishReason } from './stop-reason.ts';
import { answerTier, decodeOpenaiChatUsage, encodeOpenaiChatUsage, readAnswerTier } from './usage.ts';
import { FORMAT, chatHint, keepUnknown, keepsHints, keys, parsesArguments, shapeHint } from './shape.ts';
import { activeDialect, noteDialect, type OpenaiChatDialect } from './dialects.ts';
import { dropResponseCacheBreakpoints } from '../../core/cache-points.ts';
import { modalityOrigins } from '../../core/usage.ts';


const NONE: ReadonlySet<string> = keys();

/**
 * The keys of a response body that travel as extensions: unknown keys, and known keys set to `null`
 * (but `system_fingerprint`, whose `null` is a hint). A switch: cheaper than set lookups per key.
 */
function responseExtras(object: JsonObject, tierRead: boolean): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    switch (key) {
      case 'system_fingerprint':
        continue;
      case 'service_tier':
        if (tierRead) continue;
        break;
      case 'id':
      case 'object':
      case 'created':
      case 'model':
      case 'choices':
      case 'usage':
        if (value !== null) continue;
    }
    (rest ??= {})[key] = value;
  }
  return rest;
}

/** The keys of a choice that travel as extensions: unknown keys, and `index` or `message` set to `null` (the other two's `null` is a hint). */
function choiceExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    switch (key) {
      case 'finish_reason':
      case 'logprobs':
        continue;
      case 'index':
      case 'message':
        if (value !== null) continue;
    }
    (rest ??= {})[key] = value;
  }
  return rest;
}

function decodeChoice(value: unknown, path: string, losses: LossCollector, hints: boolean, parse: boolean): Candidate {
  const choice = expectObject(value, path, FORMAT);
  const messagePath = `${path}/message`;
  const wireMessage = choice['message'];
  // Azure OpenAI answers a filtered completion with a choice that has no message (or a null one).
  const message =
    wireMessage === undefined || wireMessage === null
      ? { role: 'assistant' as const, parts: [] }
      : decodeOpenaiChatAssistant(expectObject(wireMessage, messagePath, FORMAT), messagePath, losses, 'response', 0, hints, parse);
  const index = choice['index'];
  losses.origin(message, messagePath);
  const candidate: Candidate = losses.origin({ index: index === undefined ? 0 : expectNumber(index, `${path}/index`, FORMAT), message }, path);
  if (hints) {
    if (index === undefined) chatHint(candidate, '$noIndex', true);
    if (wireMessage === undefined || wireMessage === null) chatHint(candidate, '$message', wireMessage === null ? 'null' : 'absent');
  }
  const finish = choice['finish_reason'];
  if (typeof finish === 'string') {
    candidate.stopReason = losses.origin(decodeOpenaiChatFinishReason(finish, message.parts.some((part) => part.type === 'refusal')), `${path}/finish_reason`);
  }
  else if (finish === undefined) {
    if (hints) chatHint(candidate, '$finishReason', 'absent');
  } else if (finish === null) {
    if (hints) chatHint(candidate, '$finishReason', 'null');
  } else expectString(finish, `${path}/finish_reason`, FORMAT);
  const logprobs = choice['logprobs'];
  if (logprobs === undefined) {
    if (hints) chatHint(candidate, '$logprobs', 'absent');
  } else if (logprobs !== null) keepUnknown(candidate, { logprobs }, NONE);
  extend(candidate, FORMAT, choiceExtras(choice));
  return candidate;
}

/** Decode a Chat Completions response body. */
export function decodeOpenaiChatResponse(body: unknown, context: CodecContext): Response {
  const object = expectObject(body, '', FORMAT);
  const hints = keepsHints(context.target);
  const parse = parsesArguments(context.target);
  const choices = expectArray(required(object, 'choices', '', FORMAT), '/choices', FORMAT);
  const candidates: Candidate[] = new Array<Candidate>(choices.length);
  for (let index = 0; index < choices.length; index++) candidates[index] = decodeChoice(choices[index], `/choices/${index}`, context.losses, hints, parse);
  const response: Response = { candidates };
  for (const candidate of response.candidates) noteDialect(response, candidate.message.extensions?.[FORMAT]?.['$dialect'] as OpenaiChatDialect | undefined);
  const { id, model, created } = object;
  if (id !== undefined && id !== null) response.id = expectString(id, '/id', FORMAT);
  if (model !== undefined && model !== null) response.model = expectString(model, '/model', FORMAT);
  else if (context.model !== undefined) response.model = context.model;
  if (created !== undefined && created !== null) response.created = expectNumber(created, '/created', FORMAT);
  if (hints) {
    if (object['object'] !== 'chat.completion') chatHint(response, '$object', object['object'] ?? 'absent');
    if (id === undefined || id === null || created === undefined || created === null || model === undefined || model === null) {
      chatHint(response, '$absent', (['id', 'created', 'model'] as const).filter((key) => object[key] === undefined || object[key] === null));
    }
  }
  const fingerprint = object['system_fingerprint'];
  if (fingerprint === null || fingerprint === undefined) {
    // A body without one (gateways, OpenAI-compatible servers) goes back without one; another format's answer gets null.
    if (hints) chatHint(response, '$systemFingerprint', fingerprint === null ? 'null' : 'absent');
  } else keepUnknown(response, { system_fingerprint: fingerprint }, NONE);
  const usage = object['usage'];
  if (usage !== undefined && usage !== null) {
    response.usage = context.losses.anchor(decodeOpenaiChatUsage(usage, '/usage', hints), '/usage');
    modalityOrigins(response.usage, context.losses, '/usage/prompt_tokens_details', '/usage/completion_tokens_details');
  }
  // The tier that served the answer is the usage's (it prices the tokens); without usage it stays the body's own.
  const tier = object['service_tier'];
  const tierRead = response.usage !== undefined && typeof tier === 'string';
  if (tierRead) readAnswerTier(response.usage as Usage, tier as string);
  extend(response, FORMAT, responseExtras(object, tierRead));
  return response;
}

function encodeChoice(candidate: Candidate, path: string, losses: LossCollector, dialect: OpenaiChatDialect): JsonObject {
  const extensions = candidate.extensions;
  if (extensions !== undefined) losses.foreignExtensions(extensions, FORMAT, path);
  // The choice's hints and extras, read once (what `shapeHint` reads).
  const own = extensions?.[FORMAT];
  const noMessage = own?.['$message'];
  const parts = candidate.message.parts;
  const wire: JsonObject = { index: candidate.index };
  if (noMessage === undefined || parts.length > 0) {
    wire['message'] = encodeOpenaiChatAssistant(candidate.message, 'response', losses, `${path}/message`, dialect);
  } else if (noMessage === 'null') wire['message'] = null;
  if (own?.['$noIndex'] === true) delete wire['index'];
  if (candidate.stopReason !== undefined) {
    let hasToolCalls = false;
    let hasRefusal = false;
    for (let index = 0; index < parts.length; index++) {
      const type = (parts[index] as Part).type;
      if (type === 'tool_call') hasToolCalls = true;
      else if (type === 'refusal') hasRefusal = true;
    }
    wire['finish_reason'] = encodeOpenaiChatFinishReason(candidate.stopReason, hasToolCalls, losses, `${path}/stopReason`, hasRefusal);
  } else if (own?.['$finishReason'] === 'null') {
    wire['finish_reason'] = null;
  } else if (own?.['$finishReason'] !== 'absent') {
    // A whole answer needs a finish_reason, and the source named none (an Ollama answer without done_reason): it ended, so "stop".
    const stop = parts.some((part) => part.type === 'tool_call') ? 'tool_calls' : 'stop';
    wire['finish_reason'] = stop;
    losses.add('defaulted', `${path}/stopReason`, `the answer names no stop reason, and Chat Completions needs one; sent "${stop}"`, 'info');
  }
  if (own?.['$logprobs'] !== 'absent') wire['logprobs'] = null;
  if (own !== undefined && 'logprobs' in own) wire['logprobs'] = own['logprobs'];
  return spreadExtensions(wire, candidate, FORMAT);
}

/** Encode an IR response as a Chat Completions response body. */
export function encodeOpenaiChatResponse(response: Response, context: CodecContext): JsonObject {
  const { losses } = context;
  losses.foreignExtensions(response.extensions, FORMAT, '');
  dropResponseCacheBreakpoints(response, losses, FORMAT);
  const wire: JsonObject = {};
  // The spec requires id, created and model: filled when another format had none (a Chat body that lacked them stays as it was).
  const absentHint = shapeHint(response, '$absent');
  const absent: readonly unknown[] = Array.isArray(absentHint) ? absentHint : [];
  if (response.id !== undefined) wire['id'] = response.id;
  else if (!absent.includes('id')) {
    wire['id'] = (context.ids ?? randomAnswerIds).id('chatcmpl-');
    losses.add('synthesised_id', '/id', `Chat Completions responses need an id; "${String(wire['id'])}" was made up`, 'info');
  }
  const object = shapeHint(response, '$object');
  if (object === undefined) wire['object'] = 'chat.completion';
  else if (object !== 'absent') wire['object'] = object;
  if (response.created !== undefined) wire['created'] = response.created;
  else if (!absent.includes('created')) {
    wire['created'] = (context.ids ?? randomAnswerIds).now();
    losses.add('defaulted', '/created', `Chat Completions responses need created; the source had no time, ${String(wire['created'])} (the time of the answer) was sent`, 'info');
  }
  if (response.model !== undefined) wire['model'] = response.model;
  else if (!absent.includes('model')) {
    wire['model'] = context.model ?? 'unknown';
    losses.add('defaulted', '/model', `Chat Completions responses need a model; "${String(wire['model'])}" was used`, 'info');
  }
  const dialect = activeDialect(response, context.dialect);
  const candidates = response.candidates;
  // Pushed: a holey `new Array(length)` takes JSON.stringify's slow path.
  const choices: JsonObject[] = [];
  for (let index = 0; index < candidates.length; index++) choices.push(encodeChoice(candidates[index] as Candidate, `/candidates/${index}`, losses, dialect));
  wire['choices'] = choices;
  if (response.usage !== undefined) {
    wire['usage'] = encodeOpenaiChatUsage(response.usage, losses, '/usage');
    const tier = answerTier(response.usage, losses);
    if (tier !== undefined) wire['service_tier'] = tier;
  }
  // OpenAI's answers always carry system_fingerprint, mostly null (the spec types it a string, deprecated; test/support/spec-relaxations.json): another format's answer gets null, a Chat body keeps what it had.
  const fingerprint = shapeHint(response, '$systemFingerprint');
  if (fingerprint === 'null' || (fingerprint === undefined && dialect === 'openai' && response.extensions?.[FORMAT]?.['system_fingerprint'] === undefined)) wire['system_fingerprint'] = null;
  return spreadExtensions(wire, response, FORMAT);
}
