/**
 * A fault-injecting fake upstream on 127.0.0.1, for test/proxy/faults.test.ts and
 * scripts/soak.ts: it speaks one vendor format, answers healthy requests with
 * a golden response (whole or streamed), and on demand answers with vendor
 * error bodies, resets, stalls, garbage, half bodies, truncated streams,
 * in-stream error events, or silence. Requests the vendor would refuse get
 * the vendor's refusal first (test/support/strict).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { decodeResponse } from '../../src/formats/convert.ts';
import { responseToEvents } from '../../src/core/accumulate.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { GOLDEN_DIR } from './fixtures.ts';
import { encodeEvents } from './streams.ts';
import { framingFor } from '../../src/formats/stream.ts';
import { sendRefusal, strictCheck } from './strict/index.ts';

/** What the upstream does with one request. */
export type Fault =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Destroy the socket before answering. */
  | { kind: 'reset' }
  /** Never answer (until the test closes the server). */
  | { kind: 'stall' }
  /** Start an SSE stream and cut it in the middle of an event (the second, or the one after `afterEvents`). */
  | { kind: 'truncate'; afterEvents?: number }
  /** Answer 200 with a body that is not JSON. */
  | { kind: 'garbage' }
  /** Send the headers and half of a JSON body, then reset the connection. */
  | { kind: 'partial' }
  /** Send the first SSE event, then nothing more until the connection closes (for callers that abort). */
  | { kind: 'slow' }
  /** Send the headers and the start of the answer (half the JSON, or the first SSE event), then go silent with the socket open. */
  | { kind: 'silent' }
  /** A 200 SSE stream whose second event is the vendor's error event, with `message` in it. */
  | { kind: 'stream_error'; message: string };

/** The answer an upstream gives when healthy: a whole body, and the stream of that body in the format's framing. */
export interface UpstreamAnswer {
  json: unknown;
  sse: Uint8Array;
  /** The byte length of each event of `sse`, in order (to cut inside one). */
  eventLengths: number[];
  /** The media type of the stream (`text/event-stream`, `application/vnd.amazon.eventstream`). */
  contentType: string;
}

/** A healthy answer in `format`: the golden `cross/<name>` response, whole and as that format's stream. */
export function upstreamAnswer(format: FormatId, name = 'tool-error'): UpstreamAnswer {
  const json = JSON.parse(readFileSync(join(GOLDEN_DIR, 'cross', name, `${format}.response.json`), 'utf8')) as unknown;
  const response = decodeResponse(format, json, { model: 'test-model' }).ir;
  const framing = framingFor(format);
  const events = encodeEvents(format, responseToEvents(response), 'test-model').messages.map((message) => framing.write([message]));
  return { json, sse: Buffer.concat(events), eventLengths: events.map((event) => event.byteLength), contentType: framing.contentType };
}

/** Vendor error bodies for one status, in the upstream's own format. */
export function vendorErrorBody(format: FormatId, status: number, message: string): unknown {
  const anthropicType: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' };
  const openaiType: Record<number, string> = { 400: 'invalid_request_error', 401: 'invalid_request_error', 429: 'requests', 500: 'server_error', 529: 'server_error', 503: 'server_error' };
  const openaiCode: Record<number, string> = { 401: 'invalid_api_key', 429: 'rate_limit_exceeded' };
  const geminiStatus: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 529: 'UNAVAILABLE' };
  switch (format) {
    case 'anthropic':
      return { type: 'error', error: { type: anthropicType[status] ?? 'api_error', message }, request_id: 'req_fault' };
    case 'openai-chat':
    case 'openai-responses':
      // As OpenAI sends them: a bad key is an invalid_request_error with code invalid_api_key; a rate limit has type "requests".
      return { error: { message, type: openaiType[status] ?? 'server_error', param: null, code: openaiCode[status] ?? null } };
    case 'gemini':
      return { error: { code: status, message, status: geminiStatus[status] ?? 'INTERNAL' } };
    case 'ollama':
      return { error: message };
    case 'bedrock-converse':
      // Bedrock names the exception in x-amzn-ErrorType; the body is only the message.
      return { message };
  }
}

/** A request the fault upstream received. */
export interface FaultRequest {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A fake upstream that decides per request what to do. */
export interface FaultUpstream {
  url: string;
  /** Requests received so far. */
  received: number;
  /** The last requests received (at most 50). */
  requests: FaultRequest[];
  /** Sockets open right now. */
  openSockets(): number;
  close(): Promise<void>;
}

/** The bytes of a vendor's in-stream error event, in its framing. */
function vendorStreamErrorBytes(format: FormatId, message: string): Uint8Array {
  if (format === 'bedrock-converse') return framingFor(format).write([{ event: 'serviceUnavailableException', data: JSON.stringify({ message }) }]);
  return new TextEncoder().encode(vendorStreamError(format, message));
}

/** The SSE text of a vendor's in-stream error event. */
export function vendorStreamError(format: FormatId, message: string): string {
  switch (format) {
    case 'anthropic':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`;
    case 'openai-chat':
      return `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`;
    case 'openai-responses':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message, param: null, sequence_number: 2 })}\n\n`;
    case 'gemini':
      return `data: ${JSON.stringify({ error: { code: 503, message, status: 'UNAVAILABLE' } })}\n\n`;
    case 'ollama':
      return `${JSON.stringify({ error: message })}\n`;
    case 'bedrock-converse':
      throw new Error('a Bedrock stream error is a binary exception frame, not SSE text');
  }
}

function isStreamRequest(format: FormatId, url: string, body: Record<string, unknown>): boolean {
  if (format === 'ollama') return body['stream'] !== false;
  if (format === 'bedrock-converse') return url.endsWith('/converse-stream');
  return format === 'gemini' ? url.includes(':streamGenerateContent') : body['stream'] === true;
}

/** What `decide` learns of one request. */
export interface FaultContext {
  /** Number of the request (0, 1, …) in order of arrival. */
  n: number;
  stream: boolean;
  /** The model the request names (body `model`, or Gemini's URL path). */
  model: string | undefined;
}

function modelOf(url: string, body: Record<string, unknown>): string | undefined {
  if (typeof body['model'] === 'string') return body['model'];
  const match = /\/models?\/([^/:?]+)/.exec(url);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

/**
 * Start a fake upstream speaking `format` on 127.0.0.1. `decide` picks what
 * each request gets. By default every answer closes its connection, so a
 * socket still open after a test is a leak, not a pooled connection; with
 * `keepAlive` connections are reused as a vendor's would be.
 */
export async function startFaultUpstream(format: FormatId, answer: UpstreamAnswer, decide: (context: FaultContext) => Fault, options: { keepAlive?: boolean } = {}): Promise<FaultUpstream> {
  const sockets = new Set<Socket>();
  let received = 0;
  const requests: FaultRequest[] = [];
  const bytes = Buffer.from(answer.sse);
  const firstEventEnd = answer.eventLengths[0] ?? 0;
  const streamHead = { 'content-type': answer.contentType };
  const handle = (request: IncomingMessage, response: ServerResponse, text: string): void => {
    requests.push({ url: request.url ?? '', headers: request.headers, body: text });
    if (requests.length > 50) requests.shift();
    if (options.keepAlive !== true) response.setHeader('connection', 'close');
    // What the vendor would refuse is refused first, as the vendor does, whatever the fault.
    const refusal = strictCheck(format, { url: request.url ?? '', headers: request.headers, text });
    if (refusal !== undefined) {
      received++;
      sendRefusal(response, refusal);
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // the proxy always sends JSON; a broken body just gets the default answer
    }
    const stream = isStreamRequest(format, request.url ?? '', body);
    const fault = decide({ n: received++, stream, model: modelOf(request.url ?? '', body) });
    switch (fault.kind) {
      case 'stall':
        return;
      case 'reset':
        request.socket.destroy();
        return;
      case 'status':
        response.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        response.end(JSON.stringify(fault.body));
        return;
      case 'garbage':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('<html>502 Bad Gateway</html>');
        return;
      case 'truncate': {
        response.writeHead(200, streamHead);
        // Cut inside an event: after the first event (or `afterEvents`) plus half of the next one.
        const after = fault.afterEvents ?? 1;
        const whole = answer.eventLengths.slice(0, after).reduce((sum, length) => sum + length, 0);
        const next = answer.eventLengths[after];
        const cut = next === undefined ? Math.floor(bytes.length / 2) : whole + Math.floor(next / 2);
        response.write(bytes.subarray(0, cut));
        setTimeout(() => request.socket.destroy(), 5);
        return;
      }
      case 'partial': {
        const json = JSON.stringify(answer.json);
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) });
        response.write(json.slice(0, Math.floor(json.length / 2)));
        setTimeout(() => request.socket.destroy(), 5);
        return;
      }
      case 'slow':
        response.writeHead(200, streamHead);
        response.write(bytes.subarray(0, firstEventEnd));
        return;
      case 'silent':
        if (stream) {
          response.writeHead(200, streamHead);
          response.write(bytes.subarray(0, firstEventEnd));
        } else {
          const json = JSON.stringify(answer.json);
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) });
          response.write(json.slice(0, Math.floor(json.length / 2)));
        }
        return;
      case 'stream_error':
        response.writeHead(200, streamHead);
        response.end(Buffer.concat([bytes.subarray(0, firstEventEnd), vendorStreamErrorBytes(format, fault.message)]));
        return;
      case 'ok':
        if (stream) {
          response.writeHead(200, streamHead);
          response.end(answer.sse);
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(answer.json));
        }
    }
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => {});
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: format === 'openai-chat' || format === 'openai-responses' ? `${root}/v1` : root,
    get received() {
      return received;
    },
    requests,
    openSockets: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
