/**
 * IR messages → Ollama `messages`. Every IR message becomes one Ollama
 * message, except tool messages, which become one message per result
 * (`tool_name` from the result or its call; `tool_call_id` only when Ollama
 * itself sent one), in the order of the calls they answer, as Ollama renders
 * them in order (src/core/result-order.ts).
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-history-with-tools
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Message, Part, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import { CallNames } from '../../core/tools.ts';
import { resultsInCallOrder } from '../../core/result-order.ts';
import { extensionsOf, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { SYNTHETIC_ID_PREFIX } from './ids.ts';
import { encodeOllamaParts, joinTexts } from './parts-encode.ts';
import { FORMAT, shapeHint } from './shape.ts';

/** Text parts of one message are joined with a blank line, as most chat templates separate paragraphs. */
const SEPARATOR = '\n\n';

function putContent(wire: JsonObject, message: Message, content: string, hadText: boolean): void {
  const shape = shapeHint(message, '$content');
  if (shape === 'absent' && !hadText) return;
  wire['content'] = shape === null && !hadText ? null : content;
}

function putList(wire: JsonObject, key: string, items: unknown[], hintValue: unknown): void {
  if (items.length > 0) wire[key] = items;
  else if (hintValue === 'empty') wire[key] = [];
  else if (hintValue === null) wire[key] = null;
}

function encodeMessage(message: Message, losses: LossCollector, path: string): JsonObject {
  const pieces = encodeOllamaParts(message.parts, losses, `${path}/parts`);
  const wire: JsonObject = { role: message.role };
  const thinkingHint = shapeHint(message, '$thinking');
  if (pieces.thinking.length > 0) wire['thinking'] = joinTexts(pieces.thinking, 'reasoning', losses, path, SEPARATOR);
  else if (thinkingHint === '') wire['thinking'] = '';
  putContent(wire, message, joinTexts(pieces.texts, 'text', losses, path, SEPARATOR), pieces.texts.length > 0);
  putList(wire, 'images', pieces.images, shapeHint(message, '$images'));
  putList(wire, 'tool_calls', pieces.toolCalls, shapeHint(message, '$toolCalls'));
  if (message.role === 'system' && message.developer === true) {
    losses.add('approximated', path, 'Ollama has no developer role; sent as a system message', 'info');
  }
  if (message.name !== undefined) losses.add('dropped_field', `${path}/name`, 'Ollama messages have no participant name; dropped');
  return wire;
}

function resultName(part: ToolResultPart, names: CallNames): string | undefined {
  return part.name ?? names.of(part.callId);
}

/**
 * The text of a tool result whose one content part is a text part with no
 * extensions or citations, when encoding it can report nothing (no
 * extensions, no error flag); `undefined` otherwise.
 */
function plainResultText(part: ToolResultPart): string | undefined {
  const content = part.content;
  if (content.length !== 1 || part.extensions !== undefined || part.isError === true) return undefined;
  const inner = content[0] as Part;
  return inner.type === 'text' && inner.extensions === undefined && (inner.citations === undefined || inner.citations.length === 0) ? inner.text : undefined;
}

function encodeToolResult(part: ToolResultPart, message: Message, names: CallNames, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const pieces = encodeOllamaParts(part.content, losses, `${path}/content`);
  let text = joinTexts(pieces.texts, 'tool result text', losses, path, SEPARATOR);
  if (part.isError === true) {
    text = `Error: ${text}`;
    losses.add('approximated', `${path}/isError`, 'Ollama has no error flag on tool results; the text was prefixed with "Error: "');
  }
  const wire: JsonObject = { role: 'tool' };
  putContent(wire, message, text, pieces.texts.length > 0 || part.isError === true);
  putList(wire, 'images', pieces.images, shapeHint(message, '$images'));
  const ollama = extensionsOf(part, FORMAT);
  const name = resultName(part, names);
  if (name !== undefined && ollama?.['$noName'] !== true) wire['tool_name'] = name;
  if (ollama?.['$id'] === true && !part.callId.startsWith(SYNTHETIC_ID_PREFIX)) wire['tool_call_id'] = part.callId;
  if (pieces.thinking.length > 0 || pieces.toolCalls.length > 0) losses.add('unsupported_part', path, 'a tool result holds reasoning or tool calls; dropped');
  return wire;
}

/**
 * The text of a message whose one part is a text part with no extensions
 * or citations, when encoding it can report nothing (no name, no developer
 * flag); `undefined` otherwise.
 */
function plainText(message: Message): string | undefined {
  const parts = message.parts;
  if (parts.length !== 1 || message.name !== undefined || message.developer === true) return undefined;
  const part = parts[0] as Part;
  return part.type === 'text' && part.extensions === undefined && (part.citations === undefined || part.citations.length === 0) ? part.text : undefined;
}

/** One part of a tool message, as its own Ollama `tool` message. */
function encodeToolPart(message: Message, index: number, partIndex: number, names: CallNames, losses: LossCollector, out: JsonObject[]): void {
  const part = message.parts[partIndex] as Part;
  const text = message.extensions?.[FORMAT] === undefined && part.type === 'tool_result' ? plainResultText(part) : undefined;
  if (text !== undefined) {
    // One plain text result and no Ollama hints (the common result): what `encodeToolResult` writes, without a path or sorting.
    const wire: JsonObject = { role: 'tool', content: text };
    const name = resultName(part as ToolResultPart, names);
    if (name !== undefined) wire['tool_name'] = name;
    out.push(wire);
    return;
  }
  const partPath = `/messages/${index}/parts/${partIndex}`;
  if (part.type !== 'tool_result') {
    losses.add('unsupported_part', partPath, `a ${part.type} part in a tool message has no Ollama form; dropped`);
    return;
  }
  out.push(spreadExtensions(encodeToolResult(part, message, names, losses, partPath), message, FORMAT));
}

/** Encode IR messages as Ollama `messages`. */
export function encodeOllamaMessages(messages: readonly Message[], losses: LossCollector): JsonObject[] {
  const out: JsonObject[] = [];
  const names = new CallNames();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.extensions !== undefined) losses.foreignExtensions(message.extensions, FORMAT, `/messages/${index}`);
    if (message.role === 'tool') {
      // Ollama renders tool messages in order, so each result goes where its call stands.
      const { order, end } = resultsInCallOrder(messages, index, losses, 'Ollama');
      for (const [messageIndex, partIndex] of order) encodeToolPart(messages[messageIndex] as Message, messageIndex, partIndex, names, losses, out);
      for (let run = index + 1; run < end; run++) {
        const extra = messages[run] as Message;
        if (extra.extensions !== undefined) losses.foreignExtensions(extra.extensions, FORMAT, `/messages/${run}`);
      }
      index = end - 1;
      continue;
    }
    // Other formats' extensions were reported above; Ollama's own hints and extras take the full path.
    const text = message.extensions?.[FORMAT] === undefined ? plainText(message) : undefined;
    if (text !== undefined) {
      // One plain text part and no Ollama hints (the common message): what `encodeMessage` writes, without sorting the parts.
      out.push({ role: message.role, content: text });
      continue;
    }
    // Indexed: a message of many parts is walked before the loop is optimised, and an iterator there makes a result object per part.
    const parts = message.parts;
    for (let at = 0; at < parts.length; at++) if ((parts[at] as Part).type === 'tool_call') names.add(parts[at] as ToolCallPart);
    out.push(spreadExtensions(encodeMessage(message, losses, `/messages/${index}`), message, FORMAT));
  }
  return out;
}
