/**
 * The proxy's transport-neutral edges: one request as the proxy reads it
 * ({@link Inbound}), one answer as it writes it ({@link Answer}), and one
 * upstream call ({@link UpstreamCall}). The fetch handler maps Web `Request`
 * and `Response` onto these; the Node adapter (src/node) maps `node:http`
 * onto them directly, with no Web streams, `Request` or `Response` for whole
 * bodies. Web APIs only.
 */
import type { AttemptRecord, RequestRecord } from '../telemetry/record.ts';
import type { ApiError } from '../core/ir.ts';
import type { FormatId } from '../core/ir.ts';

/**
 * The caller's cancellation: a flag and listeners. On Node an `AbortSignal`
 * is an `EventTarget` whose creation and listeners cost more per request than
 * the conversion, so the Node adapter uses a {@link CallerCancel} and only
 * the global `fetch` path turns it into an `AbortSignal`.
 */
export interface Cancel {
  readonly aborted: boolean;
  /** Call `listener` once when the caller goes away; returns what removes it. */
  listen(listener: () => void): () => void;
}

/** A {@link Cancel} that its owner aborts. */
export class CallerCancel implements Cancel {
  aborted = false;
  #listeners: (() => void)[] | undefined;

  listen(listener: () => void): () => void {
    if (this.aborted) {
      listener();
      return () => {};
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index !== -1) this.#listeners!.splice(index, 1);
    };
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) listener();
  }
}

/** An `AbortSignal` as a {@link Cancel}. */
export function signalCancel(signal: AbortSignal): Cancel {
  return {
    get aborted() {
      return signal.aborted;
    },
    listen(listener) {
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}

/** One request as the proxy logs it: no bodies, no secrets. */
export type ProxyLogEntry = RequestRecord & {
  /** The upstream's name in a gateway's configuration (set by the gateway). */
  upstreamName?: string;
};

/** One upstream call of a gateway request, as logged. */
export interface AttemptLog extends AttemptRecord {
  /** The upstream's name in the configuration. */
  upstream: string;
  format: FormatId;
  /** The model sent upstream. */
  model?: string;
  /** The upstream's HTTP status; 0 where none came (connect error, timeout). */
  status: number;
  durationMs: number;
  /** What failed (`connect`, `timeout`, `broken`, `cancelled`, or the error type of an HTTP error). */
  failure?: string;
}

/** One incoming request. */
export interface Inbound {
  method: string;
  /** The path, without the query. */
  pathname: string;
  /** A query parameter (`?key=` carries Gemini's API key), or null. */
  query(name: string): string | null;
  /** A request header by lower-case name, or null. */
  header(name: string): string | null;
  /** The whole body as text, or `undefined` once it exceeds `limit` bytes (the rest is not read). */
  text(limit: number): Promise<string | undefined>;
  /** Aborted when the caller goes away. */
  signal: Cancel;
  /** The model to send upstream for this request, in place of the model map's (a layer above the proxy picks it). */
  upstreamModel?: string;
  /** Refuse a conversion with losses for this request (in place of the proxy's `strict`). */
  strict?: boolean;
  /** Called with this request's log entry when its answer's head is made, besides the proxy's `log` (a layer above the proxy reads it). */
  report?: (entry: ProxyLogEntry) => void;
  /** The layer above read the body and holds its bytes in the shared in-flight budget (`ProxyConfig.budget`): the proxy takes none for it. */
  budgeted?: boolean;
  /** Tool names by call id for results whose call the body lacks (the state layer finds them in its store; src/state/call-index.ts). */
  toolNames?: ReadonlyMap<string, string>;
  /** The request's id, in place of one from the caller's `x-request-id` (a layer above made it once for all its calls). */
  requestId?: string;
  /**
   * Called once at this request's true end (a stream's last byte) with its
   * finished entry, in place of the proxy's own sinks and log: a layer above
   * records the caller's request, of which this call is one attempt.
   */
  settled?: (entry: ProxyLogEntry) => void;
  /** The W3C trace context (`traceparent`, `tracestate`) to send upstream, in place of the proxy's own request span's or the caller's (a layer above has the request's span). */
  traceHeaders?: Record<string, string>;
}

/** Where a {@link ByteSource} delivers its bytes: chunks, then exactly one of `end` or `fail`. */
export interface ByteSink {
  data(chunk: Uint8Array): void;
  end(): void;
  /** The source broke off (a reset, a silence of `timeoutMs`, the caller's cancellation): nothing follows. */
  fail(error: Error): void;
}

/**
 * A byte stream read through callbacks instead of a `ReadableStream`: what
 * the Node upstream call gives for a streamed answer (its `data` events), so
 * a streamed exchange on Node runs with no Web stream and no promise per
 * chunk. `start` once; `pause` and `resume` carry the reader's back-pressure;
 * `cancel` releases the source (the connection) when the reader goes away.
 */
export interface ByteSource {
  start(sink: ByteSink): void;
  pause(): void;
  resume(): void;
  cancel(): void;
}

/** Is `body` a {@link ByteSource} (rather than a text, a `ReadableStream` or nothing)? */
export function isByteSource(body: unknown): body is ByteSource {
  return typeof body === 'object' && body !== null && typeof (body as ByteSource).start === 'function' && !(body instanceof ReadableStream);
}

/** A {@link ByteSource} as a `ReadableStream` (for the fetch handler, and for a reader that wants one). */
function sourceToReadable(source: ByteSource): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.start({
          data(chunk) {
            if (settled) return;
            controller.enqueue(chunk);
            if ((controller.desiredSize ?? 1) <= 0) source.pause();
          },
          end() {
            if (settled) return;
            settled = true;
            controller.close();
          },
          fail(error) {
            if (settled) return;
            settled = true;
            controller.error(error);
          },
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        source.cancel();
      },
    },
    { highWaterMark: 1 },
  );
}

/** One answer: a whole text body, a byte stream (Web or callbacks), or none. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array> | ByteSource | null;
  /**
   * Set on an error answer that the upstream caused (and nothing of it has
   * reached the caller): what went wrong, whatever the caller's format, so a
   * layer above the proxy can decide to try again without reading the body.
   */
  upstreamFailure?: UpstreamFailure;
}

/**
 * Why the upstream gave no answer: `status` an HTTP error answer (its
 * status, the error decoded from its body), `connect` no connection or a
 * reset before the answer, `timeout` no answer within the time limit,
 * `broken` a whole body that broke off, `cancelled` the caller's
 * cancellation.
 */
export interface UpstreamFailure {
  kind: 'status' | 'connect' | 'timeout' | 'broken' | 'cancelled';
  /** The upstream's HTTP status (`status` only). */
  status?: number;
  /** The error as the caller's answer says it (secrets removed). */
  error: ApiError;
  /** The upstream's `retry-after` header, as sent. */
  retryAfter?: string;
}

/** What an upstream call answers. */
export interface UpstreamReply {
  status: number;
  header(name: string): string | null;
  /** The whole body, where the transport read it whole (then `body` is null). */
  text?: string;
  /** Why the whole body could not be read (it broke off, or went silent); `text` is then unset. */
  failure?: Error;
  /**
   * A streamed body read through callbacks (the Node upstream call), where
   * the transport gives one (then `body` is null). It fails with an error
   * whose message starts "the upstream went silent" after `timeoutMs`
   * without a byte while it is not paused, and on the caller's cancellation.
   */
  source?: ByteSource;
  body: ReadableStream<Uint8Array> | null;
}

/** Raised by an {@link UpstreamCall} whose upstream did not start answering within `timeoutMs`. */
export class UpstreamTimeout extends Error {}

/** What a whole upstream answer longer than `UpstreamInit.maxAnswerBytes` fails with (answered 502). */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the upstream's answer is larger than ${limit} bytes`);
  }
}

/**
 * A request's cancellation: the caller going away, or its overall deadline
 * (`limits.deadlineMs`) passing, whichever comes first; `expired` says
 * which.
 */
export class Deadline extends CallerCancel {
  expired = false;
  readonly ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(caller: Cancel, ms: number) {
    super();
    this.ms = ms;
    caller.listen(() => this.abort());
    this.#timer = setTimeout(() => {
      this.expired = true;
      this.abort();
    }, ms);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** The request is over: the deadline no longer runs. */
  clear(): void {
    clearTimeout(this.#timer);
  }
}

/** The options of one upstream call: always a POST of a JSON text. */
export interface UpstreamInit {
  headers: Record<string, string>;
  body: string;
  /**
   * `body` in pieces, when it splices in large data URLs (`bodyText` in
   * src/core/serialize.ts): a transport that writes strings one by one (the
   * Node one) writes these and never flattens `body`.
   */
  pieces?: readonly string[];
  /** Time allowed for the upstream to start answering (then reject with {@link UpstreamTimeout}), and the longest silence within a whole body. */
  timeoutMs: number;
  /** The caller's cancellation. */
  signal: Cancel;
  /** The largest whole answer read, in bytes: a longer one fails with {@link AnswerTooLarge} (streams are not bounded). */
  maxAnswerBytes?: number;
  /** How long the reader of a streamed answer may stop reading before the stream is ended (unset: no limit). */
  stalledReaderMs?: number;
  /**
   * Whether the request asks for a streamed answer (`stream: true`, Gemini's
   * `streamGenerateContent`, Bedrock's `converse-stream`). A transport may
   * carry whole and streamed calls differently (the Node one does); the
   * answer's media type still says what came.
   */
  stream?: boolean;
  /**
   * Called once the request has been handed to the network, where the call
   * can tell (the Node one: in the tick after its client writes a small
   * body, once a large one has gone out): the proxy prepares a stream's
   * converter then, while the upstream works, rather than before sending.
   * It must not throw.
   */
  sent?: () => void;
}

/** Call the upstream once. */
export type UpstreamCall = (url: string, init: UpstreamInit) => Promise<UpstreamReply>;

/**
 * Where a `fetch` carries a faster {@link UpstreamCall} of its own (the Node
 * one in src/node/fetch.ts does), the proxy uses that instead.
 */
export const UPSTREAM_CALL: unique symbol = Symbol.for('interlingua.upstreamCall');

/** Where a fetch handler carries its transport-neutral exchange (createProxy's does), a server adapter can call that instead. */
export const PROXY_EXCHANGE: unique symbol = Symbol.for('interlingua.proxyExchange');

/** The transport-neutral proxy: what {@link PROXY_EXCHANGE} holds. */
export type Exchange = (inbound: Inbound) => Promise<Answer>;

/** An {@link UpstreamCall} over any `fetch`. */
export function fetchCall(fetchUpstream: typeof fetch): UpstreamCall {
  const own = (fetchUpstream as { [UPSTREAM_CALL]?: UpstreamCall })[UPSTREAM_CALL];
  if (own !== undefined) return own;
  // Node loads its global fetch (undici) on first use: load it now rather than within the first request's time limit.
  if (fetchUpstream === globalThis.fetch) void globalThis.Response;
  return async (url, init) => {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, init.timeoutMs);
    // Kept after the answer's head: the caller's cancellation (or deadline) also ends a body still coming.
    const unlisten = init.signal.listen(() => controller.abort());
    try {
      // Never follow a redirect: it would carry the body and the key (fetch strips only Authorization) to wherever it points.
      const response = await fetchUpstream(url, { method: 'POST', headers: init.headers, body: init.body, signal: controller.signal, redirect: 'manual' });
      return { status: response.status, header: (name) => response.headers.get(name), body: response.body };
    } catch (error) {
      unlisten();
      if (timedOut) throw new UpstreamTimeout(`the upstream did not answer within ${init.timeoutMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

async function readLimited(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) return undefined;
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A Web `Request` as an {@link Inbound}. */
export function webInbound(request: Request): Inbound {
  const url = new URL(request.url);
  return {
    method: request.method,
    pathname: url.pathname,
    query: (name) => url.searchParams.get(name),
    header: (name) => request.headers.get(name),
    text: (limit) => readLimited(request, limit),
    signal: signalCancel(request.signal),
  };
}

/** An {@link Answer} as a Web `Response`. */
export function webResponse(answer: Answer): Response {
  const body = answer.body;
  return new Response(isByteSource(body) ? sourceToReadable(body) : body, { status: answer.status, headers: answer.headers });
}

/** A whole JSON answer. */
export function jsonAnswer(status: number, text: string, headers?: Record<string, string>): Answer {
  return { status, headers: headers === undefined ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', ...headers }, body: text };
}
