/**
 * The proxy end to end: the real official SDK of each ingress format, pointed
 * at the proxy by its base-URL option, against a fake upstream of every other
 * format on 127.0.0.1 answering from golden payloads. Covers whole and
 * streamed answers, a full tool loop, error translation, 413, time-outs,
 * resets and client aborts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createProxy, routeFor, type ProxyConfig } from '../../src/proxy/index.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { decodeRequest } from '../../src/formats/convert.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import type { FormatId, ToolResultPart } from '../../src/core/ir.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { streamingFormats } from '../support/streams.ts';
import { startUpstream, type FakeUpstream } from '../support/strict/index.ts';
import { clientFor } from '../support/clients.ts';

// Bedrock callers and upstreams are tested in test/proxy/bedrock-proxy.test.ts (AWS SDK client, signed upstream) and test/proxy/faults.test.ts.
const formats = implementedFormats().filter((format) => format !== 'bedrock-converse');
const streaming = new Set(streamingFormats());
const answer = (format: FormatId) => readJson(join(GOLDEN_DIR, 'cross', 'tool-error', `${format}.response.json`));

async function withProxy<T>(upstream: FakeUpstream, format: FormatId, extra: Partial<ProxyConfig>, run: (url: string) => Promise<T>): Promise<T> {
  const handler = createProxy({ upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, ...extra });
  const server: Server = await serve(handler, { port: 0 });
  try {
    return await run(`http://127.0.0.1:${portOf(server)}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The tool result the upstream received last, and the id of the call it answers in that same body. */
function lastToolResult(upstream: FakeUpstream, format: FormatId): { result: ToolResultPart; callIds: string[] } | undefined {
  const received = upstream.received.at(-1);
  if (received === undefined) return undefined;
  const { ir } = decodeRequest(format, received.body, { model: 'test-model' });
  const parts = ir.messages.flatMap((message) => message.parts);
  const result = parts.find((part): part is ToolResultPart => part.type === 'tool_result');
  const callIds = parts.flatMap((part) => (part.type === 'tool_call' ? [part.id] : []));
  return result === undefined ? undefined : { result, callIds };
}

const endToEnd = suite('proxy: official SDKs end to end');
for (const ingress of formats) {
  for (const upstreamFormat of formats) {
    for (const stream of [false, true]) {
      if (stream && !(streaming.has(ingress) && streaming.has(upstreamFormat))) continue;
      endToEnd(`${ingress} SDK → ${upstreamFormat} upstream${stream ? ', streamed' : ''}: tool call and result`, async () => {
        const upstream = await startUpstream(upstreamFormat);
        try {
          upstream.behaviour = { kind: 'answer', body: answer(upstreamFormat) };
          // The node:http upstream call that `interlingua serve` uses; the failure tests below use the global fetch.
          await withProxy(upstream, upstreamFormat, { fetch: createNodeFetch() }, async (url) => {
            const client = clientFor(ingress, url);
            const turn = await client.ask(stream);
            assert.is(turn.toolCall?.name, 'lookup_order');
            assert.equal(turn.toolCall?.arguments, { order_id: 'A-18' });
            assert.match(turn.text, "I'll look that up.");
            const sent = upstream.received[0];
            assert.ok(sent !== undefined, 'the upstream was called');
            if (upstreamFormat !== ingress) {
              assert.ok(!JSON.stringify(sent.headers).includes('caller-key'), "the caller's key is not forwarded");
            }
            await client.answer(turn, 'shipped on Monday', stream);
            const received = lastToolResult(upstream, upstreamFormat);
            assert.ok(received !== undefined, 'the upstream received a tool result');
            const { result, callIds } = received;
            assert.match(JSON.stringify(result.content), 'shipped on Monday');
            assert.ok(callIds.includes(result.callId), 'the result answers a call in the same upstream body');
            if (upstreamFormat === 'gemini' || upstreamFormat === 'ollama') assert.is(result.name, 'lookup_order');
            // A caller whose format has no ids (Gemini) gets synthesised ones upstream; otherwise the id travels.
            else if (turn.toolCall?.id !== undefined) assert.is(result.callId, turn.toolCall.id);
          });
        } finally {
          await upstream.close();
        }
      });
    }
  }
}
endToEnd.run();

const routes = suite('proxy: routes');

routes('Gemini callers are routed by the model path under any API version (@google/genai 3 calls /v1, 2 called /v1beta)', () => {
  for (const version of ['v1beta', 'v1', 'v1alpha']) {
    assert.equal(routeFor(`/${version}/models/gemini-3-pro:generateContent`), { format: 'gemini', model: 'gemini-3-pro', streamByPath: false }, version);
    assert.equal(routeFor(`/${version}/models/gemini-3-pro:streamGenerateContent`), { format: 'gemini', model: 'gemini-3-pro', streamByPath: true }, version);
  }
  assert.equal(routeFor('/v1/models/gemini-3-pro:countTokens'), { format: 'gemini', model: 'gemini-3-pro', count: true });
  assert.is(routeFor('/v1/models/gemini-3-pro:embedContent'), undefined);
});

routes('token-counting paths are routes of their own, apart from generation', () => {
  assert.equal(routeFor('/v1/messages/count_tokens'), { format: 'anthropic', count: true });
  assert.equal(routeFor('/v1/responses/input_tokens'), { format: 'openai-responses', count: true });
  assert.equal(routeFor('/model/anthropic.claude-x%3A0/count-tokens'), { format: 'bedrock-converse', model: 'anthropic.claude-x:0', count: true });
  assert.equal(routeFor('/v1/messages'), { format: 'anthropic' });
  assert.is(routeFor('/v1/chat/completions/count_tokens'), undefined);
});

routes.run();

const failures = suite('proxy: failures reach the caller in its own format');
const other = (format: FormatId): FormatId => formats.find((candidate) => candidate !== format) ?? format;

async function rawCall(url: string, ingress: FormatId, body: unknown): Promise<Response> {
  const path = { anthropic: '/v1/messages', 'openai-chat': '/v1/chat/completions', 'openai-responses': '/v1/responses', gemini: '/v1beta/models/gemini-test:generateContent', ollama: '/api/chat', 'bedrock-converse': '/model/bedrock-test/converse' }[ingress];
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const SMALL_REQUEST: Record<FormatId, unknown> = {
  anthropic: { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  'openai-chat': { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] },
  'openai-responses': { model: 'gpt-test', input: 'hi' },
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  ollama: { model: 'llama-test', messages: [{ role: 'user', content: 'hi' }], stream: false },
  'bedrock-converse': { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
};

for (const ingress of formats) {
  const upstreamFormat = other(ingress);
  failures(`${ingress} caller, ${upstreamFormat} upstream: 429 with retry-after, 529/503 overload, 413, time-out, reset`, async () => {
    const upstream = await startUpstream(upstreamFormat);
    try {
      await withProxy(upstream, upstreamFormat, { timeoutMs: 300, maxBodyBytes: 4096 }, async (url) => {
        upstream.behaviour = { kind: 'error', status: 429, body: { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }, headers: { 'retry-after': '7' } };
        let response = await rawCall(url, ingress, SMALL_REQUEST[ingress]);
        assert.is(response.status, 429);
        assert.is(response.headers.get('retry-after'), '7');
        const body = (await response.json()) as Record<string, unknown>;
        assert.ok('error' in body, 'an error body in the caller format');

        upstream.behaviour = { kind: 'error', status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
        response = await rawCall(url, ingress, SMALL_REQUEST[ingress]);
        assert.is(response.status, ingress === 'anthropic' ? 529 : 503);
        await response.arrayBuffer();

        response = await rawCall(url, ingress, { ...(SMALL_REQUEST[ingress] as object), padding: 'x'.repeat(10_000) });
        assert.is(response.status, 413);
        assert.ok('error' in ((await response.json()) as object));

        upstream.behaviour = { kind: 'stall' };
        response = await rawCall(url, ingress, SMALL_REQUEST[ingress]);
        assert.is(response.status, 504);
        await response.arrayBuffer();

        upstream.behaviour = { kind: 'reset' };
        response = await rawCall(url, ingress, SMALL_REQUEST[ingress]);
        assert.is(response.status, 502);
        await response.arrayBuffer();

        response = await rawCall(url, ingress, 'not an object');
        assert.is(response.status, 400);
        await response.arrayBuffer();
      });
    } finally {
      await upstream.close();
    }
  });
}

failures('the inbound token is required when configured, and keys never reach the log', async () => {
  const [ingress] = formats;
  if (ingress === undefined) return;
  const upstreamFormat = other(ingress);
  const upstream = await startUpstream(upstreamFormat);
  const lines: string[] = [];
  try {
    upstream.behaviour = { kind: 'error', status: 401, body: { error: { message: 'bad key upstream-secret', type: 'authentication_error' } } };
    await withProxy(upstream, upstreamFormat, { inboundToken: 'let-me-in', log: (entry) => lines.push(JSON.stringify(entry)) }, async (url) => {
      const denied = await rawCall(url, ingress, SMALL_REQUEST[ingress]);
      assert.is(denied.status, 401);
      await denied.arrayBuffer();
      const path = '/v1beta/models/gemini-test:generateContent';
      const allowed = await fetch(`${url}${ingress === 'gemini' ? path : { anthropic: '/v1/messages', 'openai-chat': '/v1/chat/completions', 'openai-responses': '/v1/responses', ollama: '/api/chat', 'bedrock-converse': '/model/bedrock-test/converse' }[ingress]}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer let-me-in', 'x-api-key': 'let-me-in' },
        body: JSON.stringify(SMALL_REQUEST[ingress]),
      });
      assert.is(allowed.status, 401, 'the upstream 401 is passed on');
      const text = await allowed.text();
      assert.not.match(text, 'upstream-secret');
    });
    assert.ok(lines.length >= 2);
    for (const line of lines) {
      assert.not.match(line, 'upstream-secret');
      assert.not.match(line, 'let-me-in');
    }
  } finally {
    await upstream.close();
  }
});

failures.run();
