/**
 * A fake Bedrock Runtime on 127.0.0.1: it checks each request's SigV4
 * signature with the same signer the proxy uses (recomputing it from the
 * request as received) and answers `/converse` with a Converse body and
 * `/converse-stream` with AWS event-stream frames, or with Bedrock's own
 * 403 `InvalidSignatureException` when the signature does not match.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { WebSha256 } from '../../src/proxy/web-sha256.ts';
import { decodeResponse } from '../../src/formats/convert.ts';
import { responseToEvents } from '../../src/core/accumulate.ts';
import { signableRequest, type AwsCredentials } from '../../src/proxy/sigv4.ts';
import { encodeEvents, messagesAsBytes } from './streams.ts';

export interface FakeBedrock {
  url: string;
  /** Requests received: path (as sent, percent-encoded), body, whether the signature held. */
  received: { path: string; body: Record<string, unknown>; signed: boolean; headers: IncomingMessage['headers'] }[];
  /** The Converse response body to answer with. */
  answer: unknown;
  close(): Promise<void>;
}

/** Recompute the signature of a received request; true when it matches the one sent. */
async function verify(request: IncomingMessage, body: string, credentials: AwsCredentials, region: string): Promise<boolean> {
  const authorization = request.headers['authorization'];
  const date = request.headers['x-amz-date'];
  if (typeof authorization !== 'string' || typeof date !== 'string') return false;
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const host = headers['host'] ?? '';
  delete headers['host'];
  const url = new URL(`http://${host}${request.url ?? ''}`);
  const signer = new SignatureV4({ credentials, region, service: 'bedrock', sha256: WebSha256 });
  const iso = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`;
  const expected = await signer.sign(signableRequest(url, request.method ?? 'POST', headers, body), { signingDate: new Date(iso) });
  return expected.headers['authorization'] === authorization;
}

/** Start a fake Bedrock that accepts only requests signed with `credentials` for `region`. */
export async function startFakeBedrock(credentials: AwsCredentials, region: string, answer: unknown): Promise<FakeBedrock> {
  const sockets = new Set<Socket>();
  const state: FakeBedrock = { url: '', received: [], answer, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      void verify(request, text, credentials, region).then((signed) => {
        state.received.push({ path: request.url ?? '', body: JSON.parse(text || '{}') as Record<string, unknown>, signed, headers: request.headers });
        if (!signed) {
          response.writeHead(403, { 'content-type': 'application/json', 'x-amzn-ErrorType': 'InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/' });
          response.end(JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.' }));
          return;
        }
        if ((request.url ?? '').endsWith('/converse-stream')) {
          const ir = decodeResponse('bedrock-converse', state.answer, { model: 'test-model' }).ir;
          response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
          response.end(messagesAsBytes(encodeEvents('bedrock-converse', responseToEvents(ir), 'test-model').messages, 'bedrock-converse'));
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(state.answer));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}
