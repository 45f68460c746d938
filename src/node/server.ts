/**
 * Run a fetch handler on a Node HTTP server. A handler made by `createProxy`
 * carries its transport-neutral exchange (`PROXY_EXCHANGE`), which runs here
 * on `node:http` directly: the body read from the `IncomingMessage` into one
 * string, a whole answer written once with its `content-length`, and no Web
 * `Request`, `Response` or stream except for streamed answers. Any other
 * fetch handler goes through `Request` and `Response`. A client that
 * disconnects aborts the request's signal, which cancels the upstream call.
 * The same port also speaks cleartext HTTP/2 with prior knowledge (h2c),
 * which the AWS SDK's Bedrock Runtime client uses by default: a connection
 * that opens with the HTTP/2 preface goes to an HTTP/2 server (whose
 * compatibility request and response stand in for Node's HTTP/1.1 ones),
 * any other to the HTTP/1.1 server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import { Duplex, Readable } from 'node:stream';
import type { AddressInfo, Socket } from 'node:net';
import { firstRawHeader } from './upstream-target.ts';
import { CallerCancel, isByteSource, PROXY_EXCHANGE, type Answer, type ByteSource, type Exchange, type Inbound } from '../proxy/exchange.ts';

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
  const declared = Number(firstRawHeader(message.rawHeaders, 'content-length') ?? '0');
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
    // Each event comes at most once, and a promise settles once: plain listeners, not `once` wrappers.
    message.on('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    message.on('error', reject);
    message.on('close', () => {
      if (!message.complete) reject(new Error('the client closed the connection before the end of the body'));
    });
  });
}

/** A path that `new URL` would leave as it is: no dot segment, escape, backslash or other character it rewrites. */
const PLAIN_PATH = /^\/[\w\-./:@!$&'()*+,;=~]*$/;

/** A `.` or `..` segment, which `new URL` resolves. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The path and query of a request target; `new URL` only where it would change the path (dot segments, escapes, an absolute-form target). */
function targetParts(message: IncomingMessage): { pathname: string; search: string } {
  const target = message.url ?? '/';
  const question = target.indexOf('?');
  const path = question === -1 ? target : target.slice(0, question);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && !target.includes('#')) return { pathname: path, search: question === -1 ? '' : target.slice(question) };
  const url = parsedUrlOf(message);
  return { pathname: url.pathname, search: url.search };
}

/** An `IncomingMessage` as the proxy's {@link Inbound}. Throws on a request target that is no URL. */
function nodeInbound(message: IncomingMessage, signal: CallerCancel): Inbound {
  const { pathname, search } = targetParts(message);
  let query: URLSearchParams | undefined;
  return {
    method: message.method ?? 'GET',
    pathname,
    query: (name) => (query ??= new URLSearchParams(search)).get(name),
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
    // HTTP/2 pseudo-headers (`:path`, `:method`) are not headers of the request.
    if (value === undefined || name.startsWith(':')) continue;
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

/** Headers HTTP/2 forbids (connection-specific in HTTP/1.1). */
const HTTP1_ONLY_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** `out.writeHead`, leaving out on HTTP/2 the headers it forbids. */
function head(out: ServerResponse, status: number, headers: Record<string, string>): void {
  if (!('stream' in out)) {
    out.writeHead(status, headers);
    return;
  }
  const allowed: Record<string, string> = {};
  for (const name in headers) if (!HTTP1_ONLY_HEADERS.has(name.toLowerCase())) allowed[name] = headers[name] as string;
  out.writeHead(status, allowed);
}

/** Write an answer: a whole body at once with its content-length, a stream chunk by chunk. */
function writeAnswer(answer: Answer, out: ServerResponse): void | Promise<void> {
  const body = answer.body;
  if (typeof body === 'string') {
    answer.headers['content-length'] = String(Buffer.byteLength(body));
    head(out, answer.status, answer.headers);
    out.end(body);
    return;
  }
  head(out, answer.status, answer.headers);
  if (body === null) {
    out.end();
    return;
  }
  if (isByteSource(body)) {
    writeSource(body, out);
    return;
  }
  return writeReadable(body, out);
}

/**
 * A {@link ByteSource} (the Node upstream's data events, transcoded or
 * passed through) written straight to the socket: `res.write` per chunk, the
 * source paused while the socket's buffer is full, cancelled (which closes
 * the upstream connection) when the caller goes away. A source that breaks
 * off ends the answer where it stopped; a converted one has already written
 * the caller's error event.
 */
function writeSource(source: ByteSource, out: ServerResponse): void {
  let done = false;
  const onClose = () => {
    if (done) return;
    done = true;
    source.cancel();
  };
  if (out.destroyed) {
    onClose();
    return;
  }
  out.once('close', onClose);
  out.on('drain', () => {
    if (!done) source.resume();
  });
  const finish = () => {
    if (done) return;
    done = true;
    out.off('close', onClose);
    out.end();
  };
  // Node corks the socket for the rest of the tick on a write; the first chunk goes out at once instead (the time to the first byte), the rest of a tick's chunks together.
  let first = !('stream' in out);
  source.start({
    data(chunk) {
      if (done) return;
      const room = out.write(chunk);
      if (first) {
        first = false;
        out.uncork();
      }
      if (!room) source.pause();
    },
    end: finish,
    fail: finish,
  });
}

/** A Web byte stream written chunk by chunk (any fetch handler's streamed `Response`). */
async function writeReadable(body: ReadableStream<Uint8Array>, out: ServerResponse): Promise<void> {
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
  if (!out.headersSent) head(out, 500, { 'content-type': 'application/json' });
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
    head(out, 400, { 'content-type': 'application/json', connection: 'close' });
    out.end(BAD_TARGET);
    return;
  }
  exchange(inbound)
    .then((answer) => writeAnswer(answer, out))
    .catch(() => internalError(out));
}

/**
 * The socket as a plain duplex stream that starts with `first`, the bytes
 * already read to route it. HTTP/2 reads a real socket's handle directly
 * and would miss them; a plain stream it reads through JavaScript.
 */
function bridge(socket: Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(error);
    },
  });
  duplex.push(first);
  socket.on('data', (data: Buffer) => {
    if (!duplex.push(data)) socket.pause();
  });
  socket.once('end', () => duplex.push(null));
  socket.once('close', () => duplex.destroy());
  socket.once('error', (error) => duplex.destroy(error));
  return duplex;
}

/**
 * The time limits of the server's connections, the same for HTTP/1.1 and
 * h2c. HTTP/1.1 keeps them with Node's own `headersTimeout` and
 * `requestTimeout` (and closes a keep-alive connection idle for
 * `idleMs`); HTTP/2, which Node does not bound, with a timer per session
 * and per stream.
 */
export interface ServerTimeouts {
  /** A new connection's first bytes, an HTTP/2 session's first request, a request's headers (default 60,000 ms). */
  headersMs?: number;
  /** An HTTP/2 session, or a keep-alive connection, with no request in progress (default 90,000 ms). */
  idleMs?: number;
  /** A whole request, body included, from its headers to its last byte (default 300,000 ms). */
  requestMs?: number;
}

const DEFAULT_TIMEOUTS: Required<ServerTimeouts> = { headersMs: 60_000, idleMs: 90_000, requestMs: 300_000 };

/** The HTTP/2 connection preface: a client that speaks HTTP/2 without upgrading opens with it. */
const HTTP2_PREFACE = 'PRI * HTTP/2.0';

/** Route each connection of `server` by its first bytes: the HTTP/2 preface to an h2c server running `handle`, the rest to `server` as before. */
function acceptHttp2(server: Server, handle: (message: IncomingMessage, out: ServerResponse) => void, timeouts: Required<ServerTimeouts>): void {
  // Node's HTTP/2 compatibility request and response have the surface `handle` uses.
  const http2 = createHttp2Server((message, out) => {
    // A request whose body has not ended within `requestMs` is reset, as HTTP/1.1's requestTimeout does.
    const stream = (message as unknown as { stream: { destroy(): void; once(event: string, listener: () => void): void } }).stream;
    const timer = setTimeout(() => stream.destroy(), timeouts.requestMs);
    const clear = () => clearTimeout(timer);
    message.once('end', clear);
    stream.once('close', clear);
    handle(message as unknown as IncomingMessage, out as unknown as ServerResponse);
  });
  const sessions = new Set<Http2Session>();
  http2.on('session', (session) => {
    sessions.add(session);
    // No request yet (a preface and nothing more) within `headersMs`, or none open for `idleMs`: the session is closed.
    let open = 0;
    let idle = setTimeout(() => session.destroy(), timeouts.headersMs);
    session.on('stream', (stream) => {
      open++;
      clearTimeout(idle);
      stream.once('close', () => {
        if (--open === 0 && !session.destroyed) idle = setTimeout(() => session.close(() => session.destroy()), timeouts.idleMs);
      });
    });
    session.once('close', () => {
      clearTimeout(idle);
      sessions.delete(session);
    });
  });
  const http1Listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    // A connection that never says anything is not kept: the HTTP/1.1 server's own time-outs start only once it is routed.
    const silence = setTimeout(() => socket.destroy(), timeouts.headersMs);
    socket.once('close', () => clearTimeout(silence));
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(silence);
      if (chunk.subarray(0, HTTP2_PREFACE.length).toString('latin1') === HTTP2_PREFACE) {
        http2.emit('connection', bridge(socket, chunk));
        return;
      }
      socket.pause();
      socket.unshift(chunk);
      for (const listener of http1Listeners) listener.call(server, socket);
      socket.resume();
    });
  });
  const closeAllConnections = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAllConnections();
    for (const session of sessions) session.destroy();
  };
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const session of sessions) session.close();
    return close(callback);
  };
}

/** Serve `handler` on `port` (0 picks a free one), HTTP/1.1 and h2c on the same port. Resolves once listening. */
export function serve(handler: FetchHandler, options: { port: number; host?: string; timeouts?: ServerTimeouts }): Promise<Server> {
  const timeouts: Required<ServerTimeouts> = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const exchange = (handler as { [PROXY_EXCHANGE]?: Exchange })[PROXY_EXCHANGE];
  const handle = (message: IncomingMessage, out: ServerResponse): void => {
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
      head(out, 400, { 'content-type': 'application/json', connection: 'close' });
      out.end(BAD_TARGET);
      return;
    }
    handler(request)
      .then((response) => writeResponse(response, out))
      .catch(() => internalError(out));
  };
  // Node checks headersTimeout and requestTimeout every connectionsCheckingInterval (default 30 s): short limits need a shorter one.
  const server = createServer(
    { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, keepAliveTimeout: Math.min(timeouts.idleMs, 5_000), connectionsCheckingInterval: Math.min(30_000, timeouts.headersMs, timeouts.requestMs) },
    handle,
  );
  acceptHttp2(server, handle, timeouts);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve(server));
  });
}

/** The port a listening server got. */
export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
