/**
 * The proxy's upstream calls on Node. `createNodeFetch()` is a `fetch`
 * (string bodies in, a Web `Response` out) that also carries, under
 * `UPSTREAM_CALL`, the proxy's own upstream call: a streamed call (and a
 * whole one with a large body) over `node:http`/`node:https` with keep-alive
 * agents, a whole one over undici (src/node/whole-call.ts). Whole answers are
 * read into one string with no Web stream, `Response` or `Headers` object;
 * streamed answers (SSE, AWS event stream, NDJSON) stay streams. The time
 * limits are kept by one {@link SilenceWatch} for both.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { AnswerTooLarge, UPSTREAM_CALL, UpstreamTimeout, type ByteSink, type ByteSource, type UpstreamCall, type UpstreamReply } from '../proxy/exchange.ts';
import { LARGE_BODY, silence, SilenceWatch, type Watched } from './silence-watch.ts';
import { firstRawHeader, headerList, STREAMED, targetCache } from './upstream-target.ts';
import { wholeUpstreamCall } from './whole-call.ts';

function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** One header of a Node answer as `Headers.get` would give it (repeated values joined). */
function headerOf(incoming: IncomingMessage, name: string): string | null {
  const value = incoming.headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A streamed answer as a {@link ByteSource}: the answer's `data` events go
 * straight to the sink. The silence limit stays with the {@link
 * SilenceWatch} (every chunk marks the call active, so no timer per chunk),
 * which skips the call while the reader has paused the source, since a slow
 * caller is not a silent upstream. A failure before `start` (a silence, a
 * reset) is held and delivered then.
 */
function streamSource(incoming: IncomingMessage, outgoing: ClientRequest, watched: Watched, release: () => void): ByteSource & { fail(error: Error): void } {
  let sink: ByteSink | undefined;
  let settled = false;
  let held: Error | undefined;
  const fail = (error: Error) => {
    if (settled) return;
    if (sink === undefined) {
      held ??= error;
      return;
    }
    settled = true;
    release();
    outgoing.destroy();
    sink.fail(error);
  };
  return {
    fail,
    start(target) {
      sink = target;
      if (held !== undefined) {
        fail(held);
        return;
      }
      const onData = (chunk: Buffer) => {
        if (settled) return;
        watched.active = true;
        target.data(chunk);
      };
      // What has already come (often the whole answer, read with its head) goes on at once rather than after the tick `resume` waits for.
      for (let chunk = incoming.read() as Buffer | null; chunk !== null && !settled && !watched.paused; chunk = incoming.read() as Buffer | null) onData(chunk);
      incoming.on('data', onData);
      incoming.on('end', () => {
        if (settled) return;
        settled = true;
        release();
        target.end();
      });
      incoming.on('error', fail);
      incoming.on('close', () => {
        if (!incoming.complete) fail(new Error('the connection closed before the end of the body'));
      });
    },
    pause() {
      if (watched.paused || settled) return;
      watched.paused = true;
      incoming.pause();
    },
    resume() {
      if (!watched.paused || settled) return;
      watched.paused = false;
      watched.active = true;
      incoming.resume();
    },
    cancel() {
      fail(new Error('aborted'));
    },
  };
}

/** The proxy's upstream call over node:http(s), with the given keep-alive agents. */
function nodeUpstreamCall(http: HttpAgent, https: HttpsAgent): UpstreamCall {
  const targetOf = targetCache();
  const watch = new SilenceWatch();
  const whole = wholeUpstreamCall(watch);
  return (url, init) => {
    const target = targetOf(url);
    // A whole answer over undici, unless its body is large: node:http says when a body has gone out (the first-byte limit runs from then) and watches it go.
    if (init.stream === false && init.sent === undefined && init.body.length < LARGE_BODY) {
      const reply = whole(target, init);
      if (reply !== undefined) return reply;
    }
    return new Promise<UpstreamReply>((resolve, reject) => {
      if (init.signal.aborted) {
        reject(new Error('aborted'));
        return;
      }
      const secure = target.secure;
      const headers = headerList(target, init.headers).concat('content-length', String(init.pieces === undefined ? Buffer.byteLength(init.body) : piecesLength(init.pieces)));
      const send = secure ? httpsRequest : httpRequest;
      let answered = false;
      /** Ends the body with an error (set once the answer's headers are in). */
      let failBody: ((error: Error) => void) | undefined;
      let unlisten = noop;
      // No `timeout` option: the silence watch keeps the time limits (see SilenceWatch).
      const options = { hostname: target.hostname, port: target.port, path: target.path, method: 'POST', headers, agent: secure ? https : http };
      const watched: Watched = {
        active: true,
        quietSince: 0,
        paused: false,
        timeoutMs: init.timeoutMs,
        silent: () => {
          unlisten();
          if (answered) {
            failBody?.(silence(init.timeoutMs));
            outgoing.destroy();
            return;
          }
          const error = new UpstreamTimeout(`the upstream did not answer within ${init.timeoutMs} ms`);
          outgoing.destroy(error);
          reject(error);
        },
      };
      /** The call is over (answered whole, ended, failed): no longer watched, no longer cancelled by the caller. */
      const release = () => {
        watch.delete(watched);
        unlisten();
      };
      const outgoing = send(options, (incoming) => {
        answered = true;
        watched.active = true;
        const status = incoming.statusCode ?? 502;
        const contentType = firstRawHeader(incoming.rawHeaders, 'content-type');
        if (STREAMED.test(contentType ?? '')) {
          const source = streamSource(incoming, outgoing, watched, release);
          failBody = source.fail;
          watched.stalledMs = init.stalledReaderMs;
          watched.stalled = () => source.fail(stalledReader(init.stalledReaderMs ?? 0));
          // The content-type the proxy reads next comes from the raw list (Node keeps a repeated one's first value too), so a stream's answer builds no `headers` object.
          resolve({ status, header: (name) => (name === 'content-type' ? (contentType ?? null) : headerOf(incoming, name)), source, body: null });
          return;
        }
        const header = (name: string) => headerOf(incoming, name);
        const chunks: Buffer[] = [];
        let failed = false;
        const fail = (error: Error) => {
          if (failed) return;
          failed = true;
          release();
          resolve({ status, header, failure: error, body: null });
        };
        failBody = fail;
        const limit = init.maxAnswerBytes ?? Number.POSITIVE_INFINITY;
        let bytes = 0;
        incoming.on('data', (chunk: Buffer) => {
          watched.active = true;
          bytes += chunk.length;
          if (bytes > limit) {
            chunks.length = 0;
            fail(new AnswerTooLarge(limit));
            outgoing.destroy();
            return;
          }
          chunks.push(chunk);
        });
        incoming.on('end', () => {
          if (failed) return;
          failed = true;
          release();
          resolve({ status, header, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'), body: null });
        });
        incoming.on('error', fail);
        incoming.on('close', () => {
          if (!incoming.complete) fail(new Error('the connection closed before the end of the body'));
        });
      });
      watch.add(watched);
      unlisten = init.signal.listen(() => outgoing.destroy(new Error('aborted')));
      outgoing.on('error', (error) => {
        release();
        if (!answered) reject(error);
      });
      const sent = init.sent;
      if (init.body.length < LARGE_BODY) {
        outgoing.end(init.body);
        // In the tick after the agent's write rather than as `end`'s callback: with that callback, a streamed call's
        // converter (made by `sent`) outlived its request, 0.7-0.9 against 1.2 MB promoted per minor collection at 1,000 streamed req/s.
        if (sent !== undefined) process.nextTick(sent);
        return;
      }
      // A body that takes a while to go out is alive while the socket writes it; the first-byte limit runs from its end.
      watched.written = () => outgoing.socket?.bytesWritten ?? 0;
      const done = () => {
        watched.written = undefined;
        watched.active = true;
        if (sent !== undefined) sent();
      };
      const pieces = init.pieces;
      if (pieces === undefined) {
        outgoing.end(init.body, done);
        return;
      }
      // Piece by piece: writing the joined body would flatten it into one more copy of the whole text first.
      for (let index = 0; index < pieces.length - 1; index++) outgoing.write(pieces[index] as string);
      outgoing.end(pieces[pieces.length - 1], done);
    });
  };
}

function noop(): void {}

/** What a streamed answer whose reader stopped reading for `timeoutMs` ends with. */
export function stalledReader(timeoutMs: number): Error {
  return new Error(`the caller stopped reading for ${timeoutMs} ms`);
}

/** The UTF-8 length of the pieces of a body (see `UpstreamInit.pieces`): each counted apart, so the whole is never flattened. */
function piecesLength(pieces: readonly string[]): number {
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  return length;
}

/** A `fetch` that takes string bodies (what the proxy sends) and answers with a Web `Response`; the proxy uses its `UPSTREAM_CALL`. */
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
  return Object.assign(nodeFetch, { [UPSTREAM_CALL]: nodeUpstreamCall(http, https) }) as typeof fetch;
}
