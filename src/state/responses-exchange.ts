/**
 * Stateful Responses in front of any upstream: an exchange around the
 * proxy's (or the gateway's) that keeps what OpenAI's Responses API keeps.
 * `POST /v1/responses` with `previous_response_id` or `conversation` gets
 * the stored items prepended to its `input` and those fields removed, so the
 * proxy converts the whole conversation to the upstream's format like any
 * other input; the answer is stamped with a `resp_…` id and stored unless
 * the request says `store: false`. `GET` and `DELETE /v1/responses/{id}`,
 * `GET /v1/responses/{id}/input_items` and the Conversations API
 * (conversations.ts) read and write the same store. Every key is under the
 * hash of the caller's credential (src/store/scope.ts).
 */
import { errorAnswer } from '../proxy/errors.ts';
import { callerCredential } from '../proxy/auth.ts';
import type { Answer, Exchange, Inbound } from '../proxy/exchange.ts';
import { jsonAnswer } from '../proxy/exchange.ts';
import { credentialScope, scopedKey } from '../store/scope.ts';
import { StoreError, type StateStore } from '../store/store.ts';
import { isObject, type JsonObject } from '../core/wire.ts';
import { CONVERSATION_KIND, freshId, inputItems, listPage, listQuery, outputItems, parseRecord, pathSegment, replayedItems, RESPONSE_KIND, type StoredConversation, type StoredResponse } from './records.ts';
import { captureStream, captureWhole, type ResponseStamp } from './responses-capture.ts';
import { conversationAnswer, conversationPath, KeyedQueue, appendItems } from './conversations.ts';
import { indexCalls, storedToolNames } from './call-index.ts';
import { invalidStateRequest, methodNotAllowed, previousResponseNotFound, responseNotFound, storeUnavailable } from './state-errors.ts';

/** How {@link statefulExchange} keeps state. */
export interface StatefulOptions {
  readonly store: StateStore;
  /** Seconds a stored response or conversation lives (default: the store's own). */
  readonly ttlSeconds?: number | undefined;
  /** The answer refusing a caller the proxy does not admit (a missing or wrong inbound token), or `undefined`. */
  readonly admit: (request: Inbound) => Answer | undefined;
  /** Largest request body read, in bytes. */
  readonly maxBodyBytes: number;
  /** Told when a response or conversation could not be stored (the answer still reached the caller). */
  readonly warn?: ((message: string) => void) | undefined;
}

/** The header of a whole answer whose response could not be stored, saying why. */
export const STATE_NOTE_HEADER = 'x-interlingua-state';

/** What a request's state comes to. */
interface Chain {
  readonly history: JsonObject[];
  readonly previousResponseId?: string;
  readonly conversation?: string;
}

const RESPONSE_PATH = /\/responses\/([^/]+?)(\/input_items)?$/;
const NOT_IDS = new Set(['input_tokens', 'compact']);

/**
 * Is `error` a store's `StoreError`? By its name too: a backend loaded with
 * `import()` under another module loader throws one from a second copy of
 * the class, which `instanceof` does not recognise.
 */
function isStoreFailure(error: unknown): boolean {
  return error instanceof StoreError || (error instanceof Error && error.name === 'StoreError');
}

/** The message of a store failure, for a note or a 503. */
function storeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The exchange `inner` with stateful Responses and Conversations in front of it. */
export function statefulExchange(inner: Exchange, options: StatefulOptions): Exchange {
  const { store } = options;
  const ttl = options.ttlSeconds === undefined ? undefined : { ttlSeconds: options.ttlSeconds };
  // Writes not yet settled, by key: a chain that names one waits for it rather than missing it.
  const pending = new Map<string, Promise<unknown>>();
  const queue = new KeyedQueue();
  const scopes = new ScopeCache();
  const context = { store, ttl, queue, pending };

  return async (request: Inbound): Promise<Answer> => {
    const pathname = request.pathname;
    const conversation = conversationPath(pathname);
    const stored = conversation === undefined ? RESPONSE_PATH.exec(pathname) : null;
    const creating = request.method === 'POST' && pathname.endsWith('/responses');
    if (conversation === undefined && (stored === null || NOT_IDS.has(stored[1] ?? '')) && !creating) return inner(request);
    const refusal = options.admit(request);
    if (refusal !== undefined) return refusal;
    const scope = await scopes.of(callerCredential(request));
    try {
      if (conversation !== undefined) return await conversationAnswer(request, conversation, scope, context, options.maxBodyBytes);
      if (creating) return await create(request, scope);
      return await storedResponse(request, pathSegment(stored?.[1] ?? ''), stored?.[2] !== undefined, scope);
    } catch (error) {
      if (isStoreFailure(error)) return storeUnavailable(storeFailure(error));
      throw error;
    }
  };

  /** `GET` or `DELETE /v1/responses/{id}`, `GET …/input_items`. */
  async function storedResponse(request: Inbound, id: string, listing: boolean, scope: string): Promise<Answer> {
    const key = scopedKey(RESPONSE_KIND, scope, id);
    if (request.method === 'DELETE' && !listing) {
      await pending.get(key);
      return (await store.delete(key)) ? jsonAnswer(200, JSON.stringify({ id, object: 'response', deleted: true })) : responseNotFound(id);
    }
    if (request.method !== 'GET') return methodNotAllowed(request.method, request.pathname);
    await pending.get(key);
    const record = parseRecord<StoredResponse>(await store.get(key));
    if (record === undefined) return responseNotFound(id);
    if (listing) {
      const paging = listQuery(request.query);
      return typeof paging === 'string' ? invalidStateRequest(paging, null) : jsonAnswer(200, JSON.stringify(listPage(record.input, paging)));
    }
    if (request.query('stream') === 'true') return invalidStateRequest('stream=true is not supported by this proxy when retrieving a stored response; retrieve it whole', 'stream');
    return jsonAnswer(200, JSON.stringify(withIncluded(record.response, includes(request))));
  }

  /** The history a create request continues, or the answer refusing it. */
  async function chainOf(body: JsonObject, scope: string): Promise<Chain | Answer> {
    const previous = body['previous_response_id'];
    const named = body['conversation'];
    const conversation = typeof named === 'string' ? named : isObject(named) && typeof named['id'] === 'string' ? named['id'] : undefined;
    if (typeof previous === 'string' && conversation !== undefined) {
      return invalidStateRequest("Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.", null);
    }
    if (typeof previous === 'string') return { history: await responseHistory(previous, scope), previousResponseId: previous };
    if (conversation !== undefined) return { history: [], conversation };
    return { history: [] };
  }

  /** Items a chain to `id` prepends: its history, its input and its output. */
  async function responseHistory(id: string, scope: string): Promise<JsonObject[]> {
    const key = scopedKey(RESPONSE_KIND, scope, id);
    await pending.get(key);
    const record = parseRecord<StoredResponse>(await store.get(key));
    if (record === undefined) throw new ChainMissing(id);
    return [...record.history, ...record.input, ...outputItems(record.response)];
  }

  /** `POST /v1/responses`: the chain's items prepended, the answer stamped and stored. */
  async function create(request: Inbound, scope: string): Promise<Answer> {
    const text = await request.text(options.maxBodyBytes);
    if (text === undefined) return errorAnswer('openai-responses', { type: 'request_too_large', message: `request body is larger than ${options.maxBodyBytes} bytes` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    // What is no Responses body the proxy answers for itself, as it would without a store.
    if (!isObject(body)) return inner(withText(request, text));
    const keep = body['store'] !== false;
    let chain: Chain | Answer;
    try {
      chain = await chainOf(body, scope);
    } catch (error) {
      if (error instanceof ChainMissing) return previousResponseNotFound(error.id);
      throw error;
    }
    if (!('history' in chain)) return chain;
    let history = chain.history;
    if (chain.conversation !== undefined) {
      const record = parseRecord<StoredConversation>(await store.get(scopedKey(CONVERSATION_KIND, scope, chain.conversation)));
      if (record === undefined) return conversationAnswerMissing(chain.conversation);
      history = record.items;
    }
    const input = inputItems(body['input']);
    const sent = [...replayedItems(history), ...replayedItems(input)];
    const forwarded: JsonObject = { ...body, input: sent };
    delete forwarded['previous_response_id'];
    delete forwarded['conversation'];
    // The proxy keeps the state itself: the upstream is not asked to (another vendor reports `store` as lost).
    delete forwarded['store'];
    // A result whose call is neither in the input nor in the history takes its tool's name from the store (call-index.ts).
    const answer = await inner(withText(request, JSON.stringify(forwarded), await storedToolNames(store, scope, sent)));
    if (answer.status !== 200) return answer;
    const stamp: ResponseStamp = {
      id: freshId('resp_'),
      itemSuffix: freshId(''),
      ...(chain.previousResponseId === undefined ? {} : { previousResponseId: chain.previousResponseId }),
      ...(chain.conversation === undefined ? {} : { conversation: chain.conversation }),
    };
    const sink = (response: JsonObject) => save(response, { input, history, keep, scope, conversation: chain.conversation });
    if (typeof answer.body !== 'string') {
      captureStream(answer, stamp, sink);
      return answer;
    }
    const { text: stamped, note } = await captureWhole(answer, stamp, sink);
    answer.body = stamped;
    if (note !== undefined) answer.headers[STATE_NOTE_HEADER] = `not stored: ${note}`.replace(/[^\x20-\x7e]/g, ' ');
    return answer;
  }

  /** Stores a response (unless `store: false`) and appends its turn to its conversation; a note when either failed. */
  async function save(response: JsonObject, turn: { input: JsonObject[]; history: JsonObject[]; keep: boolean; scope: string; conversation: string | undefined }): Promise<string | undefined> {
    const id = response['id'] as string;
    const key = scopedKey(RESPONSE_KIND, turn.scope, id);
    const writes: Promise<unknown>[] = [];
    if (turn.keep) {
      const record: StoredResponse = { response, input: turn.input, history: turn.history };
      writes.push(store.set(key, JSON.stringify(record), ttl), ...indexCalls(store, turn.scope, outputItems(response), ttl));
    }
    if (turn.conversation !== undefined) writes.push(appendItems(context, turn.scope, turn.conversation, [...turn.input, ...outputItems(response)]));
    const written = Promise.all(writes);
    pending.set(key, written.catch(() => undefined));
    try {
      await written;
      return undefined;
    } catch (error) {
      const note = storeFailure(error);
      options.warn?.(`response ${id} was not stored: ${note}`);
      return note;
    } finally {
      pending.delete(key);
    }
  }
}

/**
 * Scopes of the credentials seen lately: hashing one (`crypto.subtle`, on
 * the thread pool in Node) costs more than the rest of a chained turn's
 * state work, and a caller sends the same key every time. Bounded; emptied
 * when full.
 */
class ScopeCache {
  readonly #scopes = new Map<string, string>();

  async of(credential: string | undefined): Promise<string> {
    if (credential === undefined) return credentialScope(undefined);
    const known = this.#scopes.get(credential);
    if (known !== undefined) return known;
    const scope = await credentialScope(credential);
    if (this.#scopes.size >= 1024) this.#scopes.clear();
    this.#scopes.set(credential, scope);
    return scope;
  }
}

/** A `conversation` on create that is not stored. */
function conversationAnswerMissing(id: string): Answer {
  return jsonAnswer(404, JSON.stringify({ error: { message: `Conversation with id '${id}' not found.`, type: 'invalid_request_error', param: 'conversation', code: null } }));
}

/** A chained id that is not stored. */
class ChainMissing extends Error {
  constructor(readonly id: string) {
    super(`previous response ${id} not found`);
  }
}

/** The request with its body replaced. */
function withText(request: Inbound, text: string, toolNames?: ReadonlyMap<string, string>): Inbound {
  const inbound: Inbound = { method: request.method, pathname: request.pathname, query: request.query, header: request.header, text: () => Promise.resolve(text), signal: request.signal };
  if (request.upstreamModel !== undefined) inbound.upstreamModel = request.upstreamModel;
  if (request.strict !== undefined) inbound.strict = request.strict;
  if (request.report !== undefined) inbound.report = request.report;
  if (toolNames !== undefined) inbound.toolNames = toolNames;
  return inbound;
}

/** The `include` entries of a query (`include=a&include=b` reads as the first; `include[]=` as OpenAI's SDK writes it). */
function includes(request: Inbound): Set<string> {
  const value = request.query('include') ?? request.query('include[]');
  return new Set(value === null ? [] : value.split(','));
}

/** A stored response as `GET` gives it: encrypted reasoning only when `include` asks for `reasoning.encrypted_content`, as OpenAI does. */
function withIncluded(response: JsonObject, included: ReadonlySet<string>): JsonObject {
  if (included.has('reasoning.encrypted_content')) return response;
  const output = outputItems(response);
  if (!output.some((item) => item['type'] === 'reasoning' && 'encrypted_content' in item)) return response;
  return {
    ...response,
    output: output.map((item) => {
      if (item['type'] !== 'reasoning') return item;
      const { encrypted_content: _encrypted, ...rest } = item;
      return rest;
    }),
  };
}
