/**
 * IR parts → the pieces of an Ollama message: one `content` string, one
 * `thinking` string, `images` as bare base64, `tool_calls` with object
 * arguments. Ollama has no other media, no per-part boundaries and no
 * reasoning state; what does not fit is reported.
 */
import type { LossCollector } from '../../core/losses.ts';
import type { ImagePart, Part, ToolCallPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { parseDataUrl, standardBase64 } from '../../core/media.ts';
import { setData } from '../../core/serialize.ts';
import { argumentsAsObject } from '../../core/tools.ts';
import { extensionsOf, isObject, type JsonObject } from '../../core/wire.ts';
import { SYNTHETIC_ID_PREFIX } from './ids.ts';
import { FORMAT } from './shape.ts';

/** What a message's parts become on the wire. */
export interface EncodedParts {
  texts: string[];
  thinking: string[];
  images: string[];
  toolCalls: JsonObject[];
}

/** The base64 data of an image part, or `undefined` (reported) when Ollama cannot take it. */
export function encodeOllamaImage(part: ImagePart, losses: LossCollector, path: string): string | undefined {
  const source = part.source;
  if (source.kind === 'base64') return standardBase64(source.data);
  if (source.kind === 'url') {
    const data = parseDataUrl(source.url);
    if (data?.base64 === true) return standardBase64(data.data);
    losses.add('unsupported_part', path, 'Ollama takes images only as base64 data, not URLs; the image was dropped');
    return undefined;
  }
  losses.add('unsupported_part', path, 'Ollama cannot refer to uploaded files; the image was dropped');
  return undefined;
}

/** One `tool_calls` entry. */
export function encodeOllamaToolCall(part: ToolCallPart, losses: LossCollector, path: string): JsonObject {
  const ollama = extensionsOf(part, FORMAT);
  const fn: JsonObject = { name: part.name };
  const shape = ollama?.['$arguments'];
  if (shape === 'text' && part.rawArguments !== undefined) fn['arguments'] = part.rawArguments;
  else if (shape !== 'absent') fn['arguments'] = argumentsAsObject(part, losses, path);
  if (ollama?.['$index'] !== undefined) fn['index'] = ollama['$index'];
  const functionRest = ollama?.['function'];
  if (isObject(functionRest)) for (const key in functionRest) if (!(key in fn)) fn[key] = functionRest[key];
  const call: JsonObject = { function: fn };
  if (ollama?.['$id'] === true && !part.id.startsWith(SYNTHETIC_ID_PREFIX)) call['id'] = part.id;
  else if (ollama?.['$idValue'] !== undefined) call['id'] = ollama['$idValue'];
  const callRest = ollama?.['call'];
  if (isObject(callRest)) for (const key in callRest) if (!(key in call)) call[key] = callRest[key];
  return call;
}

function reportForeign(part: Part, losses: LossCollector, path: string): void {
  if (part.extensions === undefined) return;
  losses.foreignExtensions(part.extensions, FORMAT, path);
}

/**
 * Sort the parts of a user, system or assistant message into the pieces of
 * an Ollama message. Large image data is set on `images` with `setData` (to
 * be written apart) unless `listOnly`: a caller that moves the images into
 * a list of its own (a generate body's `images`) sets them there instead.
 */
export function encodeOllamaParts(parts: readonly Part[], losses: LossCollector, path: string, listOnly = false): EncodedParts {
  const out: EncodedParts = { texts: [], thinking: [], images: [], toolCalls: [] };
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if (part.type === 'text' && part.extensions === undefined && (part.citations === undefined || part.citations.length === 0)) {
      // The common case, where nothing can be lost: no path needed.
      out.texts.push(part.text);
      continue;
    }
    const partPath = `${path}/${index}`;
    reportForeign(part, losses, partPath);
    switch (part.type) {
      case 'text':
        out.texts.push(part.text);
        if (part.citations !== undefined && part.citations.length > 0) losses.add('dropped_field', `${partPath}/citations`, 'Ollama has no citations; dropped');
        break;
      case 'refusal':
        out.texts.push(part.text);
        losses.add('approximated', partPath, 'Ollama has no refusal part; the refusal was sent as text');
        break;
      case 'image': {
        const data = encodeOllamaImage(part, losses, partPath);
        if (data === undefined) break;
        if (listOnly) out.images.push(data);
        else setData(out.images, out.images.length, data);
        break;
      }
      case 'reasoning':
        if (part.state !== undefined) losses.addAt(part, 'reasoning_state_dropped', partPath, `${part.state.format} reasoning state only goes back to ${part.state.format}; dropped for Ollama`);
        if (part.summary !== undefined && part.summary.length > 0 && part.text === '') out.thinking.push(part.summary.join('\n\n'));
        else if (part.text !== '') out.thinking.push(part.text);
        else if (part.state === undefined) losses.addAt(part, 'unsupported_part', partPath, 'empty reasoning has no Ollama form; dropped');
        break;
      case 'tool_call':
        out.toolCalls.push(encodeOllamaToolCall(part, losses, partPath));
        break;
      case 'audio':
      case 'video':
      case 'document':
        losses.addAt(part, 'unsupported_part', partPath, `Ollama messages carry only text and images; the ${part.type} was dropped`);
        break;
      case 'tool_result':
        losses.addAt(part, 'unsupported_part', partPath, 'a tool result outside a tool message has no Ollama form; dropped');
        break;
      case 'opaque':
        losses.addAt(part, 'unsupported_part', partPath, `${part.format} "${part.blockType}" block has no Ollama equivalent; dropped`);
        break;
      default:
        unreachable(part);
    }
  }
  return out;
}

/** Join the text pieces of one message; more than one is reported, since Ollama content is one string. */
export function joinTexts(texts: readonly string[], what: string, losses: LossCollector, path: string, separator: string): string {
  if (texts.length > 1) losses.add('approximated', path, `${texts.length} ${what} parts were joined into one Ollama string`, 'info');
  return texts.length === 1 ? (texts[0] as string) : texts.join(separator);
}
