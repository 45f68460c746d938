/**
 * Decode message content parts (`input_text`, `output_text`, `refusal`,
 * `input_image`, `input_file`, `input_audio`) into IR parts. Unknown part
 * types become opaque parts with an `unknown_block` loss.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */
import type { AudioPart, DocumentPart, ImagePart, MediaSource, OpaquePart, Part, RefusalPart, TextPart } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import { isFormattedDataUrl, parseDataUrl, sniffBase64 } from '../../core/media.ts';
import { expectArray, expectObject, expectString, extend, hint, pointer, required, unknownKeys, lookupTable, type JsonObject } from '../../core/wire.ts';
import { decodeOpenaiResponsesAnnotation } from './citations.ts';
import { FORMAT, keepNulls } from './shape.ts';
import { liftPartMarker } from '../../core/cache-points.ts';
import { BREAKPOINT_KEY, RESPONSES_BREAKPOINT } from './cache-breakpoint.ts';

/** The text part type a context expects: `output_text` in assistant items, `input_text` elsewhere. */
export type TextType = 'input_text' | 'output_text';

const REFUSAL_KEYS: ReadonlySet<string> = new Set(['type', 'refusal']);
const IMAGE_KEYS: ReadonlySet<string> = new Set(['type', 'image_url', 'file_id', 'detail']);
const FILE_KEYS: ReadonlySet<string> = new Set(['type', 'file_data', 'file_id', 'file_url', 'filename']);
const IMAGE_KEYS_CACHED: ReadonlySet<string> = new Set([...IMAGE_KEYS, BREAKPOINT_KEY]);
const FILE_KEYS_CACHED: ReadonlySet<string> = new Set([...FILE_KEYS, BREAKPOINT_KEY]);
const BREAKPOINT_ONLY: ReadonlySet<string> = new Set([BREAKPOINT_KEY]);
const AUDIO_KEYS: ReadonlySet<string> = new Set(['type', 'input_audio']);
const AUDIO_DATA_KEYS: ReadonlySet<string> = new Set(['data', 'format']);

/** Media types of the `input_audio` formats. */
const AUDIO_MEDIA_TYPES: Readonly<Record<string, string>> = lookupTable({ mp3: 'audio/mpeg', wav: 'audio/wav' });

/** Decode one content part of a message or a tool output. */
export function decodeOpenaiResponsesContent(value: unknown, path: string, textType: TextType, losses: LossCollector): Part {
  const decoded = decodeContent(value, path, textType, losses);
  // A breakpoint's losses (the targets that drop it) point at its `prompt_cache_breakpoint`, found at once.
  if (decoded.cache !== undefined) losses.anchorItem(decoded.cache, `${path}/${BREAKPOINT_KEY}`);
  return decoded;
}

function decodeContent(value: unknown, path: string, textType: TextType, losses: LossCollector): Part {
  const part = expectObject(value, path, FORMAT);
  const typeValue = part['type'];
  // Pointers only to throw.
  const type = typeof typeValue === 'string' ? typeValue : expectString(required(part, 'type', path, FORMAT), pointer(path, 'type'), FORMAT);
  switch (type) {
    case 'input_text':
    case 'output_text':
      return decodeText(part, type, textType, path, losses);
    case 'refusal':
      return decodeRefusal(part, path);
    case 'input_image':
      return decodeImage(part, path);
    case 'input_file':
      return decodeFile(part, path);
    case 'input_audio':
      return decodeAudio(part, path);
    default:
      return decodeUnknownContent(part, type, path, losses);
  }
}

/** The keys of a text part this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function textExtras(part: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in part) {
    switch (key) {
      case 'type':
      case 'text':
      case 'annotations':
        continue;
    }
    (rest ??= {})[key] = part[key];
  }
  return rest;
}

function decodeText(part: JsonObject, type: TextType, textType: TextType, path: string, losses: LossCollector): TextPart {
  const value = part['text'];
  const text: TextPart = { type: 'text', text: typeof value === 'string' ? value : expectString(required(part, 'text', path, FORMAT), pointer(path, 'text'), FORMAT) };
  if (type !== textType) hint(text, FORMAT, '$type', type);
  const annotations = part['annotations'];
  if (annotations === undefined) {
    if (type === 'output_text') hint(text, FORMAT, '$annotations', false);
  } else {
    const list = Array.isArray(annotations) ? annotations : expectArray(annotations, pointer(path, 'annotations'), FORMAT);
    if (type === 'input_text') hint(text, FORMAT, '$annotations', true);
    if (list.length > 0) {
      // A target's loss on a citation points at its annotation.
      text.citations = list.map((annotation, index) => {
        const at = pointer(path, 'annotations', index);
        const citation = decodeOpenaiResponsesAnnotation(annotation, at);
        return losses.recording ? losses.origin(citation, at) : citation;
      });
    }
  }
  let rest = textExtras(part);
  if (type === 'input_text' && rest?.[BREAKPOINT_KEY] !== undefined && liftPartMarker(text, part, RESPONSES_BREAKPOINT)) rest = unknownKeys(rest, BREAKPOINT_ONLY);
  const logprobs = rest?.['logprobs'];
  if (rest !== undefined && Array.isArray(logprobs) && logprobs.length === 0) {
    delete rest['logprobs'];
    hint(text, FORMAT, '$emptyLogprobs', true);
  }
  if (rest !== undefined && Object.keys(rest).length > 0) extend(text, FORMAT, rest);
  return text;
}

function decodeRefusal(part: JsonObject, path: string): RefusalPart {
  const refusal: RefusalPart = { type: 'refusal', text: expectString(required(part, 'refusal', path, FORMAT), pointer(path, 'refusal'), FORMAT) };
  extend(refusal, FORMAT, unknownKeys(part, REFUSAL_KEYS));
  return refusal;
}

function optionalString(part: JsonObject, key: string, path: string): string | undefined {
  const value = part[key];
  return value === undefined || value === null ? undefined : expectString(value, pointer(path, key), FORMAT);
}

/** A base64 source from a canonical `data:` URL, or `undefined` when the URL is anything else. */
function canonicalDataUrl(url: string): MediaSource | undefined {
  const parsed = parseDataUrl(url);
  if (parsed === undefined || !isFormattedDataUrl(url, parsed)) return undefined;
  return { kind: 'base64', data: parsed.data, mediaType: parsed.mediaType };
}

function decodeImage(part: JsonObject, path: string): ImagePart {
  const url = optionalString(part, 'image_url', path);
  const fileId = optionalString(part, 'file_id', path);
  const detail = optionalString(part, 'detail', path);
  let source: MediaSource;
  if (url !== undefined) source = canonicalDataUrl(url) ?? { kind: 'url', url };
  else if (fileId !== undefined) source = { kind: 'file', id: fileId, format: FORMAT };
  else throw missing(path, 'image_url');
  const image: ImagePart = { type: 'image', source };
  if (detail !== undefined) image.detail = detail;
  else if (part['detail'] === undefined) hint(image, FORMAT, '$noDetail', true);
  keepNulls(image, part, ['image_url', 'file_id', 'detail']);
  if (url !== undefined && fileId !== undefined) extend(image, FORMAT, { file_id: fileId });
  extend(image, FORMAT, unknownKeys(part, liftPartMarker(image, part, RESPONSES_BREAKPOINT) ? IMAGE_KEYS_CACHED : IMAGE_KEYS));
  return image;
}

function decodeFile(part: JsonObject, path: string): DocumentPart {
  const data = optionalString(part, 'file_data', path);
  const fileId = optionalString(part, 'file_id', path);
  const fileUrl = optionalString(part, 'file_url', path);
  const filename = optionalString(part, 'filename', path);
  const document = { type: 'document' } as DocumentPart;
  if (data !== undefined) {
    document.source = fileDataSource(document, data);
    if (fileId !== undefined) extend(document, FORMAT, { file_id: fileId });
    if (fileUrl !== undefined) extend(document, FORMAT, { file_url: fileUrl });
  } else if (fileId !== undefined) {
    document.source = { kind: 'file', id: fileId, format: FORMAT };
    if (fileUrl !== undefined) extend(document, FORMAT, { file_url: fileUrl });
  } else if (fileUrl !== undefined) {
    document.source = { kind: 'url', url: fileUrl };
  } else {
    throw missing(path, 'file_data');
  }
  if (filename !== undefined) document.filename = filename;
  keepNulls(document, part, ['file_data', 'file_id', 'file_url', 'filename']);
  extend(document, FORMAT, unknownKeys(part, liftPartMarker(document, part, RESPONSES_BREAKPOINT) ? FILE_KEYS_CACHED : FILE_KEYS));
  return document;
}

function fileDataSource(document: DocumentPart, data: string): MediaSource {
  const parsed = parseDataUrl(data);
  if (parsed === undefined || !parsed.base64) {
    hint(document, FORMAT, '$rawBase64', true);
    return { kind: 'base64', data, mediaType: sniffBase64(data) };
  }
  if (!isFormattedDataUrl(data, parsed)) hint(document, FORMAT, '$dataUrlPrefix', data.slice(0, data.length - parsed.data.length));
  return { kind: 'base64', data: parsed.data, mediaType: parsed.mediaType };
}

function decodeAudio(part: JsonObject, path: string): AudioPart {
  const audioPath = pointer(path, 'input_audio');
  const input = expectObject(required(part, 'input_audio', path, FORMAT), audioPath, FORMAT);
  const data = expectString(required(input, 'data', audioPath, FORMAT), pointer(audioPath, 'data'), FORMAT);
  const format = expectString(required(input, 'format', audioPath, FORMAT), pointer(audioPath, 'format'), FORMAT);
  const audio: AudioPart = { type: 'audio', source: { kind: 'base64', data, mediaType: AUDIO_MEDIA_TYPES[format] ?? `audio/${format}` } };
  hint(audio, FORMAT, '$audioFormat', format);
  extend(audio, FORMAT, unknownKeys(part, AUDIO_KEYS));
  const rest = unknownKeys(input, AUDIO_DATA_KEYS);
  if (rest !== undefined) extend(audio, FORMAT, { input_audio: rest });
  return audio;
}

function decodeUnknownContent(part: JsonObject, type: string, path: string, losses: LossCollector): OpaquePart {
  losses.add('unknown_block', path, `unknown OpenAI Responses content part "${type}"; kept as an opaque part`);
  return { type: 'opaque', format: FORMAT, blockType: type, value: part };
}

function missing(path: string, key: string): InterlinguaError {
  return new InterlinguaError('missing_field', `"${key}" is required (or one of its alternatives)`, { path: pointer(path, key), format: FORMAT });
}
