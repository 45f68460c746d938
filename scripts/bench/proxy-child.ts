/**
 * Child process of the proxy benchmark's experiment: the same proxy as
 * `interlingua serve` (createProxy on the Node adapter), but calling the
 * upstream through `node:http` with a keep-alive agent instead of the global
 * `fetch` (undici), to measure what that change would gain. Prints the same
 * "proxy listening on" line as `serve`.
 *
 * Usage: proxy-child.ts UPSTREAM_FORMAT UPSTREAM_URL
 */
import { Agent, request as httpRequest } from 'node:http';
import { createProxy } from '../../src/proxy/index.ts';
import { isFormatId } from '../../src/core/registry.ts';
import { portOf, serve } from '../../src/node/server.ts';

const [format, baseUrl] = process.argv.slice(2);
if (!isFormatId(format) || baseUrl === undefined) throw new Error('usage: proxy-child.ts UPSTREAM_FORMAT UPSTREAM_URL');

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** A `fetch` over node:http for the upstream call: string bodies, the answer buffered (enough for the benchmark's whole bodies). */
function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const body = typeof init.body === 'string' ? init.body : '';
    const headers: Record<string, string | number> = { ...(init.headers as Record<string, string>), 'content-length': Buffer.byteLength(body) };
    const outgoing = httpRequest(String(input), { method: init.method ?? 'GET', headers, agent }, (incoming) => {
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 502, headers: responseHeaders })));
      incoming.on('error', reject);
    });
    init.signal?.addEventListener('abort', () => outgoing.destroy(new Error('aborted')), { once: true });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const handler = createProxy({ upstream: { format, baseUrl }, fetch: nodeFetch as typeof fetch });
const server = await serve(handler, { port: 0 });
process.stderr.write(`interlingua (bench experiment): proxy listening on http://127.0.0.1:${portOf(server)}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
