/**
 * The Worker the Workers stores are tested in (bundled by workers.test.ts
 * and served by workerd): `POST /<kv|do>/<instance>/<get|set|delete|close>`
 * with a JSON body runs that call on the instance's store, inside workerd,
 * against the real KV and Durable Object bindings, and answers
 * `{ result }` or `{ error: { name, code, message } }`.
 */
import { createDurableObjectStore, createKvStore, isStoreError, type DurableObjectNamespaceLike, type KvNamespaceLike, type StateStore } from '../../src/store/workers.ts';

export { StateStoreObject } from '../../src/store/workers.ts';

interface Env {
  KV: KvNamespaceLike;
  STORE: DurableObjectNamespaceLike;
}

interface Call {
  key?: string;
  value?: string;
  ttlSeconds?: number;
  maxValueChars?: number;
}

const stores = new Map<string, StateStore>();

function storeFor(env: Env, kind: string, instance: string, maxValueChars: number | undefined): StateStore {
  const name = `${kind}/${instance}`;
  let store = stores.get(name);
  if (store !== undefined) return store;
  const bounds = maxValueChars === undefined ? {} : { maxValueChars };
  // `do-again` is a second client on the objects `do` writes to: what one writes the other reads.
  store = kind === 'kv' ? createKvStore(env.KV, bounds) : createDurableObjectStore(env.STORE, { name: `do/${instance}`, shards: 3, ...bounds });
  stores.set(name, store);
  return store;
}

async function perform(store: StateStore, operation: string, call: Call): Promise<unknown> {
  const key = call.key ?? '';
  switch (operation) {
    case 'get':
      return (await store.get(key)) ?? null;
    case 'set':
      return store.set(key, call.value ?? '', call.ttlSeconds === undefined ? {} : { ttlSeconds: call.ttlSeconds });
    case 'delete':
      return store.delete(key);
    case 'close':
      return store.close?.();
    default:
      throw new Error(`no operation ${operation}`);
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const [, kind = '', instance = '', operation = ''] = new URL(request.url).pathname.split('/');
    if (kind === 'raw-kv-put') {
      // KV's own refusal of a TTL under 60 seconds, which the KV store must never provoke.
      const refused = await env.KV.put('raw', 'value', { expirationTtl: Number(instance), metadata: null }).then(
        () => null,
        (error: unknown) => String(error),
      );
      return Response.json({ result: refused });
    }
    const call = (await request.json()) as Call;
    try {
      const result = await perform(storeFor(env, kind, instance, call.maxValueChars), operation, call);
      return Response.json({ result: result ?? null });
    } catch (error) {
      const code = isStoreError(error) ? error.code : undefined;
      return Response.json({ error: { name: error instanceof Error ? error.name : 'Error', code, message: error instanceof Error ? error.message : String(error) } });
    }
  },
};
