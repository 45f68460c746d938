/**
 * The vendor headers a caller sends that change what its request means:
 * `anthropic-beta` (Claude Code sends six flags on every request),
 * `anthropic-version` and `OpenAI-Beta`. Same vendor: forwarded. Bedrock in
 * front of Claude: the flags Bedrock takes go into
 * `additionalModelRequestFields.anthropic_beta`. Elsewhere: a loss for each
 * flag whose meaning the target cannot have, none for what it has anyway.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { FormatId } from '../../src/core/ir.ts';
import type { ProxyConfig } from '../../src/proxy/index.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream, type StrictUpstream } from '../support/strict/index.ts';

const test = suite('vendor headers through the proxy');
const CLAUDE_CODE_BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,context-1m-2025-08-07,output-128k-2025-02-19';

interface Seen {
  upstream: StrictUpstream;
  /** The caller's `x-interlingua-losses`. */
  losses: number;
}

/** `send` through the proxy to a strict `format` upstream, models mapped to `model`. */
async function through(format: FormatId, model: string, send: (url: string) => Promise<Response>, extra: Partial<ProxyConfig['upstream']> = {}): Promise<Seen> {
  const upstream = await startStrictUpstream({ format, script: [{ kind: 'text', text: 'Hello.' }] });
  try {
    const config: ProxyConfig = { upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret', ...extra }, modelMap: { '*': model }, fetch: createNodeFetch() };
    const losses = await withProxy(config, async (url) => {
      const response = await send(url);
      assert.is(response.status, 200, await response.clone().text());
      await response.text();
      return Number(response.headers.get('x-interlingua-losses') ?? 'NaN');
    });
    return { upstream, losses };
  } finally {
    await upstream.close();
  }
}

const anthropicCall = (betas: string | undefined, headers: Record<string, string> = {}) => (url: string) =>
  fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'caller', 'anthropic-version': '2023-06-01', ...(betas === undefined ? {} : { 'anthropic-beta': betas }), ...headers },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
  });

test('Anthropic → Anthropic: the caller’s anthropic-beta and anthropic-version reach the upstream as sent (the SDK’s beta namespace and Claude Code depend on them)', async () => {
  const { upstream } = await through('anthropic', 'claude-sonnet-4-5', anthropicCall(CLAUDE_CODE_BETAS, { 'anthropic-version': '2023-01-01' }));
  assert.is(upstream.received[0]?.headers['anthropic-beta'], CLAUDE_CODE_BETAS);
  assert.is(upstream.received[0]?.headers['anthropic-version'], '2023-01-01');
});

test('the Anthropic SDK’s beta namespace through the proxy: its betas header reaches Anthropic', async () => {
  const upstream = await startStrictUpstream({ format: 'anthropic', script: [{ kind: 'text', text: 'Hello.' }] });
  try {
    const config: ProxyConfig = { upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'claude-sonnet-4-5' }, fetch: createNodeFetch() };
    await withProxy(config, async (url) => {
      const client = new Anthropic({ apiKey: 'caller', baseURL: url, maxRetries: 0 });
      await client.beta.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, betas: ['context-1m-2025-08-07'], messages: [{ role: 'user', content: 'hi' }] });
    });
    assert.is(upstream.received[0]?.headers['anthropic-beta'], 'context-1m-2025-08-07');
  } finally {
    await upstream.close();
  }
});

test('the operator’s configured upstream headers win over the caller’s', async () => {
  const { upstream } = await through('anthropic', 'claude-sonnet-4-5', anthropicCall('context-1m-2025-08-07'), { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } });
  assert.is(upstream.received[0]?.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
});

test('Anthropic → Bedrock (a Claude model): the context, thinking and output betas go into additionalModelRequestFields.anthropic_beta; the flags Bedrock refuses are losses', async () => {
  const plain = await through('bedrock-converse', 'anthropic.claude-sonnet-4-5-20250929-v1:0', anthropicCall(undefined));
  const seen = await through('bedrock-converse', 'anthropic.claude-sonnet-4-5-20250929-v1:0', anthropicCall(CLAUDE_CODE_BETAS));
  assert.equal(upstreamFields(seen.upstream)?.['anthropic_beta'], ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07', 'output-128k-2025-02-19']);
  assert.is(seen.upstream.received[0]?.headers['anthropic-beta'], undefined);
  // claude-code-… and context-management-… are refused by Bedrock ("invalid beta flag"): dropped, and said.
  assert.is(seen.losses - plain.losses, 2);
});

test('Anthropic → Bedrock (not a Claude model): every beta is a loss, none is sent', async () => {
  const plain = await through('bedrock-converse', 'amazon.nova-pro-v1:0', anthropicCall(undefined));
  const seen = await through('bedrock-converse', 'amazon.nova-pro-v1:0', anthropicCall('interleaved-thinking-2025-05-14,context-1m-2025-08-07'));
  assert.is(upstreamFields(seen.upstream)?.['anthropic_beta'], undefined);
  assert.is(seen.losses - plain.losses, 2);
});

for (const format of ['openai-chat', 'openai-responses', 'gemini', 'ollama'] as const) {
  test(`Anthropic → ${format}: no anthropic-beta upstream; each flag without a meaning there is a loss (the output-length beta travels as the output limit)`, async () => {
    const plain = await through(format, 'test-model', anthropicCall(undefined));
    const seen = await through(format, 'test-model', anthropicCall(CLAUDE_CODE_BETAS));
    assert.is(seen.upstream.received[0]?.headers['anthropic-beta'], undefined);
    assert.is(seen.losses - plain.losses, 4);
  });
}

const chatCall = (beta: string | undefined) => (url: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer caller', ...(beta === undefined ? {} : { 'openai-beta': beta }) },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
  });

test('OpenAI → OpenAI (Chat to Responses): OpenAI-Beta reaches the upstream; to another vendor or an OpenAI-compatible dialect it is a loss', async () => {
  const responses = await through('openai-responses', 'gpt-test', chatCall('assistants=v2'));
  assert.is(responses.upstream.received[0]?.headers['openai-beta'], 'assistants=v2');
  const plain = await through('anthropic', 'claude-test', chatCall(undefined));
  const anthropic = await through('anthropic', 'claude-test', chatCall('assistants=v2'));
  assert.is(anthropic.upstream.received[0]?.headers['openai-beta'], undefined);
  assert.is(anthropic.losses - plain.losses, 1);
});

test('the OpenAI SDK’s defaultHeaders OpenAI-Beta reaches an OpenAI upstream; x-goog-api-client and the SDK’s own headers do not travel', async () => {
  const upstream = await startStrictUpstream({ format: 'openai-chat', script: [{ kind: 'text', text: 'Hello.' }] });
  try {
    const config: ProxyConfig = { upstream: { format: 'openai-chat', baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'gpt-test' }, fetch: createNodeFetch() };
    await withProxy(config, async (url) => {
      const client = new OpenAI({ apiKey: 'caller', baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: { 'OpenAI-Beta': 'responses=v1', 'x-goog-api-client': 'genai-js/1.0' } });
      await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    });
    assert.is(upstream.received[0]?.headers['openai-beta'], 'responses=v1');
    assert.is(upstream.received[0]?.headers['x-goog-api-client'], undefined);
    assert.is(upstream.received[0]?.headers['x-stainless-lang'], undefined);
  } finally {
    await upstream.close();
  }
});

function upstreamFields(upstream: StrictUpstream): Record<string, unknown> | undefined {
  return upstream.received[0]?.body['additionalModelRequestFields'] as Record<string, unknown> | undefined;
}

test.run();
