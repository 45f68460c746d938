/**
 * The Redis store: for several proxy instances behind one load balancer,
 * all reading and writing the same entries. node-redis (`@redis/client`,
 * Redis's own client, no dependencies) speaks to the server; each entry is
 * one string key set with `SET … PX` so that Redis itself expires it.
 *
 * A proxy must answer, never hang, when Redis is down: commands are never
 * queued while the connection is down (they fail at once), every command
 * and the connection have a timeout, and each failure is a `StoreError`
 * `unavailable`, which the proxy answers with a 503. A client whose first
 * connection failed is dropped and a new one tried on the next call; one
 * that was connected reconnects by itself.
 */
import { createClient, type RedisClientType } from '@redis/client';
import { StoreError, type StateStore, type StoreSetOptions } from './store.ts';

export { StoreError, isStoreError, type StateStore, type StoreSetOptions } from './store.ts';

/** Where the Redis store connects, and its bounds. */
export interface RedisStoreOptions {
  /** The server: `redis://[user:password@]host[:port][/database]`, or `rediss://` for TLS. */
  readonly url: string;
  /** Largest single value, in UTF-16 code units; a larger one is a `StoreError` `too_large`. Default 16 Mi. */
  readonly maxValueChars?: number;
  /** Seconds an entry lives when `set` names no TTL. Default 30 days, as OpenAI keeps stored responses. */
  readonly ttlSeconds?: number;
  /** Milliseconds to wait for a connection. Default 2,000. */
  readonly connectTimeoutMs?: number;
  /** Milliseconds to wait for a command's answer. Default 2,000. */
  readonly commandTimeoutMs?: number;
}

const DAY_SECONDS = 24 * 60 * 60;

type Client = RedisClientType;

/** A `StateStore` on the Redis server at `options.url`; it connects on first use. */
export function createRedisStore(options: RedisStoreOptions): StateStore {
  const maxValueChars = options.maxValueChars ?? 16 * 1024 * 1024;
  const defaultTtl = options.ttlSeconds ?? 30 * DAY_SECONDS;
  const connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000;
  const where = redactedUrl(options.url);
  let connecting: Promise<Client> | undefined;
  let closed = false;

  const failed = (action: string, error: unknown): StoreError => {
    if (error instanceof StoreError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new StoreError('unavailable', `the Redis store at ${where} could not ${action}: ${reason}`, { cause: error });
  };

  const connect = async (): Promise<Client> => {
    let ready = false;
    const client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      commandOptions: { timeout: commandTimeoutMs },
      socket: {
        connectTimeout: connectTimeoutMs,
        // The first connection fails at once (the caller gets a 503 and the next call tries again); a lost one is retried in the background.
        reconnectStrategy: (retries, cause) => (ready ? Math.min(50 * 2 ** retries, 2_000) : cause),
      },
    });
    // Without a listener an `error` event would end the process; each command reports its own failure instead.
    client.on('error', () => {});
    client.on('ready', () => (ready = true));
    try {
      await client.connect();
      return client;
    } catch (error) {
      client.destroy();
      throw error;
    }
  };

  const client = async (): Promise<Client> => {
    if (closed) throw new StoreError('unavailable', `the Redis store at ${where} is closed`);
    connecting ??= connect();
    try {
      return await connecting;
    } catch (error) {
      connecting = undefined;
      throw failed('connect', error);
    }
  };

  return {
    async get(key) {
      const redis = await client();
      try {
        return (await redis.get(key)) ?? undefined;
      } catch (error) {
        throw failed('read an entry', error);
      }
    },
    async set(key, value, setOptions?: StoreSetOptions) {
      if (value.length > maxValueChars) {
        throw new StoreError('too_large', `a value of ${value.length} characters is over the Redis store's bound of ${maxValueChars} (maxValueChars)`);
      }
      const redis = await client();
      const milliseconds = Math.max(1, Math.round((setOptions?.ttlSeconds ?? defaultTtl) * 1000));
      try {
        await redis.set(key, value, { expiration: { type: 'PX', value: milliseconds } });
      } catch (error) {
        throw failed('write an entry', error);
      }
    },
    async delete(key) {
      const redis = await client();
      try {
        return (await redis.del(key)) > 0;
      } catch (error) {
        throw failed('delete an entry', error);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending = connecting;
      connecting = undefined;
      const redis = await pending?.catch(() => undefined);
      if (redis === undefined) return;
      await redis.close().catch(() => redis.destroy());
    },
  };
}

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unparsable URL';
  }
}
