/**
 * The Workers KV store: entries in a KV namespace bound to the Worker.
 * KV expires an entry no sooner than 60 seconds after it is written, so the
 * exact moment of expiry travels in the entry's metadata and a read after
 * it finds nothing; KV removes the entry itself later. KV is eventually
 * consistent: a write is seen at once where it was made and within about a
 * minute elsewhere, which a chain of turns from one caller, answered by one
 * location, does not notice; a Durable Object store is consistent everywhere.
 *
 * @see https://developers.cloudflare.com/kv/api/write-key-value-pairs/
 */
import { StoreError, type StateStore, type StoreSetOptions } from './store.ts';

/** The part of a Workers `KVNamespace` binding this store uses (the runtime's own object satisfies it). */
export interface KvNamespaceLike {
  getWithMetadata(key: string, type: 'text'): Promise<{ value: string | null; metadata: unknown }>;
  put(key: string, value: string, options: { expirationTtl: number; metadata: unknown }): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The KV store's bounds. */
export interface KvStoreOptions {
  /** Largest single value, in UTF-16 code units; a larger one is a `StoreError` `too_large`. Default 8 Mi (KV takes 25 MiB of UTF-8). */
  readonly maxValueChars?: number;
  /** Seconds an entry lives when `set` names no TTL. Default 30 days, as OpenAI keeps stored responses. */
  readonly ttlSeconds?: number;
  /** The clock, in milliseconds. */
  readonly now?: () => number;
}

const DAY_SECONDS = 24 * 60 * 60;
/** KV's shortest `expirationTtl`. */
const KV_MINIMUM_TTL_SECONDS = 60;
/** KV's longest key, in UTF-8 bytes. */
const KV_MAXIMUM_KEY_BYTES = 512;

const encoder = new TextEncoder();

/** A `StateStore` on the KV namespace `namespace` (a binding: `env.STORE`). */
export function createKvStore(namespace: KvNamespaceLike, options: KvStoreOptions = {}): StateStore {
  const maxValueChars = options.maxValueChars ?? 8 * 1024 * 1024;
  const defaultTtl = options.ttlSeconds ?? 30 * DAY_SECONDS;
  const now = options.now ?? Date.now;
  let closed = false;

  const call = async <T>(action: string, key: string, work: () => Promise<T>): Promise<T> => {
    if (closed) throw new StoreError('unavailable', 'the KV store is closed');
    const keyBytes = encoder.encode(key).length;
    if (keyBytes > KV_MAXIMUM_KEY_BYTES) {
      throw new StoreError('too_large', `a key of ${keyBytes} UTF-8 bytes is over KV's limit of ${KV_MAXIMUM_KEY_BYTES}`);
    }
    try {
      return await work();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StoreError('unavailable', `the KV store could not ${action}: ${reason}`, { cause: error });
    }
  };

  const read = async (key: string): Promise<string | undefined> => {
    const { value, metadata } = await namespace.getWithMetadata(key, 'text');
    if (value === null) return undefined;
    return expiresOf(metadata) > now() ? value : undefined;
  };

  return {
    async get(key) {
      return call('read an entry', key, () => read(key));
    },
    async set(key, value, setOptions?: StoreSetOptions) {
      if (value.length > maxValueChars) {
        throw new StoreError('too_large', `a value of ${value.length} characters is over the KV store's bound of ${maxValueChars} (maxValueChars)`);
      }
      const ttlSeconds = setOptions?.ttlSeconds ?? defaultTtl;
      const expires = Math.round(now() + ttlSeconds * 1000);
      const expirationTtl = Math.max(KV_MINIMUM_TTL_SECONDS, Math.ceil(ttlSeconds));
      await call('write an entry', key, () => namespace.put(key, value, { expirationTtl, metadata: { expires } }));
    },
    async delete(key) {
      return call('delete an entry', key, async () => {
        const existed = (await read(key)) !== undefined;
        await namespace.delete(key);
        return existed;
      });
    },
    async close() {
      closed = true;
    },
  };
}

/** The expiry recorded in an entry's metadata; an entry written without one (by something else) never expires early. */
function expiresOf(metadata: unknown): number {
  if (typeof metadata !== 'object' || metadata === null || !('expires' in metadata)) return Number.POSITIVE_INFINITY;
  const { expires } = metadata;
  return typeof expires === 'number' ? expires : Number.POSITIVE_INFINITY;
}
