/**
 * The Conversations API as a store of items: `POST /v1/conversations`,
 * `GET`/`POST`/`DELETE /v1/conversations/{id}`, and its `items` (list,
 * create, get, delete). A conversation is one record (its metadata and every
 * item, oldest first) under the caller's scope; `conversation` on
 * `responses.create` reads its items as the history and appends the turn's
 * input and output (responses-exchange.ts). Updates of one conversation
 * are serialised within the process; across processes sharing a store the
 * last write of two simultaneous turns wins.
 *
 * @see https://platform.openai.com/docs/api-reference/conversations
 */
import type { Answer, Inbound } from '../proxy/exchange.ts';
import { jsonAnswer } from '../proxy/exchange.ts';
import { scopedKey } from '../store/scope.ts';
import type { StateStore, StoreSetOptions } from '../store/store.ts';
import { isObject, type JsonObject } from '../core/wire.ts';
import { randomAnswerIds } from '../core/answer-ids.ts';
import { CONVERSATION_KIND, freshId, inputItems, listPage, listQuery, parseRecord, pathSegment, type StoredConversation } from './records.ts';
import { conversationNotFound, invalidStateRequest, itemNotFound, methodNotAllowed } from './state-errors.ts';

/** A conversation path: the conversation's id (none for `/conversations`), whether it is under `items`, and the item's id. */
export interface ConversationPath {
  readonly id?: string;
  readonly items: boolean;
  readonly item?: string;
}

/** What the conversation endpoints share with the exchange. */
export interface ConversationContext {
  readonly store: StateStore;
  readonly ttl: StoreSetOptions | undefined;
  readonly queue: KeyedQueue;
}

/** The most items one `items` array may add, as OpenAI allows. */
const MAX_ADDED_ITEMS = 20;

const PATH = /\/conversations(?:\/([^/]+)(?:\/(items)(?:\/([^/]+))?)?)?$/;

/** The conversation path `pathname` is, or `undefined`. */
export function conversationPath(pathname: string): ConversationPath | undefined {
  const match = PATH.exec(pathname);
  if (match === null) return undefined;
  const path: { id?: string; items: boolean; item?: string } = { items: match[2] !== undefined };
  if (match[1] !== undefined) path.id = pathSegment(match[1]);
  if (match[3] !== undefined) path.item = pathSegment(match[3]);
  return path;
}

/** Runs updates of one key one after another (a read, a change and a write each). */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, update: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(update, update);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}

/** The conversation resource OpenAI answers with. */
function resource(record: StoredConversation): JsonObject {
  return { id: record.id, object: 'conversation', created_at: record.created_at, metadata: record.metadata };
}

/** Appends `items` to a stored conversation (for a turn of `responses.create`); rejects with a `StoreError`, or an `Error` when the conversation is gone. */
export function appendItems(context: ConversationContext, scope: string, id: string, items: JsonObject[]): Promise<void> {
  const key = scopedKey(CONVERSATION_KIND, scope, id);
  return context.queue.run(key, async () => {
    const record = parseRecord<StoredConversation>(await context.store.get(key));
    if (record === undefined) throw new Error(`the conversation ${id} was deleted or expired during the turn`);
    record.items.push(...items);
    await context.store.set(key, JSON.stringify(record), context.ttl);
  });
}

/** The body of a conversation request as an object, or the answer refusing it. */
async function bodyOf(request: Inbound, maxBodyBytes: number): Promise<JsonObject | Answer> {
  const text = await request.text(maxBodyBytes);
  if (text === undefined) return invalidStateRequest(`the request body is larger than ${maxBodyBytes} bytes`, null);
  if (text.trim() === '') return {};
  try {
    const body = JSON.parse(text) as unknown;
    if (isObject(body)) return body;
  } catch {
    // Answered below.
  }
  return invalidStateRequest('We could not parse the JSON body of your request. Send a JSON object.', null);
}

/** Items a request adds, or the answer refusing them. */
function addedItems(value: unknown, param: string): JsonObject[] | Answer {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalidStateRequest(`Invalid type for '${param}': expected an array of items.`, param);
  if (value.length > MAX_ADDED_ITEMS) return invalidStateRequest(`Invalid '${param}': array too long. Expected an array with maximum length ${MAX_ADDED_ITEMS}, but got an array with length ${value.length} instead.`, param);
  return inputItems(value);
}

function metadataOf(value: unknown): JsonObject | Answer {
  if (value === undefined || value === null) return {};
  return isObject(value) ? value : invalidStateRequest("Invalid type for 'metadata': expected an object.", 'metadata');
}

function isAnswer(value: unknown): value is Answer {
  return isObject(value) && typeof value['status'] === 'number' && 'body' in value && 'headers' in value;
}

/** The answer of a Conversations API request. */
export async function conversationAnswer(request: Inbound, path: ConversationPath, scope: string, context: ConversationContext, maxBodyBytes: number): Promise<Answer> {
  const { store, ttl } = context;
  const method = request.method;
  if (path.id === undefined) {
    if (method !== 'POST') return methodNotAllowed(method, request.pathname);
    const body = await bodyOf(request, maxBodyBytes);
    if (isAnswer(body)) return body;
    const metadata = metadataOf(body['metadata']);
    const items = addedItems(body['items'], 'items');
    if (isAnswer(metadata)) return metadata;
    if (isAnswer(items)) return items;
    const record: StoredConversation = { id: freshId('conv_'), created_at: randomAnswerIds.now(), metadata, items };
    await store.set(scopedKey(CONVERSATION_KIND, scope, record.id), JSON.stringify(record), ttl);
    return jsonAnswer(200, JSON.stringify(resource(record)));
  }
  const id = path.id;
  const key = scopedKey(CONVERSATION_KIND, scope, id);
  if (!path.items && method === 'DELETE') {
    return (await store.delete(key)) ? jsonAnswer(200, JSON.stringify({ id, object: 'conversation.deleted', deleted: true })) : conversationNotFound(id);
  }
  const body = method === 'POST' ? await bodyOf(request, maxBodyBytes) : {};
  if (isAnswer(body)) return body;
  return context.queue.run(key, async () => {
    const record = parseRecord<StoredConversation>(await store.get(key));
    if (record === undefined) return conversationNotFound(id);
    if (!path.items) return conversationUpdate(record, method, request.pathname, body, key, context);
    if (path.item !== undefined) return itemAnswer(record, path.item, method, request.pathname, key, context);
    if (method === 'GET') {
      const paging = listQuery(request.query);
      return typeof paging === 'string' ? invalidStateRequest(paging, null) : jsonAnswer(200, JSON.stringify(listPage(record.items, paging)));
    }
    if (method !== 'POST') return methodNotAllowed(method, request.pathname);
    const items = addedItems(body['items'], 'items');
    if (isAnswer(items)) return items;
    record.items.push(...items);
    await store.set(key, JSON.stringify(record), ttl);
    return jsonAnswer(200, JSON.stringify(listPage(items, { limit: items.length || 1, order: 'asc', after: undefined })));
  });
}

/** `GET` or `POST /v1/conversations/{id}` (the latter replaces its metadata). */
async function conversationUpdate(record: StoredConversation, method: string, pathname: string, body: JsonObject, key: string, context: ConversationContext): Promise<Answer> {
  if (method === 'GET') return jsonAnswer(200, JSON.stringify(resource(record)));
  if (method !== 'POST') return methodNotAllowed(method, pathname);
  const metadata = metadataOf(body['metadata']);
  if (isAnswer(metadata)) return metadata;
  record.metadata = metadata;
  await context.store.set(key, JSON.stringify(record), context.ttl);
  return jsonAnswer(200, JSON.stringify(resource(record)));
}

/** `GET` or `DELETE /v1/conversations/{id}/items/{item_id}` (the latter answers the conversation). */
async function itemAnswer(record: StoredConversation, itemId: string, method: string, pathname: string, key: string, context: ConversationContext): Promise<Answer> {
  const index = record.items.findIndex((item) => item['id'] === itemId);
  if (index === -1) return itemNotFound(itemId);
  if (method === 'GET') return jsonAnswer(200, JSON.stringify(record.items[index]));
  if (method !== 'DELETE') return methodNotAllowed(method, pathname);
  record.items.splice(index, 1);
  await context.store.set(key, JSON.stringify(record), context.ttl);
  return jsonAnswer(200, JSON.stringify(resource(record)));
}
