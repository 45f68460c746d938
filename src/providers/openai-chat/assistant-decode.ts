/**
 * Decode Chat Completions assistant messages, in requests (history) and
 * responses (choices): `content`, `refusal`, `tool_calls`, `function_call`,
 * `audio`, `annotations`, `name`. assistant-encode.ts is the other way.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
import type { LossCollector } from '../../core/losses.ts';
import type { AudioPart, Message, Part, RefusalPart } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, pointer, type JsonObject } from '../../core/wire.ts';
import { sniffBase64 } from '../../core/media.ts';
import { decodeOpenaiChatContent } from './content-shape.ts';
import { decodeOpenaiChatAnnotation } from './annotations.ts';
import { decodeOpenaiChatFunctionCall, decodeOpenaiChatToolCall } from './tool-calls.ts';
import { FORMAT, chatHint, keepUnknown, keys } from './shape.ts';
import { DIALECT_MESSAGE_KEYS, decodeDialectFields } from './dialect-decode.ts';
import { noteDialect } from './dialects.ts';

/** Where an assistant message stands: request history or a response choice. Their natural spellings differ. */
export type AssistantPlace = 'request' | 'response';

const DIALECT_KEYS = keys(...DIALECT_MESSAGE_KEYS);

/**
 * Keep the keys of an assistant message this file does not read, and the
 * known ones set to `null` (except `content`, `refusal` and `annotations`,
 * whose `null` is a shape hint), as extensions: `keepUnknown` with a switch
 * instead of a set lookup per key.
 */
function keepAssistantUnknown(message: Message, object: JsonObject): void {
  let rest: JsonObject | undefined;
  for (const key in object) {
    const value = object[key];
    switch (key) {
      case 'content':
      case 'refusal':
      case 'annotations':
        continue;
      case 'role':
      case 'tool_calls':
      case 'function_call':
      case 'audio':
      case 'name':
        if (value !== null) continue;
        break;
      default:
        if (value !== null && DIALECT_KEYS.has(key)) continue;
    }
    (rest ??= {})[key] = value;
  }
  extend(message, FORMAT, rest);
}

function decodeAudio(value: unknown, path: string): AudioPart {
  const audio = expectObject(value, path, FORMAT);
  const data = audio['data'];
  let part: AudioPart;
  if (typeof data === 'string') {
    part = { type: 'audio', source: { kind: 'base64', data, mediaType: sniffBase64(data) } };
    const transcript = audio['transcript'];
    if (typeof transcript === 'string') part.transcript = transcript;
    keepUnknown(part, audio, typeof transcript === 'string' ? keys('data', 'transcript') : keys('data'));
  } else {
    const id = expectString(audio['id'], pointer(path, 'id'), FORMAT);
    part = { type: 'audio', source: { kind: 'file', id, format: FORMAT } };
    keepUnknown(part, audio, keys('id'));
  }
  return part;
}

function decodeAnnotations(value: unknown, path: string, parts: Part[], message: Message, place: AssistantPlace, hints: boolean, losses: LossCollector): void {
  if (value === undefined) {
    if (place === 'response' && hints) chatHint(message, '$annotations', 'absent');
    return;
  }
  if (value === null) {
    if (hints) chatHint(message, '$annotations', 'null');
    return;
  }
  const annotations = expectArray(value, path, FORMAT);
  const only = parts.length === 1 ? parts[0] : undefined;
  if (annotations.length === 0) {
    if (place === 'request' && hints) chatHint(message, '$annotations', 'empty');
    return;
  }
  if (only?.type !== 'text') {
    // Nowhere to attach the citations: keep them for Chat only.
    keepUnknown(message, { annotations }, keys());
    return;
  }
  // A target's loss on a citation points at its annotation.
  only.citations = annotations.map((annotation, index) => {
    const at = pointer(path, index);
    const citation = decodeOpenaiChatAnnotation(annotation, at);
    return losses.recording ? losses.origin(citation, at) : citation;
  });
}

/**
 * Decode an assistant message. `index` makes the synthesised id of a
 * deprecated `function_call`; `hints: false` skips the shape hints only the
 * openai-chat encoder reads (the IR is headed for another format); `parse:
 * false` keeps tool-call argument text unparsed (see `parsesArguments`).
 */
export function decodeOpenaiChatAssistant(
  object: JsonObject,
  path: string,
  losses: LossCollector,
  place: AssistantPlace,
  index: number,
  hints = true,
  parse = true,
): Message {
  const parts: Part[] = [];
  const message: Message = { role: 'assistant', parts };
  decodeOpenaiChatContent(object['content'], path, message, parts, 'null', losses, hints);
  const annotationsValue = object['annotations'];
  if (annotationsValue !== undefined || (place === 'response' && hints)) decodeAnnotations(annotationsValue, `${path}/annotations`, parts, message, place, hints, losses);
  const refusal = object['refusal'];
  if (typeof refusal === 'string') {
    const part: RefusalPart = { type: 'refusal', text: refusal };
    parts.push(losses.recording ? losses.origin(part, `${path}/refusal`) : part);
  } else if (refusal === null) {
    if (place === 'request' && hints) chatHint(message, '$refusal', 'null');
  } else if (refusal === undefined) {
    if (place === 'response' && hints) chatHint(message, '$refusal', 'absent');
  } else {
    expectString(refusal, `${path}/refusal`, FORMAT);
  }
  const audio = object['audio'];
  if (audio !== undefined && audio !== null) parts.push(losses.origin(decodeAudio(audio, `${path}/audio`), `${path}/audio`));
  const toolCalls = object['tool_calls'];
  if (toolCalls !== undefined && toolCalls !== null) {
    const list = Array.isArray(toolCalls) ? toolCalls : expectArray(toolCalls, `${path}/tool_calls`, FORMAT);
    if (list.length === 0 && hints) chatHint(message, '$toolCalls', 'empty');
    const callsPath = `${path}/tool_calls`;
    for (let call = 0; call < list.length; call++) {
      const part = decodeOpenaiChatToolCall(list[call], callsPath, call, losses, hints, parse);
      if (part.type === 'opaque') chatHint(part, '$toolCall', true);
      parts.push(losses.recording ? losses.origin(part, `${callsPath}/${call}`) : part);
    }
  }
  const functionCall = object['function_call'];
  if (functionCall !== undefined && functionCall !== null) {
    parts.push(losses.origin(decodeOpenaiChatFunctionCall(functionCall, `${path}/function_call`, `call_function_${index}`), `${path}/function_call`));
  }
  const name = object['name'];
  if (typeof name === 'string') message.name = name;
  else if (name !== undefined && name !== null) expectString(name, `${path}/name`, FORMAT);
  if (object['role'] === undefined && hints) chatHint(message, '$noRole', true);
  keepAssistantUnknown(message, object);
  noteDialect(message, decodeDialectFields(object, message));
  return message;
}
