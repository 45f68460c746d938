/**
 * The content-addressed blob store on disk: `DIR/blobs/sha256/<hex>` holds
 * the decoded bytes of one piece of media, written once (a temporary file
 * hard-linked into place, so concurrent workers and crashed runs never leave
 * a half-written blob under its final name), and `resolveBlobs` puts the
 * base64 text back into a record.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, linkSync, mkdirSync, openSync, readSync, unlinkSync, writeFileSync, constants } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { isObject } from '../core/wire.ts';
import { InterlinguaError } from '../core/errors.ts';
import { BLOB_NAME, isEscaped, LITERAL_KEY } from './blob-refs.ts';

/** The file of the blob with sha256 `hash` (64 hex digits, else an `invalid_value` error) under the output directory. */
export function blobPath(directory: string, hash: string): string {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new InterlinguaError('invalid_value', `${JSON.stringify(hash)} is not a sha256 hex digest`);
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
 * string (`prefix` + base64 of the blob file), read from `directory`, and
 * every escaped input object (`{ "$literal": object }`) by that object,
 * verbatim. A `$blob` whose name is not `sha256:` and 64 hex digits is an
 * `invalid_value` error naming its path, never a file name; so is a blob
 * that is missing, not a regular file, of another size than `bytes`, or
 * whose bytes do not match its hash.
 */
export function resolveBlobs<T>(value: T, directory: string): T {
  return resolve(value, directory, '') as T;
}

function resolve(value: unknown, directory: string, path: string): unknown {
  if (Array.isArray(value)) return value.map((item, index) => resolve(item, directory, `${path}/${index}`));
  if (!isObject(value)) return value;
  if (isEscaped(value)) return value[LITERAL_KEY];
  if (Object.hasOwn(value, '$blob')) return readBlob(value, directory, path);
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = resolve(value[key], directory, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  return out;
}

function readBlob(reference: Record<string, unknown>, directory: string, path: string): string {
  const name = reference['$blob'];
  const fail = (message: string): never => {
    throw new InterlinguaError('invalid_value', message, { path: `${path}/$blob` });
  };
  if (typeof name !== 'string' || !BLOB_NAME.test(name)) return fail(`${JSON.stringify(name)} is not a blob name the normalizer writes (sha256: and 64 hex digits); it is not resolved`);
  const hash = name.slice('sha256:'.length);
  const expected = reference['bytes'];
  let descriptor: number;
  try {
    // O_NOFOLLOW: a symbolic link planted in the store is refused, not followed.
    descriptor = openSync(blobPath(directory, hash), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return fail(`blob ${hash} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return fail(`blob ${hash} is not a regular file`);
    if (typeof expected === 'number' && stats.size !== expected) return fail(`blob ${hash} holds ${stats.size} bytes, the reference says ${expected}`);
    const bytes = Buffer.alloc(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const count = readSync(descriptor, bytes, read, bytes.length - read, read);
      if (count === 0) break;
      read += count;
    }
    if (read !== bytes.length || createHash('sha256').update(bytes).digest('hex') !== hash) return fail(`blob ${hash} does not match its hash; the store is corrupt`);
    return (typeof reference['prefix'] === 'string' ? reference['prefix'] : '') + bytes.toString('base64');
  } finally {
    closeSync(descriptor);
  }
}
