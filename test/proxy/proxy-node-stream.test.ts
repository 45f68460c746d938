/**
 * Streams on the Node path (`serve` with `createNodeFetch`): the upstream's
 * streamed answer is a `ByteSource`, transcoded into `res.write` with the
 * caller's back-pressure. A caller that stops reading for longer than the
 * silence limit must not turn a busy upstream into a "silent" one, and must
 * still get every byte; a cancelled source closes the upstream connection.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxy } from '../../src/proxy/index.ts';
import { CallerCancel, UPSTREAM_CALL, type UpstreamCall } from '../../src/proxy/exchange.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { sendRefusal, strictCheck } from '../support/strict/index.ts';

const test = suite('proxy on Node: streams as a ByteSource');

/** An OpenAI Chat stream of `count` text deltas, each "w<index> ". */
function chatStream(count: number): { bytes: Buffer; text: string } {
  const lines: string[] = [];
  let text = '';
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  lines.push(chunk({ role: 'assistant', content: '' }, null));
  for (let index = 0; index < count; index++) {
    const piece = `w${index} `;
    text += piece;
    lines.push(chunk({ content: piece }, null));
  }
  lines.push(chunk({}, 'stop'), 'data: [DONE]\n\n');
  return { bytes: Buffer.from(lines.join('')), text };
}

async function listen(handle: (message: IncomingMessage, out: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

test('a caller that stops reading longer than the time-out still gets the whole converted stream', async () => {
  const { bytes, text } = chatStream(150_000);
  const upstream = await listen((message, out) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => {
      // What OpenAI would refuse is refused.
      const refusal = strictCheck('openai-chat', { url: message.url ?? '', headers: message.headers, text: Buffer.concat(chunks).toString('utf8') });
      if (refusal !== undefined) return sendRefusal(out, refusal);
      out.writeHead(200, { 'content-type': 'text/event-stream' });
      out.end(bytes);
    });
  });
  const handler = createProxy({ upstream: { format: 'openai-chat', baseUrl: upstream.url, apiKey: 'k' }, timeoutMs: 300, fetch: createNodeFetch() });
  const proxy = await serve(handler, { port: 0 });
  try {
    const body = JSON.stringify({ model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const received = await new Promise<string>((resolve, reject) => {
      const outgoing = request(`http://127.0.0.1:${portOf(proxy)}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        answer.on('error', reject);
        // Stop reading for twice the silence limit once the stream has begun: the proxy's buffers fill and it pauses the upstream.
        answer.pause();
        setTimeout(() => answer.resume(), 700);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    const events = received.split('\n\n').filter((block) => block.startsWith('event: '));
    assert.not.ok(events.some((block) => block.startsWith('event: error')), 'no error event: a paused upstream is not a silent one');
    let deltas = '';
    for (const block of events) {
      const data = block.slice(block.indexOf('data: ') + 6);
      const event = JSON.parse(data) as { type: string; delta?: { type: string; text?: string } };
      if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') deltas += event.delta.text ?? '';
    }
    assert.is(deltas.length, text.length, 'every text delta arrived');
    assert.ok(deltas === text, 'the text arrived in order');
    assert.ok(events.at(-1)?.startsWith('event: message_stop'), 'the stream ended with message_stop');
  } finally {
    await close(proxy);
    await close(upstream.server);
  }
});

test('the Node upstream call answers a stream as a ByteSource; cancelling it closes the upstream connection', async () => {
  let closed: () => void = () => {};
  const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
  const upstream = await listen((message, out) => {
    message.resume();
    out.writeHead(200, { 'content-type': 'text/event-stream' });
    out.write('data: {"choices":[]}\n\n');
    // Never ends on its own: only the caller's cancellation ends it.
    out.on('close', () => closed());
  });
  try {
    const call = (createNodeFetch() as unknown as { [UPSTREAM_CALL]: UpstreamCall })[UPSTREAM_CALL];
    const reply = await call(`${upstream.url}/chat/completions`, { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5_000, signal: new CallerCancel() });
    assert.is(reply.body, null, 'no Web stream');
    const source = reply.source;
    assert.ok(source !== undefined, 'a ByteSource');
    const first = await new Promise<string>((resolve, reject) => {
      source.start({
        data: (chunk) => resolve(Buffer.from(chunk).toString('utf8')),
        end: () => reject(new Error('the stream ended on its own')),
        fail: reject,
      });
    });
    assert.is(first, 'data: {"choices":[]}\n\n');
    source.cancel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the upstream connection stayed open after cancel')), 5_000)));
    await Promise.race([upstreamClosed, late]).finally(() => clearTimeout(timer));
  } finally {
    await close(upstream.server);
  }
});

test.run();
