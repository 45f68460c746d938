// A Worker that keeps state in a Durable Object or KV: it imports only
// interlingua/store/workers, so its bundle must hold neither the file
// database nor the Redis client.
import { createDurableObjectStore, createKvStore } from 'interlingua/store/workers';

export { StateStoreObject } from 'interlingua/store/workers';

export default {
  async fetch(request, env) {
    const store = env.STORE === undefined ? createKvStore(env.KV) : createDurableObjectStore(env.STORE);
    const key = new URL(request.url).pathname;
    if (request.method === 'PUT') await store.set(key, await request.text(), { ttlSeconds: 3600 });
    return new Response((await store.get(key)) ?? null);
  },
};
