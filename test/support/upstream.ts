/**
 * A fake vendor on 127.0.0.1 for proxy tests: it records what it receives
 * and answers from golden payloads (whole or as a stream), or with a
 * configured failure.
 */
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeResponse } from '../../src/formats/convert.ts';
import { responseToEvents } from '../../src/core/accumulate.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { encodeEvents, messagesAsBytes } from './streams.ts';
import { framingFor } from '../../src/formats/stream.ts';

/** What the fake upstream does with the next requests. */
export type UpstreamBehaviour =
  /** Answer `body`; a streaming request gets `stream` when given, else `body` as the format's own stream. */
  | { kind: 'answer'; body: unknown; stream?: Uint8Array }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'stall' }
  | { kind: 'reset' }
  | { kind: 'truncate'; body: unknown }
  /** Answer exactly these bytes with this status and content type (bodies the codecs cannot read). */
  | { kind: 'raw'; status: number; contentType: string; text: string | Uint8Array };

/** A received request. */
export interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FakeUpstream {
  url: string;
  received: Received[];
  behaviour: UpstreamBehaviour;
  close(): Promise<void>;
}

function isStream(format: FormatId, url: string, body: Record<string, unknown>): boolean {
  if (format === 'ollama') return body['stream'] !== false;
  if (format === 'bedrock-converse') return url.endsWith('/converse-stream');
  return format === 'gemini' ? url.includes(':streamGenerateContent') : body['stream'] === true;
}

function streamBytes(format: FormatId, body: unknown): Uint8Array {
  const response = decodeResponse(format, body, { model: 'test-model' }).ir;
  return messagesAsBytes(encodeEvents(format, responseToEvents(response), 'test-model').messages, format);
}

/** Start a fake upstream speaking `format`. */
export async function startUpstream(format: FormatId): Promise<FakeUpstream> {
  const sockets = new Set<import('node:net').Socket>();
  const state: FakeUpstream = { url: '', received: [], behaviour: { kind: 'answer', body: {} }, close: async () => {} };
  const handle = (request: IncomingMessage, response: ServerResponse, text: string) => {
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    state.received.push({ url: request.url ?? '', headers: request.headers, body });
    const behaviour = state.behaviour;
    switch (behaviour.kind) {
      case 'stall':
        return;
      case 'reset':
        request.socket.destroy();
        return;
      case 'error':
        response.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        response.end(JSON.stringify(behaviour.body));
        return;
      case 'raw':
        response.writeHead(behaviour.status, { 'content-type': behaviour.contentType });
        response.end(behaviour.text);
        return;
      case 'truncate': {
        const bytes = streamBytes(format, behaviour.body);
        response.writeHead(200, { 'content-type': framingFor(format).contentType });
        response.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        setTimeout(() => request.socket.destroy(), 20);
        return;
      }
      case 'answer':
        if (isStream(format, request.url ?? '', body)) {
          response.writeHead(200, { 'content-type': framingFor(format).contentType });
          response.end(behaviour.stream ?? streamBytes(format, behaviour.body));
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(behaviour.body));
        }
    }
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.url = format === 'openai-chat' || format === 'openai-responses' ? `${root}/v1` : root;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}
