/**
 * `npm run soak`: many requests through the real `interlingua serve`, with
 * faults injected, checking that the proxy neither leaks nor drops anything.
 *
 * Six proxies run as child processes (`bin/interlingua.js serve`, one per
 * upstream format, upstream calls over node:http as in production), each in
 * front of a fake upstream on 127.0.0.1 (test/support/fault-upstream.ts,
 * keep-alive). Request `i` is spoken in format `i % 6` to the proxy of format
 * `⌊i / 6⌋ % 6`, so all 36 caller/upstream pairs get the same share; about
 * 30% are streamed. A seeded share (default 10%) carries a fault, named in the
 * model (`soak-<i>-<fault>`) so the upstream knows what to do and the checker
 * knows what the caller must see:
 *
 * - vendor error bodies: 400, 401, 429 with retry-after, 500, 529;
 * - transport: connection reset, stall past the time-out, half a body,
 *   garbage, headers then silence;
 * - streams: truncated mid-event, the vendor's error event, silence after the
 *   first event, and a caller that hangs up after its first bytes.
 *
 * Each answer is checked in the caller's own format, read as its SDK reads
 * it (a stream in its own framing: SSE, Ollama's NDJSON, Bedrock's binary
 * event stream; an error's type from Bedrock's `x-amzn-errortype` header, or
 * from the status where Ollama's body has none): a whole response that
 * decodes, a stream that decodes to a response without error, or the error
 * (status and type) that fits the fault; a broken converted stream must end
 * with the caller's error event. The run reports RSS of each proxy after a
 * warm-up and at the end (growth must stay under 10%), its heap, open file
 * descriptors, counts by fault and outcome, latency, and that every request got exactly
 * one answer: one settlement on the caller's side, one log line in the
 * proxy, one request at the upstream. It exits 1 if any check fails.
 *
 * Memory is read after full collections in the proxy (scripts/soak-probe.ts,
 * preloaded with --expose-gc, answers SIGUSR2), with finalizers run in
 * between: without them RSS mostly shows garbage V8 has not collected yet,
 * wandering between ~135 and ~200 MB on the same live heap, and the heap
 * holds each request's AbortSignal until undici's finalizer lets it go.
 * SOAK_DEBUG=1 prints the probe's lines; SOAK_SNAPSHOT=<directory> makes it
 * write heap snapshots too.
 *
 * Options: --requests N (default 20,000), --concurrency N (64),
 * --fault-rate F (0.1), --warmup N (4,000), --timeout MS (the proxies'
 * time-out, 400), --seed N (1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { accumulate } from '../src/core/accumulate.ts';
import { decodeError, decodeResponse } from '../src/formats/convert.ts';
import type { ErrorType, FormatId } from '../src/core/ir.ts';
import { codecFor, implementedFormats } from '../src/formats/registry.ts';
import { framingFor } from '../src/formats/stream.ts';
import { errorTypeForStatus } from '../src/core/http-status.ts';
import { startFaultUpstream, upstreamAnswer, vendorErrorBody, type Fault, type FaultUpstream } from '../test/support/fault-upstream.ts';
import { decodeEvents, random } from '../test/support/streams.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const UPSTREAM_KEY = 'sk-soak-upstream-secret-0042';

const { values: options } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '64' },
    'fault-rate': { type: 'string', default: '0.1' },
    warmup: { type: 'string', default: '4000' },
    timeout: { type: 'string', default: '400' },
    seed: { type: 'string', default: '1' },
  },
});
const REQUESTS = Number(options.requests);
const CONCURRENCY = Number(options.concurrency);
const FAULT_RATE = Number(options['fault-rate']);
const WARMUP = Number(options.warmup);
const TIMEOUT_MS = Number(options.timeout);
const SEED = Number(options.seed);
for (const [name, value] of Object.entries({ requests: REQUESTS, concurrency: CONCURRENCY, warmup: WARMUP, timeout: TIMEOUT_MS, seed: SEED })) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
}
if (!(FAULT_RATE >= 0 && FAULT_RATE <= 1)) throw new Error('--fault-rate must be between 0 and 1');

const formats = implementedFormats();

// ---------------------------------------------------------------------------
// Faults and what the caller must see

/** A fault the soak injects; `client` faults happen on the caller's side. */
type FaultName =
  | 'status400'
  | 'status401'
  | 'status429'
  | 'status500'
  | 'status529'
  | 'reset'
  | 'stall'
  | 'partial'
  | 'garbage'
  | 'silent'
  | 'truncate'
  | 'stream_error'
  | 'abort';

const WHOLE_FAULTS: readonly FaultName[] = ['status400', 'status401', 'status429', 'status500', 'status529', 'reset', 'stall', 'partial', 'garbage', 'silent'];
const STREAM_FAULTS: readonly FaultName[] = ['status429', 'status500', 'status529', 'reset', 'stall', 'truncate', 'stream_error', 'silent', 'abort'];

/** What the upstream does for a fault. */
function upstreamFault(name: FaultName | undefined, format: FormatId): Fault {
  switch (name) {
    case undefined:
      return { kind: 'ok' };
    case 'status400':
    case 'status401':
    case 'status429':
    case 'status500':
    case 'status529': {
      const status = Number(name.slice(6));
      return { kind: 'status', status, body: vendorErrorBody(format, status, `soak fault ${status} (key ${UPSTREAM_KEY})`), ...(status === 429 ? { headers: { 'retry-after': '3' } } : {}) };
    }
    case 'stream_error':
      return { kind: 'stream_error', message: 'soak fault in the stream' };
    case 'abort':
      return { kind: 'slow' };
    default:
      return { kind: name };
  }
}

/** The status and error types a caller of `ingress` must get for a fault on a whole request (or before a stream starts). */
function expectedError(name: FaultName, ingress: FormatId): { status: number; types: readonly ErrorType[] } | undefined {
  switch (name) {
    case 'status400':
      return { status: 400, types: ['invalid_request'] };
    case 'status401':
      return { status: 401, types: ['authentication'] };
    case 'status429':
      return { status: 429, types: ['rate_limit'] };
    case 'status500':
      return { status: 500, types: ['server'] };
    case 'status529':
      return { status: ingress === 'anthropic' ? 529 : 503, types: ['overloaded', 'server'] };
    case 'reset':
    case 'partial':
    case 'garbage':
      return { status: 502, types: ['server'] };
    case 'stall':
      return { status: 504, types: ['timeout'] };
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------
// Processes: fake upstreams here, proxies as children

interface Proxy {
  format: FormatId;
  child: ChildProcess;
  url: string;
  /** Request log lines seen on stderr so far. */
  lines: number;
  /** Log lines that contained a secret. */
  leaks: number;
  /** Lines on stderr that are neither log lines nor the start-up line. */
  other: string[];
  /** Waiting for the next `soak-probe` line. */
  probe: ((memory: Memory) => void) | undefined;
}

interface Memory {
  rss: number;
  heap: number;
  fds: number | undefined;
}

async function startProxy(format: FormatId, upstream: FaultUpstream): Promise<Proxy> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--import', join(ROOT, 'scripts/soak-probe.ts'), join(ROOT, 'bin/interlingua.js'), 'serve', '--upstream', format, '--upstream-url', upstream.url, '--port', '0', '--timeout', String(TIMEOUT_MS), '--api-key-env', 'SOAK_UPSTREAM_KEY'], {
    env: { ...process.env, SOAK_UPSTREAM_KEY: UPSTREAM_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const proxy: Proxy = { format, child, url: '', lines: 0, leaks: 0, other: [], probe: undefined };
  let pending = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${format} proxy exited (${code}) before listening: ${proxy.other.join(' | ')}`)));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.includes(UPSTREAM_KEY)) proxy.leaks++;
        const listening = /listening on (http:\/\/\S+)/.exec(line);
        if (listening?.[1] !== undefined) {
          proxy.url = listening[1];
          resolve(proxy);
        } else if (/^\d{4}-\d\d-\d\dT\S+ POST /.test(line)) proxy.lines++;
        else if (line.startsWith('soak-probe ')) {
          if (process.env['SOAK_DEBUG'] === '1') console.error(format, line);
          const field = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(line)?.[1]);
          proxy.probe?.({ rss: field('rss'), heap: field('heap'), fds: fdsOf(child.pid as number) });
        }
        else if (line.trim() !== '' && proxy.other.length < 20) proxy.other.push(line);
      }
    });
  });
}

/** Memory of every proxy after two full collections in it (asked for with SIGUSR2; see scripts/soak-probe.ts). */
async function measure(proxies: ReadonlyMap<FormatId, Proxy>): Promise<Map<FormatId, Memory>> {
  const entries = await Promise.all(
    [...proxies].map(
      ([format, proxy]) =>
        new Promise<[FormatId, Memory]>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`the ${format} proxy did not answer the memory probe`)), 10_000);
          proxy.probe = (memory) => {
            clearTimeout(timer);
            proxy.probe = undefined;
            resolve([format, memory]);
          };
          proxy.child.kill('SIGUSR2');
        }),
    ),
  );
  return new Map(entries);
}

/** Open file descriptors of a process, where /proc tells. */
function fdsOf(pid: number): number | undefined {
  const directory = `/proc/${pid}/fd`;
  return existsSync(directory) ? readdirSync(directory).length : undefined;
}

// ---------------------------------------------------------------------------
// One request

const PATHS: Record<FormatId, (model: string, stream: boolean) => string> = {
  anthropic: () => '/v1/messages',
  'openai-chat': () => '/v1/chat/completions',
  'openai-responses': () => '/v1/responses',
  gemini: (model, stream) => `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  ollama: () => '/api/chat',
  'bedrock-converse': (model, stream) => `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
};

function requestBody(ingress: FormatId, model: string, stream: boolean): string {
  const text = `soak request ${model}: what is the weather in Paris?`;
  switch (ingress) {
    case 'anthropic':
      return JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: text }], ...(stream ? { stream: true } : {}) });
    case 'openai-chat':
      return JSON.stringify({ model, messages: [{ role: 'user', content: text }], ...(stream ? { stream: true } : {}) });
    case 'openai-responses':
      return JSON.stringify({ model, input: text, ...(stream ? { stream: true } : {}) });
    case 'gemini':
      return JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] });
    case 'ollama':
      return JSON.stringify({ model, messages: [{ role: 'user', content: text }], stream });
    case 'bedrock-converse':
      return JSON.stringify({ messages: [{ role: 'user', content: [{ text }] }] });
  }
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  /** The answer's headers (Bedrock names its exception in `x-amzn-errortype`). */
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as bytes (a Bedrock stream is binary). */
  bytes: Buffer;
  aborted: boolean;
  /** How many times the request settled (must be 1), and by which events. */
  settlements: number;
  settledBy: string[];
  /** Set when the caller saw no complete answer: a socket error or a hang. */
  failure?: string;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, maxTotalSockets: CONCURRENCY });
const HANG_MS = 30_000;

function send(base: string, path: string, body: string, abortOnFirstBytes: boolean): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const answer: Answer = { status: 0, retryAfter: undefined, headers: {}, text: '', bytes: Buffer.alloc(0), aborted: false, settlements: 0, settledBy: [], ms: 0 };
    const settle = (by: string, failure?: string) => {
      answer.settlements++;
      answer.settledBy.push(by);
      if (answer.settlements > 1) return;
      clearTimeout(timer);
      if (failure !== undefined) answer.failure = failure;
      answer.ms = performance.now() - started;
      resolve(answer);
    };
    const timer = setTimeout(() => {
      request.destroy();
      settle('timer', `no complete answer within ${HANG_MS / 1000} s`);
    }, HANG_MS);
    const request = httpRequest(`${base}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      answer.status = response.statusCode ?? 0;
      answer.headers = response.headers;
      const retryAfter = response.headers['retry-after'];
      answer.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (abortOnFirstBytes && !answer.aborted) {
          answer.aborted = true;
          request.destroy();
          settle('abort');
        }
      });
      response.on('end', () => {
        // A caller that hung up has had its answer; Node may still report the end of what it had buffered.
        if (answer.aborted) return;
        answer.bytes = Buffer.concat(chunks);
        answer.text = answer.bytes.toString('utf8');
        settle('end');
      });
      response.on('error', (error) => {
        if (!answer.aborted) settle('response error', `the answer broke off: ${error.message}`);
      });
    });
    request.on('error', (error) => {
      if (!answer.aborted) settle('request error', `request failed: ${error.message}`);
    });
    request.end(body);
  });
}

// ---------------------------------------------------------------------------
// Checking an answer

type Outcome = 'ok' | 'error-as-expected' | 'stream-error-event' | 'passed-through' | 'aborted' | 'wrong' | 'no-answer';

/** The caller's error as its SDK reads it: the body, and where the format says so the headers (Bedrock's `x-amzn-errortype`) and the status (Ollama's bodies have no type). */
function errorOf(format: FormatId, answer: Answer): { type: ErrorType } | string {
  try {
    const { ir, losses } = decodeError(format, JSON.parse(answer.text));
    if (losses.length > 0) return `the error body is not ${format}'s own shape (${losses.length} losses)`;
    const header = (name: string) => {
      const value = answer.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    };
    const error = codecFor(format).errorFromAnswer?.(ir, { get: header }, answer.status) ?? ir;
    return error.type === 'other' ? { type: errorTypeForStatus(answer.status) } : error;
  } catch (error) {
    return `the error body does not decode: ${(error as Error).message.slice(0, 120)}`;
  }
}

/** The caller's stream read in its own framing (SSE, Ollama's NDJSON, Bedrock's binary event stream), decoded and accumulated. */
function streamOf(format: FormatId, bytes: Buffer): { error: boolean; content: boolean } | string {
  try {
    const reader = framingFor(format).createReader();
    const events = [...reader.push(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)), ...reader.end()];
    const invalid = events.find((event) => event.invalid !== undefined);
    if (invalid !== undefined) return `the stream holds an event that is not JSON: ${invalid.invalid}`;
    const result = accumulate(decodeEvents(format, events).events);
    return { error: result.error !== undefined, content: (result.response?.candidates[0]?.message.parts.length ?? 0) > 0 };
  } catch (error) {
    return `the stream does not decode: ${(error as Error).message.slice(0, 120)}`;
  }
}

function check(answer: Answer, ingress: FormatId, upstream: FormatId, stream: boolean, fault: FaultName | undefined): { outcome: Outcome; problem?: string } {
  if (answer.failure !== undefined) return { outcome: 'no-answer', problem: answer.failure };
  if (fault === 'abort') return answer.aborted ? { outcome: 'aborted' } : { outcome: 'wrong', problem: 'the caller meant to abort but the answer ended first' };
  const wrong = (problem: string) => ({ outcome: 'wrong' as const, problem: `${problem} (HTTP ${answer.status}: ${answer.text.slice(0, 160)})` });
  const expected = fault === undefined ? undefined : fault === 'silent' && !stream ? { status: 504, types: ['timeout'] as const } : expectedError(fault, ingress);
  if (expected !== undefined) {
    if (answer.status !== expected.status) return wrong(`expected HTTP ${expected.status}`);
    const error = errorOf(ingress, answer);
    if (typeof error === 'string') return wrong(error);
    if (!expected.types.includes(error.type)) return wrong(`expected ${expected.types.join(' or ')}, got ${error.type}`);
    if (fault === 'status429' && answer.retryAfter !== '3') return wrong('retry-after was not passed on');
    return { outcome: 'error-as-expected' };
  }
  if (answer.status !== 200) return wrong('expected HTTP 200');
  if (!stream) {
    try {
      const { ir } = decodeResponse(ingress, JSON.parse(answer.text));
      return ir.candidates.length > 0 ? { outcome: 'ok' } : wrong('a response without candidates');
    } catch (error) {
      return wrong(`the response does not decode: ${(error as Error).message.slice(0, 120)}`);
    }
  }
  if (fault !== undefined && ingress === upstream && fault !== 'stream_error') {
    // Same format: the upstream's bytes pass through as they are, cut where the upstream cut them.
    return { outcome: 'passed-through' };
  }
  const decoded = streamOf(ingress, answer.bytes);
  if (typeof decoded === 'string') return wrong(decoded);
  if (fault === undefined) return decoded.error ? wrong('a healthy stream ended with an error event') : decoded.content ? { outcome: 'ok' } : wrong('a stream without content');
  return decoded.error ? { outcome: 'stream-error-event' } : wrong(`a ${fault} stream did not end with the caller's error event`);
}

// ---------------------------------------------------------------------------
// The run

interface Tally {
  byFault: Map<string, number>;
  byOutcome: Map<Outcome, number>;
  problems: Map<string, { count: number; example: string }>;
  okMs: number[];
  settlements: number;
  doubleSettled: number;
}

function newTally(): Tally {
  return { byFault: new Map(), byOutcome: new Map(), problems: new Map(), okMs: [], settlements: 0, doubleSettled: 0 };
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

async function run(proxies: ReadonlyMap<FormatId, Proxy>, first: number, count: number, tally: Tally, progress: boolean): Promise<void> {
  let next = first;
  let done = 0;
  const end = first + count;
  const started = Date.now();
  let lastPrint = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= end) return;
      const rng = random(SEED * 1_000_003 + i);
      const ingress = formats[i % formats.length] as FormatId;
      const upstream = formats[Math.floor(i / formats.length) % formats.length] as FormatId;
      const stream = rng() < 0.3;
      const fault = rng() < FAULT_RATE ? (stream ? STREAM_FAULTS : WHOLE_FAULTS)[Math.floor(rng() * (stream ? STREAM_FAULTS : WHOLE_FAULTS).length)] : undefined;
      const model = `soak-${i}${fault === undefined ? '' : `-${fault}`}`;
      const proxy = proxies.get(upstream) as Proxy;
      const answer = await send(proxy.url, PATHS[ingress](model, stream), requestBody(ingress, model, stream), fault === 'abort');
      // A second settlement would show up after the first; give the event loop a turn before counting.
      await new Promise((resolve) => setImmediate(resolve));
      tally.settlements += answer.settlements;
      if (answer.settlements > 1) {
        tally.doubleSettled++;
        const key = `settled ${answer.settlements} times: ${ingress}→${upstream}${stream ? ' stream' : ''} ${fault ?? 'healthy'}`;
        const known = tally.problems.get(key);
        if (known === undefined) tally.problems.set(key, { count: 1, example: `#${i}: by ${answer.settledBy.join(', ')}; ${answer.failure ?? ''}` });
        else known.count++;
      }
      bump(tally.byFault, fault ?? 'none');
      const { outcome, problem } = check(answer, ingress, upstream, stream, fault);
      bump(tally.byOutcome, outcome);
      if (outcome === 'ok') tally.okMs.push(answer.ms);
      if (problem !== undefined) {
        const key = `${outcome}: ${ingress}→${upstream}${stream ? ' stream' : ''} ${fault ?? 'healthy'}`;
        const known = tally.problems.get(key);
        if (known === undefined) tally.problems.set(key, { count: 1, example: `#${i}: ${problem}` });
        else known.count++;
      }
      done++;
        if (progress && process.stderr.isTTY && Date.now() - lastPrint > 1000) {
        lastPrint = Date.now();
        process.stderr.write(`\r  ${done.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} requests, ${((done / (Date.now() - started)) * 1000).toFixed(0)} req/s   `);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (progress && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
}

function faultFor(model: string | undefined, format: FormatId): Fault {
  const name = /^soak-\d+-(\w+)$/.exec(model ?? '')?.[1] as FaultName | undefined;
  return upstreamFault(name, format);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const number = (value: number) => value.toLocaleString('en-US');

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function main(): Promise<void> {
  const upstreams = new Map<FormatId, FaultUpstream>();
  const proxies = new Map<FormatId, Proxy>();
  let failed = false;
  const fail = (message: string) => {
    failed = true;
    console.log(`  FAIL: ${message}`);
  };
  try {
    for (const format of formats) {
      const upstream = await startFaultUpstream(format, upstreamAnswer(format), (context) => faultFor(context.model, format), { keepAlive: true });
      upstreams.set(format, upstream);
      proxies.set(format, await startProxy(format, upstream));
    }
    console.log(`interlingua soak: ${number(REQUESTS)} requests at concurrency ${CONCURRENCY}, ${(FAULT_RATE * 100).toFixed(0)}% faults, through ${formats.length} \`interlingua serve\` processes (upstream time-out ${TIMEOUT_MS} ms)`);

    const warm = newTally();
    await run(proxies, 0, WARMUP, warm, true);
    const before = await measure(proxies);

    const tally = newTally();
    const started = performance.now();
    await run(proxies, WARMUP, REQUESTS, tally, true);
    const seconds = (performance.now() - started) / 1000;
    // Let the proxies finish what they were doing (log lines of aborted streams, closing sockets), then measure.
    agent.destroy();
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 500));
    const after = await measure(proxies);

    console.log(`  ${number(REQUESTS)} requests in ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(0)} req/s), after a warm-up of ${number(WARMUP)}; healthy answers p50 ${percentile(tally.okMs, 50).toFixed(1)} ms, p99 ${percentile(tally.okMs, 99).toFixed(1)} ms`);
    console.log('\n  faults injected:');
    for (const [fault, count] of [...tally.byFault].sort((a, b) => b[1] - a[1])) console.log(`    ${fault.padEnd(14)} ${number(count).padStart(8)}`);
    console.log('\n  outcomes:');
    for (const [outcome, count] of [...tally.byOutcome].sort((a, b) => b[1] - a[1])) console.log(`    ${outcome.padEnd(20)} ${number(count).padStart(8)}`);

    console.log('\n  proxy memory after full collections, and descriptors (after the warm-up → at the end):');
    for (const [format, proxy] of proxies) {
      const first = before.get(format) as Memory;
      const last = after.get(format) as Memory;
      const growth = (last.rss - first.rss) / first.rss;
      const fds = first.fds === undefined || last.fds === undefined ? '' : `, fds ${first.fds} → ${last.fds}`;
      console.log(`    ${format.padEnd(17)} RSS ${mb(first.rss)} → ${mb(last.rss)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%), heap ${mb(first.heap)} → ${mb(last.heap)}${fds}`);
      if (growth >= 0.1) fail(`the ${format} proxy's RSS grew ${(growth * 100).toFixed(1)}% (limit 10%)`);
      if (proxy.leaks > 0) fail(`the ${format} proxy wrote the upstream key into ${proxy.leaks} log lines`);
      if (proxy.other.length > 0) fail(`the ${format} proxy wrote unexpected lines: ${proxy.other.slice(0, 3).join(' | ')}`);
    }

    const sent = WARMUP + REQUESTS;
    const logged = [...proxies.values()].reduce((sum, proxy) => sum + proxy.lines, 0);
    const received = [...upstreams.values()].reduce((sum, upstream) => sum + upstream.received, 0);
    const settled = tally.settlements + warm.settlements;
    console.log(`\n  exactly one answer: ${number(sent)} sent, ${number(settled)} settled at the caller (${tally.doubleSettled + warm.doubleSettled} twice), ${number(logged)} proxy log lines, ${number(received)} requests at the upstreams`);
    if (settled !== sent || tally.doubleSettled + warm.doubleSettled > 0) fail('a request settled other than once');
    if (logged !== sent) fail(`the proxies logged ${logged} requests, not ${sent}`);
    if (received !== sent) fail(`the upstreams received ${received} requests, not ${sent}`);

    const problems = new Map([...warm.problems, ...tally.problems]);
    const wrong = (tally.byOutcome.get('wrong') ?? 0) + (warm.byOutcome.get('wrong') ?? 0);
    const missing = (tally.byOutcome.get('no-answer') ?? 0) + (warm.byOutcome.get('no-answer') ?? 0);
    if (wrong > 0) fail(`${wrong} answers did not fit their fault`);
    if (missing > 0) fail(`${missing} requests got no complete answer`);
    for (const [key, { count, example }] of [...problems].sort((a, b) => b[1].count - a[1].count).slice(0, 15)) console.log(`    ${count} × ${key}\n      e.g. ${example.slice(0, 300)}`);
  } finally {
    for (const proxy of proxies.values()) proxy.child.kill('SIGTERM');
    await Promise.all([...upstreams.values()].map((upstream) => upstream.close()));
  }
  console.log(failed ? '\nsoak: FAILED' : '\nsoak: passed');
  process.exitCode = failed ? 1 : 0;
}

await main();
