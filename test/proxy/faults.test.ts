/**
 * Proxy fault injection through the real fetch handler and Node server, on
 * 127.0.0.1: an upstream that answers with vendor error bodies (400, 401,
 * 429 with retry-after, 500, 529), resets connections, stalls past the
 * time-out, sends half a body, truncates SSE mid-event or puts an error event
 * in the stream, and callers that abort mid-stream. Every caller gets a
 * well-formed error in its own format with a fitting status (or its format's
 * error event inside a stream); no rejection goes unhandled; no socket stays
 * open. Both upstream clients are covered: the global fetch and the
 * node:http one `interlingua serve` uses.
 *
 * Then the security properties: credentials only from configuration or the
 * environment and never in a log line or an error; the inbound token compared
 * in constant time; the upstream URL fixed by configuration; header values
 * sanitised; the body size limit enforced before parsing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect } from 'node:net';
import { createProxy, constantTimeEqual, type ProxyConfig, type ProxyLogEntry } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { accumulate } from '../../src/core/accumulate.ts';
import { decodeError } from '../../src/formats/convert.ts';
import type { ErrorType, FormatId } from '../../src/core/ir.ts';
import { codecFor, implementedFormats } from '../../src/formats/registry.ts';
import { parseSse } from '../support/arbitraries/streams.ts';
import { startFaultUpstream, upstreamAnswer, vendorErrorBody, type Fault, type FaultUpstream } from '../support/fault-upstream.ts';
import { decodeEvents, streamingFormats } from '../support/streams.ts';
import { framingFor } from '../../src/formats/stream.ts';
import { errorTypeForStatus } from '../../src/core/http-status.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';

const formats = implementedFormats();
const streaming = new Set(streamingFormats());
const UPSTREAM_KEY = 'sk-upstream-secret-4242';
const INBOUND_TOKEN = 'proxy-token-7777';
const SECRETS = [UPSTREAM_KEY, INBOUND_TOKEN];

const PATHS: Record<FormatId, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  gemini: '/v1beta/models/gemini-test:generateContent',
  ollama: '/api/chat',
  'bedrock-converse': '/model/bedrock-test/converse',
};
const STREAM_PATHS: Record<FormatId, string> = { ...PATHS, gemini: '/v1beta/models/gemini-test:streamGenerateContent?alt=sse', 'bedrock-converse': '/model/bedrock-test/converse-stream' };
const REQUESTS: Record<FormatId, Record<string, unknown>> = {
  anthropic: { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  'openai-chat': { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] },
  'openai-responses': { model: 'gpt-test', input: 'hi' },
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  // Ollama streams unless told not to.
  ollama: { model: 'llama-test', messages: [{ role: 'user', content: 'hi' }], stream: false },
  'bedrock-converse': { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
};

// ---------------------------------------------------------------------------
// Plumbing: a proxy on a real server, a raw HTTP client, leak and rejection checks

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

interface Proxied {
  url: string;
  server: Server;
  log: ProxyLogEntry[];
  connections(): Promise<number>;
  close(): Promise<void>;
}

async function startProxy(upstream: FaultUpstream, format: FormatId, extra: Partial<ProxyConfig> = {}): Promise<Proxied> {
  const log: ProxyLogEntry[] = [];
  const handler = createProxy({
    upstream: { format, baseUrl: upstream.url, apiKeyEnv: 'FAULT_UPSTREAM_KEY' },
    env: { FAULT_UPSTREAM_KEY: UPSTREAM_KEY },
    modelMap: { '*': 'test-model' },
    timeoutMs: 150,
    maxBodyBytes: 64 * 1024,
    log: (entry) => log.push(entry),
    ...extra,
  });
  const server = await serve(handler, { port: 0 });
  return {
    url: `http://127.0.0.1:${portOf(server)}`,
    server,
    log,
    connections: () => new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body's bytes (a binary event stream is not text). */
  bytes: Buffer;
  /** True when the client hung up on purpose. */
  aborted: boolean;
}

/**
 * One request on its own connection (closed after the answer). `abortMidStream`
 * hangs up 60 ms after sending (before the proxy's 150 ms watchdog), while the upstream is still streaming (the
 * caller may not even have the headers yet: Node sends them with the first
 * body bytes). A caller that waits more than 10 s is a hang: the call fails.
 */
function call(base: string, path: string, body: string, options: { headers?: Record<string, string>; abortMidStream?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no complete answer to ${path} within 10 s`));
    }, 10_000);
    const done = (answer: Answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    const request = httpRequest(
      `${base}${path}`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close', 'content-length': Buffer.byteLength(body), ...options.headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const bytes = Buffer.concat(chunks);
          done({ status: response.statusCode ?? 0, headers: response.headers, text: bytes.toString('utf8'), bytes, aborted: false });
        });
        response.on('error', () => {});
      },
    );
    if (options.abortMidStream === true) {
      setTimeout(() => {
        request.destroy();
        done({ status: 0, headers: {}, text: '', bytes: Buffer.alloc(0), aborted: true });
      }, 60);
    }
    request.on('error', (error) => {
      if (options.abortMidStream === true) return;
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}

/**
 * Wait (bounded) until nothing is open any more: no caller connection to the
 * proxy and, when `upstreamToo`, no proxy connection to the upstream. The
 * global fetch (undici) lets an aborted upstream connection linger until its
 * keep-alive time-out (4 s), so with it the upstream is checked once at the
 * end of a test, with a longer bound.
 */
async function settled(proxy: Proxied, upstream: FaultUpstream, what: string, options: { upstreamToo: boolean; withinMs?: number }): Promise<void> {
  let proxyOpen = -1;
  let upstreamOpen = -1;
  const deadline = Date.now() + (options.withinMs ?? 2000);
  for (;;) {
    proxyOpen = await proxy.connections();
    upstreamOpen = options.upstreamToo ? upstream.openSockets() : 0;
    if ((proxyOpen === 0 && upstreamOpen === 0) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 4));
  }
  assert.is(proxyOpen, 0, `${what}: a caller connection stays open`);
  assert.is(upstreamOpen, 0, `${what}: an upstream socket stays open`);
}

function noSecrets(text: string, what: string): void {
  for (const secret of SECRETS) assert.not.ok(text.includes(secret), `${what} leaks a secret: ${text.slice(0, 200)}`);
}

/** The error a whole answer carries, decoded with the caller's own codec. */
function callerError(format: FormatId, answer: Answer): { type: ErrorType; message: string } {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new Error(`not JSON (${answer.status}): ${answer.text.slice(0, 200)}`);
  }
  const decoded = decodeError(format, body);
  const losses = decoded.losses;
  // Bedrock names the exception in a header, not in the body.
  const header = (name: string) => {
    const value = answer.headers[name.toLowerCase()];
    return typeof value === 'string' ? value : null;
  };
  const ir = codecFor(format).errorFromAnswer?.(decoded.ir, { get: header }, answer.status) ?? decoded.ir;
  assert.equal(losses, [], `the error body is ${format}'s own shape`);
  // An Ollama error body is only a message: the HTTP status says the kind.
  if (format === 'ollama') ir.type = errorTypeForStatus(answer.status);
  assert.ok(ir.message.length > 0, 'the error says something');
  return ir;
}

/** The error event a streamed answer ends with, decoded with the caller's own stream decoder. */
function callerStreamError(format: FormatId, answer: Answer): { type: ErrorType; message: string } | undefined {
  if (format === 'bedrock-converse') {
    const reader = framingFor(format).createReader();
    return accumulate(decodeEvents(format, [...reader.push(new Uint8Array(answer.bytes)), ...reader.end()]).events).error;
  }
  if (format === 'ollama') {
    const lines = answer.text.split('\n').filter((line) => line.trim() !== '');
    return accumulate(decodeEvents(format, lines.map((line) => ({ data: JSON.parse(line) as unknown }))).events).error;
  }
  const events = parseSse(answer.text).map((message) => (message.data === '[DONE]' ? { data: '[DONE]' } : { ...(message.event === undefined ? {} : { event: message.event }), data: JSON.parse(message.data) as unknown }));
  const decoded = decodeEvents(format, events);
  return accumulate(decoded.events).error;
}

const STATUS_FAULTS: { status: number; types: ErrorType[]; headers?: Record<string, string> }[] = [
  { status: 400, types: ['invalid_request'] },
  { status: 401, types: ['authentication'] },
  { status: 429, types: ['rate_limit'], headers: { 'retry-after': '7' } },
  { status: 500, types: ['server'] },
  // OpenAI formats have no overload type (server_error, with 503); the status tells.
  { status: 529, types: ['overloaded', 'server'] },
];

function expectedStatus(ingress: FormatId, status: number): number {
  if (status === 529) return ingress === 'anthropic' ? 529 : 503;
  return status;
}

// ---------------------------------------------------------------------------

const faults = suite('faults: every caller gets an error in its own format');
faults.before(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
faults.after(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** A proxy in front of a fault upstream, and a switch for what the upstream does next. */
interface Rig {
  upstreamFormat: FormatId;
  upstream: FaultUpstream;
  proxy: Proxied;
  next: Fault;
  /** Check the upstream side after each scenario (node:http fetch), or once at the end (global fetch). */
  upstreamEachTime: boolean;
}

async function startRig(upstreamFormat: FormatId, nodeClient: boolean): Promise<Rig> {
  const rig = { upstreamFormat, next: { kind: 'ok' } as Fault, upstreamEachTime: nodeClient } as Rig;
  rig.upstream = await startFaultUpstream(upstreamFormat, upstreamAnswer(upstreamFormat), () => rig.next);
  rig.proxy = await startProxy(rig.upstream, upstreamFormat, nodeClient ? { fetch: createNodeFetch() } : {});
  return rig;
}

async function stopRig(rig: Rig): Promise<void> {
  await rig.proxy.close();
  await rig.upstream.close();
}

/** Whole (non-streamed) requests of `ingress` against every upstream fault. */
async function wholeScenarios(rig: Rig, ingress: FormatId): Promise<void> {
  const { proxy, upstream, upstreamFormat } = rig;
  const body = JSON.stringify(REQUESTS[ingress]);
  for (const fault of STATUS_FAULTS) {
    const what = `${ingress} caller, ${upstreamFormat} upstream ${fault.status}`;
    rig.next = { kind: 'status', status: fault.status, body: vendorErrorBody(upstreamFormat, fault.status, `upstream says no (key ${UPSTREAM_KEY})`), ...(fault.headers === undefined ? {} : { headers: fault.headers }) };
    const answer = await call(proxy.url, PATHS[ingress], body);
    assert.is(answer.status, expectedStatus(ingress, fault.status), what);
    const type = callerError(ingress, answer).type;
    assert.ok(fault.types.includes(type), `${what}: ${type} is not ${fault.types.join(' or ')}`);
    if (fault.headers?.['retry-after'] !== undefined) assert.is(answer.headers['retry-after'], '7', `${what}: retry-after passed on`);
    noSecrets(answer.text, what);
    await settled(proxy, upstream, what, { upstreamToo: rig.upstreamEachTime });
  }
  const transport: { fault: Fault; statuses: number[]; type: ErrorType }[] = [
    { fault: { kind: 'reset' }, statuses: [502], type: 'server' },
    { fault: { kind: 'stall' }, statuses: [504], type: 'timeout' },
    { fault: { kind: 'partial' }, statuses: [502], type: 'server' },
    { fault: { kind: 'garbage' }, statuses: [502], type: 'server' },
    // Headers and half a body, then silence past the time-out: the watchdog on the body answers.
    { fault: { kind: 'silent' }, statuses: [504], type: 'timeout' },
  ];
  for (const { fault, statuses, type } of transport) {
    const what = `${ingress} caller, ${upstreamFormat} upstream ${fault.kind}`;
    rig.next = fault;
    const answer = await call(proxy.url, PATHS[ingress], body);
    assert.ok(statuses.includes(answer.status), `${what}: status ${answer.status}`);
    assert.is(callerError(ingress, answer).type, type, what);
    noSecrets(answer.text, what);
    await settled(proxy, upstream, what, { upstreamToo: rig.upstreamEachTime });
  }
}

/** Streamed requests of `ingress`: truncated upstream stream, in-stream error, caller abort, stall before the first byte. */
async function streamScenarios(rig: Rig, ingress: FormatId): Promise<void> {
  const { proxy, upstream, upstreamFormat } = rig;
  const body = JSON.stringify({ ...REQUESTS[ingress], ...(ingress === 'gemini' ? {} : { stream: true }) });
  const what = `${ingress} caller, ${upstreamFormat} upstream stream`;
  // Same-format streams pass through byte for byte: the caller sees the upstream's own bytes.
  const converted = ingress !== upstreamFormat;

  rig.next = { kind: 'truncate' };
  let answer = await call(proxy.url, STREAM_PATHS[ingress], body);
  assert.is(answer.status, 200, `${what} truncated`);
  if (converted) assert.ok(callerStreamError(ingress, answer) !== undefined, `${what} truncated mid-event ends with the caller's error event`);
  await settled(proxy, upstream, `${what} truncated`, { upstreamToo: rig.upstreamEachTime });

  rig.next = { kind: 'stream_error', message: 'overloaded right now' };
  answer = await call(proxy.url, STREAM_PATHS[ingress], body);
  assert.is(answer.status, 200);
  assert.ok(callerStreamError(ingress, answer) !== undefined, `${what}: the upstream's error event arrives as the caller's error event`);
  await settled(proxy, upstream, `${what} with an error event`, { upstreamToo: rig.upstreamEachTime });

  rig.next = { kind: 'silent' };
  answer = await call(proxy.url, STREAM_PATHS[ingress], body);
  assert.is(answer.status, 200, `${what} gone silent`);
  if (converted) assert.ok(callerStreamError(ingress, answer) !== undefined, `${what}: a stream gone silent past the time-out ends with the caller's error event`);
  await settled(proxy, upstream, `${what} gone silent`, { upstreamToo: rig.upstreamEachTime });

  rig.next = { kind: 'slow' };
  answer = await call(proxy.url, STREAM_PATHS[ingress], body, { abortMidStream: true });
  assert.ok(answer.aborted);
  await settled(proxy, upstream, `${what}, caller aborting mid-stream`, { upstreamToo: rig.upstreamEachTime });

  rig.next = { kind: 'stall' };
  answer = await call(proxy.url, STREAM_PATHS[ingress], body);
  assert.is(answer.status, 504, `${what} stalled`);
  assert.is(callerError(ingress, answer).type, 'timeout');
  await settled(proxy, upstream, `${what} stalled`, { upstreamToo: rig.upstreamEachTime });
}

// `interlingua serve` calls the upstream with the node:http fetch: every scenario, every pair, sockets checked each time.
for (const upstreamFormat of formats) {
  faults(`${upstreamFormat} upstream (node:http fetch, as serve runs): every fault, every caller format, streams included`, async () => {
    const rig = await startRig(upstreamFormat, true);
    try {
      for (const ingress of formats) await wholeScenarios(rig, ingress);
      if (streaming.has(upstreamFormat)) for (const ingress of formats.filter((format) => streaming.has(format))) await streamScenarios(rig, ingress);
      assert.ok(rig.proxy.log.length >= formats.length * 10, 'one log line per request');
      for (const entry of rig.proxy.log) noSecrets(JSON.stringify(entry), 'a log line');
      assert.equal(unhandled, [], 'no unhandled rejection');
    } finally {
      await stopRig(rig);
    }
  });
}

// The default upstream client (the global fetch, as in Workers, Deno, Bun): the same scenarios, each caller
// format against another upstream; undici lets aborted connections linger up to its 4 s keep-alive time-out,
// so the upstream sockets are checked once at the end.
faults('every upstream (global fetch): every fault, streams included; nothing left open at the end', async () => {
  const rigs = await Promise.all(formats.map((format) => startRig(format, false)));
  try {
    for (const [index, rig] of rigs.entries()) {
      const ingress = formats[(index + 1) % formats.length] as FormatId;
      await wholeScenarios(rig, ingress);
      if (streaming.has(rig.upstreamFormat) && streaming.has(ingress)) await streamScenarios(rig, ingress);
    }
    await Promise.all(rigs.map((rig) => settled(rig.proxy, rig.upstream, `${rig.upstreamFormat} upstream at the end`, { upstreamToo: true, withinMs: 8000 })));
    for (const rig of rigs) for (const entry of rig.proxy.log) noSecrets(JSON.stringify(entry), 'a log line');
    assert.equal(unhandled, [], 'no unhandled rejection');
  } finally {
    await Promise.all(rigs.map(stopRig));
  }
});
faults.run();

// ---------------------------------------------------------------------------

const security = suite('security: credentials, token, upstream URL, headers, body limit');
const [first] = formats;
const ingressOf = (upstreamFormat: FormatId): FormatId => formats.find((format) => format !== upstreamFormat) ?? upstreamFormat;

security('the upstream key comes from the environment, reaches only the upstream, and never the caller or a log line', async () => {
  for (const upstreamFormat of formats) {
    const upstream = await startFaultUpstream(upstreamFormat, upstreamAnswer(upstreamFormat), () => ({ kind: 'ok' }));
    const proxy = await startProxy(upstream, upstreamFormat);
    try {
      const ingress = ingressOf(upstreamFormat);
      const answer = await call(proxy.url, PATHS[ingress], JSON.stringify(REQUESTS[ingress]), { headers: { authorization: 'Bearer caller-key', 'x-api-key': 'caller-key', 'x-goog-api-key': 'caller-key', cookie: 'session=1' } });
      assert.is(answer.status, 200);
      const headers = upstream.requests.at(-1)?.headers ?? {};
      const sent = { anthropic: headers['x-api-key'], 'openai-chat': headers['authorization'], 'openai-responses': headers['authorization'], gemini: headers['x-goog-api-key'], ollama: headers['authorization'], 'bedrock-converse': headers['authorization'] }[upstreamFormat];
      assert.ok(String(sent).includes(UPSTREAM_KEY), `${upstreamFormat}: the configured key is sent`);
      assert.not.ok(JSON.stringify(headers).includes('caller-key'), "the caller's credential is not forwarded");
      assert.is(headers['cookie'], undefined, 'caller headers are not forwarded');
      noSecrets(answer.text, 'the answer');
      for (const entry of proxy.log) noSecrets(JSON.stringify(entry), 'a log line');
    } finally {
      await proxy.close();
      await upstream.close();
    }
  }
});

security('a network failure names no secret, even when the upstream URL carries one', async () => {
  if (first === undefined) return;
  const upstream = await startFaultUpstream(first, upstreamAnswer(first), () => ({ kind: 'reset' }));
  const lines: string[] = [];
  const handler = createProxy({
    upstream: { format: first, baseUrl: `http://127.0.0.1:1/${UPSTREAM_KEY}`, apiKey: UPSTREAM_KEY },
    timeoutMs: 500,
    log: (entry) => lines.push(JSON.stringify(entry)),
  });
  const ingress = ingressOf(first);
  const response = await handler(new Request(`http://127.0.0.1${PATHS[ingress]}`, { method: 'POST', body: JSON.stringify(REQUESTS[ingress]) }));
  assert.is(response.status, 502);
  noSecrets(await response.text(), 'the error');
  for (const line of lines) noSecrets(line, 'a log line');
  await upstream.close();
});

security('the inbound token: required, accepted from each SDK header, compared in constant time', async () => {
  if (first === undefined) return;
  const upstream = await startFaultUpstream(first, upstreamAnswer(first), () => ({ kind: 'ok' }));
  const proxy = await startProxy(upstream, first, { inboundToken: INBOUND_TOKEN });
  try {
    for (const ingress of formats) {
      const body = JSON.stringify(REQUESTS[ingress]);
      const denied = await call(proxy.url, PATHS[ingress], body, { headers: { 'x-api-key': `${INBOUND_TOKEN}x` } });
      assert.is(denied.status, 401, `${ingress}: a wrong token is refused`);
      assert.is(callerError(ingress, denied).type, 'authentication');
      noSecrets(denied.text, 'the refusal');
      const headers = { anthropic: { 'x-api-key': INBOUND_TOKEN }, 'openai-chat': { authorization: `Bearer ${INBOUND_TOKEN}` }, 'openai-responses': { authorization: `bearer ${INBOUND_TOKEN}` }, gemini: { 'x-goog-api-key': INBOUND_TOKEN }, ollama: { authorization: `Bearer ${INBOUND_TOKEN}` }, 'bedrock-converse': { authorization: `Bearer ${INBOUND_TOKEN}` } }[ingress];
      assert.is((await call(proxy.url, PATHS[ingress], body, { headers })).status, 200, `${ingress}: the right token in its SDK's header is accepted`);
    }
    assert.is((await call(proxy.url, `${PATHS.gemini}?key=${INBOUND_TOKEN}`, JSON.stringify(REQUESTS.gemini))).status, formats.includes('gemini') ? 200 : 404, '?key= is accepted');
    assert.is(upstream.received, formats.length + (formats.includes('gemini') ? 1 : 0), 'refused requests never reach the upstream');
    for (const entry of proxy.log) noSecrets(JSON.stringify(entry), 'a log line');
  } finally {
    await proxy.close();
    await upstream.close();
  }
  assert.ok(constantTimeEqual('tök€n', 'tök€n'));
  assert.not.ok(constantTimeEqual('token', 'tokem'));
  assert.not.ok(constantTimeEqual('token', 'token '));
  assert.not.ok(constantTimeEqual('', 'x'));
  // The comparison time must not depend on where the strings differ (=== stops at the first difference).
  const secret = 'a'.repeat(1 << 20);
  const early = `b${secret.slice(1)}`;
  const late = `${secret.slice(1)}b`;
  const once = (candidate: string) => {
    const started = process.hrtime.bigint();
    constantTimeEqual(candidate, secret);
    return Number(process.hrtime.bigint() - started);
  };
  once(secret);
  // Early and late timed in turn (in alternating order), so a busy moment of a shared machine slows both alike.
  const ratios: number[] = [];
  for (let round = 0; round < 15; round++) {
    const [first, second] = round % 2 === 0 ? [early, late] : [late, early];
    const firstTime = once(first);
    const secondTime = once(second);
    ratios.push(first === early ? firstTime / secondTime : secondTime / firstTime);
  }
  const ratio = ratios.sort((a, b) => a - b)[7] as number;
  assert.ok(ratio > 0.25 && ratio < 4, `early and late differences take about as long (ratio ${ratio.toFixed(2)})`);
});

/** Send raw HTTP bytes and read the whole answer. */
function rawHttp(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed client gets no answer from a Node server (it closes its side too).
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(3000, () => socket.destroy());
  });
}

security('a request cannot redirect the upstream: absolute targets, Host headers, model names and body fields', async () => {
  const elsewhere = await startFaultUpstream('openai-chat', upstreamAnswer('openai-chat'), () => ({ kind: 'ok' }));
  const elsewherePort = new URL(elsewhere.url).port;
  try {
    for (const upstreamFormat of formats) {
      const upstream = await startFaultUpstream(upstreamFormat, upstreamAnswer(upstreamFormat), () => ({ kind: 'ok' }));
      const proxy = await startProxy(upstream, upstreamFormat);
      try {
        const prefix = new URL(upstream.url).pathname.replace(/\/$/, '');
        for (const ingress of formats) {
          const body = JSON.stringify({ ...REQUESTS[ingress], model: `http://127.0.0.1:${elsewherePort}/v1`, baseURL: `http://127.0.0.1:${elsewherePort}` });
          const spoofed = await call(proxy.url, PATHS[ingress], body, { headers: { host: `127.0.0.1:${elsewherePort}`, 'x-forwarded-host': `127.0.0.1:${elsewherePort}`, forwarded: `host=127.0.0.1:${elsewherePort}` } });
          assert.is(spoofed.status, 200, `${ingress}: spoofed Host`);
        }
        if (formats.includes('gemini')) {
          for (const model of ['..%2F..%2F..%2Fv1%2Fchat%2Fcompletions', `%40127.0.0.1%3A${elsewherePort}`, 'x%3Fkey%3Dstolen%23', '..', `127.0.0.1:${elsewherePort}`]) {
            const answer = await call(proxy.url, `/v1beta/models/${model}:generateContent`, JSON.stringify(REQUESTS.gemini));
            assert.ok(answer.status === 200 || answer.status === 404, `gemini model ${model}: ${answer.status}`);
          }
        }
        for (const received of upstream.requests) {
          assert.ok(received.url.startsWith(`${prefix}/`), `${upstreamFormat}: the upstream saw ${received.url}`);
          assert.not.ok(/\/\.\.(\/|$)/.test(received.url.split('?')[0] ?? ''), `no dot segments reach the upstream: ${received.url}`);
        }
      } finally {
        await proxy.close();
        await upstream.close();
      }
    }
    assert.is(elsewhere.received, 0, 'no request reached another host');
  } finally {
    await elsewhere.close();
  }
});

// The Node adapter routes by path alone: neither an absolute-form target nor the Host header takes part.
security('an absolute-form request target or a malformed Host header gets an error answer, and the server lives on', async () => {
  if (first === undefined) return;
  const upstream = await startFaultUpstream(first, upstreamAnswer(first), () => ({ kind: 'ok' }));
  const proxy = await startProxy(upstream, first);
  try {
    const port = Number(new URL(proxy.url).port);
    const body = JSON.stringify(REQUESTS[first]);
    const absolute = await rawHttp(port, `POST http://127.0.0.1:9${PATHS[first]} HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    assert.match(absolute, /^HTTP\/1\.1 [2-5]\d\d/, absolute.slice(0, 300));
    const badHost = await rawHttp(port, `POST ${PATHS[first]} HTTP/1.1\r\nHost: [::1\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    assert.match(badHost, /^HTTP\/1\.1 [2-5]\d\d/);
    const noUrl = await rawHttp(port, `POST http://[::1${PATHS[first]} HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    assert.match(noUrl, /^HTTP\/1\.1 400/, 'a target that is no URL is a bad request');
    assert.is((await call(proxy.url, PATHS[first], body)).status, 200, 'the server still answers');
  } finally {
    await proxy.close();
    await upstream.close();
  }
});

security('configured header values are sanitised; neither a key nor a caller header can inject an upstream header', async () => {
  if (first === undefined) return;
  const ingress = ingressOf(first);
  const upstream = await startFaultUpstream(first, upstreamAnswer(first), () => ({ kind: 'ok' }));
  const proxy = await startProxy(upstream, first, { upstream: { format: first, baseUrl: upstream.url, apiKey: UPSTREAM_KEY, headers: { 'x-note': 'a\r\nx-injected: 1\u0000' } } });
  // A key read from a file with a trailing newline is trimmed and works.
  const fileKey = await startProxy(upstream, first, { upstream: { format: first, baseUrl: upstream.url, apiKey: `  ${UPSTREAM_KEY}\r\n` } });
  try {
    const answer = await call(proxy.url, PATHS[ingress], JSON.stringify(REQUESTS[ingress]), { headers: { 'x-injected': 'from-caller' } });
    assert.is(answer.status, 200, answer.text.slice(0, 200));
    const headers = upstream.requests.at(-1)?.headers ?? {};
    assert.is(headers['x-note'], 'ax-injected: 1');
    assert.is(headers['x-injected'], undefined, 'no header was injected');
    const trimmed = await call(fileKey.url, PATHS[ingress], JSON.stringify(REQUESTS[ingress]));
    assert.is(trimmed.status, 200, 'a key with surrounding whitespace is trimmed');
    assert.ok(JSON.stringify(upstream.requests.at(-1)?.headers).includes(UPSTREAM_KEY));
    // A key variable that is unset or empty is refused when the proxy is made: requests without the key would be the caller's 401s.
    for (const env of [{}, { MISSING_KEY: '' }, { MISSING_KEY: '  ' }]) {
      try {
        createProxy({ upstream: { format: first, baseUrl: upstream.url, apiKeyEnv: 'MISSING_KEY' }, env });
        assert.unreachable('an unset key variable is refused');
      } catch (error) {
        assert.ok(isInterlinguaError(error));
        assert.match((error as Error).message, /apiKeyEnv names MISSING_KEY, which is (not set|empty)/);
      }
    }
    // A key with a control character inside is refused when the proxy is made, naming where it came from but not the key.
    for (const bad of [`${UPSTREAM_KEY}\r\nx-injected: key`, `${UPSTREAM_KEY}\u0000`]) {
      try {
        createProxy({ upstream: { format: first, baseUrl: upstream.url, apiKeyEnv: 'BAD_KEY' }, env: { BAD_KEY: bad } });
        assert.unreachable('a key with control characters is refused');
      } catch (error) {
        assert.instance(error, Error);
        assert.match((error as Error).message, /BAD_KEY.*control characters/);
        noSecrets((error as Error).message, 'the error about a bad key');
      }
    }
  } finally {
    await fileKey.close();
    await proxy.close();
    await upstream.close();
  }
});

security('the body size limit applies before parsing: 413 in the caller format, for declared and streamed lengths', async () => {
  if (first === undefined) return;
  const upstream = await startFaultUpstream(first, upstreamAnswer(first), () => ({ kind: 'ok' }));
  const proxy = await startProxy(upstream, first, { maxBodyBytes: 4096 });
  try {
    for (const ingress of formats) {
      // Not JSON and too large: the size decides (413), not the parser (400).
      const answer = await call(proxy.url, PATHS[ingress], `{${'x'.repeat(8192)}`);
      assert.is(answer.status, 413, `${ingress}: declared length`);
      // OpenAI formats have no type of their own for it (invalid_request_error, with 413).
      assert.ok(['request_too_large', 'invalid_request'].includes(callerError(ingress, answer).type));
      // Chunked, no declared length: the proxy stops reading at the limit.
      const chunked = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${proxy.url}${PATHS[ingress]}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close', 'transfer-encoding': 'chunked' } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        for (let index = 0; index < 8; index++) request.write('x'.repeat(1024));
        request.end();
      });
      assert.is(chunked, 413, `${ingress}: streamed length`);
    }
    // A declared length over the limit is refused without waiting for the body.
    const port = Number(new URL(proxy.url).port);
    const head = await rawHttp(port, `POST ${PATHS.anthropic} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\nConnection: close\r\n\r\n{`);
    assert.match(head, /^HTTP\/1\.1 413/);
    assert.is(upstream.received, 0, 'nothing too large reached the upstream');
    await settled(proxy, upstream, 'after the body limit', { upstreamToo: true });
  } finally {
    await proxy.close();
    await upstream.close();
  }
});

security.run();
