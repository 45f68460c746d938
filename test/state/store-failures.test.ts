/**
 * A store that fails: a record over its bound (`too_large`) and a backend
 * that is down (`unavailable`). The answer still reaches the caller, whole
 * or streamed, and says it was not stored; a request that needs the store
 * to continue a chain is a 503 the caller may retry, never a 4xx.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { StoreError, type StateStore } from '../../src/store/store.ts';
import { STATE_NOTE_HEADER } from '../../src/state/responses-exchange.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream } from '../support/strict/index.ts';

const test = suite('a store that fails');

/** A store that works until `down` is set, then rejects every call as unavailable. */
function switchableStore(): StateStore & { down: boolean } {
  const inner = createMemoryStore();
  const store = {
    down: false,
    get: (key: string) => (store.down ? Promise.reject(new StoreError('unavailable', 'connect ECONNREFUSED 127.0.0.1:6379')) : inner.get(key)),
    set: (key: string, value: string) => (store.down ? Promise.reject(new StoreError('unavailable', 'connect ECONNREFUSED 127.0.0.1:6379')) : inner.set(key, value)),
    delete: (key: string) => (store.down ? Promise.reject(new StoreError('unavailable', 'connect ECONNREFUSED 127.0.0.1:6379')) : inner.delete(key)),
  };
  return store;
}

async function withStore(store: StateStore, run: (url: string) => Promise<void>): Promise<void> {
  const upstream = await startStrictUpstream({ format: 'anthropic', script: [{ kind: 'text', text: 'An answer long enough to be over the bound.' }] });
  try {
    await withProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'claude-test' }, fetch: createNodeFetch(), store }, run);
  } finally {
    await upstream.close();
  }
}

test('a record over the bound: the whole answer reaches the caller with a header saying it was not stored', () =>
  withStore(createMemoryStore({ maxValueChars: 200 }), async (url) => {
    const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { authorization: 'Bearer caller-key', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-test', input: 'Hello.' }) });
    assert.equal(response.status, 200);
    assert.match(response.headers.get(STATE_NOTE_HEADER) ?? '', /^not stored: .*over the memory store's bound of 200/);
    const body = (await response.json()) as { id: string; output: unknown[] };
    assert.match(body.id, /^resp_/);
    const fetched = await fetch(`${url}/v1/responses/${body.id}`, { headers: { authorization: 'Bearer caller-key' } });
    assert.equal(fetched.status, 404);
  }),
);

test('a record over the bound, streamed: every event reaches the caller, and an SSE comment says it was not stored', () =>
  withStore(createMemoryStore({ maxValueChars: 200 }), async (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    const final = await client.responses.stream({ model: 'gpt-test', input: 'Hello.', stream: true }).finalResponse();
    assert.equal(final.status, 'completed');
    const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { authorization: 'Bearer caller-key', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-test', input: 'Hello.', stream: true }) });
    const text = await response.text();
    assert.match(text, /event: response\.completed/);
    assert.match(text, /\n: interlingua: this response was not stored: .*over the memory store's bound/);
  }),
);

test('a store that is down: an unchained request still answers (not stored), a chained one is a 503 to retry, GET too', async () => {
  const store = switchableStore();
  await withStore(store, async (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-test', input: 'Hello.' });
    store.down = true;
    const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { authorization: 'Bearer caller-key', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-test', input: 'Hello again.' }) });
    assert.equal(response.status, 200);
    assert.match(response.headers.get(STATE_NOTE_HEADER) ?? '', /not stored: connect ECONNREFUSED/);
    const chained = await client.responses.create({ model: 'gpt-test', previous_response_id: first.id, input: 'Go on.' }).catch((error: unknown) => error);
    assert.ok(chained instanceof OpenAI.InternalServerError, String(chained));
    assert.equal(chained.status, 503);
    assert.match(chained.message, /state store is unavailable \(connect ECONNREFUSED 127\.0\.0\.1:6379\); retry shortly/);
    const fetched = await fetch(`${url}/v1/responses/${first.id}`, { headers: { authorization: 'Bearer caller-key' } });
    assert.equal(fetched.status, 503);
    assert.equal(fetched.headers.get('retry-after'), '1');
    store.down = false;
    const resumed = await client.responses.create({ model: 'gpt-test', previous_response_id: first.id, input: 'Go on.' });
    assert.equal(resumed.previous_response_id, first.id);
  });
});

test.run();
