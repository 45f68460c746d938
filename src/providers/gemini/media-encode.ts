/**
 * IR media sources → Gemini `inlineData` (base64) or `fileData` (URL or Files
 * API URI).
 * @see https://ai.google.dev/gemini-api/docs/file-input-methods
 */
import type { AudioPart, DocumentPart, ImagePart, VideoPart } from '../../core/ir.ts';
import { parseDataUrl } from '../../core/media.ts';
import { setData } from '../../core/serialize.ts';
import { extensionsOf, lookupTable, type JsonObject } from '../../core/wire.ts';
import type { LossCollector } from '../../core/losses.ts';
import { isGeminiFileUri } from './parts.ts';

/** Encode the source of a media part; `undefined` (with a loss) when Gemini cannot take it. */
export function encodeGeminiMedia(
  part: ImagePart | AudioPart | VideoPart | DocumentPart,
  path: string,
  scope: { losses: LossCollector },
): JsonObject | undefined {
  const source = part.source;
  const gemini = extensionsOf(part, 'gemini');
  switch (source.kind) {
    case 'base64':
      return { inlineData: withRest(inlineBlob(gemini?.['$noMimeType'] === true ? undefined : source.mediaType, source.data), gemini?.['inlineData']) };
    case 'url': {
      const dataUrl = parseDataUrl(source.url);
      if (dataUrl !== undefined && dataUrl.base64) {
        return { inlineData: inlineBlob(source.mediaType ?? dataUrl.mediaType, dataUrl.data) };
      }
      const mediaType = source.mediaType ?? (gemini?.['$noMimeType'] === true ? undefined : mediaTypeOfUrl(source.url));
      return { fileData: withRest(fileData(source.url, mediaType), gemini?.['fileData']) };
    }
    case 'file':
      if (source.format === 'gemini' || (source.format === undefined && isGeminiFileUri(source.id))) {
        return { fileData: withRest(fileData(source.id, source.mediaType), gemini?.['fileData']) };
      }
      scope.losses.add(
        'unsupported_part',
        path,
        `file id "${source.id}" belongs to ${source.format ?? 'another vendor'}'s file store; Gemini cannot read it; dropped`,
      );
      return undefined;
    case 'text':
      scope.losses.add('moved_content', path, 'plain-text document sent to Gemini as a text part', 'info');
      return { text: source.text };
    case 'content': {
      scope.losses.add('approximated', path, 'document made of parts sent to Gemini as the text of its text parts');
      const texts: string[] = [];
      for (const inner of source.parts) if (inner.type === 'text') texts.push(inner.text);
      return { text: texts.join('\n\n') };
    }
  }
}

/** An `inlineData` blob, its keys in the order Gemini writes them (`mimeType`, then `data`); large data is remembered for `stringifyBody` to write apart. */
function inlineBlob(mediaType: string | undefined, data: string): JsonObject {
  const blob: JsonObject = mediaType === undefined ? {} : { mimeType: mediaType };
  setData(blob, 'data', data);
  return blob;
}

/** Media types by file extension, for URLs from formats that send none (Gemini wants a `mimeType` with `fileUri`). */
const MEDIA_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = lookupTable({
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  html: 'text/html',
  csv: 'text/csv',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  aac: 'audio/aac',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
});

/** The media type a URL's file extension names, if any. */
export function mediaTypeOfUrl(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return undefined;
  return MEDIA_TYPE_BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}

function fileData(uri: string, mediaType: string | undefined): JsonObject {
  return mediaType === undefined ? { fileUri: uri } : { fileUri: uri, mimeType: mediaType };
}

function withRest(target: JsonObject, rest: unknown): JsonObject {
  if (rest !== undefined && typeof rest === 'object' && rest !== null) Object.assign(target, rest);
  return target;
}
