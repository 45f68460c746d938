/**
 * Large base64 media → content-addressed references. The walk finds media
 * by where formats put them (a `data` string beside a media type, Gemini
 * `inlineData`, OpenAI `input_audio` and audio output, `b64_json`, image
 * generation results, and data URLs anywhere), so opaque reasoning state
 * (signatures, `encrypted_content`, redacted thinking) is never mistaken for
 * media. Only canonical base64 is replaced, so resolving gives back the exact text.
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

/** True for a {@link BlobReference}. */
export function isBlobReference(value: unknown): value is BlobReference {
  return isObject(value) && typeof value['$blob'] === 'string' && value['$blob'].startsWith('sha256:');
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

/** Replaces large media in place, calling `sink` once per reference. */
export class BlobExtractor {
  /** References made so far. */
  referenced = 0;

  constructor(
    private readonly threshold: number,
    private readonly sink: BlobSink,
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
        } else {
          this.visit(item, nodeKey);
        }
      }
      return;
    }
    if (!isObject(node) || isBlobReference(node)) return;
    for (const key in node) {
      const item = node[key];
      if (typeof item !== 'string') {
        this.visit(item, key);
        continue;
      }
      if (item.length <= this.threshold) continue;
      const reference = this.dataUrlReference(item) ?? (isMediaSlot(node, key, nodeKey) ? this.reference(item, '', siblingMediaType(node)) : undefined);
      if (reference !== undefined) node[key] = reference;
    }
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
