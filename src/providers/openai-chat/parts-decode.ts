/**
 * Decode Chat Completions content parts (`text`, `image_url`, `input_audio`,
 * `file`, `refusal`) into IR parts. An unknown part type becomes an opaque
 * part and an `unknown_block` loss.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type { LossCollector } from '../../core/losses.ts';
import type { AudioPart, DocumentPart, ImagePart, OpaquePart, Part, RefusalPart, TextPart } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectMediaType, isFormattedDataUrl, parseDataUrl, sniffBase64 } from '../../core/media.ts';
import { expectObject, expectString, isObject, pointer, required, type JsonObject } from '../../core/wire.ts';
import { FORMAT, chatHint, keepNestedUnknown, keepNestedUnknownOf, keepUnknown, keepUnknownOf, keys } from './shape.ts';
import { audioFormat, audioMediaType } from './media-types.ts';
import { BREAKPOINT_KEY, CACHE_CONTROL_KEY, liftChatBreakpoint, liftedKey, type ChatSpelling } from './cache-breakpoint.ts';

/** The known keys of a part with the field `field`, indexed by the `ChatSpelling` of the breakpoint keys lifted from it. */
function knownBySpelling(field: string): readonly ReadonlySet<string>[] {
  return [keys('type', field), keys('type', field, BREAKPOINT_KEY), keys('type', field, CACHE_CONTROL_KEY), keys('type', field, BREAKPOINT_KEY, CACHE_CONTROL_KEY)];
}

/** The breakpoint keys of `spelling`, as `keepUnknownOf`'s third and fourth known keys (`type` again where none). */
function thirdKey(spelling: ChatSpelling): string {
  return (spelling & 1) !== 0 ? BREAKPOINT_KEY : 'type';
}
function fourthKey(spelling: ChatSpelling): string {
  return (spelling & 2) !== 0 ? CACHE_CONTROL_KEY : 'type';
}

const AUDIO_KNOWN = knownBySpelling('input_audio');
const INPUT_AUDIO_KNOWN = keys('data', 'format');
const FILE_KNOWN = knownBySpelling('file');
const FILE_FIELDS_KNOWN = keys('file_data', 'file_id', 'filename');
const REFUSAL_KNOWN = keys('type', 'refusal');

/** The media type, or an `invalid_value` error that names this format. */
function checkedMediaType(value: string, path: string): string {
  try {
    return expectMediaType(value, path);
  } catch (error) {
    throw new InterlinguaError('invalid_value', `"${value}" is not a media type (expected type/subtype, such as application/pdf)`, {
      path,
      format: FORMAT,
      cause: error,
    });
  }
}

/** The string `object[key]`; the pointer for the error is built only when it is missing or not a string. */
function requiredString(object: JsonObject, key: string, path: string): string {
  const value = object[key];
  return typeof value === 'string' ? value : expectString(required(object, key, path, FORMAT), pointer(path, key), FORMAT);
}

/** The object `object[key]`, which must be present; the pointer for the error is built only when it is not an object. */
function requiredObject(object: JsonObject, key: string, path: string): JsonObject {
  const value = object[key];
  return isObject(value) ? value : expectObject(required(object, key, path, FORMAT), pointer(path, key), FORMAT);
}

/** A text part; the pointer of the part at `index` of the list at `base` is built only for an error. */
function decodeText(part: JsonObject, base: string, index: number): TextPart {
  const value = part['text'];
  const text: TextPart = { type: 'text', text: typeof value === 'string' ? value : requiredString(part, 'text', `${base}/${index}`) };
  const spelling = liftChatBreakpoint(text, part);
  keepUnknownOf(text, part, undefined, 'type', 'text', thirdKey(spelling), fourthKey(spelling));
  return text;
}

function decodeRefusal(part: JsonObject, path: string): RefusalPart {
  const refusal: RefusalPart = {
    type: 'refusal',
    text: expectString(required(part, 'refusal', path, FORMAT), pointer(path, 'refusal'), FORMAT),
  };
  chatHint(refusal, '$inContent', true);
  keepUnknown(refusal, part, REFUSAL_KNOWN);
  return refusal;
}

function decodeImage(part: JsonObject, path: string): ImagePart {
  const imageUrl = requiredObject(part, 'image_url', path);
  const wireUrl = imageUrl['url'];
  const url = typeof wireUrl === 'string' ? wireUrl : requiredString(imageUrl, 'url', pointer(path, 'image_url'));
  const dataUrl = parseDataUrl(url);
  const image: ImagePart =
    dataUrl?.base64 === true
      ? { type: 'image', source: { kind: 'base64', data: dataUrl.data, mediaType: dataUrl.mediaType } }
      : { type: 'image', source: { kind: 'url', url } };
  if (dataUrl?.base64 === true) {
    // Keep the exact header when it is not the canonical `data:<type>;base64,`.
    if (!isFormattedDataUrl(url, dataUrl)) chatHint(image, '$dataUrlHeader', url.slice(0, url.length - dataUrl.data.length));
  }
  const detail = imageUrl['detail'];
  if (typeof detail === 'string') image.detail = detail;
  else if (detail !== undefined) chatHint(image, '$detail', detail);
  keepNestedUnknownOf(image, 'image_url', imageUrl, 'url', 'detail');
  const spelling = liftChatBreakpoint(image, part);
  keepUnknownOf(image, part, undefined, 'type', 'image_url', thirdKey(spelling), fourthKey(spelling));
  return image;
}

function decodeAudio(part: JsonObject, path: string): AudioPart {
  const audioPath = pointer(path, 'input_audio');
  const inputAudio = expectObject(required(part, 'input_audio', path, FORMAT), audioPath, FORMAT);
  const data = expectString(required(inputAudio, 'data', audioPath, FORMAT), pointer(audioPath, 'data'), FORMAT);
  const format = expectString(required(inputAudio, 'format', audioPath, FORMAT), pointer(audioPath, 'format'), FORMAT);
  const audio: AudioPart = { type: 'audio', source: { kind: 'base64', data, mediaType: audioMediaType(format) } };
  // Formats Chat does not list travel exactly as given (and the encoder then reports nothing).
  if (!audioFormat(audioMediaType(format)).accepted || audioFormat(audioMediaType(format)).format !== format) {
    chatHint(audio, '$format', format);
  }
  keepNestedUnknown(audio, 'input_audio', inputAudio, INPUT_AUDIO_KNOWN);
  keepUnknown(audio, part, AUDIO_KNOWN[liftChatBreakpoint(audio, part)] as ReadonlySet<string>);
  return audio;
}

/** `file_data` that is a remote URL rather than a data URL. */
const REMOTE_URL = /^(?:https?|gs):\/\//i;

function decodeFile(part: JsonObject, path: string): DocumentPart {
  const filePath = pointer(path, 'file');
  const file = expectObject(required(part, 'file', path, FORMAT), filePath, FORMAT);
  const fileData = file['file_data'];
  const fileId = file['file_id'];
  const filename = file['filename'];
  let document: DocumentPart;
  if (typeof fileData === 'string' && REMOTE_URL.test(fileData)) {
    // A URL where the API wants a data URL (recorded in lingua captures): a URL source, never base64 for other formats.
    document = { type: 'document', source: { kind: 'url', url: fileData } };
    chatHint(document, '$fileDataUrl', true);
    if (typeof fileId === 'string') keepNestedUnknown(document, 'file', { file_id: fileId }, keys());
  } else if (typeof fileData === 'string') {
    const dataUrl = parseDataUrl(fileData);
    if (dataUrl?.base64 === true) {
      const mediaType = checkedMediaType(dataUrl.mediaType, pointer(filePath, 'file_data'));
      document = { type: 'document', source: { kind: 'base64', data: dataUrl.data, mediaType } };
      if (!isFormattedDataUrl(fileData, dataUrl)) chatHint(document, '$dataUrlHeader', fileData.slice(0, fileData.length - dataUrl.data.length));
    } else {
      // Bare base64 without the data-URL prefix: the API rejects it, but keep it exact.
      document = { type: 'document', source: { kind: 'base64', data: fileData, mediaType: sniffBase64(fileData) } };
      chatHint(document, '$bareFileData', true);
    }
    if (document.source.kind === 'base64' && document.source.mediaType !== 'application/pdf') chatHint(document, '$file', true);
    if (typeof fileId === 'string') keepNestedUnknown(document, 'file', { file_id: fileId }, keys());
  } else if (typeof fileId === 'string') {
    document = { type: 'document', source: { kind: 'file', id: fileId, format: FORMAT } };
  } else {
    throw new InterlinguaError('missing_field', 'a file part needs "file_data" (a data URL) or "file_id"', {
      path: filePath,
      format: FORMAT,
    });
  }
  if (filename !== undefined && filename !== null) {
    document.filename = expectString(filename, pointer(filePath, 'filename'), FORMAT);
  }
  let rest: JsonObject | undefined;
  for (const key in file) {
    if (FILE_FIELDS_KNOWN.has(key) && file[key] !== null) continue;
    (rest ??= {})[key] = file[key];
  }
  if (rest !== undefined) keepNestedUnknown(document, 'file', rest, keys());
  keepUnknown(document, part, FILE_KNOWN[liftChatBreakpoint(document, part)] as ReadonlySet<string>);
  return document;
}

function decodeUnknown(part: JsonObject, type: string, path: string, losses: LossCollector): OpaquePart {
  losses.add('unknown_block', path, `unknown content part type "${type}"; kept as is for openai-chat only`);
  return { type: 'opaque', format: FORMAT, blockType: type, value: part };
}

/**
 * Decode the content part at `index` of the `content` array at `base`. Its
 * pointer is built only where it may be needed: a text part builds it only
 * for an error.
 */
export function decodeOpenaiChatContentPart(value: unknown, base: string, index: number, losses: LossCollector): Part {
  const decoded = decodeContentPart(value, base, index, losses);
  // A breakpoint's losses (the targets that drop it) point at its `prompt_cache_breakpoint` or `cache_control`, found at once.
  if (decoded.cache !== undefined) losses.anchorItem(decoded.cache, `${base}/${index}/${liftedKey(decoded)}`);
  return decoded;
}

function decodeContentPart(value: unknown, base: string, index: number, losses: LossCollector): Part {
  const part = isObject(value) ? value : expectObject(value, `${base}/${index}`, FORMAT);
  const wireType = part['type'];
  const type = typeof wireType === 'string' ? wireType : requiredString(part, 'type', `${base}/${index}`);
  switch (type) {
    case 'text':
      return decodeText(part, base, index);
    case 'image_url':
      return decodeImage(part, `${base}/${index}`);
    case 'input_audio':
      return decodeAudio(part, `${base}/${index}`);
    case 'file':
      return decodeFile(part, `${base}/${index}`);
    case 'refusal':
      return decodeRefusal(part, `${base}/${index}`);
    default:
      return decodeUnknown(part, type, `${base}/${index}`, losses);
  }
}
