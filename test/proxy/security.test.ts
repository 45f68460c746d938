/**
 * The proxy under attack and misuse (issue 38): redirects, redaction, the
 * inbound token beside pass-through keys, caller keys no header can carry,
 * model names, dot segments, answer sizes, the in-flight budget, deadlines,
 * callers that stop reading, and h2c time limits. Every server binds
 * 127.0.0.1 and is closed by its test.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { createProxy, type ProxyConfig } from '../../src/proxy/index.ts';
import { serve, portOf, type ServerTimeouts } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';

const KEY = 'sk-upstream-secret-0123456789';

interface Upstream {
  url: string;
  hits: { path: string; headers: IncomingMessage['headers']; body: string }[];
  closed: number;
  close(): Promise<void>;
}

async function upstreamServer(answer: (request: IncomingMessage, response: ServerResponse, body: string) => void): Promise<Upstream> {
  const hits: Upstream['hits'] = [];
  const state = { closed: 0 };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      hits.push({ path: request.url ?? '', headers: request.headers, body });
      response.once('close', () => state.closed++);
      answer(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    get closed() {
      return state.closed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function withServe<T>(config: ProxyConfig, run: (url: string) => Promise<T>, timeouts?: ServerTimeouts): Promise<T> {
  const server: Server = await serve(createProxy(config), { port: 0, ...(timeouts === undefined ? {} : { timeouts }) });
  try {
    return await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const CALLER_BODY: Record<string, { path: string; body: unknown }> = {
  anthropic: { path: '/v1/messages', body: { model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
  'openai-chat': { path: '/v1/chat/completions', body: { model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] } },
  ollama: { path: '/api/chat', body: { model: 'llama', messages: [{ role: 'user', content: 'hi' }] } },
  'bedrock-converse': { path: '/model/m/converse-stream', body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } },
};

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, text: Buffer.from(await response.arrayBuffer()).toString('latin1') };
}

/** A POST whose path goes out exactly as written (fetch would resolve its dot segments first). */
function rawPost(url: string, path: string, body: string): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url + path, { method: 'POST', headers: { 'content-type': 'application/json' } }, (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: new Headers(incoming.headers as Record<string, string>), text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const CLIENTS: [string, () => typeof fetch][] = [
  ['global fetch', () => fetch],
  ['node upstream call', () => createNodeFetch()],
];

const test = suite('proxy security');

test('an upstream redirect is never followed: the caller gets a 502 naming the upstream, the other host sees nothing', async () => {
  const elsewhere = await upstreamServer((_, response) => response.end('{}'));
  const upstream = await upstreamServer((_, response) => {
    response.writeHead(307, { location: `${elsewhere.url}/steal` });
    response.end();
  });
  try {
    for (const [name, client] of CLIENTS) {
      for (const stream of [false, true]) {
        await withServe({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: KEY }, fetch: client() }, async (url) => {
          const answer = await post(url, '/v1/chat/completions', { model: 'gpt-x', stream, messages: [{ role: 'user', content: 'hi' }] });
          assert.is(answer.status, 502, `${name} stream=${stream}`);
          assert.match(answer.text, /upstream \(anthropic\) answered with a redirect \(HTTP 307\)/);
        });
      }
    }
    assert.is(elsewhere.hits.length, 0, 'the redirect target was never called');
  } finally {
    await upstream.close();
    await elsewhere.close();
  }
});

test('upstream errors are redacted in every field, whole and streamed, for every caller', async () => {
  const whole = await upstreamServer((_, response) => {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `bad key ${KEY}`, type: 'invalid_request_error', param: `key=${KEY}`, code: KEY } }));
  });
  const streamed = await upstreamServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n');
    // The key split across two writes: the same-format redactor must still find it.
    const event = `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"key ${KEY} refused","details":"${KEY}"},"request_id":"${KEY}"}\n\n`;
    const cut = event.indexOf(KEY) + 7;
    response.write(event.slice(0, cut));
    setTimeout(() => response.end(event.slice(cut)), 20);
  });
  try {
    for (const [name, client] of CLIENTS) {
      await withServe({ upstream: { format: 'openai-chat', baseUrl: whole.url, apiKey: KEY }, fetch: client() }, async (url) => {
        for (const caller of ['anthropic', 'openai-chat', 'ollama'] as const) {
          const { path, body } = CALLER_BODY[caller]!;
          const answer = await post(url, path, { ...(body as object), stream: false });
          assert.is(answer.status, 400, `${name} ${caller}`);
          assert.not.ok(answer.text.includes(KEY), `${name} ${caller} whole: ${answer.text}`);
        }
      });
      await withServe({ upstream: { format: 'anthropic', baseUrl: streamed.url, apiKey: KEY }, fetch: client() }, async (url) => {
        for (const caller of ['anthropic', 'openai-chat', 'ollama', 'bedrock-converse'] as const) {
          const { path, body } = CALLER_BODY[caller]!;
          const answer = await post(url, path, caller === 'bedrock-converse' ? body : { ...(body as object), stream: true });
          assert.is(answer.status, 200, `${name} ${caller}`);
          assert.not.ok(answer.text.includes(KEY), `${name} ${caller} stream: ${answer.text}`);
          assert.not.ok(answer.text.includes(KEY.slice(0, 12)), `${name} ${caller}: no piece of the key`);
        }
      });
    }
  } finally {
    await whole.close();
    await streamed.close();
  }
});

test('with pass-through keys the inbound token has a header of its own; impossible combinations are refused up front', async () => {
  const upstream = await upstreamServer((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: 'x', type: 'message', role: 'assistant', model: 'c', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }));
  });
  try {
    await withServe({ upstream: { format: 'anthropic', baseUrl: upstream.url, passThroughAuth: true }, inboundToken: 'proxy-token-1' }, async (url) => {
      const { path, body } = CALLER_BODY['anthropic']!;
      const ok = await post(url, path, body, { 'x-api-key': 'sk-caller-vendor-key', 'x-interlingua-token': 'proxy-token-1' });
      assert.is(ok.status, 200);
      assert.is(upstream.hits.at(-1)!.headers['x-api-key'], 'sk-caller-vendor-key', 'the vendor key goes upstream, not the token');
      const tokenAsKey = await post(url, path, body, { 'x-api-key': 'proxy-token-1' });
      assert.is(tokenAsKey.status, 401);
      assert.match(tokenAsKey.text, /x-interlingua-token/);
    });
    await withServe({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: KEY }, inboundToken: 'proxy-token-1' }, async (url) => {
      const { path, body } = CALLER_BODY['anthropic']!;
      assert.is((await post(url, path, body, { 'x-api-key': 'proxy-token-1' })).status, 200, 'without pass-through the SDK header may carry the token');
      assert.is((await post(url, path, body, { 'x-interlingua-token': 'proxy-token-1' })).status, 200);
    });
    assert.throws(() => createProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, passThroughAuth: true, apiKey: KEY } }), /passThroughAuth/);
  } finally {
    await upstream.close();
  }
});

test('a pass-through key no header can carry is the caller\'s 401, without the key, on both clients', async () => {
  const upstream = await upstreamServer((_, response) => response.end('{}'));
  const bad = 'sk-caller-\u00e9\u00e8-secret';
  try {
    for (const [name, client] of CLIENTS) {
      const config: ProxyConfig = { upstream: { format: 'openai-chat', baseUrl: upstream.url, passThroughAuth: true }, fetch: client() };
      await withServe(config, async (url) => {
        const answer = await post(url, '/v1/messages', CALLER_BODY['anthropic']!.body, { 'x-api-key': bad });
        assert.is(answer.status, 401, name);
        assert.not.ok(answer.text.includes('secret'), answer.text);
      });
      const handler = createProxy(config);
      const direct = await handler(new Request('http://proxy/v1/messages', { method: 'POST', headers: { 'x-api-key': bad }, body: JSON.stringify(CALLER_BODY['anthropic']!.body) }));
      assert.is(direct.status, 401, `${name}, fetch handler`);
      assert.not.ok((await direct.text()).includes('secret'));
    }
    assert.is(upstream.hits.length, 0);
  } finally {
    await upstream.close();
  }
});

test('a model name over the cap and a Bedrock id of "." or ".." are the caller\'s 400; the upstream is not called', async () => {
  const upstream = await upstreamServer((_, response) => response.end('{}'));
  try {
    await withServe({ upstream: { format: 'bedrock-converse', baseUrl: upstream.url, apiKey: KEY }, modelMap: { 'gpt-*-*': 'x' } }, async (url) => {
      const long = await post(url, '/v1/chat/completions', { model: `gpt-${'a'.repeat(100_000)}`, messages: [{ role: 'user', content: 'hi' }] });
      assert.is(long.status, 400);
      assert.match(long.text, /"invalid_request_error"/);
      // A caller's own path has its dot segments resolved by the server before routing; a model name reaches the upstream path only as a model.
      for (const model of ['.', '..']) {
        const answer = await post(url, '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
        assert.is(answer.status, 400, model);
        assert.match(answer.text, /dot segment/);
      }
    });
    await withServe({ upstream: { format: 'bedrock-converse', baseUrl: upstream.url, apiKey: KEY }, modelMap: { '*': '..' } }, async (url) => {
      const answer = await rawPost(url, '/model/claude/converse', JSON.stringify(CALLER_BODY['bedrock-converse']!.body));
      assert.is(answer.status, 400, 'a mapped id of ".."');
      assert.is(answer.headers.get('x-amzn-errortype'), 'ValidationException');
    });
    assert.is(upstream.hits.length, 0);
  } finally {
    await upstream.close();
  }
});

test('a whole upstream answer over maxAnswerBytes is a 502 in the caller\'s format, on both clients', async () => {
  const upstream = await upstreamServer((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const more = () => {
      while (sent < 64) {
        sent++;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      response.end();
    };
    more();
  });
  try {
    for (const [name, client] of CLIENTS) {
      await withServe({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: KEY }, fetch: client(), limits: { maxAnswerBytes: 1024 * 1024 } }, async (url) => {
        const answer = await post(url, '/v1/chat/completions', CALLER_BODY['openai-chat']!.body);
        assert.is(answer.status, 502, name);
        assert.match(answer.text, /more than 1048576 bytes/);
      });
    }
  } finally {
    await upstream.close();
  }
});

test('requests beyond the in-flight budget get 503 with retry-after in the caller\'s format', async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const upstream = await upstreamServer((_, response) => {
    void held.then(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'g', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
    });
  });
  try {
    await withServe({ upstream: { format: 'openai-chat', baseUrl: upstream.url, apiKey: KEY }, limits: { maxInflightBytes: 4000 } }, async (url) => {
      const big = { model: 'gpt-x', messages: [{ role: 'user', content: 'y'.repeat(3000) }] };
      const first = post(url, '/v1/chat/completions', big);
      while (upstream.hits.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const second = await post(url, '/v1/chat/completions', big);
      assert.is(second.status, 503);
      assert.is(second.headers.get('retry-after'), '1');
      assert.match(second.text, /"error"/);
      release();
      assert.is((await first).status, 200);
      assert.is((await post(url, '/v1/chat/completions', big)).status, 200, 'the budget is given back');
    });
  } finally {
    release();
    await upstream.close();
  }
});

test('an overall deadline ends an upstream that trickles comments forever', async () => {
  const upstream = await upstreamServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => response.write(': keep-alive\n\n'), 30);
    response.once('close', () => clearInterval(timer));
  });
  try {
    for (const [name, client] of CLIENTS) {
      await withServe({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: KEY }, fetch: client(), timeoutMs: 5000, limits: { deadlineMs: 400 } }, async (url) => {
        const started = Date.now();
        const answer = await post(url, '/v1/chat/completions', { ...(CALLER_BODY['openai-chat']!.body as object), stream: true });
        assert.ok(Date.now() - started < 4000, `${name}: ended by the deadline`);
        assert.match(answer.text, /error/);
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(upstream.closed, upstream.hits.length, 'every upstream stream was closed');
  } finally {
    await upstream.close();
  }
});

test('a caller that stops reading a stream no longer holds the upstream stream open', async () => {
  const upstream = await upstreamServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = `event: ping\ndata: {"type":"ping","pad":"${'p'.repeat(16 * 1024)}"}\n\n`;
    const more = () => {
      while (!response.destroyed && response.write(event));
      if (!response.destroyed) response.once('drain', more);
    };
    more();
  });
  try {
    for (const [name, client] of CLIENTS) {
      const before = upstream.closed;
      await withServe({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: KEY }, fetch: client(), limits: { stalledReaderMs: 300 } }, async (url) => {
        const { port } = new URL(url);
        const body = JSON.stringify({ ...(CALLER_BODY['anthropic']!.body as object), stream: true });
        const socket = netConnect(Number(port), '127.0.0.1');
        socket.write(`POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        socket.pause();
        const started = Date.now();
        while (upstream.closed === before && Date.now() - started < 8000) await new Promise((resolve) => setTimeout(resolve, 50));
        socket.destroy();
        assert.ok(upstream.closed > before, `${name}: the upstream stream was ended`);
      });
    }
  } finally {
    await upstream.close();
  }
});

test('cleartext HTTP/2 has the same time limits as HTTP/1.1: preface only, idle session, endless body', async () => {
  const upstream = await upstreamServer((_, response) => response.end('{}'));
  const timeouts: ServerTimeouts = { headersMs: 300, idleMs: 300, requestMs: 600 };
  try {
    await withServe(
      { upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: KEY } },
      async (url) => {
        const port = Number(new URL(url).port);
        const closedWithin = (emitter: NodeJS.EventEmitter, event: string, ms: number) =>
          new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), ms);
            emitter.once(event, () => {
              clearTimeout(timer);
              resolve(true);
            });
          });
        const preface = netConnect(port, '127.0.0.1');
        preface.on('error', () => {});
        preface.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
        preface.resume();
        assert.ok(await closedWithin(preface, 'close', 3000), 'a preface-only connection is closed');
        const idle = http2Connect(url);
        idle.on('error', () => {});
        const first = idle.request({ ':method': 'POST', ':path': '/nowhere' });
        first.end();
        first.resume();
        await new Promise((resolve) => first.once('close', resolve));
        assert.ok(await closedWithin(idle, 'close', 3000), 'an idle session is closed');
        const endless = http2Connect(url);
        endless.on('error', () => {});
        const stream = endless.request({ ':method': 'POST', ':path': '/v1/messages', 'content-type': 'application/json' });
        stream.on('error', () => {});
        stream.write('{"model":');
        assert.ok(await closedWithin(stream, 'close', 3000), 'a request whose body never ends is reset');
        endless.destroy();
      },
      timeouts,
    );
  } finally {
    await upstream.close();
  }
});

test.run();
