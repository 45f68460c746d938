/**
 * Run a fetch handler on a Node HTTP server: the few lines of adapter that
 * turn `IncomingMessage` into a `Request` and a `Response` back into bytes.
 * A client that disconnects aborts the request's signal, which cancels the
 * upstream call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';

/** A fetch handler, such as the one `createProxy` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The request's URL on a fixed origin: only its path and query come from the
 * caller. Neither the Host header nor an absolute-form request target (which
 * may name another host, or no valid authority at all) takes part, so they
 * can neither redirect anything nor throw.
 */
function urlOf(message: IncomingMessage): string {
  const target = message.url ?? '/';
  const parsed = new URL(target.startsWith('/') ? `http://localhost${target}` : target);
  return `http://localhost${parsed.pathname}${parsed.search}`;
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

/** Serve `handler` on `port` (0 picks a free one). Resolves once listening. */
export function serve(handler: FetchHandler, options: { port: number; host?: string }): Promise<Server> {
  const server = createServer((message, out) => {
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
