/**
 * The records of stateful Responses and Conversations as the store keeps
 * them: JSON in the OpenAI Responses wire shape, since that is what the
 * caller sent and received, what `GET` answers with, and what goes back
 * into the next request's `input` (which the proxy then converts to the
 * upstream's format like any other input). Ids are made here in OpenAI's
 * shapes (`resp_…`, `msg_…`, `fc_…`, `conv_…`) from `crypto.getRandomValues`.
 */
import { randomAnswerIds } from '../core/answer-ids.ts';
import { isObject, type JsonObject } from '../core/wire.ts';

/** One stored response: what `GET /v1/responses/{id}` answers, and what a chain to it prepends. */
export interface StoredResponse {
  /** The response object as the caller received it (the `response` of a stream's `response.completed`). */
  readonly response: JsonObject;
  /** This request's own input items, each with an id (`GET …/input_items`). */
  readonly input: JsonObject[];
  /** The items before `input` in the conversation: the chained response's history, input and output. */
  readonly history: JsonObject[];
}

/** One stored conversation: its resource fields and every item, oldest first. */
export interface StoredConversation {
  readonly id: string;
  readonly created_at: number;
  metadata: JsonObject;
  items: JsonObject[];
}

/** The store kinds (the second part of every key). */
export const RESPONSE_KIND = 'response';
export const CONVERSATION_KIND = 'conversation';

/** A fresh id with `prefix` (`resp_`, `conv_`, `msg_`, …). */
export function freshId(prefix: string): string {
  return randomAnswerIds.id(prefix);
}

/** The id prefix OpenAI gives an item of `type` (a function call's is `fc_`, which OpenAI checks on input). */
function itemPrefix(type: unknown): string {
  switch (type) {
    case 'message':
      return 'msg_';
    case 'function_call':
      return 'fc_';
    case 'reasoning':
      return 'rs_';
    case 'function_call_output':
      return 'fco_';
    case 'custom_tool_call':
      return 'ctc_';
    default:
      return 'item_';
  }
}

/** The item types whose stored form carries a `status`. */
const STATUSED = new Set<unknown>(['message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output']);

/**
 * A request's `input` as items with ids: a string is one user message, an
 * item without `type` but with a `role` is a message (the "easy" input
 * message), an item without an id gets a fresh one, and one without a
 * status is `completed`.
 */
export function inputItems(input: unknown): JsonObject[] {
  if (typeof input === 'string') return [{ id: freshId('msg_'), type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) return [];
  const items: JsonObject[] = [];
  for (const entry of input) {
    if (!isObject(entry)) continue;
    const item: JsonObject = entry['type'] === undefined && entry['role'] !== undefined ? { type: 'message', ...entry } : { ...entry };
    if (typeof item['id'] !== 'string') item['id'] = freshId(itemPrefix(item['type']));
    // Stored items say they are done, as OpenAI's do (its item schemas require the status).
    if (item['status'] === undefined && STATUSED.has(item['type'])) item['status'] = 'completed';
    items.push(item);
  }
  return items;
}

/** A response's output items, as stored (the array the answer carried). */
export function outputItems(response: JsonObject): JsonObject[] {
  const output = response['output'];
  return Array.isArray(output) ? output.filter(isObject) : [];
}

/**
 * Stored items as they go back into a request's `input`: the ids (and
 * statuses) this proxy gave input items are left off, since an OpenAI
 * upstream would look such ids up as its own.
 */
export function replayedItems(items: readonly JsonObject[]): JsonObject[] {
  return items.map((item) => {
    const type = item['type'];
    if (type === 'function_call_output' || (type === 'message' && item['role'] !== 'assistant')) {
      const { id: _id, status: _status, ...rest } = item;
      return rest;
    }
    return item;
  });
}

/** A record read back from the store, or `undefined` for text that is not one (a store shared with something else). */
export function parseRecord<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** How a list endpoint pages: `limit` (1 to 100, default 20), `order` (`asc` or `desc`, default `desc`), `after` (an item id). */
export interface ListQuery {
  readonly limit: number;
  readonly order: 'asc' | 'desc';
  readonly after: string | undefined;
}

/** The paging of a list request's query, or a message saying which parameter is wrong. */
export function listQuery(query: (name: string) => string | null): ListQuery | string {
  const limitText = query('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return `Invalid 'limit': ${JSON.stringify(limitText)}. Expected an integer between 1 and 100.`;
  const order = query('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') return `Invalid 'order': ${JSON.stringify(order)}. Expected 'asc' or 'desc'.`;
  return { limit, order, after: query('after') ?? undefined };
}

/** OpenAI's list shape over `items` (oldest first): `data`, `first_id`, `last_id`, `has_more`. */
export function listPage(items: readonly JsonObject[], paging: ListQuery): JsonObject {
  const ordered = paging.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (paging.after !== undefined) {
    const at = ordered.findIndex((item) => item['id'] === paging.after);
    start = at === -1 ? ordered.length : at + 1;
  }
  const data = ordered.slice(start, start + paging.limit);
  const first = data[0]?.['id'];
  const last = data[data.length - 1]?.['id'];
  return { object: 'list', data, first_id: typeof first === 'string' ? first : null, last_id: typeof last === 'string' ? last : null, has_more: start + paging.limit < ordered.length };
}

/** `segment` percent-decoded; as it is when it is not valid percent-encoding (an id with a stray `%` is simply not found). */
export function pathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
