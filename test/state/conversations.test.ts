/**
 * The Conversations API through the proxy as a store of items, with the
 * official `openai` client: create with metadata and items, retrieve,
 * update, the items list (order, limit, after, has_more), create, retrieve
 * and delete of items, delete; a `conversation` on `responses.create`
 * appends the turn's input and output; every answer checked against the
 * OpenAI spec's schema; another credential's conversation is a 404.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream } from '../support/strict/index.ts';
import { describeErrors, SpecValidators } from '../support/spec-schemas.ts';

const test = suite('the Conversations API');
const validators = new SpecValidators();

/** `body` as the proxy sent it, checked against the OpenAI spec's component schema `schema`. */
async function fromSpec(url: string, path: string, schema: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, { ...init, headers: { authorization: 'Bearer caller-key', 'content-type': 'application/json' } });
  assert.equal(response.status, 200, `${path}: ${response.status}`);
  const body = (await response.json()) as Record<string, unknown>;
  const errors = validators.validateAs('openai', schema, body);
  assert.ok(errors === undefined, `${path} as ${schema}:\n${describeErrors(errors ?? [])}`);
  return body;
}

async function withConversations(run: (client: OpenAI, other: OpenAI, url: string) => Promise<void>): Promise<void> {
  const upstream = await startStrictUpstream({ format: 'gemini', script: [{ kind: 'text', text: 'Hello back.' }] });
  try {
    await withProxy({ upstream: { format: 'gemini', baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'gemini-test' }, fetch: createNodeFetch(), store: createMemoryStore() }, (url) =>
      run(new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 }), new OpenAI({ apiKey: 'someone-else', baseURL: `${url}/v1`, maxRetries: 0 }), url),
    );
  } finally {
    await upstream.close();
  }
}

const said = (text: string): OpenAI.Responses.ResponseInputItem => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

test('create, retrieve, update and delete a conversation', () =>
  withConversations(async (client, other) => {
    const created = await client.conversations.create({ metadata: { topic: 'orders' }, items: [said('First.'), said('Second.')] });
    assert.match(created.id, /^conv_[A-Za-z0-9]{20,}$/);
    assert.equal(created.object, 'conversation');
    assert.equal(created.metadata, { topic: 'orders' });
    assert.type(created.created_at, 'number');
    assert.equal(await client.conversations.retrieve(created.id), created);
    const updated = await client.conversations.update(created.id, { metadata: { topic: 'returns' } });
    assert.equal(updated.metadata, { topic: 'returns' });
    const elsewhere = await other.conversations.retrieve(created.id).catch((error: unknown) => error);
    assert.ok(elsewhere instanceof OpenAI.NotFoundError);
    assert.equal(elsewhere.message, `404 Conversation with id '${created.id}' not found.`);
    const deleted = await client.conversations.delete(created.id);
    assert.equal(deleted, { id: created.id, object: 'conversation.deleted', deleted: true });
    assert.ok((await client.conversations.retrieve(created.id).catch((error: unknown) => error)) instanceof OpenAI.NotFoundError);
  }),
);

test('items: list in both orders with limit and after, create, retrieve, delete', () =>
  withConversations(async (client) => {
    const conversation = await client.conversations.create({ items: [said('one'), said('two'), said('three')] });
    const added = await client.conversations.items.create(conversation.id, { items: [said('four')] });
    assert.equal(added.data.length, 1);
    const four = added.data[0]!;
    assert.match(four.id ?? '', /^msg_/);
    const textOf = (item: OpenAI.Conversations.ConversationItem) => (item.type === 'message' ? item.content.map((part) => ('text' in part ? part.text : '')).join('') : item.type);
    const newestFirst = await client.conversations.items.list(conversation.id, { limit: 2 });
    assert.equal(newestFirst.data.map(textOf), ['four', 'three']);
    assert.equal(newestFirst.has_more, true);
    assert.equal(newestFirst.last_id, newestFirst.data[1]?.id);
    const all: string[] = [];
    for await (const item of client.conversations.items.list(conversation.id, { order: 'asc', limit: 1 })) all.push(textOf(item));
    assert.equal(all, ['one', 'two', 'three', 'four'], 'the SDK pages through with after');
    assert.equal(textOf(await client.conversations.items.retrieve(four.id!, { conversation_id: conversation.id })), 'four');
    const after = await client.conversations.items.delete(four.id!, { conversation_id: conversation.id });
    assert.equal(after.id, conversation.id);
    const missing = await client.conversations.items.retrieve(four.id!, { conversation_id: conversation.id }).catch((error: unknown) => error);
    assert.ok(missing instanceof OpenAI.NotFoundError);
    assert.equal(missing.message, `404 Item with id '${four.id}' not found.`);
  }),
);

test('conversation on responses.create appends the input and the output', () =>
  withConversations(async (client) => {
    const conversation = await client.conversations.create({});
    const response = await client.responses.create({ model: 'gpt-test', conversation: conversation.id, input: 'Hello.' });
    assert.equal(response.conversation?.id, conversation.id);
    const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
    assert.equal(items.data.map((item) => (item.type === 'message' ? item.role : item.type)), ['user', 'assistant']);
    assert.equal(items.data[1]?.id, response.output[0]?.id);
    const unknown = await client.responses.create({ model: 'gpt-test', conversation: 'conv_unknown', input: 'Hello.' }).catch((error: unknown) => error);
    assert.ok(unknown instanceof OpenAI.NotFoundError);
    const both = await client.responses.create({ model: 'gpt-test', conversation: conversation.id, previous_response_id: response.id, input: 'Hello.' }).catch((error: unknown) => error);
    assert.ok(both instanceof OpenAI.BadRequestError);
    assert.match(both.message, /Mutually exclusive parameters/);
  }),
);

test('every answer of the stateful endpoints has the OpenAI spec\'s shape', () =>
  withConversations(async (client, _other, url) => {
    const conversation = await fromSpec(url, '/v1/conversations', 'ConversationResource', { method: 'POST', body: JSON.stringify({ items: [said('one')] }) });
    const id = conversation['id'] as string;
    await fromSpec(url, `/v1/conversations/${id}`, 'ConversationResource');
    const items = await fromSpec(url, `/v1/conversations/${id}/items`, 'ConversationItemList');
    const response = await client.responses.create({ model: 'gpt-test', conversation: id, input: 'Hello.' });
    await fromSpec(url, `/v1/responses/${response.id}`, 'Response');
    await fromSpec(url, `/v1/responses/${response.id}/input_items`, 'ResponseItemList');
    await fromSpec(url, `/v1/conversations/${id}/items/${(items['data'] as { id: string }[])[0]!.id}`, 'ConversationItem');
    await fromSpec(url, `/v1/conversations/${id}`, 'DeletedConversationResource', { method: 'DELETE' });
  }),
);

test('too many items at once, and a bad limit, are OpenAI\'s 400s', () =>
  withConversations(async (client) => {
    const many = await client.conversations.create({ items: Array.from({ length: 21 }, (_, index) => said(String(index))) }).catch((error: unknown) => error);
    assert.ok(many instanceof OpenAI.BadRequestError);
    assert.match(many.message, /maximum length 20/);
    const conversation = await client.conversations.create({});
    const badLimit = await client.conversations.items.list(conversation.id, { limit: 1000 }).catch((error: unknown) => error);
    assert.ok(badLimit instanceof OpenAI.BadRequestError);
  }),
);

test.run();
