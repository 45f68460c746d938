/**
 * The stores for Cloudflare Workers: Workers KV (`createKvStore`) and
 * Durable Objects (`createDurableObjectStore` with the `StateStoreObject`
 * class). Web APIs only: a Worker bundle importing `interlingua/store/workers`
 * carries neither the file database nor the Redis client.
 */
export { createKvStore, type KvNamespaceLike, type KvStoreOptions } from './workers-kv.ts';
export { createDurableObjectStore, StateStoreObject, type DurableObjectNamespaceLike, type DurableObjectStoreOptions } from './workers-durable-object.ts';
export { StoreError, isStoreError, type StateStore, type StoreSetOptions } from './store.ts';
