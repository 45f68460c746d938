/**
 * Small helpers shared by the Bedrock Converse decoders and encoders: the
 * format id, shape hints, and the wire's media format names (`png`, `pdf`,
 * `mp4`) against IANA media types.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
 */
import type { Extensible, FormatId } from '../../core/ir.ts';
import { expectString, lookupTable, pointer, required, type JsonObject } from '../../core/wire.ts';

/** The format id of this codec. */
export const BEDROCK: FormatId = 'bedrock-converse';

/** The Bedrock extension fields (and shape hints) of `node`, if any. */
export function bedrockHints(node: Extensible): JsonObject | undefined {
  return node.extensions?.['bedrock-converse'];
}

/** True when `node` carries the Bedrock shape hint `key` with a truthy value. */
export function hasHint(node: Extensible, key: `$${string}`): boolean {
  const value = node.extensions?.['bedrock-converse']?.[key];
  return value !== undefined && value !== false;
}

/** A required string field. */
export function stringField(object: JsonObject, key: string, path: string): string {
  const value = object[key];
  if (typeof value === 'string') return value;
  return expectString(required(object, key, path, BEDROCK), pointer(path, key), BEDROCK);
}

/** The kinds of media Converse carries, each with its own `format` enum. */
export type MediaKind = 'image' | 'document' | 'video' | 'audio';

const MEDIA_TYPES: Readonly<Record<MediaKind, Readonly<Record<string, string>>>> = {
  image: lookupTable({ png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }),
  document: lookupTable({
    pdf: 'application/pdf',
    csv: 'text/csv',
    doc: 'application/msword',
    docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    xls: 'application/vnd.ms-excel',
    xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    html: 'text/html',
    txt: 'text/plain',
    md: 'text/markdown',
  }),
  video: lookupTable({
    mp4: 'video/mp4',
    mov: 'video/quicktime',
    mkv: 'video/x-matroska',
    webm: 'video/webm',
    flv: 'video/x-flv',
    mpeg: 'video/mpeg',
    mpg: 'video/mpg',
    wmv: 'video/x-ms-wmv',
    three_gp: 'video/3gpp',
  }),
  audio: lookupTable({
    mp3: 'audio/mpeg',
    wav: 'audio/wav',
    flac: 'audio/flac',
    ogg: 'audio/ogg',
    opus: 'audio/opus',
    aac: 'audio/aac',
    'x-aac': 'audio/x-aac',
    m4a: 'audio/x-m4a',
    mp4: 'audio/mp4',
    mpeg: 'audio/mpeg',
    mpga: 'audio/mpga',
    webm: 'audio/webm',
    pcm: 'audio/pcm',
    mka: 'audio/x-matroska',
    mkv: 'audio/x-matroska',
  }),
};

const FORMATS: Readonly<Record<MediaKind, Readonly<Record<string, string>>>> = {
  image: reverse(MEDIA_TYPES.image, { 'image/jpg': 'jpeg' }),
  document: reverse(MEDIA_TYPES.document, { 'text/x-markdown': 'md', 'application/xhtml+xml': 'html' }),
  video: reverse(MEDIA_TYPES.video, { 'video/mpg': 'mpg' }),
  audio: reverse(MEDIA_TYPES.audio, { 'audio/mp3': 'mp3', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3' }),
};

function reverse(table: Readonly<Record<string, string>>, extra: Record<string, string>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const key in table) {
    const mediaType = table[key] as string;
    out[mediaType] ??= key;
  }
  return lookupTable({ ...out, ...extra });
}

/** The media type of a wire `format` (`png` → `image/png`); an unknown name becomes `<kind>/<name>`. */
export function mediaTypeOf(kind: MediaKind, format: string): string {
  return MEDIA_TYPES[kind][format] ?? `${kind === 'document' ? 'application' : kind}/${format}`;
}

/** The wire `format` of a media type, or `undefined` when Converse has none for it. */
export function formatOf(kind: MediaKind, mediaType: string, hinted: unknown): string | undefined {
  if (typeof hinted === 'string' && mediaTypeOf(kind, hinted) === mediaType) return hinted;
  const lower = mediaType.toLowerCase();
  const semicolon = lower.indexOf(';');
  return FORMATS[kind][semicolon === -1 ? lower : lower.slice(0, semicolon).trim()];
}

/** True for an Amazon Nova model id (`amazon.nova-…`, `us.amazon.nova-…`, an ARN naming one). */
export function isNovaModel(model: string | undefined): boolean {
  return model !== undefined && model.includes('amazon.nova');
}
