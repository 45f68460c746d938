/**
 * Large base64 media → content-addressed references. The walk finds media
 * by where formats put them (a `data` string beside a media type, Gemini
 * `inlineData`, OpenAI `input_audio` and audio output, `b64_json`, image
 * generation results, and data URLs anywhere), so opaque reasoning state
 * (signatures, `encrypted_content`, redacted thinking) is never mistaken for
 * media. Only canonical base64 is replaced, so resolving gives back the exact text.
 *
 * The input is hostile as often as not: an object of the input that already
 * has a `$blob` key (or the escape key `$literal`) is wrapped as
 * `{ "$literal": object }`, so every `$blob` left in a record is one the
 * normalizer wrote, and `resolveBlobs` gives the object back untouched.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_MEDIA_TYPE, sniffBytes } from '../core/media.ts';
import { isObject, type JsonObject } from '../core/wire.ts';

/**
 * What replaces a large base64 string in a record. `bytes` is the decoded
 * length; the blob file `blobs/sha256/<hex>` holds the decoded bytes. A data
 * URL keeps its header in `prefix` (`data:image/png;base64,`), so the
 * original string is `prefix + base64(file)`.
 */
export interface BlobReference {
  $blob: `sha256:${string}`;
  bytes: number;
  mediaType: string;
  prefix?: string;
}

/** Receives each blob found: its sha256 hex and decoded bytes. */
export type BlobSink = (hash: string, bytes: Buffer) => void;

/** The only `$blob` names the normalizer writes: `sha256:` and 64 lower-case hex digits. */
export const BLOB_NAME = /^sha256:[0-9a-f]{64}$/;

/** True for a {@link BlobReference}: a `$blob` of the one form the normalizer writes. */
export function isBlobReference(value: unknown): value is BlobReference {
  return isObject(value) && typeof value['$blob'] === 'string' && BLOB_NAME.test(value['$blob']);
}

/** The key that wraps an input object which could be mistaken for a reference: `{ "$literal": object }` stands for `object`, verbatim. */
export const LITERAL_KEY = '$literal';

/** True for an input object that must be escaped: it has a `$blob` or a `$literal` key of its own. */
export function needsEscape(value: unknown): value is JsonObject {
  return isObject(value) && (Object.hasOwn(value, '$blob') || Object.hasOwn(value, LITERAL_KEY));
}

/** True for an escaped input object, `{ "$literal": object }`. */
export function isEscaped(value: unknown): value is { $literal: unknown } {
  if (!isObject(value) || !Object.hasOwn(value, LITERAL_KEY)) return false;
  for (const key in value) if (key !== LITERAL_KEY) return false;
  return true;
}

const MEDIA_TYPE_KEYS = ['mediaType', 'media_type', 'mimeType', 'mime_type'] as const;
/** Objects whose `data` is media even without a media type beside it. */
const MEDIA_HOLDERS: ReadonlySet<string> = new Set(['inlineData', 'inline_data', 'input_audio', 'audio']);
/** Keys whose string is media wherever they stand. */
const MEDIA_KEYS: ReadonlySet<string> = new Set(['b64_json', 'file_data']);

function siblingMediaType(holder: JsonObject): string | undefined {
  for (const key of MEDIA_TYPE_KEYS) {
    const value = holder[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function isMediaSlot(holder: JsonObject, key: string, holderKey: string | undefined): boolean {
  if (MEDIA_KEYS.has(key)) return true;
  if (key === 'data') return siblingMediaType(holder) !== undefined || (holderKey !== undefined && MEDIA_HOLDERS.has(holderKey));
  return key === 'result' && holder['type'] === 'image_generation_call';
}

/** The header and payload of a base64 data URL. */
function splitDataUrl(text: string): { prefix: string; payload: string; mediaType: string | undefined } | undefined {
  if (!text.startsWith('data:')) return undefined;
  const comma = text.indexOf(',', 5);
  if (comma < 0 || comma > 256) return undefined;
  const prefix = text.slice(0, comma + 1);
  if (!prefix.endsWith(';base64,')) return undefined;
  const mediaType = prefix.slice(5, prefix.indexOf(';'));
  return { prefix, payload: text.slice(comma + 1), mediaType: mediaType === '' ? undefined : mediaType };
}

/** Drop the `$` keys of each format's extensions; true when nothing is left. */
function dropHints(extensions: JsonObject): boolean {
  for (const format in extensions) {
    const own = extensions[format];
    if (!isObject(own)) continue;
    for (const key in own) if (key.startsWith('$')) delete own[key];
    if (Object.keys(own).length === 0) delete extensions[format];
  }
  return Object.keys(extensions).length === 0;
}

/** Replaces large media in place, calling `sink` once per reference. */
export class BlobExtractor {
  /** References made so far. */
  referenced = 0;
  /** Input objects escaped so far (they had a `$blob` or `$literal` key of their own). */
  escaped = 0;

  /**
   * `stripHints`: also drop the IR's shape hints on the way (keys starting
   * with `$` in a node's `extensions[format]`, such as `$contentString`):
   * they serve re-encoding the source byte for byte, not readers.
   */
  constructor(
    private readonly threshold: number,
    private readonly sink: BlobSink,
    private readonly stripHints = false,
  ) {}

  /** Replace every large media string inside `value` (in place); returns `value`. */
  extract<T>(value: T): T {
    this.visit(value, undefined);
    return value;
  }

  private visit(node: unknown, nodeKey: string | undefined): void {
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index];
        if (typeof item === 'string') {
          const reference = item.length > this.threshold ? this.dataUrlReference(item) : undefined;
          if (reference !== undefined) node[index] = reference;
        } else if (needsEscape(item)) {
          node[index] = this.escape(item);
        } else {
          this.visit(item, nodeKey);
        }
      }
      return;
    }
    if (!isObject(node)) return;
    for (const key in node) {
      const item = node[key];
      if (key === 'extensions' && this.stripHints && isObject(item) && dropHints(item)) {
        delete node[key];
        continue;
      }
      if (typeof item !== 'string') {
        if (needsEscape(item)) node[key] = this.escape(item);
        else this.visit(item, key);
        continue;
      }
      if (item.length <= this.threshold) continue;
      const reference = this.dataUrlReference(item) ?? (isMediaSlot(node, key, nodeKey) ? this.reference(item, '', siblingMediaType(node)) : undefined);
      if (reference !== undefined) node[key] = reference;
    }
  }

  /** An input object kept verbatim (its media are not moved either), marked so no reader takes it for a reference. */
  private escape(value: JsonObject): { $literal: JsonObject } {
    this.escaped++;
    return { $literal: value };
  }

  private dataUrlReference(text: string): BlobReference | undefined {
    const parts = splitDataUrl(text);
    return parts === undefined ? undefined : this.reference(parts.payload, parts.prefix, parts.mediaType);
  }

  private reference(base64: string, prefix: string, mediaType: string | undefined): BlobReference | undefined {
    const bytes = Buffer.from(base64, 'base64');
    // Only canonical base64 (standard alphabet, padded, no line breaks) comes back byte for byte.
    if (bytes.length === 0 || bytes.toString('base64') !== base64) return undefined;
    const hash = createHash('sha256').update(bytes).digest('hex');
    this.sink(hash, bytes);
    this.referenced++;
    const reference: BlobReference = {
      $blob: `sha256:${hash}`,
      bytes: bytes.length,
      mediaType: mediaType ?? sniffBytes(bytes.subarray(0, 16)) ?? DEFAULT_MEDIA_TYPE,
    };
    if (prefix !== '') reference.prefix = prefix;
    return reference;
  }
}
