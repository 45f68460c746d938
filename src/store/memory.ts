/**
 * The in-memory store: the library's default. A `Map` kept in insertion
 * order, so the oldest entry is the first to go when the bound on entries
 * or bytes is reached, and expiry is checked when an entry is read. Nothing
 * survives the process; for that, the file or Redis store.
 */
import { StoreError, type StateStore, type StoreSetOptions } from './store.ts';

export { StoreError, isStoreError, type StateStore, type StoreSetOptions } from './store.ts';

/** Bounds of the in-memory store. */
export interface MemoryStoreOptions {
  /** Entries kept at most; the oldest go first. Default 10,000. */
  readonly maxEntries?: number;
  /** UTF-16 code units kept at most over all values (about bytes for JSON). Default 256 Mi. */
  readonly maxChars?: number;
  /** Largest single value, in UTF-16 code units; a larger one is a `StoreError` `too_large`. Default 16 Mi. */
  readonly maxValueChars?: number;
  /** Seconds an entry lives when `set` names no TTL. Default 30 days, as OpenAI keeps stored responses. */
  readonly ttlSeconds?: number;
  /** The clock, in milliseconds (tests pass their own). */
  readonly now?: () => number;
}

interface Entry {
  readonly value: string;
  readonly expires: number;
}

const DAY_SECONDS = 24 * 60 * 60;

/** A bounded in-memory `StateStore`. */
export function createMemoryStore(options: MemoryStoreOptions = {}): StateStore {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxChars = options.maxChars ?? 256 * 1024 * 1024;
  const maxValueChars = options.maxValueChars ?? 16 * 1024 * 1024;
  const defaultTtl = options.ttlSeconds ?? 30 * DAY_SECONDS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let chars = 0;
  let closed = false;
  const open = (): void => {
    if (closed) throw new StoreError('unavailable', 'the memory store is closed');
  };

  const remove = (key: string): boolean => {
    const entry = entries.get(key);
    if (entry === undefined) return false;
    entries.delete(key);
    chars -= entry.value.length;
    return entry.expires > now();
  };

  return {
    async get(key) {
      open();
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expires <= now()) {
        remove(key);
        return undefined;
      }
      return entry.value;
    },
    async set(key, value, setOptions?: StoreSetOptions) {
      open();
      if (value.length > maxValueChars) {
        throw new StoreError('too_large', `a value of ${value.length} characters is over the memory store's bound of ${maxValueChars} (maxValueChars)`);
      }
      remove(key);
      entries.set(key, { value, expires: now() + (setOptions?.ttlSeconds ?? defaultTtl) * 1000 });
      chars += value.length;
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries && chars <= maxChars) break;
        remove(oldest);
      }
    },
    async delete(key) {
      open();
      return remove(key);
    },
    async close() {
      closed = true;
      entries.clear();
      chars = 0;
    },
  };
}
