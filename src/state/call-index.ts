/**
 * Tool names by call id, for results that come without their call. A
 * Responses `function_call_output` holds only the `call_id`; Gemini's
 * `functionResponse` needs the function's name. The proxy finds it in the
 * request's own history (the Gemini encoder's scope), and in the history a
 * chain prepends; a caller that sends a result with neither the call nor a
 * `previous_response_id` gets it from here: every stored response's function
 * calls are indexed by call id (a small record each), and the names of such
 * results go to the proxy beside the request (`Inbound.toolNames`).
 */
import { scopedKey } from '../store/scope.ts';
import type { StateStore, StoreSetOptions } from '../store/store.ts';
import type { JsonObject } from '../core/wire.ts';

/** The store kind of the index. */
export const CALL_KIND = 'call';

/** The writes indexing the names of `output`'s function calls. */
export function indexCalls(store: StateStore, scope: string, output: readonly JsonObject[], ttl: StoreSetOptions | undefined): Promise<void>[] {
  const writes: Promise<void>[] = [];
  for (const item of output) {
    if (item['type'] !== 'function_call' || typeof item['call_id'] !== 'string' || typeof item['name'] !== 'string') continue;
    writes.push(store.set(scopedKey(CALL_KIND, scope, item['call_id']), item['name'], ttl));
  }
  return writes;
}

/** The call ids of `items`' results that answer no call in `items`. */
function orphanResults(items: readonly JsonObject[]): string[] {
  const calls = new Set<unknown>();
  const orphans: string[] = [];
  for (const item of items) {
    if (item['type'] === 'function_call') calls.add(item['call_id']);
    else if (item['type'] === 'function_call_output' && typeof item['call_id'] === 'string' && !calls.has(item['call_id'])) orphans.push(item['call_id']);
  }
  return orphans;
}

/** The stored tool names of the results in `items` that answer no call in them; `undefined` when there is none, or none is stored. */
export async function storedToolNames(store: StateStore, scope: string, items: readonly JsonObject[]): Promise<Map<string, string> | undefined> {
  const orphans = orphanResults(items);
  if (orphans.length === 0) return undefined;
  const names = new Map<string, string>();
  for (const callId of orphans) {
    const name = await store.get(scopedKey(CALL_KIND, scope, callId));
    if (name !== undefined) names.set(callId, name);
  }
  return names.size === 0 ? undefined : names;
}
