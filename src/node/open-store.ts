/**
 * The store `interlingua serve --store SPEC` and the gateway config's
 * `store:` name: `memory`, a `redis://` or `rediss://` URL, or a file path
 * for the embedded file database.
 */
import { createMemoryStore } from '../store/memory.ts';
import type { StateStore } from '../store/store.ts';

/** How `openStore` opens a store. */
export interface OpenStoreOptions {
  /** Seconds an entry lives by default. */
  readonly ttlSeconds?: number;
}

/** Opens the store `spec` names. Only `memory` exists yet; the others are a typed error until their backends land. */
export async function openStore(spec: string, options: OpenStoreOptions = {}): Promise<StateStore> {
  if (spec === 'memory') return createMemoryStore(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds });
  throw new Error(`--store ${spec}: only "memory" is supported so far`);
}
