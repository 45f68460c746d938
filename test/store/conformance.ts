/**
 * One conformance suite for every `StateStore` backend (memory, file, Redis,
 * Workers): each backend's test file describes how to open a fresh store
 * and how its expiry can be observed, and gets the same cases. A backend
 * that cannot do a case says so with a reason, in data, and the case is
 * skipped with that reason printed. (hono's `router/common.case.test.ts`)
 */
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { StoreError, type StateStore } from '../../src/store/store.ts';

/** A clock the test moves by hand, for backends that take one. */
export interface ManualClock {
  now: () => number;
  advance(milliseconds: number): void;
}

/** A clock starting at a fixed moment. */
export function manualClock(start = 1_800_000_000_000): ManualClock {
  let moment = start;
  return { now: () => moment, advance: (milliseconds) => (moment += milliseconds) };
}

/** What each backend's opener receives. */
export interface OpenOptions {
  /** The size bound the store must enforce. */
  readonly maxValueChars: number;
  /** The clock to use, when the backend's expiry is tested by moving one. */
  readonly clock?: ManualClock;
}

/** How a backend's expiry is observed: by moving a clock it takes, by waiting out a short TTL, or not at all (with why). */
export type ExpiryTesting = { readonly by: 'clock' } | { readonly by: 'waiting'; readonly ttlSeconds: number } | { readonly by: 'none'; readonly reason: string };

/** A backend under test. */
export interface Backend {
  readonly name: string;
  /** A fresh, empty store (keys of earlier cases must not show: a new namespace or database per call). */
  open(options: OpenOptions): Promise<StateStore>;
  readonly expiry: ExpiryTesting;
}

/** The size bound the suite opens every store with: over 1 MB so that the large-value case fits. */
export const SUITE_MAX_VALUE_CHARS = 1_200_000;

const ODD_KEYS = [
  'interlingua:response:0123456789abcdef0123456789abcdef:resp_abc',
  'a key with spaces',
  'slash/and\\backslash',
  'percent%20and?query=1&x#hash',
  'ünïcødé-ключ-键-🔑',
  ':leading:and:trailing:',
  'quote"apostrophe\'',
  'x'.repeat(400),
];

/** A 1,000,000-character value of mixed scripts, astral characters included. */
function megabyteValue(): string {
  const unit = 'aé☃键🔑\n"\\{}';
  return unit.repeat(Math.ceil(1_000_000 / unit.length)).slice(0, 1_000_000);
}

async function expectStoreError(work: Promise<unknown>, code: StoreError['code']): Promise<StoreError> {
  try {
    await work;
  } catch (error) {
    assert.instance(error, StoreError);
    assert.is((error as StoreError).code, code);
    return error as StoreError;
  }
  return assert.unreachable(`expected a StoreError ${code}, but the call succeeded`) as never;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Registers the conformance cases for `backend` on `test`. */
export function conformance(test: Test, backend: Backend): void {
  const opened: StateStore[] = [];
  const fresh = async (options: Partial<OpenOptions> = {}) => {
    const store = await backend.open({ maxValueChars: SUITE_MAX_VALUE_CHARS, ...options });
    opened.push(store);
    return store;
  };
  test.after(async () => {
    await Promise.all(opened.map((store) => store.close?.()));
  });

  test(`${backend.name}: get of a missing key is undefined; set, get, delete`, async () => {
    const store = await fresh();
    assert.is(await store.get('missing'), undefined);
    await store.set('key', 'value');
    assert.is(await store.get('key'), 'value');
    assert.is(await store.delete('key'), true);
    assert.is(await store.get('key'), undefined);
    assert.is(await store.delete('key'), false, 'a second delete finds nothing');
    assert.is(await store.delete('never-set'), false);
  });

  test(`${backend.name}: set replaces the value and the TTL; an empty string is a value`, async () => {
    const store = await fresh();
    await store.set('key', 'first', { ttlSeconds: 3600 });
    await store.set('key', 'second', { ttlSeconds: 7200 });
    assert.is(await store.get('key'), 'second');
    await store.set('empty', '');
    assert.is(await store.get('empty'), '', 'the empty string is kept, not read as absent');
    assert.is(await store.delete('empty'), true);
  });

  test(`${backend.name}: keys with ':' and odd characters are distinct and exact`, async () => {
    const store = await fresh();
    for (const [index, key] of ODD_KEYS.entries()) await store.set(key, `value ${index}`);
    for (const [index, key] of ODD_KEYS.entries()) assert.is(await store.get(key), `value ${index}`, JSON.stringify(key));
    assert.is(await store.get('interlingua:response:0123456789abcdef0123456789abcdef'), undefined, 'a prefix of a key is another key');
    assert.is(await store.get('A KEY WITH SPACES'), undefined, 'keys are case-sensitive');
  });

  test(`${backend.name}: unicode and a 1,000,000-character value come back exactly`, async () => {
    const store = await fresh();
    const text = '{"text":"naïve café — 日本語 🎉 \\u0000 \u2028"}';
    await store.set('unicode', text);
    assert.is(await store.get('unicode'), text);
    const large = megabyteValue();
    await store.set('large', large);
    const read = await store.get('large');
    assert.is(read?.length, large.length);
    assert.ok(read === large, 'the large value is unchanged');
  });

  test(`${backend.name}: a value over the size bound is a StoreError too_large, and stores nothing`, async () => {
    const store = await fresh({ maxValueChars: 1000 });
    await store.set('bounded', 'x'.repeat(1000));
    assert.is((await store.get('bounded'))?.length, 1000, 'a value at the bound is kept');
    const error = await expectStoreError(store.set('bounded', 'y'.repeat(1001)), 'too_large');
    assert.match(error.message, /1001/);
    assert.is((await store.get('bounded'))?.length, 1000, 'the refused value replaced nothing');
  });

  test(`${backend.name}: concurrent sets of many keys all land; concurrent sets of one key leave one of the values`, async () => {
    const store = await fresh();
    const keys = Array.from({ length: 100 }, (_, index) => `concurrent:${index}`);
    await Promise.all(keys.map((key, index) => store.set(key, `value ${index}`)));
    const values = await Promise.all(keys.map((key) => store.get(key)));
    assert.equal(values, keys.map((_, index) => `value ${index}`));
    const candidates = Array.from({ length: 20 }, (_, index) => `contended ${index}`);
    await Promise.all(candidates.map((value) => store.set('contended', value)));
    const winner = await store.get('contended');
    assert.ok(winner !== undefined && candidates.includes(winner), `one of the written values, not ${winner}`);
  });

  const expiry = backend.expiry;
  if (expiry.by === 'none') {
    console.warn(`store conformance: SKIPPING ${backend.name} expiry: ${expiry.reason}`);
  } else {
    test(`${backend.name}: an entry expires after its TTL; get and delete then find nothing; others live on`, async () => {
      const clock = expiry.by === 'clock' ? manualClock() : undefined;
      const store = await fresh(clock === undefined ? {} : { clock });
      const ttlSeconds = expiry.by === 'clock' ? 60 : expiry.ttlSeconds;
      await store.set('short', 'soon gone', { ttlSeconds });
      await store.set('short-deleted', 'soon gone', { ttlSeconds });
      await store.set('long', 'stays', { ttlSeconds: 3600 });
      assert.is(await store.get('short'), 'soon gone', 'alive before its TTL');
      if (clock === undefined) await sleep(ttlSeconds * 1000 + 400);
      else clock.advance(ttlSeconds * 1000);
      assert.is(await store.get('short'), undefined, 'gone once its TTL has passed');
      assert.is(await store.delete('short-deleted'), false, 'delete of an expired entry finds nothing');
      assert.is(await store.get('long'), 'stays');
      await store.set('short', 'again');
      assert.is(await store.get('short'), 'again', 'an expired key can be set again');
    });
  }

  test(`${backend.name}: after close, calls fail as StoreError unavailable`, async () => {
    const store = await backend.open({ maxValueChars: SUITE_MAX_VALUE_CHARS });
    await store.set('key', 'value');
    await store.close?.();
    await expectStoreError(store.get('key'), 'unavailable');
    await expectStoreError(store.set('key', 'other'), 'unavailable');
    await store.close?.();
  });
}
