/**
 * Ollama `/api/chat` response bodies (`"stream": false`) ↔ IR responses: one
 * candidate from `message`, `done_reason`, the counts and timings, `model`
 * and `created_at`. Ollama has no response id. `/api/generate` bodies
 * (`response` and `thinking` instead of `message`) are decoded too.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#response-10
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Candidate, Extensible, Message, Response } from '../../core/ir.ts';
import { expectObject, expectString, extensionsOf, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import type { LossCollector } from '../../core/losses.ts';
import { PendingCalls, responseScope } from './ids.ts';
import { anchorMadeUpIds, decodeOllamaMessage, decodeOllamaThinking, recordOllamaOrigins } from './messages-decode.ts';
import { encodeOllamaParts, joinTexts } from './parts-encode.ts';
import { decodeOllamaDoneReason, encodeOllamaDoneReason } from './stop-reason.ts';
import { decodeOllamaUsage, encodeOllamaUsage, USAGE_KEYS } from './usage.ts';
import { FORMAT, keepUnknown, keepsHints, keys, ollamaHint, shapeHint } from './shape.ts';
import { dropResponseCacheBreakpoints } from '../../core/cache-points.ts';

const KNOWN = keys('model', 'created_at', 'message', 'done', 'done_reason', ...USAGE_KEYS);
const GENERATE_KNOWN = keys('model', 'created_at', 'response', 'thinking', 'done', 'done_reason', ...USAGE_KEYS);

/** Unix seconds of an RFC 3339 time, or `undefined`. */
export function createdSeconds(createdAt: string): number | undefined {
  const milliseconds = Date.parse(createdAt);
  return Number.isFinite(milliseconds) ? Math.floor(milliseconds / 1000) : undefined;
}

/** The `created_at` to write: the source's own text when it came from Ollama, else the time of `created`. */
export function createdAtText(response: Extensible & { created?: number }): string | undefined {
  const raw = extensionsOf(response, FORMAT)?.['$createdAt'];
  if (typeof raw === 'string') return raw;
  if (response.created === undefined) return undefined;
  const date = new Date(response.created * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function decodeGenerateMessage(object: JsonObject): Message {
  const message: Message = { role: 'assistant', parts: [] };
  decodeOllamaThinking(object, '', message, message.parts);
  const text = expectString(object['response'], '/response', FORMAT);
  if (text !== '') message.parts.push({ type: 'text', text });
  return message;
}

/** Decode an Ollama chat (or generate) response body. */
export function decodeOllamaResponse(body: unknown, context: CodecContext): Response {
  const object = expectObject(body, '', FORMAT);
  const generate = object['message'] === undefined && object['response'] !== undefined;
  const createdAt = object['created_at'];
  const hints = keepsHints(context.target);
  const scope = { scope: responseScope(createdAt), pending: new PendingCalls(), hints };
  const message = generate ? decodeGenerateMessage(object) : decodeOllamaMessage(object['message'], '/message', 0, scope);
  if (!generate) (context.losses.recording ? recordOllamaOrigins : anchorMadeUpIds)(message, object['message'] as JsonObject, '/message', context.losses);
  const candidate: Candidate = { index: 0, message };
  const response: Response = { candidates: [candidate] };
  if (generate) ollamaHint(response, '$generate', true);
  const model = object['model'];
  if (model !== undefined) response.model = expectString(model, '/model', FORMAT);
  else if (context.model !== undefined) {
    response.model = context.model;
    if (hints) ollamaHint(response, '$noModel', true);
  }
  if (createdAt !== undefined) {
    const text = expectString(createdAt, '/created_at', FORMAT);
    const seconds = createdSeconds(text);
    if (seconds !== undefined) response.created = seconds;
    if (hints) ollamaHint(response, '$createdAt', text);
  }
  const done = object['done'];
  if (done !== true && hints) ollamaHint(response, '$done', done === undefined ? 'absent' : done);
  const reason = object['done_reason'];
  if (reason !== undefined) {
    const hasToolCalls = message.parts.some((part) => part.type === 'tool_call');
    candidate.stopReason = context.losses.origin(decodeOllamaDoneReason(expectString(reason, '/done_reason', FORMAT), hasToolCalls), '/done_reason');
  }
  const usage = decodeOllamaUsage(object);
  if (usage !== undefined) response.usage = usage;
  keepUnknown(response, object, generate ? GENERATE_KNOWN : KNOWN);
  return response;
}

/** The assistant message of a response on the wire. */
export function encodeOllamaAssistant(message: Message, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(message.extensions, FORMAT, path);
  const pieces = encodeOllamaParts(message.parts, losses, pointer(path, 'parts'));
  const wire: JsonObject = { role: 'assistant', content: joinTexts(pieces.texts, 'text', losses, path, '\n\n') };
  if (pieces.thinking.length > 0) wire['thinking'] = joinTexts(pieces.thinking, 'reasoning', losses, path, '\n\n');
  else if (shapeHint(message, '$thinking') === '') wire['thinking'] = '';
  if (pieces.toolCalls.length > 0) wire['tool_calls'] = pieces.toolCalls;
  else if (shapeHint(message, '$toolCalls') === 'empty') wire['tool_calls'] = [];
  if (pieces.images.length > 0) wire['images'] = pieces.images;
  else if (shapeHint(message, '$images') === null) wire['images'] = null;
  else if (shapeHint(message, '$images') === 'empty') wire['images'] = [];
  if (shapeHint(message, '$content') === 'absent' && pieces.texts.length === 0) delete wire['content'];
  return spreadExtensions(wire, message, FORMAT);
}

/** Encode an IR response as an Ollama chat (or generate) response body. */
export function encodeOllamaResponse(response: Response, context: CodecContext): JsonObject {
  const { losses } = context;
  losses.foreignExtensions(response.extensions, FORMAT, '');
  dropResponseCacheBreakpoints(response, losses, FORMAT);
  const wire: JsonObject = {};
  if (response.model !== undefined && shapeHint(response, '$noModel') !== true) wire['model'] = response.model;
  const createdAt = createdAtText(response);
  if (createdAt !== undefined) wire['created_at'] = createdAt;
  const candidate = response.candidates[0];
  if (response.candidates.length > 1) losses.add('dropped_field', '/candidates', `Ollama returns one answer; ${response.candidates.length - 1} more candidates were dropped`);
  const message: Message = candidate?.message ?? { role: 'assistant', parts: [] };
  if (candidate !== undefined) losses.foreignExtensions(candidate.extensions, FORMAT, '/candidates/0');
  const assistant = encodeOllamaAssistant(message, losses, '/candidates/0/message');
  if (shapeHint(response, '$generate') === true) {
    wire['response'] = assistant['content'] ?? '';
    if (assistant['thinking'] !== undefined) wire['thinking'] = assistant['thinking'];
    if (assistant['tool_calls'] !== undefined) losses.add('unsupported_part', '/candidates/0/message', 'a generate response carries no tool calls; dropped');
  } else {
    wire['message'] = assistant;
  }
  const done = shapeHint(response, '$done');
  if (done === undefined) wire['done'] = true;
  else if (done !== 'absent') wire['done'] = done;
  if (candidate?.stopReason !== undefined) wire['done_reason'] = encodeOllamaDoneReason(candidate.stopReason, losses, '/candidates/0/stopReason');
  if (response.usage !== undefined) encodeOllamaUsage(response.usage, wire, losses, '/usage');
  if (response.id !== undefined) {
    losses.add('dropped_field', '/id', 'Ollama responses have no id; dropped', 'info');
  }
  return spreadExtensions(wire, response, FORMAT);
}
