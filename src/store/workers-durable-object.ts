/**
 * The Durable Object store: entries in the SQLite storage of Durable Objects
 * of the class `StateStoreObject`, which the Worker exports and binds (with
 * a `new_sqlite_classes` migration). Unlike KV it is consistent everywhere
 * at once, and a TTL of any length is exact. Keys are spread over `shards`
 * objects by a hash, since one object serves its requests one at a time.
 *
 * The object speaks a small JSON protocol over `fetch` (not RPC), so this
 * module imports nothing from `cloudflare:workers` and loads on any runtime.
 * A value is kept in parts of at most 256 Ki characters, as a SQLite row in
 * a Durable Object holds at most 2 MB. Expired entries are never returned,
 * are deleted when read, and all at once at most once a minute on a write.
 *
 * @see https://developers.cloudflare.com/durable-objects/api/sql-storage/
 */
import { StoreError, type StateStore, type StoreSetOptions } from './store.ts';

/** The part of a `DurableObjectNamespace` binding this store uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init: RequestInit): Promise<Response> };
}

/** Which objects hold the entries, and the store's bounds. */
export interface DurableObjectStoreOptions {
  /** The objects' name (`<name>/<shard>`). Default `interlingua-store`. */
  readonly name?: string;
  /** Objects the keys are spread over. Default 1; more for more than about 500 writes a second. */
  readonly shards?: number;
  /** Largest single value, in UTF-16 code units; a larger one is a `StoreError` `too_large`. Default 16 Mi. */
  readonly maxValueChars?: number;
  /** Seconds an entry lives when `set` names no TTL. Default 30 days, as OpenAI keeps stored responses. */
  readonly ttlSeconds?: number;
}

const DAY_SECONDS = 24 * 60 * 60;
const PART_CHARS = 256 * 1024;
const SWEEP_INTERVAL_MS = 60_000;

type Operation = { op: 'get'; key: string } | { op: 'set'; key: string; value: string; ttlSeconds: number } | { op: 'delete'; key: string };
type Answer = { value?: string; deleted?: boolean; error?: string };

/** A `StateStore` on the Durable Objects of `namespace` (a binding of the class `StateStoreObject`: `env.STORE`). */
export function createDurableObjectStore(namespace: DurableObjectNamespaceLike, options: DurableObjectStoreOptions = {}): StateStore {
  const name = options.name ?? 'interlingua-store';
  const shards = Math.max(1, Math.floor(options.shards ?? 1));
  const maxValueChars = options.maxValueChars ?? 16 * 1024 * 1024;
  const defaultTtl = options.ttlSeconds ?? 30 * DAY_SECONDS;
  const ids = new Map<number, unknown>();
  let closed = false;

  // A stub is bound to the request that made it (workerd refuses its use from another request's handler), so a
  // store made once per isolate keeps the objects' ids and makes a stub per call, which costs no round trip.
  const stubFor = (key: string) => {
    const shard = shards === 1 ? 0 : fnv1a(key) % shards;
    let id = ids.get(shard);
    if (id === undefined) {
      id = namespace.idFromName(`${name}/${shard}`);
      ids.set(shard, id);
    }
    return namespace.get(id as never);
  };

  const send = async (operation: Operation, action: string): Promise<Answer> => {
    if (closed) throw new StoreError('unavailable', 'the Durable Object store is closed');
    let answer: Answer;
    try {
      const response = await stubFor(operation.key).fetch('https://interlingua-store/', { method: 'POST', body: JSON.stringify(operation) });
      answer = (await response.json()) as Answer;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StoreError('unavailable', `the Durable Object store could not ${action}: ${reason}`, { cause: error });
    }
    if (answer.error !== undefined) throw new StoreError('unavailable', `the Durable Object store could not ${action}: ${answer.error}`);
    return answer;
  };

  return {
    async get(key) {
      return (await send({ op: 'get', key }, 'read an entry')).value;
    },
    async set(key, value, setOptions?: StoreSetOptions) {
      if (value.length > maxValueChars) {
        throw new StoreError('too_large', `a value of ${value.length} characters is over the Durable Object store's bound of ${maxValueChars} (maxValueChars)`);
      }
      await send({ op: 'set', key, value, ttlSeconds: setOptions?.ttlSeconds ?? defaultTtl }, 'write an entry');
    },
    async delete(key) {
      return (await send({ op: 'delete', key }, 'delete an entry')).deleted === true;
    },
    async close() {
      closed = true;
      ids.clear();
    },
  };
}

/** The part of a Durable Object's `state` the class uses. */
interface DurableObjectStateLike {
  storage: { sql: { exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] } } };
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS interlingua_parts (
  key TEXT NOT NULL, part INTEGER NOT NULL, expires INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (key, part)
);
CREATE INDEX IF NOT EXISTS interlingua_parts_expires ON interlingua_parts (expires);`;

/**
 * The Durable Object class behind `createDurableObjectStore`: export it from
 * the Worker's entry and bind it (`durable_objects.bindings` with
 * `class_name = "StateStoreObject"`, and a migration with
 * `new_sqlite_classes = ["StateStoreObject"]`).
 */
export class StateStoreObject {
  readonly #sql: DurableObjectStateLike['storage']['sql'];
  #lastSweep = 0;

  constructor(state: DurableObjectStateLike) {
    this.#sql = state.storage.sql;
    this.#sql.exec(SCHEMA);
  }

  /** Answers one store operation (the JSON protocol `createDurableObjectStore` speaks). */
  async fetch(request: Request): Promise<Response> {
    try {
      return Response.json(this.#answer((await request.json()) as Operation));
    } catch (error) {
      return Response.json({ error: error instanceof Error ? error.message : String(error) });
    }
  }

  #answer(operation: Operation): Answer {
    const now = Date.now();
    switch (operation.op) {
      case 'get':
        return this.#read(operation.key, now);
      case 'set':
        this.#write(operation.key, operation.value, Math.round(now + operation.ttlSeconds * 1000), now);
        return {};
      case 'delete':
        return { deleted: this.#delete(operation.key, now) };
    }
  }

  #read(key: string, now: number): Answer {
    const rows = this.#sql.exec('SELECT text, expires FROM interlingua_parts WHERE key = ? ORDER BY part', key).toArray();
    if (rows.length === 0) return {};
    if (Number(rows[0]?.['expires']) <= now) {
      this.#remove(key);
      return {};
    }
    return { value: rows.map((row) => String(row['text'])).join('') };
  }

  #write(key: string, value: string, expires: number, now: number): void {
    this.#remove(key);
    let start = 0;
    let part = 0;
    do {
      let end = Math.min(value.length, start + PART_CHARS);
      // Never split a surrogate pair between two parts.
      if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end -= 1;
      this.#sql.exec('INSERT INTO interlingua_parts (key, part, expires, text) VALUES (?, ?, ?, ?)', key, part, expires, value.slice(start, end));
      part += 1;
      start = end;
    } while (start < value.length);
    if (now - this.#lastSweep < SWEEP_INTERVAL_MS) return;
    this.#lastSweep = now;
    this.#sql.exec('DELETE FROM interlingua_parts WHERE expires <= ?', now);
  }

  #delete(key: string, now: number): boolean {
    const [first] = this.#sql.exec('SELECT expires FROM interlingua_parts WHERE key = ? AND part = 0', key).toArray();
    this.#remove(key);
    return first !== undefined && Number(first['expires']) > now;
  }

  #remove(key: string): void {
    this.#sql.exec('DELETE FROM interlingua_parts WHERE key = ?', key);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** FNV-1a over the key's UTF-16 code units: a cheap, stable spread over the shards. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
