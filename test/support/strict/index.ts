/**
 * Strict vendor emulators: fake upstreams on 127.0.0.1 for each of the six
 * formats that refuse what the real APIs refuse, with the vendor's own
 * status and error body, and answer from a script.
 *
 * ```ts
 * const upstream = await startStrictUpstream({
 *   format: 'gemini',
 *   script: [
 *     { kind: 'tool_calls', calls: [{ name: 'lookup', arguments: { id: 'A' } }, { name: 'lookup', arguments: { id: 'B' } }], reasoning: 'Two lookups.' },
 *     { kind: 'text', text: 'Both shipped.' },
 *   ],
 * });
 * // … point a client or the proxy at upstream.url (OpenAI formats: the URL ends in /v1) …
 * upstream.received;          // every request: url, headers, body, and the refusal it got, if any
 * upstream.refusals();        // the refusals only
 * await upstream.close();
 * ```
 *
 * Each request to the format's generation endpoint is checked first by the
 * format's rules (`<format>.ts`, each rule citing its source); a request
 * that breaks one gets the vendor's refusal, whatever the script says.
 * Otherwise the next script item answers it (when the script is empty,
 * `behaviour` does, by default the last item again): `text` and
 * `tool_calls` are built in the vendor's shape with fresh ids and, where
 * the vendor has them, signatures the emulator issues and then accepts
 * back only unchanged (Anthropic thinking signatures, Gemini 3
 * `thoughtSignature`s, Responses reasoning ids and `encrypted_content`,
 * Bedrock reasoning signatures); `body` serves a vendor body as given. A
 * streaming request (by body field or path, as the vendor decides) gets
 * the answer in the vendor's own stream framing. With `bedrock`
 * credentials, requests must carry a valid SigV4 signature (403
 * `InvalidSignatureException` otherwise).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FormatId } from '../../../src/core/ir.ts';
import { decodeResponse } from '../../../src/formats/convert.ts';
import { responseToEvents } from '../../../src/core/accumulate.ts';
import { framingFor } from '../../../src/formats/stream.ts';
import type { AwsCredentials } from '../../../src/proxy/sigv4.ts';
import { encodeEvents, messagesAsBytes } from '../streams.ts';
import { Issued, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';
import { anthropic } from './anthropic.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';
import { gemini } from './gemini.ts';
import { bedrockConverse } from './bedrock-converse.ts';
import { ollama } from './ollama.ts';
import { verifySigV4 } from './sigv4-check.ts';

export type { ScriptedAnswer, ScriptedCall, Refusal, StrictRequest } from './core.ts';

const VENDORS: Record<FormatId, StrictVendor> = {
  anthropic,
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  gemini,
  'bedrock-converse': bedrockConverse,
  ollama,
};

/** What the lenient fake (test/support/upstream.ts) took as `behaviour`, also accepted here: `answer` is `body`. */
export type Behaviour = ScriptedAnswer | { kind: 'answer'; body: unknown; stream?: Uint8Array };

/** Options of `startStrictUpstream`. */
export interface StrictOptions {
  format: FormatId;
  /** Answers, one per request, in order. */
  script?: Behaviour[];
  /** What answers once the script is used up (default: the script's last item, or a short text). */
  behaviour?: Behaviour;
  /** The model name answers report (default `test-model`). */
  model?: string;
  /** Bedrock only: check each request's SigV4 signature against these credentials. */
  bedrock?: { credentials: AwsCredentials; region: string };
  /** Picks the answer from the request, ahead of the script (`undefined`: the script answers); for clients whose side requests come in no fixed order. */
  choose?: (request: StrictRequest) => Behaviour | undefined;
}

/** One request as the emulator received it. */
export interface StrictReceived {
  url: string;
  /** The path as sent (percent-encoded), as `url`. */
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Bedrock with credentials: whether the signature held. */
  signed?: boolean;
  /** The refusal the request got, when it broke a rule. */
  refusal?: Refusal;
}

/** A running emulator. */
export interface StrictUpstream {
  /** Base URL to configure clients with (`…/v1` for the OpenAI formats). */
  url: string;
  format: FormatId;
  received: StrictReceived[];
  /** Answers still to give, in order (push to add). */
  script: Behaviour[];
  /** What answers when the script is empty. */
  behaviour: Behaviour;
  /** The opaque state issued so far. */
  issued: Issued;
  /** The refusals given so far. */
  refusals(): Refusal[];
  close(): Promise<void>;
}

/** Start a strict emulator of `options.format` on 127.0.0.1. */
export async function startStrictUpstream(options: StrictOptions): Promise<StrictUpstream> {
  const vendor = VENDORS[options.format];
  const model = options.model ?? 'test-model';
  const sockets = new Set<Socket>();
  const script = [...(options.script ?? [])];
  const state: StrictUpstream = {
    url: '',
    format: options.format,
    received: [],
    script,
    behaviour: options.behaviour ?? script.at(-1) ?? { kind: 'text', text: 'Done.' },
    issued: new Issued(),
    refusals: () => state.received.flatMap((received) => (received.refusal === undefined ? [] : [received.refusal])),
    close: async () => {},
  };

  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

  const streamOf = (body: unknown): Uint8Array => {
    const ir = decodeResponse(options.format, body, { model }).ir;
    return messagesAsBytes(encodeEvents(options.format, responseToEvents(ir), model).messages, options.format);
  };

  const answer = (request: StrictRequest, raw: IncomingMessage, response: ServerResponse, next: Behaviour) => {
    const stream = vendor.isStream(request);
    switch (next.kind) {
      case 'stall':
        return;
      case 'reset':
        raw.socket.destroy();
        return;
      case 'error':
        send(response, next.status, next.body, next.headers);
        return;
      case 'raw':
        response.writeHead(next.status, { 'content-type': next.contentType });
        response.end(next.text);
        return;
      case 'truncate': {
        const bytes = streamOf(vendor.adopt(next.body, state.issued));
        response.writeHead(200, { 'content-type': framingFor(options.format).contentType });
        response.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        setTimeout(() => raw.socket.destroy(), 20);
        return;
      }
      case 'answer':
      case 'body':
      case 'text':
      case 'tool_calls': {
        const body = next.kind === 'text' || next.kind === 'tool_calls' ? vendor.build(next, request, state.issued, model) : vendor.adopt(next.body, state.issued);
        if (!stream) return send(response, 200, body);
        response.writeHead(200, { 'content-type': framingFor(options.format).contentType });
        response.end((next.kind === 'answer' || next.kind === 'body') && next.stream !== undefined ? next.stream : streamOf(body));
      }
    }
  };

  const handle = async (raw: IncomingMessage, response: ServerResponse, text: string) => {
    let body: Json = {};
    try {
      if (text !== '') body = JSON.parse(text) as Json;
    } catch (error) {
      state.received.push({ url: raw.url ?? '', path: raw.url ?? '', method: raw.method ?? '', headers: raw.headers, body: {} });
      return send(response, 400, { error: { message: `the body is not JSON: ${(error as Error).message}` } });
    }
    const request: StrictRequest = { url: raw.url ?? '', method: raw.method ?? 'POST', headers: raw.headers, body, text };
    const received: StrictReceived = { url: request.url, path: request.url, method: request.method, headers: raw.headers, body };
    state.received.push(received);
    if (options.bedrock !== undefined) {
      received.signed = await verifySigV4(raw, text, options.bedrock.credentials, options.bedrock.region);
      if (!received.signed) {
        received.refusal = {
          status: 403,
          rule: 'bedrock.signature',
          headers: { 'x-amzn-ErrorType': 'InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/' },
          body: { message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.' },
        };
      }
    }
    const refusal = received.refusal ?? (vendor.isGeneration(request) ? vendor.validate(request, state.issued) : undefined);
    if (refusal !== undefined) received.refusal = refusal;
    if (received.refusal !== undefined) return send(response, received.refusal.status, received.refusal.body, received.refusal.headers);
    answer(request, raw, response, options.choose?.(request) ?? state.script.shift() ?? state.behaviour);
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => void handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.url = options.format === 'openai-chat' || options.format === 'openai-responses' ? `${root}/v1` : root;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}

/** A strict emulator of `format` in place of test/support/upstream.ts's `startUpstream`: same `behaviour`, `received` and `url`. */
export function startUpstream(format: FormatId): Promise<StrictUpstream> {
  return startStrictUpstream({ format });
}

/** A strict Bedrock that checks SigV4 signatures, in place of test/support/fake-bedrock.ts's `startFakeBedrock`. */
export function startFakeBedrock(credentials: AwsCredentials, region: string, answer: unknown): Promise<StrictUpstream> {
  return startStrictUpstream({ format: 'bedrock-converse', bedrock: { credentials, region }, behaviour: { kind: 'body', body: answer } });
}

/** The name the lenient fake's tests use for a running upstream. */
export type FakeUpstream = StrictUpstream;

/**
 * The refusal `format`'s vendor gives `request`, for a hand-written test
 * upstream (one that controls its sockets or its bytes) that answers only
 * what the vendor would accept: call it first and `sendRefusal` what it
 * returns. Signatures are checked against `issued` (none by default).
 */
export function strictCheck(format: FormatId, request: { url: string; method?: string; headers: IncomingMessage['headers']; text: string }, issued = new Issued()): Refusal | undefined {
  const vendor = VENDORS[format];
  let body: Json;
  try {
    body = request.text === '' ? {} : (JSON.parse(request.text) as Json);
  } catch (error) {
    return { status: 400, rule: 'json', body: { error: { message: `the body is not JSON: ${(error as Error).message}` } } };
  }
  const strict: StrictRequest = { url: request.url, method: request.method ?? 'POST', headers: request.headers, body, text: request.text };
  return vendor.isGeneration(strict) ? vendor.validate(strict, issued) : undefined;
}

/** Answer `refusal` as the vendor does. */
export function sendRefusal(response: ServerResponse, refusal: Refusal): void {
  response.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
  response.end(JSON.stringify(refusal.body));
}
