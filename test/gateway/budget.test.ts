/**
 * One in-flight byte budget per gateway (issue 38, finding 8): `serve` runs
 * a proxy per upstream, and the bound on the request bytes held at once
 * is the gateway's, shared by all of them, not one budget per upstream.
 * Two strict upstreams of two formats; a big request held at one makes a
 * big request to the other one too many.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { GatewayConfig } from '../../src/gateway/config.ts';
import { createProxy, InflightBudget } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { startStrictUpstream, type StrictUpstream } from '../support/strict/index.ts';

const test = suite('gateway: one in-flight budget for every upstream');

const BUDGET = 150_000;
const BIG = 'y'.repeat(100_000);

const chatBody = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: BIG }] });
const messagesBody = (model: string) => JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: BIG }] });

async function withGateway(config: GatewayConfig, run: (url: string) => Promise<void>): Promise<void> {
  const server: Server = await serve(createGateway(config), { port: 0 });
  try {
    await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function post(url: string, path: string, body: string, signal?: AbortSignal): Promise<Response> {
  return fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body, ...(signal === undefined ? {} : { signal }) });
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.unreachable(`never: ${what}`);
}

test('a big request held at one upstream makes a big request to another one over the budget: 503 or 529, with retry-after, in the caller\'s format', async () => {
  const chat: StrictUpstream = await startStrictUpstream({ format: 'openai-chat', script: [{ kind: 'stall' }], behaviour: { kind: 'text', text: 'Done.' } });
  const claude: StrictUpstream = await startStrictUpstream({ format: 'anthropic', behaviour: { kind: 'text', text: 'Done.' } });
  const config: GatewayConfig = {
    upstreams: {
      chat: { format: 'openai-chat', url: chat.url, key: 'sk-chat-upstream' },
      claude: { format: 'anthropic', url: claude.url, key: 'sk-ant-upstream' },
    },
    routes: [
      { match: 'gpt-*', targets: [{ upstream: 'chat' }] },
      { match: 'claude-*', targets: [{ upstream: 'claude' }] },
    ],
    limits: { maxInflightBytes: BUDGET },
    fetch: createNodeFetch(),
  };
  try {
    await withGateway(config, async (url) => {
      const caller = new AbortController();
      const held = post(url, '/v1/chat/completions', chatBody('gpt-held'), caller.signal).catch(() => undefined);
      await until(() => chat.received.length === 1, 'the held request reached its upstream');

      // Another upstream, another proxy: the one budget is full all the same.
      const anthropic = await post(url, '/v1/messages', messagesBody('claude-x'));
      assert.is(anthropic.status, 529, 'Anthropic\'s overload status');
      assert.is(anthropic.headers.get('retry-after'), '1');
      const anthropicError = (await anthropic.json()) as { type: string; error: { type: string; message: string } };
      assert.is(anthropicError.type, 'error');
      assert.is(anthropicError.error.type, 'overloaded_error');
      assert.match(anthropicError.error.message, `${BUDGET} bytes`);

      const openai = await post(url, '/v1/chat/completions', chatBody('claude-y'));
      assert.is(openai.status, 503);
      assert.is(openai.headers.get('retry-after'), '1');
      const openaiError = (await openai.json()) as { error: { message: string; type: string } };
      assert.match(openaiError.error.message, `${BUDGET} bytes`);
      assert.is(claude.received.length, 0, 'nothing over the budget reached the second upstream');

      // A small request still fits beside the held one.
      const small = await post(url, '/v1/messages', JSON.stringify({ model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }));
      assert.is(small.status, 200);

      // The caller of the held request goes away: its bytes are given back, and the big request fits.
      caller.abort();
      await held;
      await until(async () => (await post(url, '/v1/messages', messagesBody('claude-x'))).status === 200, 'the budget was given back');
      assert.equal(claude.refusals(), [], 'the second upstream accepted what reached it');
    });
  } finally {
    await chat.close();
    await claude.close();
  }
});

test('proxies given one budget share it; a proxy without one keeps its own', async () => {
  const chat: StrictUpstream = await startStrictUpstream({ format: 'openai-chat', script: [{ kind: 'stall' }], behaviour: { kind: 'text', text: 'Done.' } });
  const claude: StrictUpstream = await startStrictUpstream({ format: 'anthropic', behaviour: { kind: 'text', text: 'Done.' } });
  const budget = new InflightBudget(BUDGET);
  const first = await serve(createProxy({ upstream: { format: 'openai-chat', baseUrl: chat.url, apiKey: 'sk-chat-upstream' }, budget, timeoutMs: 1000, fetch: createNodeFetch() }), { port: 0 });
  const second = await serve(createProxy({ upstream: { format: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-upstream' }, budget, fetch: createNodeFetch() }), { port: 0 });
  const alone = await serve(createProxy({ upstream: { format: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-upstream' }, limits: { maxInflightBytes: BUDGET }, fetch: createNodeFetch() }), { port: 0 });
  try {
    const held = post(`http://127.0.0.1:${portOf(first)}`, '/v1/chat/completions', chatBody('gpt-held'));
    await until(() => chat.received.length === 1, 'the held request reached its upstream');
    assert.is((await post(`http://127.0.0.1:${portOf(second)}`, '/v1/messages', messagesBody('claude-x'))).status, 529, 'the shared budget is full');
    assert.is((await post(`http://127.0.0.1:${portOf(alone)}`, '/v1/messages', messagesBody('claude-x'))).status, 200, 'a budget of its own is not');
    // The held request ends (its upstream silent past timeoutMs): its bytes are given back.
    assert.is((await held).status, 504);
    await until(async () => (await post(`http://127.0.0.1:${portOf(second)}`, '/v1/messages', messagesBody('claude-x'))).status === 200, 'the budget was given back');
    assert.is(budget.held, 0, 'every byte given back');
  } finally {
    for (const server of [first, second, alone]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await chat.close();
    await claude.close();
  }
});

test.run();
