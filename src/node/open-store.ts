/**
 * The store `interlingua serve --store SPEC` and the gateway config's
 * `store:` name: `memory`, a `redis://` or `rediss://` URL, or a file path
 * for the embedded file database (created on first use). Each backend is
 * loaded only when chosen, so a proxy on the memory store never loads the
 * file database's native engine or the Redis client.
 */
import { createMemoryStore } from '../store/memory.ts';
import type { StateStore } from '../store/store.ts';

/** How `openStore` opens a store. */
export interface OpenStoreOptions {
  /** Seconds an entry lives by default. */
  readonly ttlSeconds?: number;
}

/** The store a spec names, before it is opened: what `openStore` would do with it. */
export type StoreSpec = { readonly kind: 'memory' } | { readonly kind: 'redis'; readonly url: string } | { readonly kind: 'file'; readonly path: string };

/**
 * Reads a store spec: `memory`, a `redis://`/`rediss://` URL, or a file path.
 * An empty spec, another URL scheme or a malformed Redis URL is a
 * `StoreSpecError` that says what to write instead.
 */
export function parseStoreSpec(spec: string): StoreSpec {
  const trimmed = spec.trim();
  if (trimmed === '') throw invalid(spec, 'it is empty');
  if (trimmed === 'memory') return { kind: 'memory' };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw invalid(spec, 'it is not a valid URL');
    }
    if (url.hostname === '') throw invalid(spec, 'the URL names no host');
    return { kind: 'redis', url: trimmed };
  }
  if (scheme === 'file') throw invalid(spec, 'a file store is named by its path, without file://');
  if (scheme !== undefined) throw invalid(spec, `${scheme}:// is not a store this proxy knows`);
  return { kind: 'file', path: trimmed };
}

/** Opens the store `spec` names (see `parseStoreSpec`); the file store's file is created when missing. */
export async function openStore(spec: string, options: OpenStoreOptions = {}): Promise<StateStore> {
  const parsed = parseStoreSpec(spec);
  const ttl = options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds };
  switch (parsed.kind) {
    case 'memory':
      return createMemoryStore(ttl);
    case 'redis': {
      const { createRedisStore } = await import('../store/redis.ts');
      return createRedisStore({ url: parsed.url, ...ttl });
    }
    case 'file': {
      const { createFileStore } = await import('../store/file.ts');
      return createFileStore({ path: parsed.path, ...ttl });
    }
  }
}

/** A store spec that names no store: the message says why and what to write. */
export class StoreSpecError extends Error {
  override readonly name = 'StoreSpecError';
  /** The spec as given. */
  readonly spec: string;

  constructor(spec: string, message: string) {
    super(message);
    this.spec = spec;
  }
}

function invalid(spec: string, why: string): StoreSpecError {
  // Quoted only when it would not read as one word (empty, or with spaces).
  const shown = /^\S+$/.test(spec) ? spec : JSON.stringify(spec);
  return new StoreSpecError(spec, `--store ${shown}: ${why}; write "memory", a redis://host:port (or rediss://) URL, or the path of a file for the file store`);
}
