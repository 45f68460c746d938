/**
 * The file store on a real database file: the conformance suite with an
 * injected clock, the file created with its folder on first use, entries
 * surviving a close and reopen, a second process reading and writing the
 * same file at the same time (WAL), the sweep of expired rows, and a path
 * that cannot be a database as a `StoreError` naming it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'libsql';
import { createFileStore } from '../../src/store/file.ts';
import { StoreError } from '../../src/store/store.ts';
import { conformance, manualClock } from './conformance.ts';

const test = suite('store: file');
const folder = mkdtempSync(join(tmpdir(), 'interlingua-file-store-'));
const CHILD = join(import.meta.dirname, 'file-child.ts');
let counter = 0;
const nextPath = () => join(folder, `store-${(counter += 1)}.db`);
const runChild = async (...args: string[]) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, ...args], { encoding: 'utf8' });
  return JSON.parse(stdout) as Record<string, unknown>;
};

test.after(() => rmSync(folder, { recursive: true, force: true }));

conformance(test, {
  name: 'file',
  open: async ({ maxValueChars, clock }) => createFileStore({ path: nextPath(), maxValueChars, ...(clock === undefined ? {} : { now: clock.now }) }),
  expiry: { by: 'clock' },
});

test('file: the database and its folders are created on first use', async () => {
  const path = join(folder, 'nested', 'deeper', 'state.db');
  assert.not.ok(existsSync(path));
  const store = createFileStore({ path });
  await store.set('key', 'value');
  await store.close?.();
  assert.ok(existsSync(path));
});

test('file: entries survive closing and reopening, expiry included', async () => {
  const path = nextPath();
  const clock = manualClock();
  const first = createFileStore({ path, now: clock.now });
  await first.set('kept', 'across a restart');
  await first.set('brief', 'expires while closed', { ttlSeconds: 10 });
  await first.close?.();
  clock.advance(10_000);
  const second = createFileStore({ path, now: clock.now });
  assert.is(await second.get('kept'), 'across a restart');
  assert.is(await second.get('brief'), undefined);
  await second.close?.();
});

test('file: a second process reads what the first wrote, and both write the same file at once', async () => {
  const path = nextPath();
  const store = createFileStore({ path });
  await store.set('parent:greeting', 'from the parent ✓');
  const read = await runChild('read', path, 'parent:greeting', 'parent:missing');
  assert.equal(read, { 'parent:greeting': 'from the parent ✓', 'parent:missing': null });
  const child = runChild('write', path, 'child', '300');
  for (let index = 0; index < 300; index += 1) await store.set(`parent:${index}`, `parent value ${index}`);
  assert.equal(await child, { written: 300 });
  for (const index of [0, 150, 299]) {
    assert.is(await store.get(`child:${index}`), `child value ${index}`);
    assert.is(await store.get(`parent:${index}`), `parent value ${index}`);
  }
  await store.close?.();
});

test('file: expired rows are deleted from the file on a sweep, not only hidden', async () => {
  const path = nextPath();
  const clock = manualClock();
  const store = createFileStore({ path, now: clock.now, sweepIntervalMs: 60_000 });
  for (let index = 0; index < 50; index += 1) await store.set(`old:${index}`, 'stale', { ttlSeconds: 30 });
  await store.set('young', 'fresh', { ttlSeconds: 3600 });
  const rows = () => {
    const database = new Database(path);
    const [count] = database.prepare('SELECT count(*) FROM interlingua_entries').raw().get() as [number];
    database.close();
    return count;
  };
  assert.is(rows(), 51);
  clock.advance(60_000);
  await store.set('trigger', 'a write after the interval sweeps');
  assert.is(rows(), 2);
  assert.is(await store.get('young'), 'fresh');
  await store.close?.();
});

test('file: a path that cannot hold a database is StoreError unavailable naming it and what to do', () => {
  const notDatabase = join(folder, 'not-a-database.db');
  writeFileSync(notDatabase, 'this is plain text, not SQLite '.repeat(100));
  for (const path of [folder, notDatabase]) {
    try {
      createFileStore({ path });
      assert.unreachable(`${path} opened`);
    } catch (error) {
      assert.instance(error, StoreError);
      assert.is((error as StoreError).code, 'unavailable');
      assert.ok((error as StoreError).message.includes(path), (error as StoreError).message);
      assert.match((error as StoreError).message, /--store FILE/);
    }
  }
});

test.run();
