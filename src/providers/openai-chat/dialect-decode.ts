/**
 * Dialect fields of assistant messages → IR reasoning parts with state owned
 * by the dialect (see dialects.ts): `reasoning_content` and `reasoning` text
 * (state kind `text`: the text itself goes back), OpenRouter
 * `reasoning_details` (state kind `details`, the array as JSON text), and
 * Gemini's `extra_content.google.thought_signature` on tool calls (a
 * reasoning part with no text right before the call, state kind
 * `thought_signature`).
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
import type { Message, Part, ReasoningPart } from '../../core/ir.ts';
import { extensionsOf, isObject, type JsonObject } from '../../core/wire.ts';
import type { OpenaiChatDialect } from './dialects.ts';
import { FORMAT, chatHint, keepUnknown, keys } from './shape.ts';

/** Assistant keys this file reads; the message decoder leaves them to it. */
export const DIALECT_MESSAGE_KEYS: readonly string[] = ['reasoning_content', 'reasoning', 'reasoning_details'];

function textReasoning(text: string, field: string, dialect: OpenaiChatDialect): ReasoningPart {
  const part: ReasoningPart = { type: 'reasoning', text, state: { format: FORMAT, kind: 'text', value: '', dialect } };
  chatHint(part, '$field', field);
  return part;
}

/** Read the dialect fields of an assistant message into reasoning parts placed before its content. Returns the dialect found. */
export function decodeDialectFields(object: JsonObject, message: Message): OpenaiChatDialect | undefined {
  const content = object['reasoning_content'];
  const text = object['reasoning'];
  const details = object['reasoning_details'];
  if (content === undefined && text === undefined && details === undefined) return signaturesBeforeToolCalls(message);
  const reasoning: Part[] = [];
  let dialect: OpenaiChatDialect | undefined;
  const odd: JsonObject = {};
  if (typeof content === 'string') {
    dialect = 'deepseek';
    reasoning.push(textReasoning(content, 'reasoning_content', dialect));
  } else if (content !== undefined && content !== null) odd['reasoning_content'] = content;
  if (Array.isArray(details)) {
    dialect ??= 'openrouter';
    const part: ReasoningPart = { type: 'reasoning', text: typeof text === 'string' ? text : '', state: { format: FORMAT, kind: 'details', value: JSON.stringify(details), dialect: 'openrouter' } };
    if (typeof text === 'string') chatHint(part, '$field', 'reasoning');
    else if (text !== undefined && text !== null) odd['reasoning'] = text;
    reasoning.push(part);
  } else {
    if (details !== undefined && details !== null) odd['reasoning_details'] = details;
    if (typeof text === 'string') {
      dialect ??= 'vllm';
      reasoning.push(textReasoning(text, 'reasoning', 'vllm'));
    } else if (text !== undefined && text !== null) odd['reasoning'] = text;
  }
  if (Object.keys(odd).length > 0) keepUnknown(message, odd, keys());
  if (reasoning.length > 0) message.parts.unshift(...reasoning);
  return signaturesBeforeToolCalls(message) ?? dialect;
}

/** Move Gemini thought signatures out of tool calls' `extra_content` into reasoning parts right before them. */
function signaturesBeforeToolCalls(message: Message): OpenaiChatDialect | undefined {
  let found: OpenaiChatDialect | undefined;
  for (let index = 0; index < message.parts.length; index++) {
    const part = message.parts[index] as Part;
    if (part.type !== 'tool_call' || part.extensions === undefined) continue;
    const fields = extensionsOf(part, FORMAT);
    const extra = fields?.['extra_content'];
    const google = isObject(extra) ? extra['google'] : undefined;
    const signature = isObject(google) ? google['thought_signature'] : undefined;
    if (fields === undefined || !isObject(extra) || !isObject(google) || typeof signature !== 'string') continue;
    const { thought_signature: _signature, ...googleRest } = google;
    const { google: _google, ...extraRest } = extra;
    const rest: JsonObject = { ...extraRest, ...(Object.keys(googleRest).length > 0 ? { google: googleRest } : {}) };
    if (Object.keys(rest).length > 0) fields['extra_content'] = rest;
    else delete fields['extra_content'];
    const reasoning: ReasoningPart = { type: 'reasoning', text: '', state: { format: FORMAT, kind: 'thought_signature', value: signature, dialect: 'gemini-openai' } };
    chatHint(reasoning, '$signatureFor', part.id);
    message.parts.splice(index, 0, reasoning);
    index++;
    found = 'gemini-openai';
  }
  return found;
}
