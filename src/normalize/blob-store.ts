/**
 * The content-addressed blob store on disk: `DIR/blobs/sha256/<hex>` holds
 * the decoded bytes of one piece of media, written once (a temporary file
 * hard-linked into place, so concurrent workers and crashed runs never leave
 * a half-written blob under its final name), and `resolveBlobs` puts the
 * base64 text back into a record.
 */
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { isObject } from '../core/wire.ts';
import { isBlobReference } from './blob-refs.ts';

/** The file of the blob with sha256 `hash` under the output directory. */
export function blobPath(directory: string, hash: string): string {
  return join(directory, 'blobs', 'sha256', hash);
}

/** Hashes remembered before the store stops trusting memory and asks the disk again. */
const KNOWN_LIMIT = 100_000;

/** Writes blobs under `DIR/blobs/sha256/`, each at most once. */
export class BlobStore {
  /** Blobs this store wrote (not those already on disk). */
  written = 0;
  bytesWritten = 0;
  private readonly known = new Set<string>();
  private readonly root: string;
  private temporary = 0;

  constructor(directory: string) {
    this.root = join(directory, 'blobs', 'sha256');
    mkdirSync(this.root, { recursive: true });
  }

  /** Store `bytes` under `hash` unless a blob with that hash exists. */
  put(hash: string, bytes: Uint8Array): void {
    if (this.known.has(hash)) return;
    if (this.known.size >= KNOWN_LIMIT) this.known.clear();
    this.known.add(hash);
    const path = join(this.root, hash);
    if (existsSync(path)) return;
    const temporary = `${path}.${process.pid}-${threadId}-${this.temporary++}.tmp`;
    writeFileSync(temporary, bytes);
    try {
      linkSync(temporary, path);
      this.written++;
      this.bytesWritten += bytes.length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temporary);
    }
  }
}

/**
 * A copy of `value` with every blob reference replaced by the original
 * string (`prefix` + base64 of the blob file), read from `directory`. Throws
 * when a blob is missing or its bytes do not match its hash.
 */
export function resolveBlobs<T>(value: T, directory: string): T {
  return resolve(value, directory) as T;
}

function resolve(value: unknown, directory: string): unknown {
  if (Array.isArray(value)) return value.map((item) => resolve(item, directory));
  if (!isObject(value)) return value;
  if (isBlobReference(value)) {
    const hash = value.$blob.slice('sha256:'.length);
    const bytes = readFileSync(blobPath(directory, hash));
    if (createHash('sha256').update(bytes).digest('hex') !== hash) throw new Error(`blob ${hash} does not match its hash; the store is corrupt`);
    return (value.prefix ?? '') + bytes.toString('base64');
  }
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = resolve(value[key], directory);
  return out;
}
