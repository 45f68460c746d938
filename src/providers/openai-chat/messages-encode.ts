/**
 * Encode IR messages as the Chat Completions `messages` array. Each tool
 * result becomes its own `tool` message; media inside tool results (Chat tool
 * messages are text-only) moves into a user message right after them.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Message, Part, TextPart, ToolResultPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiChatAssistant } from './assistant-encode.ts';
import type { OpenaiChatDialect } from './dialects.ts';
import { contentShape, countedContentShape, type ContentShape } from './content-shape.ts';
import { encodeOpenaiChatTextPart, encodeOpenaiChatUserPart, reportUnsupported } from './parts-encode.ts';
import { FORMAT, shapeHint } from './shape.ts';
import { hasMarker, requestMode, spellingOf, withChatMarkers, type BreakpointMode } from './cache-breakpoint.ts';

/** Text for a tool message whose result had only media (moved to the next user message). */
export const MOVED_MEDIA_TEXT = '(the tool returned media, attached in the next user message)';
/** Prefix that marks a failed tool result, since Chat tool messages have no error flag. */
export const TOOL_ERROR_PREFIX = 'Error: ';

interface Encoded {
  parts: JsonObject[];
}

function spell(shape: ContentShape, encoded: Encoded): unknown {
  switch (shape) {
    case 'absent':
      return undefined;
    case 'null':
      return null;
    case 'string':
      return encoded.parts.length === 1 ? (encoded.parts[0] as JsonObject)['text'] : encoded.parts.map((part) => part['text']).join('');
    case 'array':
      return encoded.parts;
    default:
      return unreachable(shape);
  }
}

/** A text part with nothing but its text: its content part needs no path, since nothing can be lost. */
function plainText(part: Part): boolean {
  return part.type === 'text' && part.extensions === undefined && part.cache === undefined && (part.citations === undefined || part.citations.length === 0);
}

/** The spelling of content `shape` gave, but an array when one of its parts carries a breakpoint (a string has no place for it). */
function withBreakpoints(shape: ContentShape, encoded: Encoded, mode: BreakpointMode): ContentShape {
  if (shape !== 'string' || mode === 'none') return shape;
  for (const part of encoded.parts) if (hasMarker(part)) return 'array';
  return shape;
}

/** Encode `content` of a system or user message. System messages carry text only. */
function encodeTextual(message: Message, path: string, losses: LossCollector, mode: BreakpointMode): unknown {
  const parts = message.parts;
  // The common case, one plain text: a string unless the source spelled it as an array.
  const only = parts.length === 1 ? (parts[0] as Part) : undefined;
  if (only !== undefined && plainText(only) && shapeHint(message, '$content') === undefined) return (only as TextPart).text;
  // Counted, not listed: the spelling needs only how many parts were kept and how many of them are text.
  let kept = 0;
  let texts = 0;
  const encoded: Encoded = { parts: [] };
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    let wire: JsonObject | undefined;
    if (plainText(part)) {
      wire = { type: 'text', text: (part as TextPart).text };
    } else if (message.role === 'system' && part.type !== 'text' && !(part.type === 'opaque' && part.format === FORMAT)) {
      reportUnsupported(part, 'a system message', losses, `${path}/parts/${index}`);
    } else {
      wire = encodeOpenaiChatUserPart(part, losses, `${path}/parts/${index}`, spellingOf(part, message.role, mode));
    }
    if (wire === undefined) continue;
    kept++;
    // A part sent as text (a refusal, a document's text) counts as text.
    if (part.type === 'text' || wire['type'] === 'text') texts++;
    encoded.parts.push(wire);
  }
  return spell(withBreakpoints(countedContentShape(message, kept, texts, 'string'), encoded, mode), encoded);
}

/** Encode the tool result at `parts/<index>` of the tool message at `messagePath` as a `tool` (or deprecated `function`) message; media goes to `moved`. */
function encodeToolResult(result: ToolResultPart, messagePath: string, index: number, moved: JsonObject[], losses: LossCollector, mode: BreakpointMode): JsonObject {
  const content = result.content;
  const only = content.length === 1 ? (content[0] as Part) : undefined;
  const cached = mode !== 'none' && (result.cache !== undefined || only?.cache !== undefined);
  if (result.extensions === undefined && only !== undefined && only.type === 'text' && only.extensions === undefined && result.isError !== true && !cached) {
    // One plain text and no extensions (the common result from another format): its string, with nothing built to be spelled, and a pointer only for a loss.
    if (result.syntheticId === true) {
      losses.addAt(result, 'synthesised_id', `${messagePath}/parts/${index}`, `tool result had no call id; sent the synthesised id "${result.callId}"`, 'info');
    }
    return { role: 'tool', tool_call_id: result.callId, content: only.text };
  }
  const path = `${messagePath}/parts/${index}`;
  if (result.extensions !== undefined) losses.foreignExtensions(result.extensions, FORMAT, path);
  const texts: Part[] = [];
  const encoded: Encoded = { parts: [] };
  const movedBefore = moved.length;
  for (let index = 0; index < content.length; index++) {
    const part = content[index] as Part;
    if (part.type === 'text' || (part.type === 'opaque' && part.format === FORMAT)) {
      texts.push(part);
      encoded.parts.push(
        part.type === 'text'
          ? part.extensions === undefined && part.cache === undefined
            ? { type: 'text', text: part.text }
            : encodeOpenaiChatTextPart(part, losses, `${path}/content/${index}`, spellingOf(part, 'tool', mode))
          : (part.value as JsonObject),
      );
      continue;
    }
    const partPath = `${path}/content/${index}`;
    if (part.type === 'image' || part.type === 'document' || part.type === 'audio' || part.type === 'video') {
      const wire = encodeOpenaiChatUserPart(part, losses, partPath, spellingOf(part, 'tool', mode));
      if (wire === undefined) continue;
      moved.push(wire);
      losses.add('moved_content', partPath, `Chat tool messages are text-only; the ${part.type} moved to a user message after the tool messages`);
      continue;
    }
    reportUnsupported(part, 'a tool result', losses, partPath);
  }
  if (encoded.parts.length === 0 && moved.length > movedBefore) {
    texts.push({ type: 'text', text: MOVED_MEDIA_TEXT });
    encoded.parts.push({ type: 'text', text: MOVED_MEDIA_TEXT });
  }
  if (result.isError === true) {
    const first = encoded.parts[0];
    const text = `${TOOL_ERROR_PREFIX}${typeof first?.['text'] === 'string' ? first['text'] : ''}`;
    if (first === undefined) encoded.parts.push({ type: 'text', text });
    else encoded.parts[0] = { ...first, text };
    if (texts.length === 0) texts.push({ type: 'text', text });
    losses.add('approximated', path, `Chat tool messages have no error flag; the result text was prefixed with "${TOOL_ERROR_PREFIX}"`);
  }
  // The result's own breakpoint ends its message: on the last content part.
  const cache = result.cache;
  const spelling = cache === undefined ? 0 : spellingOf(result, 'tool', mode);
  if (cache !== undefined && spelling !== 0) {
    const last = encoded.parts.length - 1;
    const lastPart = encoded.parts[last];
    if (lastPart === undefined) losses.addAt(cache, 'dropped_field', `${path}/cache`, 'an empty Chat tool message has no content part to carry the prompt-cache breakpoint; dropped');
    else if (!hasMarker(lastPart)) encoded.parts[last] = withChatMarkers({ ...lastPart }, cache, spelling, path, losses);
  }
  const spelled = spell(withBreakpoints(contentShape(result, texts, 'string'), encoded, mode), encoded);
  if (shapeHint(result, '$functionRole') === true) {
    const wire: JsonObject = { role: 'function', name: result.name ?? '' };
    if (spelled !== undefined) wire['content'] = spelled;
    return spreadExtensions(wire, result, FORMAT);
  }
  if (result.syntheticId === true) {
    losses.addAt(result, 'synthesised_id', path, `tool result had no call id; sent the synthesised id "${result.callId}"`, 'info');
  }
  const wire: JsonObject = { role: 'tool', tool_call_id: result.callId };
  if (spelled !== undefined) wire['content'] = spelled;
  return spreadExtensions(wire, result, FORMAT);
}

function encodeToolMessage(message: Message, path: string, out: JsonObject[], moved: JsonObject[], losses: LossCollector, mode: BreakpointMode): void {
  if (message.extensions !== undefined) losses.foreignExtensions(message.extensions, FORMAT, path);
  const parts = message.parts;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if (part.type === 'tool_result') out.push(encodeToolResult(part, path, index, moved, losses, mode));
    else reportUnsupported(part, 'a tool message', losses, `${path}/parts/${index}`);
  }
}

function encodeTextualMessage(message: Message, path: string, losses: LossCollector, mode: BreakpointMode): JsonObject {
  if (message.extensions !== undefined) losses.foreignExtensions(message.extensions, FORMAT, path);
  const role = message.role === 'system' ? (message.developer === true ? 'developer' : 'system') : 'user';
  const wire: JsonObject = { role };
  const content = encodeTextual(message, path, losses, mode);
  if (content !== undefined) wire['content'] = content;
  if (message.name !== undefined) wire['name'] = message.name;
  return spreadExtensions(wire, message, FORMAT);
}

/** An assistant message with nothing in it: a role and a `null` or absent content. */
function isEmptyAssistant(wire: JsonObject): boolean {
  // Most have content: known without walking the keys.
  const content = wire['content'];
  if (content !== null && content !== undefined) return false;
  for (const key in wire) {
    if (key === 'role' || (key === 'content' && wire[key] === null)) continue;
    return false;
  }
  return true;
}

/** Encode the IR messages of a request. */
export function encodeOpenaiChatMessages(messages: readonly Message[], losses: LossCollector, dialect: OpenaiChatDialect = 'openai'): JsonObject[] {
  // The prompt-cache breakpoints the dialect carries (the request encoder reports the others).
  const mode = requestMode(dialect);
  const out: JsonObject[] = [];
  let moved: JsonObject[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message === undefined) continue;
    const path = `/messages/${index}`;
    switch (message.role) {
      case 'system':
      case 'user':
        out.push(encodeTextualMessage(message, path, losses, mode));
        break;
      case 'assistant': {
        const wire = encodeOpenaiChatAssistant(message, 'request', losses, path, dialect);
        // Another format's turn whose every part was dropped (each with its loss, such as a Responses turn of built-in items only):
        // OpenAI refuses an assistant message with neither content nor tool calls, and there is nothing else in it to keep.
        if (message.parts.length > 0 && message.extensions?.[FORMAT] === undefined && isEmptyAssistant(wire)) break;
        out.push(wire);
        break;
      }
      case 'tool':
        encodeToolMessage(message, path, out, moved, losses, mode);
        break;
      default:
        unreachable(message.role);
    }
    if (moved.length > 0 && messages[index + 1]?.role !== 'tool') {
      out.push({ role: 'user', content: moved });
      moved = [];
    }
  }
  return out;
}
