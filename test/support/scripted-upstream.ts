/**
 * A scripted vendor on 127.0.0.1 for the telemetry tests: each request is
 * answered by a function that writes what it likes when it likes (headers
 * such as a vendor's request id, a stream's events spaced in time, an
 * in-stream error event), and the requests are kept.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedUpstream {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  requests: { url: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export type Script = (request: { url: string; body: Record<string, unknown> }, response: ServerResponse) => void;

export async function startScripted(script: Script): Promise<ScriptedUpstream> {
  const sockets = new Set<Socket>();
  const requests: ScriptedUpstream['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      requests.push({ url: request.url ?? '', headers: request.headers, body });
      script({ url: request.url ?? '', body }, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One SSE event. */
export function sse(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** An Anthropic stream of one text answer, cut in two: the start and first delta, then the rest (usage with cache reads, the stop). */
export function anthropicStream(text: [string, string], options: { error?: boolean } = {}): [string, string] {
  const start =
    sse({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-served', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, cache_read_input_tokens: 4, output_tokens: 1 } } }, 'message_start') +
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start') +
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text[0] } }, 'content_block_delta');
  if (options.error === true) return [start, sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error')];
  const rest =
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text[1] } }, 'content_block_delta') +
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop') +
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }, 'message_delta') +
    sse({ type: 'message_stop' }, 'message_stop');
  return [start, rest];
}

/** A whole Anthropic answer. */
export const ANTHROPIC_ANSWER = {
  id: 'msg_2',
  type: 'message',
  role: 'assistant',
  model: 'claude-served',
  content: [{ type: 'text', text: 'Hello' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 9, cache_read_input_tokens: 2, output_tokens: 3 },
};
