/**
 * Run a fetch handler on a Node HTTP server. A handler made by `createProxy`
 * carries its transport-neutral exchange (`PROXY_EXCHANGE`), which runs here
 * on `node:http` directly: the body read from the `IncomingMessage` into one
 * string, a whole answer written once with its `content-length`, and no Web
 * `Request`, `Response` or stream except for streamed answers. Any other
 * fetch handler goes through `Request` and `Response`. A client that
 * disconnects aborts the request's signal, which cancels the upstream call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { CallerCancel, PROXY_EXCHANGE, type Answer, type Exchange, type Inbound } from '../proxy/exchange.ts';

/** A fetch handler, such as the one `createProxy` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The request's URL on a fixed origin: only its path and query come from the
 * caller. Neither the Host header nor an absolute-form request target (which
 * may name another host, or no valid authority at all) takes part, so they
 * can neither redirect anything nor throw.
 */
function parsedUrlOf(message: IncomingMessage): URL {
  const target = message.url ?? '/';
  return new URL(target.startsWith('/') ? `http://localhost${target}` : target);
}

function urlOf(message: IncomingMessage): string {
  const parsed = parsedUrlOf(message);
  return `http://localhost${parsed.pathname}${parsed.search}`;
}

/** The body of `message` as text, or `undefined` once it exceeds `limit` bytes (the rest is read and dropped). */
function readBody(message: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(message.headers['content-length'] ?? '0');
  return new Promise((resolve, reject) => {
    if (declared > limit) {
      message.resume();
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        message.off('data', onData);
        message.resume();
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    message.on('data', onData);
    message.once('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    message.once('error', reject);
    message.once('close', () => {
      if (!message.complete) reject(new Error('the client closed the connection before the end of the body'));
    });
  });
}

/** An `IncomingMessage` as the proxy's {@link Inbound}. Throws on a request target that is no URL. */
function nodeInbound(message: IncomingMessage, signal: CallerCancel): Inbound {
  const url = parsedUrlOf(message);
  return {
    method: message.method ?? 'GET',
    pathname: url.pathname,
    query: (name) => url.searchParams.get(name),
    header: (name) => {
      const value = message.headers[name];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
    text: (limit) => readBody(message, limit),
    signal,
  };
}

function toRequest(message: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const url = urlOf(message);
  const hasBody = message.method !== 'GET' && message.method !== 'HEAD';
  return new Request(url, {
    method: message.method ?? 'GET',
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(message) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

async function writeResponse(response: Response, out: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  await writeAnswer({ status: response.status, headers, body: response.body }, out);
}

/** Write an answer: a whole body at once with its content-length, a stream chunk by chunk. */
async function writeAnswer(answer: Answer, out: ServerResponse): Promise<void> {
  const body = answer.body;
  if (typeof body === 'string') {
    answer.headers['content-length'] = String(Buffer.byteLength(body));
    out.writeHead(answer.status, answer.headers);
    out.end(body);
    return;
  }
  out.writeHead(answer.status, answer.headers);
  if (body === null) {
    out.end();
    return;
  }
  const reader = body.getReader();
  out.on('close', () => {
    if (!out.writableFinished) reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!out.write(value)) await new Promise<void>((resolve) => out.once('drain', resolve).once('close', resolve));
      if (out.destroyed) break;
    }
  } catch {
    // The body failed mid-way (the converted stream already carried an error event where it could).
  }
  out.end();
}

const BAD_TARGET = JSON.stringify({ error: { type: 'invalid_request', message: 'the request target is not a path; send an origin-form target such as /v1/messages' } });
const INTERNAL = JSON.stringify({ error: { type: 'server', message: 'internal error in the proxy' } });

/** The last net: the handler answers every failure itself, and this names nothing internal. */
function internalError(out: ServerResponse): void {
  if (!out.headersSent) out.writeHead(500, { 'content-type': 'application/json' });
  out.end(INTERNAL);
}

/** Run a proxy exchange on one request. */
function exchangeOn(exchange: Exchange, message: IncomingMessage, out: ServerResponse): void {
  const cancel = new CallerCancel();
  out.on('close', () => {
    if (!out.writableFinished) cancel.abort();
  });
  let inbound: Inbound;
  try {
    inbound = nodeInbound(message, cancel);
  } catch {
    out.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
    out.end(BAD_TARGET);
    return;
  }
  exchange(inbound)
    .then((answer) => writeAnswer(answer, out))
    .catch(() => internalError(out));
}

/** Serve `handler` on `port` (0 picks a free one). Resolves once listening. */
export function serve(handler: FetchHandler, options: { port: number; host?: string }): Promise<Server> {
  const exchange = (handler as { [PROXY_EXCHANGE]?: Exchange })[PROXY_EXCHANGE];
  const server = createServer((message, out) => {
    if (exchange !== undefined) {
      exchangeOn(exchange, message, out);
      return;
    }
    const controller = new AbortController();
    out.on('close', () => {
      if (!out.writableFinished) controller.abort();
    });
    let request: Request;
    try {
      request = toRequest(message, controller.signal);
    } catch {
      // A request target that is no URL at all (`*`, `http://[::1`): nothing to route.
      out.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
      out.end(BAD_TARGET);
      return;
    }
    handler(request)
      .then((response) => writeResponse(response, out))
      .catch(() => internalError(out));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve(server));
  });
}

/** The port a listening server got. */
export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
