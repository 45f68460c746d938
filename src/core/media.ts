/**
 * Media helpers: sniff a media type from the first bytes of base64 data
 * (decoding only a few characters, never the whole string) and read or write
 * data URLs without copying the payload more than once.
 */
import { InterlinguaError } from './errors.ts';

/** The media type used when sniffing finds nothing it knows. */
export const DEFAULT_MEDIA_TYPE = 'application/octet-stream';

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int16Array(128).fill(-1);
for (let index = 0; index < BASE64_ALPHABET.length; index++) BASE64_VALUE[BASE64_ALPHABET.charCodeAt(index)] = index;
// URL-safe alphabet too: some recorders use it.
BASE64_VALUE[45] = 62; // -
BASE64_VALUE[95] = 63; // _

/** Decode the first `count` bytes of base64 text (fewer when the text is shorter or invalid). */
export function base64Prefix(data: string, count: number): Uint8Array {
  const bytes = new Uint8Array(count);
  let length = 0;
  let buffer = 0;
  let bits = 0;
  for (let index = 0; index < data.length && length < count; index++) {
    const code = data.charCodeAt(index);
    if (code === 61 /* = */) break;
    const value = code < 128 ? (BASE64_VALUE[code] ?? -1) : -1;
    if (value < 0) {
      if (code === 10 || code === 13 || code === 32) continue; // line-wrapped base64
      break;
    }
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[length++] = (buffer >> bits) & 0xff;
    }
  }
  return bytes.subarray(0, length);
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  for (let index = 0; index < signature.length; index++) {
    if (bytes[offset + index] !== signature[index]) return false;
  }
  return true;
}

const ascii = (text: string): number[] => Array.from(text, (character) => character.charCodeAt(0));
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const WAVE = ascii('WAVE');
const GIF8 = ascii('GIF8');
const PDF = ascii('%PDF');
const OGG = ascii('OggS');
const FLAC = ascii('fLaC');
const ID3 = ascii('ID3');
const FTYP = ascii('ftyp');

/** Sniff the media type of raw bytes from their signature; `undefined` when unknown. */
export function sniffBytes(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, GIF8)) return 'image/gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WAVE, 8)) return 'audio/wav';
  if (startsWith(bytes, PDF)) return 'application/pdf';
  if (startsWith(bytes, OGG)) return 'audio/ogg';
  if (startsWith(bytes, FLAC)) return 'audio/flac';
  if (startsWith(bytes, ID3)) return 'audio/mpeg';
  // MPEG audio frame sync: 11 set bits.
  if (bytes.length >= 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0) return 'audio/mpeg';
  if (startsWith(bytes, FTYP, 4)) {
    const brand = String.fromCharCode(...bytes.subarray(8, 12));
    if (brand.startsWith('heic') || brand.startsWith('heix')) return 'image/heic';
    if (brand.startsWith('M4A')) return 'audio/mp4';
    return 'video/mp4';
  }
  return undefined;
}

/** Sniff the media type of base64 data from its first bytes, or `fallback`. */
export function sniffBase64(data: string, fallback: string = DEFAULT_MEDIA_TYPE): string {
  return sniffBytes(base64Prefix(data, 16)) ?? fallback;
}

/**
 * `data` in the standard base64 alphabet with its padding (RFC 4648 §4),
 * which Anthropic, Converse, Ollama and OpenAI's data URLs require, from
 * the URL-safe alphabet (§5: `-` and `_`, padding optional) that Gemini also
 * accepts in `inlineData.data`. A character pass, never a decode, and only
 * when the text holds `-` or `_`: otherwise `data` itself comes back.
 */
export function standardBase64(data: string): string {
  if (data.indexOf('-') < 0 && data.indexOf('_') < 0) return data;
  const text = data.replaceAll('-', '+').replaceAll('_', '/');
  const tail = text.length % 4;
  return tail === 2 ? `${text}==` : tail === 3 ? `${text}=` : text;
}

/** A parsed `data:` URL. `data` is the payload text as it stood in the URL. */
export interface DataUrl {
  mediaType: string;
  /** True for `;base64` URLs. */
  base64: boolean;
  data: string;
}

/** Parse a `data:` URL; `undefined` when `url` is not one. */
export function parseDataUrl(url: string): DataUrl | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const header = url.slice(5, comma);
  const base64 = header.endsWith(';base64');
  const mediaType = (base64 ? header.slice(0, -7) : header).split(';')[0] ?? '';
  return { mediaType: mediaType === '' ? 'text/plain' : mediaType, base64, data: url.slice(comma + 1) };
}

/** Write a base64 `data:` URL. */
export function formatDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/**
 * Is `url` the very text {@link formatDataUrl} writes for `parsed`, its
 * parse by {@link parseDataUrl}? `parsed.data` is the URL's own tail, so
 * only the header is compared: writing the URL again to compare it would
 * copy and compare the whole base64.
 */
export function isFormattedDataUrl(url: string, parsed: DataUrl): boolean {
  if (!parsed.base64) return false;
  const header = `data:${parsed.mediaType};base64,`;
  return url.length - parsed.data.length === header.length && url.startsWith(header);
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/** The media type if it is well-formed (`type/subtype`), else an `invalid_value` error at `path`. */
export function expectMediaType(value: string, path: string): string {
  if (MEDIA_TYPE.test(value)) return value;
  throw new InterlinguaError('invalid_value', `"${value}" is not a media type (expected type/subtype, such as image/png)`, { path });
}

/** The broad kind of a media type: the IR part it belongs in. */
export function mediaKind(mediaType: string): 'image' | 'audio' | 'video' | 'document' {
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType.startsWith('audio/')) return 'audio';
  if (mediaType.startsWith('video/')) return 'video';
  return 'document';
}
