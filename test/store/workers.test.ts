/**
 * The Workers stores inside workerd: the Worker in workers-worker.ts is
 * bundled as wrangler does (esbuild, worker conditions, no Node built-ins)
 * and served by workerd with a KV namespace binding (workerd's own KV
 * client, in front of kv-backend.ts, which refuses what KV refuses) and a
 * SQLite-backed Durable Object namespace of `StateStoreObject`. Each store
 * call the conformance suite makes runs inside workerd. Skipped, saying
 * why, where the workerd binary cannot run.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { StoreError, type StateStore } from '../../src/store/store.ts';
import { WORKER_BUNDLE, findRuntime, startServer, type Started } from '../support/consumer.ts';
import { conformance } from './conformance.ts';

const test = suite('store: workers');
const workerd = findRuntime('workerd');
const folder = mkdtempSync(join(tmpdir(), 'interlingua-workers-store-'));
let server: Started | undefined;
let base = '';
let instances = 0;

async function bundle(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [join(import.meta.dirname, entry)],
    outfile: join(folder, outfile),
    ...WORKER_BUNDLE,
  });
  return readFileSync(join(folder, outfile), 'utf8');
}

const config = (storage: string) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .storeWorker),
    (name = "kv", worker = .kvBackend),
    (name = "do-disk", disk = (path = ${JSON.stringify(storage)}, writable = true)),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const storeWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.bundle.js")],
  compatibilityDate = "2025-09-01",
  bindings = [(name = "KV", kvNamespace = "kv"), (name = "STORE", durableObjectNamespace = "StateStoreObject")],
  durableObjectNamespaces = [(className = "StateStoreObject", uniqueKey = "interlingua-store-test", enableSql = true)],
  durableObjectStorage = (localDisk = "do-disk"),
);
const kvBackend :Workerd.Worker = (
  modules = [(name = "kv.js", esModule = embed "kv.bundle.js")],
  compatibilityDate = "2025-09-01",
);
`;

async function call(kind: string, instance: string, operation: string, body: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(`${base}/${kind}/${instance}/${operation}`, { method: 'POST', body: JSON.stringify(body) });
  const answer = (await response.json()) as { result?: unknown; error?: { name: string; code?: StoreError['code']; message: string } };
  if (answer.error === undefined) return answer.result;
  if (answer.error.code !== undefined) throw new StoreError(answer.error.code, answer.error.message);
  throw new Error(`${answer.error.name} in workerd: ${answer.error.message}`);
}

/** A store whose every call runs inside workerd, on the instance's own store there. */
function bridge(kind: string, instance: string, maxValueChars?: number): StateStore {
  const bounds = maxValueChars === undefined ? {} : { maxValueChars };
  // KV has one namespace: a fresh KV store is a fresh key prefix.
  const keyOf = (key: string) => (kind === 'kv' ? `${instance}/${key}` : key);
  return {
    get: async (key) => ((await call(kind, instance, 'get', { key: keyOf(key), ...bounds })) as string | null) ?? undefined,
    set: async (key, value, options) => void (await call(kind, instance, 'set', { key: keyOf(key), value, ...bounds, ...(options?.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }) })),
    delete: async (key) => (await call(kind, instance, 'delete', { key: keyOf(key), ...bounds })) as boolean,
    close: async () => void (await call(kind, instance, 'close', {})),
  };
}

if ('missing' in workerd) {
  console.warn(`store: SKIPPING the Workers stores' tests: ${workerd.missing}`);
} else {
  test.before(async () => {
    const worker = await bundle('workers-worker.ts', 'worker.bundle.js');
    await bundle('kv-backend.ts', 'kv.bundle.js');
    writeFileSync(join(folder, 'worker.source.js'), worker);
    mkdirSync(join(folder, 'durable-objects'));
    writeFileSync(join(folder, 'workerd.capnp'), config(join(folder, 'durable-objects')));
    server = await startServer(workerd.path, ['serve', 'workerd.capnp', '--control-fd=3'], { cwd: folder, announceFd: 3 });
    const announced = JSON.parse(server.line) as { port: number };
    base = `http://127.0.0.1:${announced.port}`;
  });
  for (const kind of ['kv', 'do']) {
    conformance(test, {
      name: kind === 'kv' ? 'workers KV' : 'workers Durable Object',
      open: async ({ maxValueChars }) => bridge(kind, `conformance-${(instances += 1)}`, maxValueChars),
      expiry: { by: 'waiting', ttlSeconds: 0.3 },
    });
  }
  // After the conformance suite's own `after`, which closes its stores inside workerd.
  test.after(async () => {
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  test('workers: the bundle carries the stores on Web APIs alone: no file database, no Redis client, no Node built-in', () => {
    const source = readFileSync(join(folder, 'worker.source.js'), 'utf8');
    assert.not.match(source, /libsql/i);
    assert.not.match(source, /@redis|redis-errors|RESP3/);
    assert.not.match(source, /from\s*["']node:/);
  });

  test('workers KV: KV refuses a TTL under 60 s, and the KV store never sends one (its short TTLs are kept in the metadata)', async () => {
    const refused = await call('raw-kv-put', '30', 'put', {});
    assert.match(String(refused), /KV PUT failed: 400/);
    const store = bridge('kv', 'short-ttl');
    await store.set('key', 'value', { ttlSeconds: 1 });
    assert.is(await store.get('key'), 'value');
  });

  test('workers KV: a key over KV\'s 512 bytes is a StoreError too_large before any request', async () => {
    const store = bridge('kv', 'long-key');
    const error = await store.set('ключ'.repeat(80), 'value').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    assert.instance(error, StoreError);
    assert.is((error as StoreError).code, 'too_large');
    assert.match((error as StoreError).message, /512/);
  });

  test('workers Durable Object: a second client on the same objects reads, replaces and deletes what the first wrote', async () => {
    const first = bridge('do', 'shared');
    const second = bridge('do-again', 'shared');
    const keys = Array.from({ length: 12 }, (_, index) => `interlingua:response:scope:resp_${index}`);
    await Promise.all(keys.map((key) => first.set(key, `first ${key}`)));
    assert.equal(await Promise.all(keys.map((key) => second.get(key))), keys.map((key) => `first ${key}`));
    await second.set(keys[0] ?? '', 'second');
    assert.is(await first.get(keys[0] ?? ''), 'second');
    assert.is(await second.delete(keys[1] ?? ''), true);
    assert.is(await first.get(keys[1] ?? ''), undefined);
  });
}

test.run();
