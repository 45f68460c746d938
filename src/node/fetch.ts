/**
 * A `fetch` for the proxy's upstream calls over `node:http`/`node:https` with
 * keep-alive agents. On Node it costs about half the CPU of the global
 * `fetch` per proxied request (docs/BENCHMARKS.md). Streamed answers (SSE,
 * AWS event stream, NDJSON) stay streams; whole answers are buffered once.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** The media types of streamed answers: SSE, AWS event stream (Bedrock), NDJSON (Ollama). */
const STREAMED = /text\/event-stream|application\/vnd\.amazon\.eventstream|application\/x-ndjson/i;

function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** A `fetch` that takes string bodies (what the proxy sends) and answers with a Web `Response`. */
export function createNodeFetch(): typeof fetch {
  const http = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: 256 });
  const nodeFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const body = typeof init.body === 'string' ? init.body : '';
      const headers: Record<string, string | number> = { ...(init.headers as Record<string, string>), 'content-length': Buffer.byteLength(body) };
      const secure = url.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(new Error('aborted'));
        return;
      }
      const outgoing = send(url, { method: init.method ?? 'GET', headers, agent: secure ? https : http }, (incoming) => {
        const status = incoming.statusCode ?? 502;
        const responseHeaders = headersOf(incoming);
        if (STREAMED.test(responseHeaders.get('content-type') ?? '')) {
          resolve(new Response(Readable.toWeb(incoming) as ReadableStream<Uint8Array>, { status, headers: responseHeaders }));
          return;
        }
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: responseHeaders })));
        incoming.on('error', reject);
      });
      signal?.addEventListener('abort', () => outgoing.destroy(new Error('aborted')), { once: true });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  return nodeFetch as typeof fetch;
}
