/**
 * Encode an IR assistant message as a Chat Completions assistant message
 * (request history or response choice). Chat can only say "content, then
 * tool calls", so text after a tool call is reported as reordered.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type { LossCollector } from '../../core/losses.ts';
import type { AudioPart, Message, Part, TextPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { appended, extensionsOf, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiChatAnnotation } from './annotations.ts';
import { hintedContentShape } from './content-shape.ts';
import { encodeOpenaiChatTextPart, reportUnsupported } from './parts-encode.ts';
import { requestMode, spellingOf, type BreakpointMode } from './cache-breakpoint.ts';
import { encodeOpenaiChatFunctionCall, encodeOpenaiChatToolCall, isFunctionCall, plainOpenaiChatToolCall } from './tool-calls.ts';
import { dialectFields, signToolCall, takeDialectReasoning, writeDialectFields, type DialectFields } from './dialect-encode.ts';
import type { OpenaiChatDialect } from './dialects.ts';
import { FORMAT, shapeHint } from './shape.ts';
import type { AssistantPlace } from './assistant-decode.ts';
import { standardBase64 } from '../../core/media.ts';

/** Content parts of an assistant message and their places in the IR message (`parts` indexes), for loss paths. */
interface Content {
  parts: Part[];
  at: number[];
  /** The IR pointer of the message. */
  path: string;
}

function partPath(content: Content, index: number): string {
  return `${content.path}/parts/${content.at[index] as number}`;
}

interface Located<T extends Part = Part> {
  part: T;
  path: string;
}

function encodeAudio(item: Located<AudioPart>, place: AssistantPlace, losses: LossCollector): JsonObject | undefined {
  const { part, path } = item;
  const source = part.source;
  const id = extensionsOf(part, FORMAT)?.['id'];
  if (source.kind === 'file' && (source.format === FORMAT || source.format === 'openai-responses')) {
    return spreadExtensions({ id: source.id }, part, FORMAT);
  }
  if (source.kind === 'base64' && place === 'response') {
    losses.foreignExtensions(part.extensions, FORMAT, path);
    const wire: JsonObject = { data: standardBase64(source.data) };
    if (part.transcript !== undefined) wire['transcript'] = part.transcript;
    if (extensionsOf(part, FORMAT) === undefined) {
      // The response message's audio requires id, expires_at and transcript; another format's audio output (Gemini) has none of them.
      wire['id'] = typeof id === 'string' ? id : 'audio_interlingua';
      wire['expires_at'] = 0;
      if (wire['transcript'] === undefined) wire['transcript'] = '';
      losses.add('defaulted', path, `Chat Completions audio output needs id, expires_at and transcript; filled with "audio_interlingua", 0${part.transcript === undefined ? ' and ""' : ''}`, 'info');
    }
    return spreadExtensions(wire, part, FORMAT);
  }
  if (source.kind === 'base64' && typeof id === 'string') return { id };
  losses.add('unsupported_part', path, 'Chat Completions assistant history refers to audio by id only; audio dropped');
  return undefined;
}

/** The `content` value of an assistant message, or `undefined` when it is left out; `hinted` is the message's `$content` hint; `mode`, which prompt-cache breakpoints it carries. */
function encodeContent(content: Content, hinted: unknown, place: AssistantPlace, losses: LossCollector, mode: BreakpointMode): unknown {
  const parts = content.parts;
  let shape = hintedContentShape(hinted, parts, 'null');
  // A response message's content is a string: texts from other formats are joined.
  if (place === 'response' && shape === 'array' && hinted === undefined && parts.every((part) => part.type === 'text')) {
    shape = 'string';
  }
  // A string has no place for a text's prompt-cache breakpoint.
  if (shape === 'string' && mode !== 'none' && parts.some((part) => spellingOf(part, 'assistant', mode) !== 0)) shape = 'array';
  switch (shape) {
    case 'absent':
      return undefined;
    case 'null':
      return null;
    case 'string':
      // A string holds the texts alone: fields of another format on a part (a Gemini text's thoughtSignature) are reported here.
      for (let index = 0; index < parts.length; index++) {
        const extensions = (parts[index] as TextPart).extensions;
        if (extensions !== undefined) losses.foreignExtensions(extensions, FORMAT, partPath(content, index));
      }
      return parts.length === 1 ? (parts[0] as TextPart).text : parts.map((part) => (part as TextPart).text).join('');
    case 'array':
      return parts.map((part, index) =>
        part.type === 'text'
          ? encodeOpenaiChatTextPart(part, losses, partPath(content, index), spellingOf(part, 'assistant', mode))
          : part.type === 'refusal'
            ? spreadExtensions({ type: 'refusal', refusal: part.text }, part, FORMAT)
            : (part as { value: unknown }).value,
      );
    default:
      return unreachable(shape);
  }
}

function encodeAnnotations(content: Content, place: AssistantPlace, losses: LossCollector): JsonObject[] | undefined {
  let annotations: JsonObject[] | undefined;
  let offset = 0;
  for (let at = 0; at < content.parts.length; at++) {
    const part = content.parts[at] as Part;
    if (part.type !== 'text') continue;
    const citations = part.citations;
    if (citations !== undefined) {
      const path = partPath(content, at);
      for (let index = 0; index < citations.length; index++) {
        const citation = citations[index];
        if (citation === undefined) continue;
        const citationPath = pointer(path, 'citations', index);
        if (place === 'request' && citation.kind !== 'url_citation') {
          // Request history only echoes Chat's own annotations back.
          losses.add('dropped_field', citationPath, `a "${citation.kind}" citation cannot travel in Chat request history`);
          continue;
        }
        const span = { offset, length: part.text.length };
        const annotation = encodeOpenaiChatAnnotation(citation, span, losses, citationPath);
        if (annotation !== undefined) (annotations ??= []).push(annotation);
      }
    }
    offset += part.text.length;
  }
  return annotations;
}

/** Encode an assistant message; `path` points at the IR message. */
export function encodeOpenaiChatAssistant(message: Message, place: AssistantPlace, losses: LossCollector, path: string, dialect: OpenaiChatDialect = 'openai'): JsonObject {
  if (message.extensions !== undefined) losses.foreignExtensions(message.extensions, FORMAT, path);
  // The message's own hints and extras, read once (what `shapeHint` reads); IR from other formats has none.
  const own = message.extensions?.[FORMAT];
  // Made on the first reasoning part or refusal: most messages have neither.
  let dialectData: DialectFields | undefined;
  let refusals: string[] | undefined;
  const content: Content = { parts: [], at: [], path };
  let toolCalls: JsonObject[] | undefined;
  let functionCall: JsonObject | undefined;
  let audio: JsonObject | undefined;
  let sawToolCall = false;
  let reordered = false;
  const parts = message.parts;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if ((part.type === 'text' || part.type === 'refusal') && sawToolCall) reordered = true;
    switch (part.type) {
      case 'text':
        content.parts.push(part);
        content.at.push(index);
        continue;
      case 'refusal':
        if (part.extensions !== undefined) losses.foreignExtensions(part.extensions, FORMAT, `${path}/parts/${index}`);
        if (shapeHint(part, '$inContent') === true) {
          content.parts.push(part);
          content.at.push(index);
        } else (refusals ??= []).push(part.text);
        continue;
      case 'tool_call':
        sawToolCall = true;
        if (functionCall === undefined && isFunctionCall(part)) functionCall = encodeOpenaiChatFunctionCall(part, losses, `${path}/parts/${index}`);
        else {
          const call =
            part.extensions === undefined && part.syntheticId !== true && part.kind !== 'custom'
              ? plainOpenaiChatToolCall(part)
              : encodeOpenaiChatToolCall(part, losses, `${path}/parts/${index}`);
          if (dialectData !== undefined) signToolCall(call, part, dialectData);
          toolCalls = appended(toolCalls, call);
        }
        continue;
      case 'reasoning':
        if (takeDialectReasoning(part, dialect, (dialectData ??= dialectFields()))) {
          if (part.extensions !== undefined) losses.foreignExtensions(part.extensions, FORMAT, `${path}/parts/${index}`);
          continue;
        }
        break;
      case 'audio':
        if (audio !== undefined) {
          losses.add('unsupported_part', `${path}/parts/${index}`, 'a Chat Completions assistant message holds one audio; extra audio dropped');
          continue;
        }
        audio = encodeAudio({ part, path: `${path}/parts/${index}` }, place, losses);
        continue;
      case 'opaque':
        if (part.format !== FORMAT) break;
        if (shapeHint(part, '$toolCall') === true) {
          sawToolCall = true;
          toolCalls = appended(toolCalls, part.value as JsonObject);
        } else {
          content.parts.push(part);
          content.at.push(index);
        }
        continue;
      case 'image':
      case 'video':
      case 'document':
      case 'tool_result':
        break;
      default:
        unreachable(part);
    }
    reportUnsupported(part, 'an assistant message', losses, `${path}/parts/${index}`);
  }
  if (reordered) {
    losses.add('approximated', path, 'Chat Completions puts content before tool calls; text that followed a tool call was moved before it');
  }
  const wire: JsonObject = own !== undefined && own['$noRole'] === true ? {} : { role: 'assistant' };
  const encoded = encodeContent(content, own?.['$content'], place, losses, place === 'request' ? requestMode(dialect) : 'none');
  if (encoded !== undefined) wire['content'] = encoded;
  if (message.name !== undefined) wire['name'] = message.name;
  const refusalHint = own?.['$refusal'];
  if (refusals !== undefined) wire['refusal'] = refusals.join('');
  else if (refusalHint === 'null' || (place === 'response' && refusalHint !== 'absent')) wire['refusal'] = null;
  const annotations = encodeAnnotations(content, place, losses);
  // An `annotations` extension (kept when there was no text to attach them to) is written back by `spreadExtensions` instead.
  if (own === undefined || own['annotations'] === undefined) {
    const annotationsHint = own?.['$annotations'];
    if (annotations !== undefined && annotations.length > 0) wire['annotations'] = annotations;
    else if (annotationsHint === 'null') wire['annotations'] = null;
    else if (annotationsHint === 'empty' || (place === 'response' && annotationsHint !== 'absent')) wire['annotations'] = [];
  }
  if (audio !== undefined) wire['audio'] = audio;
  if (toolCalls !== undefined || own?.['$toolCalls'] === 'empty') wire['tool_calls'] = toolCalls ?? [];
  if (functionCall !== undefined) wire['function_call'] = functionCall;
  if (dialectData !== undefined) writeDialectFields(wire, dialect, dialectData);
  return own === undefined ? wire : spreadExtensions(wire, message, FORMAT);
}
