/**
 * Encode IR parts as Responses message content parts (`input_text`,
 * `output_text`, `refusal`, `input_image`, `input_file`, `input_audio`),
 * reporting what the format cannot carry.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */
import { unreachable, type AudioPart, type Citation, type DocumentPart, type ImagePart, type Part, type TextPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { setDataUrl } from '../../core/serialize.ts';
import { pointer, type JsonObject } from '../../core/wire.ts';
import { encodeOpenaiResponsesAnnotation } from './citations.ts';
import type { TextType } from './content-decode.ts';
import { FORMAT, MESSAGE_KEY_PREFIX, own, ownHint, restoreNulls, wasNull } from './shape.ts';
import { withPartMarker } from '../../core/cache-points.ts';
import { RESPONSES_BREAKPOINT, takesBreakpoint } from './cache-breakpoint.ts';
import { standardBase64 } from '../../core/media.ts';
import { validUri } from '../../core/uri.ts';

/** Finish an encoded part: report foreign extensions, spread our own (not the item-level ones), restore `null`s. */
function finish(target: JsonObject, part: Part, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(part.extensions, FORMAT, path);
  const fields = own(part);
  if (fields !== undefined) {
    for (const key in fields) {
      if (key.charCodeAt(0) === 36 /* $ */ || key.startsWith(MESSAGE_KEY_PREFIX) || key in target) continue;
      target[key] = fields[key];
    }
  }
  return restoreNulls(target, part);
}

/**
 * Encode one IR part as a content part; `undefined` (with a loss) when it
 * cannot be one. With `breakpoints` (a request), an input part takes the
 * part's prompt-cache breakpoint.
 */
export function encodeOpenaiResponsesContent(part: Part, textType: TextType, losses: LossCollector, path: string, breakpoints = false): JsonObject | undefined {
  const wire = encodeContent(part, textType, losses, path);
  // An opaque part's value is the source's own object: it is written as it came.
  if (!breakpoints || part.cache === undefined || wire === undefined || part.type === 'opaque' || !takesBreakpoint(wire['type'])) return wire;
  return withPartMarker(wire, part.cache, path, losses, RESPONSES_BREAKPOINT);
}

function encodeContent(part: Part, textType: TextType, losses: LossCollector, path: string): JsonObject | undefined {
  switch (part.type) {
    case 'text':
      return encodeText(part, textType, losses, path);
    case 'refusal':
      return finish({ type: 'refusal', refusal: part.text }, part, losses, path);
    case 'image':
      return encodeImage(part, losses, path);
    case 'document':
      return encodeDocument(part, losses, path);
    case 'audio':
      return encodeAudio(part, losses, path);
    case 'opaque':
      if (part.format === FORMAT) return part.value as JsonObject;
      losses.addAt(part, 'unsupported_part', path, `${part.format} "${part.blockType}" block has no OpenAI Responses equivalent; dropped`);
      return undefined;
    case 'video':
    case 'reasoning':
    case 'tool_call':
    case 'tool_result':
      losses.add('unsupported_part', path, `a ${part.type} part cannot stand in OpenAI Responses message content; dropped`);
      return undefined;
    default:
      return unreachable(part);
  }
}

function encodeText(part: TextPart, textType: TextType, losses: LossCollector, path: string): JsonObject {
  const fields = own(part);
  const hinted = fields?.['$type'];
  const type = hinted === 'input_text' || hinted === 'output_text' ? hinted : textType;
  const target: JsonObject = { type, text: part.text };
  const annotations = fields?.['$annotations'];
  const citations = part.citations;
  if (type === 'output_text' ? annotations !== false : annotations === true) {
    const list: JsonObject[] = [];
    if (citations !== undefined) {
      for (let index = 0; index < citations.length; index++) {
        if (!(index in citations)) continue;
        const annotation = encodeOpenaiResponsesAnnotation(citations[index] as Citation, part.text.length, losses, pointer(path, 'citations', index));
        if (annotation !== undefined) list.push(annotation);
      }
    }
    target['annotations'] = list;
  } else if (citations !== undefined && citations.length > 0) {
    losses.add('dropped_field', pointer(path, 'citations'), `citations cannot travel on ${type} parts; dropped`);
  }
  if (fields === undefined) {
    if (part.extensions !== undefined) losses.foreignExtensions(part.extensions, FORMAT, path);
    return target;
  }
  if (fields['$emptyLogprobs'] === true) target['logprobs'] = [];
  return finish(target, part, losses, path);
}

/** True when a file id from `format` is usable here: OpenAI formats share one file store. */
function openaiFile(format: string | undefined): boolean {
  return format === undefined || format === FORMAT || format === 'openai-chat';
}

function encodeImage(part: ImagePart, losses: LossCollector, path: string): JsonObject | undefined {
  const target: JsonObject = { type: 'input_image' };
  const source = part.source;
  switch (source.kind) {
    case 'base64':
      setDataUrl(target, 'image_url', `data:${source.mediaType};base64,`, standardBase64(source.data));
      break;
    case 'url':
      target['image_url'] = validUri(source.url);
      break;
    case 'file':
      if (!openaiFile(source.format)) {
        losses.add('unsupported_part', path, `image file id of ${source.format} is not valid at OpenAI; dropped`);
        return undefined;
      }
      target['file_id'] = source.id;
      break;
    default:
      return unreachable(source);
  }
  // The SDK types require `detail`; `auto` is the API's default.
  if (part.detail !== undefined) target['detail'] = part.detail;
  else if (ownHint(part, '$noDetail') !== true && !wasNull(part, 'detail')) target['detail'] = 'auto';
  return finish(target, part, losses, path);
}

function encodeDocument(part: DocumentPart, losses: LossCollector, path: string): JsonObject | undefined {
  const target: JsonObject = { type: 'input_file' };
  const source = part.source;
  switch (source.kind) {
    case 'base64': {
      const prefix = ownHint(part, '$dataUrlPrefix');
      if (ownHint(part, '$rawBase64') === true) target['file_data'] = standardBase64(source.data);
      else setDataUrl(target, 'file_data', typeof prefix === 'string' ? prefix : `data:${source.mediaType};base64,`, standardBase64(source.data));
      break;
    }
    case 'url':
      target['file_url'] = validUri(source.url);
      break;
    case 'file':
      if (!openaiFile(source.format)) {
        losses.add('unsupported_part', path, `file id of ${source.format} is not valid at OpenAI; dropped`);
        return undefined;
      }
      target['file_id'] = source.id;
      break;
    case 'text':
      losses.add('approximated', path, 'plain-text document sent as input_text', 'info');
      losses.foreignExtensions(part.extensions, FORMAT, path);
      return { type: 'input_text', text: part.title === undefined ? source.text : `${part.title}\n\n${source.text}` };
    case 'content':
      losses.add('unsupported_part', path, 'a document made of parts has no OpenAI Responses equivalent; dropped');
      return undefined;
    default:
      return unreachable(source);
  }
  const filename = part.filename ?? (source.kind === 'file' ? source.filename : undefined);
  if (filename !== undefined) target['filename'] = filename;
  else if (source.kind === 'base64' && own(part) === undefined) {
    target['filename'] = defaultFilename(source.mediaType);
    losses.add('defaulted', pointer(path, 'filename'), 'OpenAI needs a filename with file_data; one was made up from the media type', 'info');
  }
  if (part.title !== undefined && own(part) === undefined) losses.add('dropped_field', pointer(path, 'title'), 'document titles have no OpenAI Responses field; dropped');
  if (part.context !== undefined) losses.add('dropped_field', pointer(path, 'context'), 'document context has no OpenAI Responses field; dropped');
  return finish(target, part, losses, path);
}

function defaultFilename(mediaType: string): string {
  const subtype = mediaType.split('/')[1] ?? 'bin';
  return `document.${subtype === 'plain' ? 'txt' : subtype}`;
}

function encodeAudio(part: AudioPart, losses: LossCollector, path: string): JsonObject | undefined {
  const format = ownHint(part, '$audioFormat');
  if (typeof format !== 'string' || part.source.kind !== 'base64') {
    losses.add('unsupported_part', path, 'OpenAI Responses no longer accepts audio input; dropped');
    return undefined;
  }
  const extra = own(part)?.['input_audio'];
  const input = { ...(typeof extra === 'object' && extra !== null ? (extra as JsonObject) : {}), data: standardBase64(part.source.data), format };
  return finish({ type: 'input_audio', input_audio: input }, part, losses, path);
}
