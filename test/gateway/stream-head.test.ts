/**
 * Anthropic can answer 200 and send `event: error` (`overloaded_error`) as
 * the stream's first event: before any byte reached the caller the gateway
 * treats that like a 529 and retries, then falls back, for a caller of the
 * same format (the stream passed through) and of another (converted); once
 * content has gone to the caller, an error event is the caller's and
 * nothing is retried.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { ProxyLogEntry } from '../../src/proxy/exchange.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { anthropicStream, sse, startScripted, type ScriptedUpstream } from '../support/scripted-upstream.ts';

interface Context {
  primary: ScriptedUpstream;
  secondary: ScriptedUpstream;
  /** What the primary does: an error event first, or one after the first content. */
  mode: 'error-first' | 'error-after-content';
  servers: Server[];
  urls: { node: string };
  logs: ProxyLogEntry[];
}

const test = suite<Context>('gateway: a stream whose first event is an error');

const OVERLOADED = sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error');

test.before(async (context) => {
  context.mode = 'error-first';
  context.primary = await startScripted((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req-primary' });
    if (context.mode === 'error-first') {
      response.end(OVERLOADED);
      return;
    }
    const [head] = anthropicStream(['Hel', 'lo'], { error: true });
    response.write(head);
    setTimeout(() => response.end(OVERLOADED), 20);
  });
  context.secondary = await startScripted((_request, response) => {
    const [head, rest] = anthropicStream(['Hel', 'lo']);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req-secondary' });
    response.write(head);
    setTimeout(() => response.end(rest), 10);
  });
  context.logs = [];
  const gateway = createGateway({
    upstreams: {
      primary: { format: 'anthropic', url: context.primary.origin, key: 'sk-primary' },
      secondary: { format: 'anthropic', url: context.secondary.origin, key: 'sk-secondary' },
    },
    routes: [{ match: '*', targets: [{ upstream: 'primary' }, { upstream: 'secondary' }], retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 } }],
    fetch: createNodeFetch(),
    telemetry: false,
    log: (entry) => context.logs.push(entry),
  });
  const server = await serve(gateway, { port: 0 });
  context.servers = [server];
  context.urls = { node: `http://127.0.0.1:${portOf(server)}` };
});

test.after(async (context) => {
  for (const server of context.servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await Promise.all([context.primary.close(), context.secondary.close()]);
});

test.before.each((context) => {
  context.logs.length = 0;
  context.mode = 'error-first';
});

const attempts = (context: Context) => context.logs.at(-1)?.attempts?.map((attempt) => [attempt.upstream, attempt.status, attempt.failure]);

test('an Anthropic caller: retried like a 529, then the fallback’s stream', async (context) => {
  const before = [context.primary.requests.length, context.secondary.requests.length];
  const stream = new Anthropic({ apiKey: 'caller', baseURL: context.urls.node, maxRetries: 0 }).messages.stream({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  const text: string[] = [];
  stream.on('text', (delta) => text.push(delta));
  await stream.finalMessage();
  assert.is(text.join(''), 'Hello');
  assert.equal([context.primary.requests.length - before[0]!, context.secondary.requests.length - before[1]!], [2, 1]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(attempts(context), [
    ['primary', 529, 'overloaded'],
    ['primary', 529, 'overloaded'],
    ['secondary', 200, undefined],
  ]);
  assert.is(context.logs.at(-1)?.upstreamName, 'secondary');
});

test('an OpenAI Chat caller (the stream converted): the same', async (context) => {
  const client = new OpenAI({ apiKey: 'caller', baseURL: `${context.urls.node}/v1`, maxRetries: 0 });
  const { data, response } = await client.chat.completions.create({ model: 'claude-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is(response.headers.get('x-interlingua-upstream'), 'secondary');
  let text = '';
  for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
  assert.is(text, 'Hello');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Chat has no overloaded type: the error event the caller's format carries says server_error, retried as a 500.
  assert.equal(attempts(context), [
    ['primary', 500, 'server'],
    ['primary', 500, 'server'],
    ['secondary', 200, undefined],
  ]);
});

test('every target overloaded this way: the caller gets the error in its format, with the attempts listed', async (context) => {
  const gateway = createGateway({
    upstreams: { primary: { format: 'anthropic', url: context.primary.origin, key: 'sk-primary' } },
    routes: [{ match: '*', targets: [{ upstream: 'primary' }], retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 } }],
    fetch: createNodeFetch(),
    telemetry: false,
  });
  const server = await serve(gateway, { port: 0 });
  context.servers.push(server);
  const error = await new Anthropic({ apiKey: 'caller', baseURL: `http://127.0.0.1:${portOf(server)}`, maxRetries: 0 })
    .messages.create({ model: 'claude-test', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] })
    .catch((caught: unknown) => caught);
  assert.instance(error, Anthropic.APIError);
  assert.is((error as InstanceType<typeof Anthropic.APIError>).status, 529);
  assert.match(String((error as Error).message), 'Overloaded');
  assert.match(String((error as Error).message), 'interlingua tried: primary 529 overloaded, primary 529 overloaded');
});

test('the fetch handler with the global fetch (Web streams, not Node sources): the same', async (context) => {
  const gateway = createGateway({
    upstreams: {
      primary: { format: 'anthropic', url: context.primary.origin, key: 'sk-primary' },
      secondary: { format: 'anthropic', url: context.secondary.origin, key: 'sk-secondary' },
    },
    routes: [{ match: '*', targets: [{ upstream: 'primary' }, { upstream: 'secondary' }], retry: { attempts: 1 } }],
    telemetry: false,
  });
  const response = await gateway(
    new Request('http://gateway/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer caller' }, body: JSON.stringify({ model: 'claude-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }) }),
  );
  assert.is(response.status, 200);
  assert.is(response.headers.get('x-interlingua-upstream'), 'secondary');
  const text = await response.text();
  assert.match(text, '"content":"Hel"');
  assert.match(text, '"content":"lo"');
  assert.match(text, 'data: [DONE]');
});

test('an error event after content has reached the caller is the caller’s: nothing retried', async (context) => {
  context.mode = 'error-after-content';
  const before = [context.primary.requests.length, context.secondary.requests.length];
  const response = await fetch(`${context.urls.node}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'caller', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.is(response.status, 200);
  const text = await response.text();
  assert.match(text, '"text":"Hel"');
  assert.match(text, 'overloaded_error');
  assert.equal([context.primary.requests.length - before[0]!, context.secondary.requests.length - before[1]!], [1, 0]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(attempts(context), [['primary', 200, undefined]]);
  assert.is(context.logs.at(-1)?.streamError, true);
});

test.run();
