/**
 * Run a fetch handler on a Node HTTP server: the few lines of adapter that
 * turn `IncomingMessage` into a `Request` and a `Response` back into bytes.
 * A client that disconnects aborts the request's signal, which cancels the
 * upstream call. The same port also speaks cleartext HTTP/2 with prior
 * knowledge (h2c), which the AWS SDK's Bedrock Runtime client uses by
 * default: a connection that opens with the HTTP/2 preface goes to an
 * HTTP/2 server, any other to the HTTP/1.1 one.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { Duplex, Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';

/** A fetch handler, such as the one `createProxy` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The request's URL on a fixed origin: only its path and query come from the
 * caller. Neither the Host header nor an absolute-form request target (which
 * may name another host, or no valid authority at all) takes part, so they
 * can neither redirect anything nor throw.
 */
function urlOf(message: Incoming): string {
  const target = message.url ?? '/';
  const parsed = new URL(target.startsWith('/') ? `http://localhost${target}` : target);
  return `http://localhost${parsed.pathname}${parsed.search}`;
}

/** An incoming request of either protocol. */
type Incoming = IncomingMessage | Http2ServerRequest;
/** An outgoing response of either protocol. */
type Outgoing = ServerResponse | Http2ServerResponse;

/** Headers HTTP/2 forbids (connection-specific in HTTP/1.1). */
const HTTP1_ONLY_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

function toRequest(message: Incoming, signal: AbortSignal): Request {
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

async function writeResponse(response: Response, outgoing: Outgoing): Promise<void> {
  const headers: Record<string, string> = {};
  const http2 = 'stream' in outgoing;
  // Both responses have the same writing surface; one type keeps the calls simple.
  const out = outgoing as ServerResponse;
  response.headers.forEach((value, name) => {
    if (!(http2 && HTTP1_ONLY_HEADERS.has(name))) headers[name] = value;
  });
  out.writeHead(response.status, headers);
  if (response.body === null) {
    out.end();
    return;
  }
  const reader = response.body.getReader();
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

/** How long a new connection may stay silent before its first bytes. */
const SILENT_CONNECTION_MS = 60_000;

/** The HTTP/2 connection preface: a client that speaks HTTP/2 without upgrading opens with it. */
const HTTP2_PREFACE = 'PRI * HTTP/2.0';

/** Serve `handler` on `port` (0 picks a free one), HTTP/1.1 and h2c on the same port. Resolves once listening. */
export function serve(handler: FetchHandler, options: { port: number; host?: string }): Promise<Server> {
  const handle = (message: Incoming, out: Outgoing) => {
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
      out.end(JSON.stringify({ error: { type: 'invalid_request', message: 'the request target is not a path; send an origin-form target such as /v1/messages' } }));
      return;
    }
    handler(request)
      .then((response) => writeResponse(response, out))
      .catch(() => {
        // The handler answers every failure itself; this is the last net, and it names nothing internal.
        if (!out.headersSent) out.writeHead(500, { 'content-type': 'application/json' });
        out.end(JSON.stringify({ error: { type: 'server', message: 'internal error in the proxy' } }));
      });
  };
  const server = createServer(handle);
  const http2 = createHttp2Server(handle);
  const sessions = new Set<Http2Session>();
  http2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Route each connection by its first bytes; the HTTP/1.1 server's own listener handles the rest as before.
  const http1Listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    // A connection that never says anything is not kept: the HTTP/1.1 server's own time-outs start only once it is routed.
    const silence = setTimeout(() => socket.destroy(), SILENT_CONNECTION_MS);
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
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve(server));
  });
}

/** The port a listening server got. */
export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
