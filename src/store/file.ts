/**
 * The file store: `interlingua serve`'s default, one SQLite database file
 * (libSQL's embedded engine, prebuilt for each platform, no install script)
 * created on first use. Write-ahead logging lets several processes share the
 * file: readers never wait for a writer, and a writer waits up to
 * `busyTimeoutMs` for another. Expired entries are never returned; they are
 * deleted when read, and all at once on opening and at most once a minute
 * on a write.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'libsql';
import { StoreError, type StateStore, type StoreSetOptions } from './store.ts';

export { StoreError, isStoreError, type StateStore, type StoreSetOptions } from './store.ts';

/** Where the file store keeps its entries, and its bounds. */
export interface FileStoreOptions {
  /** The database file; it and its folder are created when missing. */
  readonly path: string;
  /** Largest single value, in UTF-16 code units; a larger one is a `StoreError` `too_large`. Default 16 Mi. */
  readonly maxValueChars?: number;
  /** Seconds an entry lives when `set` names no TTL. Default 30 days, as OpenAI keeps stored responses. */
  readonly ttlSeconds?: number;
  /** Milliseconds a write waits for another process's write to finish before failing as `unavailable`. Default 5,000. */
  readonly busyTimeoutMs?: number;
  /** Milliseconds between sweeps of expired entries (done on a write, never on a timer). Default 60,000. */
  readonly sweepIntervalMs?: number;
  /** The clock, in milliseconds (tests pass their own). */
  readonly now?: () => number;
}

const DAY_SECONDS = 24 * 60 * 60;

const SCHEMA = `CREATE TABLE IF NOT EXISTS interlingua_entries (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL,
  expires INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS interlingua_entries_expires ON interlingua_entries (expires);`;

/** Opens (creating when missing) the database file at `options.path` as a `StateStore`; a file that cannot be opened is a `StoreError` `unavailable`. */
export function createFileStore(options: FileStoreOptions): StateStore {
  const path = resolve(options.path);
  const maxValueChars = options.maxValueChars ?? 16 * 1024 * 1024;
  const defaultTtl = options.ttlSeconds ?? 30 * DAY_SECONDS;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  const database = open(path, options.busyTimeoutMs ?? 5_000);

  const failed = (action: string, error: unknown): StoreError => {
    const reason = error instanceof Error ? error.message : String(error);
    return new StoreError('unavailable', `the file store ${path} could not ${action}: ${reason}`, { cause: error });
  };
  const statement = (sql: string) => {
    try {
      return database.prepare(sql);
    } catch (error) {
      database.close();
      throw failed('prepare its statements (is it an interlingua store?)', error);
    }
  };
  const select = statement('SELECT value, expires FROM interlingua_entries WHERE key = ?').raw();
  const upsert = statement(
    'INSERT INTO interlingua_entries (key, value, expires) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires',
  );
  // libSQL's `pluck` is a no-op; `raw` rows are arrays.
  const remove = statement('DELETE FROM interlingua_entries WHERE key = ? RETURNING expires').raw();
  const removeIfExpired = statement('DELETE FROM interlingua_entries WHERE key = ? AND expires <= ?');
  const sweep = statement('DELETE FROM interlingua_entries WHERE expires <= ?');
  let lastSweep = now();
  let closed = false;

  const guard = <T>(action: string, work: () => T): T => {
    if (closed) throw new StoreError('unavailable', `the file store ${path} is closed`);
    try {
      return work();
    } catch (error) {
      throw failed(action, error);
    }
  };
  guard('sweep expired entries', () => sweep.run(lastSweep));

  return {
    async get(key) {
      return guard('read an entry', () => {
        const row = select.get(key) as [string, number] | undefined;
        if (row === undefined) return undefined;
        const moment = now();
        if (row[1] > moment) return row[0];
        removeIfExpired.run(key, moment);
        return undefined;
      });
    },
    async set(key, value, setOptions?: StoreSetOptions) {
      if (value.length > maxValueChars) {
        throw new StoreError('too_large', `a value of ${value.length} characters is over the file store's bound of ${maxValueChars} (maxValueChars)`);
      }
      guard('write an entry', () => {
        const moment = now();
        upsert.run(key, value, Math.round(moment + (setOptions?.ttlSeconds ?? defaultTtl) * 1000));
        if (moment - lastSweep < sweepIntervalMs) return;
        lastSweep = moment;
        sweep.run(moment);
      });
    },
    async delete(key) {
      return guard('delete an entry', () => {
        const row = remove.get(key) as [number] | undefined;
        return row !== undefined && row[0] > now();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      database.close();
    },
  };
}

/** The database at `path` with the store's table, in WAL mode; its folder made first. */
function open(path: string, busyTimeoutMs: number): Database.Database {
  let database: Database.Database | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true });
    database = new Database(path);
    database.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.exec(SCHEMA);
    return database;
  } catch (error) {
    database?.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreError('unavailable', `the file store ${path} could not be opened: ${reason}; name a file in a folder this process can write (--store FILE)`, { cause: error });
  }
}
