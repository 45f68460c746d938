/**
 * The proxy's upstream call for whole (non-streamed) answers, over undici
 * `Client`s: one connection each, made once per upstream origin and kept in
 * a free list between calls. undici's request path costs less CPU per
 * request than `ClientRequest` and the agent (no `OutgoingMessage`, no
 * `IncomingMessage`, the head parsed by llhttp straight into a raw list),
 * which is what brings a whole exchange near the bare Node proxy. Streamed
 * calls stay on node:http (src/node/fetch.ts): undici waits one event-loop
 * turn before each write on a reused idle connection (GHSA-35p6-xmwp-9g52),
 * which a stream's first byte would pay. A call owns its `Client` while it
 * runs, so a call that ends early (the caller leaves, a time limit) destroys
 * exactly that connection; a `Pool` would open a fresh connection to retire
 * the aborted request. undici's own time-outs are off: the {@link
 * SilenceWatch} keeps the limits, as for node:http.
 */
import { Client, type Dispatcher } from 'undici';
import { AnswerTooLarge, UpstreamTimeout, type ByteSink, type ByteSource, type UpstreamInit, type UpstreamReply } from '../proxy/exchange.ts';
import { silence, type SilenceWatch, type Watched } from './silence-watch.ts';
import { headerList, STREAMED, type Target } from './upstream-target.ts';

/** Connections per upstream origin, as the node:http agent's `maxSockets`; further calls wait for one to come free. */
const MAX_CONNECTIONS = 256;

/** Header names undici refuses in a request (it writes them itself) where node:http sends them: a call with one goes over node:http. */
const REFUSED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);

/** The connections to one upstream origin. */
interface Origin {
  url: string;
  /** Connections between calls, the last freed on top. */
  free: Client[];
  /** Connections made and not destroyed (free or in a call). */
  open: number;
  /** Calls waiting for a connection, first come first served. */
  waiting: WholeCall[];
}

/** One header of an answer as `Headers.get` gives it (repeated values joined), from undici's raw list. */
function rawHeader(raw: Buffer[], name: string): string | null {
  let found: string | null = null;
  for (let index = 0; index < raw.length; index += 2) {
    const key = raw[index]!;
    if (key.length === name.length && key.toString('latin1').toLowerCase() === name) {
      const value = raw[index + 1]!.toString('latin1');
      found = found === null ? value : `${found}, ${value}`;
    }
  }
  return found;
}

/**
 * The error node:http gives for the same fault, so the caller's error says
 * what it said before: "socket hang up" for a connection closed before the
 * answer (undici: "other side closed"), "Parse Error: …" for an answer that
 * is not HTTP (undici: "Response does not match the HTTP/1.1 protocol (…)").
 * Connection refused, reset and DNS failures are the same errors in both.
 */
function nodeError(error: Error): Error {
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_SOCKET') return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  if (code !== undefined && code.startsWith('HPE_')) return Object.assign(new Error(`Parse Error: ${/\((.*)\)$/.exec(error.message)?.[1] ?? error.message}`), { code });
  return error;
}

/** What an answer that broke off fails with, as node:http's `IncomingMessage` does. */
function brokenOff(): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
}

function noop(): void {}

/**
 * One call: undici's dispatch handler, the watched entry and, should the
 * upstream stream an answer it was not asked to stream, its {@link
 * ByteSource}, in one object.
 */
class WholeCall implements Watched, ByteSource, Dispatcher.DispatchHandlers {
  active = true;
  quietSince = 0;
  paused = false;
  readonly timeoutMs: number;
  /** The largest whole answer read (`UpstreamInit.maxAnswerBytes`); `bytes` counts what came. */
  readonly maxAnswerBytes: number;
  bytes = 0;
  readonly origin: Origin;
  readonly options: Dispatcher.DispatchOptions;
  readonly calls: WholeCalls;
  readonly resolve: (reply: UpstreamReply) => void;
  readonly reject: (error: Error) => void;
  /** The connection, once the call has one. */
  client: Client | undefined;
  unlisten: () => void = noop;
  status = 0;
  raw: Buffer[] = [];
  answered = false;
  /** The call has resolved or rejected its promise, or ended its stream: nothing more is delivered. */
  settled = false;
  streamed = false;
  chunks: Buffer[] = [];
  sink: ByteSink | undefined;
  /** A streamed answer's failure (or end) before `start`. */
  held: Error | undefined;
  ended = false;
  resumeReading: (() => void) | undefined;

  constructor(calls: WholeCalls, origin: Origin, options: Dispatcher.DispatchOptions, timeoutMs: number, maxAnswerBytes: number, resolve: (reply: UpstreamReply) => void, reject: (error: Error) => void) {
    this.calls = calls;
    this.maxAnswerBytes = maxAnswerBytes;
    this.origin = origin;
    this.options = options;
    this.timeoutMs = timeoutMs;
    this.resolve = resolve;
    this.reject = reject;
  }

  /** The call is over: no longer watched, no longer cancelled by the caller. */
  release(): void {
    this.calls.watch.delete(this);
    this.unlisten();
  }

  /** End the call early (the caller left, a time limit): its connection is closed, the call rejects with `error` if it has no answer yet. */
  abort(error: Error): void {
    this.unlisten();
    if (!this.answered) {
      if (this.settled) return;
      this.settled = true;
      this.release();
      this.calls.drop(this);
      this.reject(error);
      return;
    }
    this.fail(brokenOff());
  }

  /** How long a streamed answer's reader may stop reading (`UpstreamInit.stalledReaderMs`). */
  stalledMs: number | undefined;

  /** A streamed answer whose reader stopped reading for `stalledMs`. */
  stalled(): void {
    this.fail(new Error(`the caller stopped reading for ${this.stalledMs ?? 0} ms`));
  }

  silent(): void {
    if (this.answered) {
      this.fail(silence(this.timeoutMs));
      return;
    }
    this.abort(new UpstreamTimeout(`the upstream did not answer within ${this.timeoutMs} ms`));
  }

  /** A whole body that broke off, or a stream's failure: the answer ends with `error` and the connection is closed. */
  fail(error: Error): void {
    if (this.settled) return;
    if (this.streamed && this.sink === undefined) {
      this.held ??= error;
      this.calls.drop(this);
      return;
    }
    this.settled = true;
    this.release();
    this.calls.drop(this);
    if (this.streamed) this.sink!.fail(error);
    else {
      const raw = this.raw;
      this.resolve({ status: this.status, header: (name) => rawHeader(raw, name), failure: error, body: null });
    }
  }

  onConnect(): void {}

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    if (this.settled || status < 200) return true;
    this.answered = true;
    this.active = true;
    this.status = status;
    this.raw = raw;
    if (STREAMED.test(rawHeader(raw, 'content-type') ?? '')) {
      this.streamed = true;
      this.resumeReading = resume;
      this.resolve({ status, header: (name) => rawHeader(raw, name), source: this, body: null });
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    this.active = true;
    if (this.sink === undefined) {
      this.bytes += chunk.length;
      if (!this.streamed && this.bytes > this.maxAnswerBytes) {
        this.chunks = [];
        this.fail(new AnswerTooLarge(this.maxAnswerBytes));
        return true;
      }
      this.chunks.push(chunk);
      return true;
    }
    this.sink.data(chunk);
    return !this.paused;
  }

  onComplete(): void {
    if (this.settled) return;
    if (this.streamed && this.sink === undefined) {
      this.ended = true;
      this.calls.done(this);
      return;
    }
    this.settled = true;
    this.release();
    this.calls.done(this);
    if (this.streamed) {
      this.sink!.end();
      return;
    }
    const chunks = this.chunks;
    const raw = this.raw;
    this.resolve({ status: this.status, header: (name) => rawHeader(raw, name), text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'), body: null });
  }

  onError(error: Error): void {
    if (this.settled) return;
    if (!this.answered) {
      this.settled = true;
      this.release();
      this.calls.drop(this);
      this.reject(nodeError(error));
      return;
    }
    this.fail(brokenOff());
  }

  start(sink: ByteSink): void {
    this.sink = sink;
    const chunks = this.chunks;
    this.chunks = [];
    for (const chunk of chunks) {
      if (this.settled) return;
      this.active = true;
      sink.data(chunk);
    }
    if (this.held !== undefined) {
      const held = this.held;
      this.held = undefined;
      this.fail(held);
    } else if (this.ended && !this.settled) {
      this.settled = true;
      this.release();
      sink.end();
    }
  }

  pause(): void {
    if (this.paused || this.settled) return;
    this.paused = true;
  }

  resume(): void {
    if (!this.paused || this.settled) return;
    this.paused = false;
    this.active = true;
    this.resumeReading?.();
  }

  cancel(): void {
    this.fail(new Error('aborted'));
  }
}

/** The whole calls' connections, per origin, and the watch that keeps their limits. */
class WholeCalls {
  readonly watch: SilenceWatch;
  readonly #origins = new Map<string, Origin>();

  constructor(watch: SilenceWatch) {
    this.watch = watch;
  }

  originOf(target: Target): Origin {
    const url = `${target.secure ? 'https' : 'http'}://${target.host}`;
    let origin = this.#origins.get(url);
    if (origin === undefined) {
      origin = { url, free: [], open: 0, waiting: [] };
      this.#origins.set(url, origin);
    }
    return origin;
  }

  /** Run `call` on a free connection, a new one, or (at the limit) the next one freed. */
  run(call: WholeCall): void {
    const origin = call.origin;
    let client = origin.free.pop();
    if (client === undefined) {
      if (origin.open >= MAX_CONNECTIONS) {
        origin.waiting.push(call);
        return;
      }
      // No time-outs of undici's own (the watch keeps them); one request at a time on each connection.
      client = new Client(origin.url, { pipelining: 1, headersTimeout: 0, bodyTimeout: 0, connect: { timeout: 0 } });
      origin.open++;
    }
    call.client = client;
    client.dispatch(call.options, call);
  }

  /** The call's answer is complete: its connection goes to a waiting call, or back to the free list. */
  done(call: WholeCall): void {
    const client = call.client;
    if (client === undefined) return;
    call.client = undefined;
    const next = nextWaiting(call.origin);
    if (next === undefined) {
      call.origin.free.push(client);
      return;
    }
    next.client = client;
    client.dispatch(next.options, next);
  }

  /** The call ended early or failed: its connection (if it had one) is closed, and a waiting call may open another. */
  drop(call: WholeCall): void {
    const client = call.client;
    const origin = call.origin;
    if (client === undefined) {
      const index = origin.waiting.indexOf(call);
      if (index !== -1) origin.waiting.splice(index, 1);
      return;
    }
    call.client = undefined;
    origin.open--;
    client.destroy(noop);
    const next = nextWaiting(origin);
    if (next !== undefined) this.run(next);
  }
}

/** The first call waiting for a connection to `origin` that has not ended meanwhile, taken off the queue (with the ended ones before it). */
function nextWaiting(origin: Origin): WholeCall | undefined {
  for (let next = origin.waiting.shift(); next !== undefined; next = origin.waiting.shift()) if (!next.settled) return next;
  return undefined;
}

/** Can this call go over undici? Header lists with a name undici refuses go over node:http. */
function undiciTakes(list: string[], checked: WeakMap<string[], boolean>): boolean {
  let takes = checked.get(list);
  if (takes === undefined) {
    takes = true;
    for (let index = 0; index < list.length; index += 2) if (REFUSED.has(list[index]!.toLowerCase())) takes = false;
    checked.set(list, takes);
  }
  return takes;
}

/**
 * The upstream call for whole answers over undici, under `watch`. It answers
 * `undefined` for a call it does not take (a header undici refuses), which
 * then goes over node:http.
 */
export function wholeUpstreamCall(watch: SilenceWatch): (target: Target, init: UpstreamInit) => Promise<UpstreamReply> | undefined {
  const calls = new WholeCalls(watch);
  const checked = new WeakMap<string[], boolean>();
  return (target, init) => {
    const headers = headerList(target, init.headers);
    if (!undiciTakes(headers, checked)) return undefined;
    return new Promise<UpstreamReply>((resolve, reject) => {
      if (init.signal.aborted) {
        reject(new Error('aborted'));
        return;
      }
      const call = new WholeCall(calls, calls.originOf(target), { path: target.path, method: 'POST', headers, body: init.body }, init.timeoutMs, init.maxAnswerBytes ?? Number.POSITIVE_INFINITY, resolve, reject);
      call.stalledMs = init.stalledReaderMs;
      watch.add(call);
      call.unlisten = init.signal.listen(() => call.abort(new Error('aborted')));
      calls.run(call);
    });
  };
}
