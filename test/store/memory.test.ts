/**
 * The memory store: the conformance suite, and its own bounds (entries and
 * characters, oldest first) with an injected clock.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryStore } from '../../src/store/memory.ts';
import { conformance, manualClock } from './conformance.ts';

const test = suite('store: memory');

conformance(test, {
  name: 'memory',
  open: async ({ maxValueChars, clock }) => createMemoryStore({ maxValueChars, ...(clock === undefined ? {} : { now: clock.now }) }),
  expiry: { by: 'clock' },
});

test('memory: past maxEntries the oldest entry goes first; a replaced key counts as new', async () => {
  const store = createMemoryStore({ maxEntries: 3 });
  for (const key of ['a', 'b', 'c']) await store.set(key, key);
  await store.set('a', 'a again');
  await store.set('d', 'd');
  assert.is(await store.get('b'), undefined, 'b was the oldest');
  assert.equal(await Promise.all(['a', 'c', 'd'].map((key) => store.get(key))), ['a again', 'c', 'd']);
});

test('memory: past maxChars the oldest entries go until the rest fit', async () => {
  const store = createMemoryStore({ maxChars: 10 });
  await store.set('a', '1234');
  await store.set('b', '1234');
  await store.set('c', '12345');
  assert.is(await store.get('a'), undefined);
  assert.is(await store.get('b'), '1234');
  assert.is(await store.get('c'), '12345');
  await store.delete('b');
  await store.set('d', '12345');
  assert.is(await store.get('c'), '12345', 'a delete freed its characters');
});

test('memory: the default TTL is the one the store was made with', async () => {
  const clock = manualClock();
  const store = createMemoryStore({ ttlSeconds: 10, now: clock.now });
  await store.set('key', 'value');
  clock.advance(9_999);
  assert.is(await store.get('key'), 'value');
  clock.advance(1);
  assert.is(await store.get('key'), undefined);
});

test.run();
