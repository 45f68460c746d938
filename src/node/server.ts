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

function toRequest(message: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const url = `http://${message.headers.host ?? 'localhost'}${message.url ?? '/'}`;
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
    handler(toRequest(message, controller.signal))
      .then((response) => writeResponse(response, out))
      .catch((error: unknown) => {
        if (!out.headersSent) out.writeHead(500, { 'content-type': 'application/json' });
        out.end(JSON.stringify({ error: { type: 'server', message: error instanceof Error ? error.message : 'internal error' } }));
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
