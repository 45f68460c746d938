/**
 * The Redis store against a real `redis-server` started here (skipped, saying
 * why, where it is not installed): the conformance suite, Redis's own expiry,
 * two clients sharing entries, and a server that is down or goes away, which
 * must be a `StoreError` `unavailable` at once, never a hang.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient } from '@redis/client';
import { createRedisStore } from '../../src/store/redis.ts';
import { StoreError } from '../../src/store/store.ts';
import { conformance } from './conformance.ts';
import { findRedisServer, freePort, startRedisServer, type RedisServer } from './redis-server.ts';

const test = suite('store: redis');
const binary = findRedisServer();

async function rejection(work: Promise<unknown>): Promise<StoreError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  assert.instance(error, StoreError, `expected a StoreError, got ${String(error)}`);
  return error as StoreError;
}

if ('missing' in binary) {
  console.warn(`store: SKIPPING the Redis store's tests: ${binary.missing}`);
} else {
  let server: RedisServer;
  const admin = () => createClient({ url: server.url });
  test.before(async () => {
    server = await startRedisServer(binary.path);
  });
  test.after(async () => {
    await server.stop();
  });

  conformance(test, {
    name: 'redis',
    open: async ({ maxValueChars }) => {
      const client = await admin().connect();
      await client.flushAll();
      await client.close();
      return createRedisStore({ url: server.url, maxValueChars });
    },
    expiry: { by: 'waiting', ttlSeconds: 0.3 },
  });

  test('redis: each entry carries its TTL in Redis (SET … PX), the default one when set names none', async () => {
    const store = createRedisStore({ url: server.url, ttlSeconds: 120 });
    await store.set('ttl:given', 'value', { ttlSeconds: 30 });
    await store.set('ttl:default', 'value');
    const client = await admin().connect();
    const given = await client.pTTL('ttl:given');
    const fallback = await client.pTTL('ttl:default');
    await client.close();
    await store.close?.();
    assert.ok(given > 0 && given <= 30_000, `PTTL ${given}`);
    assert.ok(fallback > 30_000 && fallback <= 120_000, `PTTL ${fallback}`);
  });

  test('redis: two clients share the entries (as two proxy instances do)', async () => {
    const first = createRedisStore({ url: server.url });
    const second = createRedisStore({ url: server.url });
    await first.set('shared:key', 'written by the first');
    assert.is(await second.get('shared:key'), 'written by the first');
    await second.set('shared:key', 'replaced by the second');
    assert.is(await first.get('shared:key'), 'replaced by the second');
    assert.is(await second.delete('shared:key'), true);
    assert.is(await first.get('shared:key'), undefined);
    await Promise.all([first.close?.(), second.close?.()]);
  });

  test('redis: no server at the address is StoreError unavailable on every call, and the password is not in the message', async () => {
    const port = await freePort();
    const store = createRedisStore({ url: `redis://user:secret-password@127.0.0.1:${port}` });
    for (const call of [() => store.get('key'), () => store.set('key', 'value'), () => store.delete('key')]) {
      const error = await rejection(call());
      assert.is(error.code, 'unavailable');
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.not.match(error.message, /secret-password/);
    }
    await store.close?.();
  });

  test('redis: a server that goes away fails calls as unavailable; when it is back, the store works again', async () => {
    const own = await startRedisServer(binary.path);
    const store = createRedisStore({ url: own.url, connectTimeoutMs: 500, commandTimeoutMs: 500 });
    await store.set('key', 'before');
    await own.stop();
    assert.is((await rejection(store.get('key'))).code, 'unavailable');
    const back = await startRedisServer(binary.path, own.port);
    try {
      let value: string | undefined;
      for (let attempt = 0; attempt < 100; attempt += 1) {
        try {
          await store.set('key', 'after');
          value = await store.get('key');
          break;
        } catch (error) {
          assert.instance(error, StoreError);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      assert.is(value, 'after', 'the store reconnected to the restarted server');
    } finally {
      await store.close?.();
      await back.stop();
    }
  });
}

test.run();
