/**
 * Whole (non-streamed) calls on the Node path (`createNodeFetch`): they go
 * over undici `Client`s, one connection each, kept between calls. A call
 * that ends early closes exactly its own connection and opens none; a call
 * whose headers undici refuses goes over node:http; at most 256 connections
 * per origin, further calls wait for one.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createProxy } from '../../src/proxy/index.ts';
import { CallerCancel, UPSTREAM_CALL, type UpstreamCall } from '../../src/proxy/exchange.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { convertRequest } from '../../src/formats/convert.ts';
import { bodyText, stringifyBody } from '../../src/core/serialize.ts';
import { proxyBodies } from '../support/serialize-bodies.ts';
import { sendRefusal, strictCheck } from '../support/strict/index.ts';

const test = suite('proxy on Node: whole answers over undici');

const CHAT_ANSWER = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

/** A Chat request OpenAI accepts, for calls made straight to the upstream. */
const CHAT_REQUEST = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

const MESSAGES_BODY = JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });

interface Upstream {
  server: Server;
  url: string;
  /** Connections accepted so far. */
  accepted: number;
  /** Connections open now. */
  open: Set<Socket>;
  /** The most connections open at once. */
  most: number;
  requests: IncomingMessage[];
  /** The request bodies received, as text. */
  bodies: string[];
  /** Their `content-length` headers. */
  lengths: (string | undefined)[];
}

/** A keep-alive upstream; `handle` answers (or not). */
async function listen(handle: (message: IncomingMessage, out: ServerResponse) => void): Promise<Upstream> {
  const server = createServer((message, out) => {
    upstream.requests.push(message);
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      upstream.bodies.push(text);
      upstream.lengths.push(message.headers['content-length']);
      // What OpenAI would refuse is refused, whatever the test's handler does.
      const refusal = strictCheck('openai-chat', { url: message.url ?? '', headers: message.headers, text });
      if (refusal !== undefined) sendRefusal(out, refusal);
      else handle(message, out);
    });
  });
  const upstream: Upstream = { server, url: '', accepted: 0, open: new Set(), most: 0, requests: [], bodies: [], lengths: [] };
  server.on('connection', (socket) => {
    upstream.accepted++;
    upstream.open.add(socket);
    upstream.most = Math.max(upstream.most, upstream.open.size);
    socket.on('close', () => upstream.open.delete(socket));
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return upstream;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Wait (bounded, 5 s) until `done` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** POST `body` to the proxy; `leave` hangs up once the upstream has the request. */
function post(base: string, body: string, leave?: () => Promise<void>): Promise<{ status: number; text: string } | undefined> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}/v1/messages`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      answer.on('error', reject);
    });
    outgoing.on('error', (error) => (leave === undefined ? reject(error) : resolve(undefined)));
    outgoing.end(body);
    if (leave !== undefined) {
      void leave().then(() => {
        outgoing.destroy();
        resolve(undefined);
      }, reject);
    }
  });
}

/** The upstream's usual answer: a whole Chat completion at once. */
function answerChat(_: IncomingMessage, out: ServerResponse): void {
  out.writeHead(200, { 'content-type': 'application/json' });
  out.end(CHAT_ANSWER);
}

/**
 * Run `check` against `createProxy` on Node (Anthropic callers, an OpenAI
 * Chat upstream answering with `handle`, the proxy's `timeoutMs` and
 * upstream `headers` as given), and close both servers after.
 */
async function throughProxy(
  handle: (message: IncomingMessage, out: ServerResponse) => void,
  settings: { timeoutMs?: number; headers?: Record<string, string> },
  check: (proxyUrl: string, upstream: Upstream) => Promise<void>,
): Promise<void> {
  const upstream = await listen(handle);
  const target = { format: 'openai-chat' as const, baseUrl: upstream.url, apiKey: 'k', ...(settings.headers === undefined ? {} : { headers: settings.headers }) };
  const proxy = await serve(createProxy({ upstream: target, ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }), fetch: createNodeFetch() }), { port: 0 });
  try {
    await check(`http://127.0.0.1:${portOf(proxy)}`, upstream);
  } finally {
    await close(proxy);
    await close(upstream.server);
  }
}

test('whole calls reuse one upstream connection', () =>
  throughProxy(answerChat, {}, async (proxyUrl, upstream) => {
    for (let index = 0; index < 5; index++) {
      const answer = await post(proxyUrl, MESSAGES_BODY);
      assert.is(answer?.status, 200);
      assert.match(answer?.text ?? '', /"text":"hello"/);
    }
    assert.is(upstream.accepted, 1, 'one connection for five calls');
  }),
);

test('a body with large data URLs goes upstream piece by piece: the text of stringifyBody, byte for byte, with its content-length', () =>
  throughProxy(answerChat, {}, async (proxyUrl, upstream) => {
    for (const { name, text } of proxyBodies()) {
      const expected = convertRequest(text, { from: 'anthropic', to: 'openai-chat' }).body;
      assert.ok(Array.isArray(bodyText(expected)), `${name}: the body is written in pieces`);
      const answer = await post(proxyUrl, text);
      assert.is(answer?.status, 200, name);
      assert.is(upstream.bodies.at(-1), stringifyBody(expected), name);
      assert.is(upstream.lengths.at(-1), String(Buffer.byteLength(stringifyBody(expected))), name);
    }
  }),
);

test('a caller that leaves during a whole call closes its upstream connection and opens no other', () =>
  // Never answers: only the caller's leaving ends the call.
  throughProxy(() => {}, { timeoutMs: 60_000 }, async (proxyUrl, upstream) => {
    await post(proxyUrl, MESSAGES_BODY, () => until(() => upstream.requests.length === 1, 'the request reaches the upstream'));
    await until(() => upstream.open.size === 0, 'the upstream connection closes');
    // Give a wrongly opened connection the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(upstream.accepted, 1, 'no connection opened to discard the request');
    assert.is(upstream.open.size, 0);
  }),
);

test('a whole call past the first-byte limit answers 504, closes its connection and opens no other', () =>
  throughProxy(() => {}, { timeoutMs: 100 }, async (proxyUrl, upstream) => {
    const answer = await post(proxyUrl, MESSAGES_BODY);
    assert.is(answer?.status, 504);
    assert.match(answer?.text ?? '', /timeout_error|did not answer/);
    await until(() => upstream.open.size === 0, 'the upstream connection closes');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(upstream.accepted, 1);
  }),
);

test('a header undici refuses (keep-alive) still reaches the upstream, over node:http', () =>
  throughProxy(answerChat, { headers: { 'keep-alive': 'timeout=5' } }, async (proxyUrl, upstream) => {
    const answer = await post(proxyUrl, MESSAGES_BODY);
    assert.is(answer?.status, 200);
    assert.is(upstream.requests[0]?.headers['keep-alive'], 'timeout=5');
  }),
);

test('at most 256 connections per upstream: further whole calls wait for one and are answered', async () => {
  const upstream = await listen((_, out) => {
    setTimeout(() => {
      out.writeHead(200, { 'content-type': 'application/json' });
      out.end(CHAT_ANSWER);
    }, 20);
  });
  try {
    const call = (createNodeFetch() as unknown as { [UPSTREAM_CALL]: UpstreamCall })[UPSTREAM_CALL];
    const replies = await Promise.all(
      Array.from({ length: 300 }, () => call(`${upstream.url}/chat/completions`, { headers: { 'content-type': 'application/json' }, body: CHAT_REQUEST, timeoutMs: 30_000, signal: new CallerCancel(), stream: false })),
    );
    assert.ok(replies.every((reply) => reply.status === 200 && reply.text === CHAT_ANSWER), 'every call answered whole');
    assert.ok(upstream.most <= 256, `${upstream.most} connections at once`);
    assert.is(upstream.requests.length, 300);
  } finally {
    await close(upstream.server);
  }
});

test.run();
