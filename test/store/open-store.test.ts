/**
 * `openStore`, what `serve --store SPEC` and the gateway config's `store:`
 * call: each spec form opens its backend, and a spec that names no store is
 * a `StoreSpecError` saying what to write.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, parseStoreSpec, StoreSpecError } from '../../src/node/open-store.ts';
import { isStoreError } from '../../src/store/store.ts';
import { findRedisServer, freePort, startRedisServer } from './redis-server.ts';

const test = suite('store: openStore');
const folder = mkdtempSync(join(tmpdir(), 'interlingua-open-store-'));
test.after(() => rmSync(folder, { recursive: true, force: true }));

test('the spec forms: memory, redis:// and rediss:// URLs, anything else a file path', () => {
  assert.equal(parseStoreSpec('memory'), { kind: 'memory' });
  assert.equal(parseStoreSpec('redis://127.0.0.1:6379/2'), { kind: 'redis', url: 'redis://127.0.0.1:6379/2' });
  assert.equal(parseStoreSpec('REDISS://user:pass@cache.internal'), { kind: 'redis', url: 'REDISS://user:pass@cache.internal' });
  assert.equal(parseStoreSpec('./state/interlingua.db'), { kind: 'file', path: './state/interlingua.db' });
  assert.equal(parseStoreSpec('C:\\state\\interlingua.db'), { kind: 'file', path: 'C:\\state\\interlingua.db' });
});

test('a spec that names no store is a StoreSpecError saying why and what to write', () => {
  const cases: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    ['redis://', /not a valid URL|no host/],
    ['postgres://db/state', /postgres:\/\/ is not a store/],
    ['file:///var/state.db', /without file:\/\//],
  ];
  for (const [spec, why] of cases) {
    try {
      parseStoreSpec(spec);
      assert.unreachable(`${JSON.stringify(spec)} was accepted`);
    } catch (error) {
      assert.instance(error, StoreSpecError, JSON.stringify(spec));
      assert.is((error as StoreSpecError).spec, spec);
      assert.match((error as Error).message, why);
      assert.match((error as Error).message, /"memory", a redis:\/\/host:port/);
    }
  }
});

test('memory opens the memory store with the default TTL given', async () => {
  const store = await openStore('memory', { ttlSeconds: 60 });
  await store.set('key', 'value');
  assert.is(await store.get('key'), 'value');
  await store.close?.();
});

test('a path opens the file store, creating the file; a second open sees the entries', async () => {
  const path = join(folder, 'sub', 'serve.db');
  const first = await openStore(path);
  await first.set('key', 'kept');
  await first.close?.();
  assert.ok(existsSync(path));
  const second = await openStore(path, { ttlSeconds: 60 });
  assert.is(await second.get('key'), 'kept');
  await second.close?.();
});

test('a Redis URL with no server behind it opens (connecting on first use) and fails calls as unavailable', async () => {
  const store = await openStore(`redis://127.0.0.1:${await freePort()}`);
  const error = await store.get('key').then(
    () => undefined,
    (reason: unknown) => reason,
  );
  // The backend is loaded by import(), a second copy of store.ts under uvu's CommonJS loader: instanceof would say no.
  assert.ok(isStoreError(error), String(error));
  assert.is(error.code, 'unavailable');
  await store.close?.();
});

const binary = findRedisServer();
if ('missing' in binary) {
  console.warn(`store: SKIPPING openStore on a live Redis: ${binary.missing}`);
} else {
  test('a Redis URL opens the Redis store on a live server', async () => {
    const server = await startRedisServer(binary.path);
    try {
      const store = await openStore(server.url, { ttlSeconds: 60 });
      await store.set('key', 'in redis');
      assert.is(await store.get('key'), 'in redis');
      await store.close?.();
    } finally {
      await server.stop();
    }
  });
}

test.run();
