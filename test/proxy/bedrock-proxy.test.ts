/**
 * The proxy with Bedrock on either side: the official AWS SDK client
 * (`BedrockRuntimeClient`, Converse and ConverseStream) in front of each
 * other upstream, and each other official SDK in front of a fake Bedrock
 * that verifies the SigV4 signature. A bad signature gets Bedrock's own
 * 403, which reaches every caller in its own format.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { createProxy, type ProxyConfig, type ProxyLogEntry } from '../../src/proxy/index.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { convertRequest, decodeError, decodeRequest } from '../../src/formats/convert.ts';
import { bodyText, stringifyBody } from '../../src/core/serialize.ts';
import { proxyBodies } from '../support/serialize-bodies.ts';
import type { FormatId, ToolResultPart } from '../../src/core/ir.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { startUpstream, startFakeBedrock } from '../support/strict/index.ts';
import { bedrockClient, clientFor } from '../support/clients.ts';

const OTHERS: FormatId[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];
const answer = (format: FormatId) => readJson(join(GOLDEN_DIR, 'cross', 'tool-error', `${format}.response.json`));
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-1234' };
const REGION = 'eu-west-3';
const MODEL_ID = 'us.anthropic.claude-test-v1:0';

function lastToolResult(body: Record<string, unknown>, format: FormatId, model: string): { result: ToolResultPart; callIds: string[] } | undefined {
  const { ir } = decodeRequest(format, body, { model });
  const parts = ir.messages.flatMap((message) => message.parts);
  const result = parts.find((part): part is ToolResultPart => part.type === 'tool_result');
  return result === undefined ? undefined : { result, callIds: parts.flatMap((part) => (part.type === 'tool_call' ? [part.id] : [])) };
}

const ingress = suite('proxy: the AWS SDK client in front of each upstream');
for (const upstreamFormat of OTHERS) {
  for (const stream of [false, true]) {
    ingress(`Bedrock SDK → ${upstreamFormat} upstream${stream ? ', ConverseStream' : ', Converse'}: tool call and result`, async () => {
      const upstream = await startUpstream(upstreamFormat);
      try {
        upstream.behaviour = { kind: 'answer', body: answer(upstreamFormat) };
        const config: ProxyConfig = { upstream: { format: upstreamFormat, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, fetch: createNodeFetch() };
        await withProxy(config, async (url) => {
          const client = clientFor('bedrock-converse', url);
          const turn = await client.ask(stream);
          assert.is(turn.toolCall?.name, 'lookup_order');
          assert.equal(turn.toolCall?.arguments, { order_id: 'A-18' });
          assert.match(turn.text, "I'll look that up.");
          const sent = upstream.received[0];
          assert.ok(sent !== undefined);
          assert.not.ok(JSON.stringify(sent.headers).includes('AKIDCALLER'), "the caller's credential is not forwarded");
          if (upstreamFormat !== 'gemini') assert.is(sent.body['model'], 'test-model', 'the model id from the Bedrock URL is mapped');
          await client.answer(turn, 'shipped on Monday', stream);
          const received = lastToolResult(upstream.received.at(-1)?.body ?? {}, upstreamFormat, 'test-model');
          assert.ok(received !== undefined, 'the upstream received a tool result');
          assert.match(JSON.stringify(received.result.content), 'shipped on Monday');
          assert.ok(received.callIds.includes(received.result.callId), 'the result answers a call in the same body');
        });
      } finally {
        await upstream.close();
      }
    });
  }
}

ingress('Bedrock SDK: an upstream error arrives as the Bedrock exception the SDK knows, over HTTP/2 (h2c) and HTTP/1.1', async () => {
  const upstream = await startUpstream('anthropic');
  try {
    upstream.behaviour = { kind: 'error', status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, headers: { 'retry-after': '7' } };
    await withProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'upstream-secret' } }, async (url) => {
      for (const client of [bedrockClient(url), bedrockClient(url, true)]) for (const command of [new ConverseCommand({ modelId: MODEL_ID, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }), new ConverseStreamCommand({ modelId: MODEL_ID, messages: [{ role: 'user', content: [{ text: 'hi' }] }] })]) {
        try {
          await client.send(command as ConverseCommand);
          assert.unreachable('the call should fail');
        } catch (error) {
          const failure = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
          assert.is(failure.name, 'ThrottlingException');
          assert.is(failure.message, 'slow down');
          assert.is(failure.$metadata?.httpStatusCode, 429);
        }
      }
    });
  } finally {
    await upstream.close();
  }
});
ingress.run();

const upstreamSuite = suite('proxy: each official SDK in front of a signed Bedrock upstream');
for (const caller of OTHERS) {
  for (const stream of [false, true]) {
    upstreamSuite(`${caller} SDK → Bedrock upstream${stream ? ', streamed' : ''}: signed, tool call and result`, async () => {
      const bedrock = await startFakeBedrock(CREDENTIALS, REGION, answer('bedrock-converse'));
      const log: ProxyLogEntry[] = [];
      try {
        const env = { AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, AWS_SESSION_TOKEN: CREDENTIALS.sessionToken, AWS_REGION: REGION };
        const config: ProxyConfig = { upstream: { format: 'bedrock-converse', baseUrl: bedrock.url }, env, modelMap: { '*': MODEL_ID }, log: (entry) => log.push(entry), fetch: createNodeFetch() };
        await withProxy(config, async (url) => {
          const client = clientFor(caller, url);
          const turn = await client.ask(stream);
          assert.is(turn.toolCall?.name, 'lookup_order');
          assert.equal(turn.toolCall?.arguments, { order_id: 'A-18' });
          assert.match(turn.text, "I'll look that up.");
          await client.answer(turn, 'shipped on Monday', stream);
        });
        assert.ok(bedrock.received.length >= 2);
        for (const received of bedrock.received) {
          assert.ok(received.signed, 'every request carries a valid SigV4 signature');
          assert.is(received.headers['x-amz-security-token'], CREDENTIALS.sessionToken);
          assert.is(received.path, `/model/${encodeURIComponent(MODEL_ID)}/${stream ? 'converse-stream' : 'converse'}`);
        }
        const last = bedrock.received.at(-1)?.body ?? {};
        const received = lastToolResult(last, 'bedrock-converse', MODEL_ID);
        assert.ok(received !== undefined, 'Bedrock received a tool result');
        assert.match(JSON.stringify(received.result.content), 'shipped on Monday');
        assert.ok(received.callIds.includes(received.result.callId));
        assert.not.ok(JSON.stringify(log).includes(CREDENTIALS.secretAccessKey), 'the secret key is never logged');
      } finally {
        await bedrock.close();
      }
    });
  }
}

const PATHS: Record<string, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  gemini: '/v1beta/models/gemini-test:generateContent',
  'bedrock-converse': `/model/${encodeURIComponent(MODEL_ID)}/converse`,
};
const SMALL: Record<string, unknown> = {
  anthropic: { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  'openai-chat': { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] },
  'openai-responses': { model: 'gpt-test', input: 'hi' },
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  'bedrock-converse': { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
};

upstreamSuite("a bad signature gets Bedrock's own 403, which reaches every caller in its format", async () => {
  const bedrock = await startFakeBedrock(CREDENTIALS, REGION, answer('bedrock-converse'));
  try {
    const config: ProxyConfig = { upstream: { format: 'bedrock-converse', baseUrl: bedrock.url, region: REGION, aws: { accessKeyId: CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret-key' } }, modelMap: { '*': MODEL_ID } };
    await withProxy(config, async (url) => {
      for (const caller of [...OTHERS, 'bedrock-converse' as const]) {
        const response = await fetch(`${url}${PATHS[caller]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SMALL[caller]) });
        const text = await response.text();
        assert.is(response.status, 403, `${caller}: Bedrock's status`);
        assert.not.ok(text.includes('not-the-secret-key'), 'the key never reaches the caller');
        const error = decodeError(caller, JSON.parse(text)).ir;
        assert.match(error.message, 'signature we calculated does not match', `${caller}: Bedrock's message`);
        // Bedrock says 403 for a bad signature: an authentication failure in every caller's terms.
        if (caller !== 'bedrock-converse') assert.is(error.type, 'authentication', `${caller}: its own error type`);
        else assert.is(response.headers.get('x-amzn-errortype'), 'InvalidSignatureException');
      }
      const client = bedrockClient(url);
      try {
        await client.send(new ConverseCommand({ modelId: MODEL_ID, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
        assert.unreachable('the call should fail');
      } catch (error) {
        assert.is((error as Error).name, 'InvalidSignatureException');
      }
    });
    assert.ok(bedrock.received.every((received) => !received.signed));
  } finally {
    await bedrock.close();
  }
});

upstreamSuite('a request with large images goes to a signed Bedrock upstream piece by piece: the signature holds and the bytes arrive whole', async () => {
  const bedrock = await startFakeBedrock(CREDENTIALS, REGION, answer('bedrock-converse'));
  try {
    const config: ProxyConfig = { upstream: { format: 'bedrock-converse', baseUrl: bedrock.url, region: REGION, aws: CREDENTIALS }, modelMap: { '*': MODEL_ID }, fetch: createNodeFetch() };
    await withProxy(config, async (url) => {
      for (const { name, text } of proxyBodies()) {
        const expected = convertRequest(text, { from: 'anthropic', to: 'bedrock-converse', model: MODEL_ID }).body as Record<string, unknown>;
        assert.ok(Array.isArray(bodyText(expected)), `${name}: the base64 is written apart`);
        const response = await fetch(`${url}${PATHS['anthropic']}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        assert.is(response.status, 200, `${name}: ${await response.text()}`);
        const received = bedrock.received.at(-1);
        assert.ok(received?.signed, `${name}: the signature holds`);
        assert.equal(received?.body, JSON.parse(stringifyBody(expected)), `${name}: the body arrives as converted`);
      }
    });
  } finally {
    await bedrock.close();
  }
});

upstreamSuite('a Bedrock upstream without credentials is refused when the proxy is made', () => {
  assert.throws(() => createProxy({ upstream: { format: 'bedrock-converse', baseUrl: '' }, env: {} }), /AWS credentials/);
  assert.throws(() => createProxy({ upstream: { format: 'bedrock-converse', baseUrl: '', region: 'us-east-1/../x' }, env: {} }), /region/);
});
upstreamSuite.run();
