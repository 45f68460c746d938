/**
 * The proxy's state store: where stored Responses, Conversations and the
 * opaque reasoning state kept for callers that cannot carry it live between
 * requests. One small interface, so that an in-memory map, an embedded file
 * database, Redis and Workers KV or a Durable Object all serve it; each
 * implementation is its own subpath export so that a bundle carries only the
 * one it uses.
 *
 * Values are strings (the caller serialises its records as JSON): every
 * backend stores strings natively, and the store never parses what it keeps.
 * Keys are opaque to the store; the layer above builds them (a namespace, a
 * hash of the caller's credential, and an id) so that one caller can never
 * read another's entries.
 */

/** How long an entry lives and how big it may be. */
export interface StoreSetOptions {
  /** Seconds until the entry expires; the store's own default when absent. */
  readonly ttlSeconds?: number;
}

/** A key-value store with expiry. Every method may reject with a `StoreError`. */
export interface StateStore {
  /** The value under `key`, or `undefined` when it is absent or has expired. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` under `key`, replacing what was there. */
  set(key: string, value: string, options?: StoreSetOptions): Promise<void>;
  /** Removes `key`; true when an unexpired entry was there. */
  delete(key: string): Promise<boolean>;
  /** Releases connections and file handles; the store is unusable after. */
  close?(): Promise<void>;
}

/** What went wrong in a store: a backend that is down, or a value over the size bound. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** `unavailable`: the backend could not be reached; `too_large`: the value is over the store's bound. */
  readonly code: 'unavailable' | 'too_large';

  constructor(code: 'unavailable' | 'too_large', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * Whether `value` is a `StoreError`, also one from a second copy of this
 * module (a backend loaded by `import()` under a CommonJS test loader, or two
 * installed versions), where `instanceof` alone says no.
 */
export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError || (value instanceof Error && value.name === 'StoreError' && 'code' in value);
}
