/**
 * The gateway in front of three fake vendors of three formats (Anthropic,
 * OpenAI Chat, Gemini) that replay answers recorded in test/corpus, with
 * the official SDKs as callers: routing by model, fallbacks across vendors
 * (the request converted to each, losses reported), retries only before
 * the first byte, caller faults not retried, the deadline kept.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import { createGateway } from '../../src/gateway/gateway.ts';
import type { GatewayConfig } from '../../src/gateway/config.ts';
import type { ProxyLogEntry } from '../../src/proxy/exchange.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { vendorErrorBody } from '../support/fault-upstream.ts';
import { startScriptedVendor, type ScriptedVendor } from '../support/corpus-vendors.ts';

interface Context {
  anthropic: ScriptedVendor;
  openai: ScriptedVendor;
  gemini: ScriptedVendor;
  server: Server;
  url: string;
  logs: ProxyLogEntry[];
}

const test = suite<Context>('gateway: routes and fallbacks across vendors');

function configOf(context: Context): GatewayConfig {
  const fast = { attempts: 2, initialDelayMs: 5, maxDelayMs: 2000 };
  return {
    upstreams: {
      anthropic: { format: 'anthropic', url: context.anthropic.upstream.url, key: 'sk-ant-upstream' },
      openai: { format: 'openai-chat', url: context.openai.upstream.url, key: 'sk-openai-upstream' },
      gemini: { format: 'gemini', url: context.gemini.upstream.url, key: 'gemini-upstream', models: ['gemini-2.0-flash'] },
    },
    routes: [
      {
        match: 'claude-*',
        targets: [{ upstream: 'anthropic' }, { upstream: 'openai', model: 'gpt-5-nano' }, { upstream: 'gemini', model: 'gemini-2.0-flash' }],
        retry: fast,
      },
      { match: 'slow-claude', targets: [{ upstream: 'anthropic' }, { upstream: 'openai', model: 'gpt-5-nano' }], deadlineMs: 300 },
      { match: 'strict-gpt', targets: [{ upstream: 'openai', model: 'gpt-5-nano' }], strict: true },
      { match: 'gpt-*', targets: [{ upstream: 'openai' }] },
    ],
    maxTokensDefault: 1234,
    fetch: createNodeFetch(),
    log: (entry) => context.logs.push(entry),
  };
}

test.before(async (context) => {
  context.anthropic = await startScriptedVendor('anthropic');
  context.openai = await startScriptedVendor('openai-chat');
  context.gemini = await startScriptedVendor('gemini');
  context.logs = [];
  context.server = await serve(createGateway(configOf(context)), { port: 0 });
  context.url = `http://127.0.0.1:${portOf(context.server)}`;
});

test.after(async (context) => {
  context.server.closeAllConnections();
  await new Promise<void>((resolve) => context.server.close(() => resolve()));
  await Promise.all([context.anthropic.upstream.close(), context.openai.upstream.close(), context.gemini.upstream.close()]);
});

test.before.each((context) => {
  for (const vendor of [context.anthropic, context.openai, context.gemini]) vendor.script = [];
  context.logs.length = 0;
});

const received = (vendor: ScriptedVendor) => vendor.upstream.received;
const counts = (context: Context) => [received(context.anthropic), received(context.openai), received(context.gemini)];

/** An Anthropic request with what Chat cannot carry (a fifth stop sequence: Chat takes 4) and what Gemini cannot (metadata), so each fallback reports losses. */
const LOSSY: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-test',
  max_tokens: 200,
  stop_sequences: ['#1', '#2', '#3', '#4', '#5'],
  metadata: { user_id: 'user-7' },
  messages: [{ role: 'user', content: 'Say hello.' }],
};

const anthropicClient = (context: Context) => new Anthropic({ apiKey: 'caller', baseURL: context.url, maxRetries: 0 });
const openaiClient = (context: Context) => new OpenAI({ apiKey: 'caller', baseURL: `${context.url}/v1`, maxRetries: 0 });

test('routes by model: each model reaches its vendor, in that vendor format, and names it', async (context) => {
  const openai = openaiClient(context);
  const before = counts(context);
  const claude = await openai.chat.completions.create({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is(claude.response.headers.get('x-interlingua-upstream'), 'anthropic');
  assert.match(claude.data.choices[0]?.message.content ?? '', /\S/);
  const sent = JSON.parse(context.anthropic.upstream.requests.at(-1)!.body) as Record<string, unknown>;
  assert.is(sent['model'], 'claude-test');
  assert.is(sent['max_tokens'], 1234, '--max-tokens-default reaches an Anthropic target');
  const gpt = await anthropicClient(context).messages.create({ model: 'gpt-5-nano', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is(gpt.response.headers.get('x-interlingua-upstream'), 'openai');
  assert.is(gpt.data.type, 'message');
  const google = new GoogleGenAI({ apiKey: 'caller', httpOptions: { baseUrl: context.url } });
  const gemini = await google.models.generateContent({ model: 'gemini-2.0-flash', contents: 'hi' });
  assert.match(gemini.text ?? '', /Flora/, 'the recorded Gemini answer, through the model the Gemini upstream lists');
  assert.equal(counts(context), [before[0]! + 1, before[1]! + 1, before[2]! + 1]);
  assert.equal(context.logs.map((entry) => [entry.route, entry.upstreamName]), [['claude-*', 'anthropic'], ['gpt-*', 'openai'], ['upstream:gemini', 'gemini']]);
});

test('429 with retry-after, then 529, then a dropped connection: each falls back to the next vendor in its format, whole', async (context) => {
  context.anthropic.script = [
    { kind: 'status', status: 429, body: vendorErrorBody('anthropic', 429, 'slow down'), headers: { 'retry-after': '1' } },
    { kind: 'status', status: 529, body: vendorErrorBody('anthropic', 529, 'Overloaded') },
  ];
  context.openai.script = [{ kind: 'reset' }, { kind: 'reset' }];
  const before = counts(context);
  const started = Date.now();
  const { data, response } = await anthropicClient(context).messages.create(LOSSY).withResponse();
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 1000, `retry-after: 1 was waited for (${elapsed} ms)`);
  assert.is(response.headers.get('x-interlingua-upstream'), 'gemini');
  assert.match(data.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), /Flora/);
  assert.ok(Number(response.headers.get('x-interlingua-losses')) > 0, 'the conversion to Gemini reports the metadata it could not carry');
  assert.equal(counts(context), [before[0]! + 2, before[1]! + 2, before[2]! + 1]);
  // Each fallback got the request in its own format, with the target's model.
  const chat = JSON.parse(context.openai.upstream.requests.at(-1)!.body) as Record<string, unknown>;
  assert.is(chat['model'], 'gpt-5-nano');
  assert.ok(Array.isArray(chat['messages']));
  const gemini = context.gemini.upstream.requests.at(-1)!;
  assert.match(gemini.url, /\/v1beta\/models\/gemini-2\.0-flash:generateContent$/);
  assert.ok(Array.isArray((JSON.parse(gemini.body) as Record<string, unknown>)['contents']));
  const entry = context.logs.at(-1)!;
  assert.equal(entry.attempts?.map((attempt) => [attempt.upstream, attempt.status, attempt.failure]), [
    ['anthropic', 429, 'rate_limit'],
    ['anthropic', 529, 'overloaded'],
    ['openai', 0, 'connect'],
    ['openai', 0, 'connect'],
    ['gemini', 200, undefined],
  ]);
  assert.ok(entry.losses > 0);
});

test('the same fallbacks, streamed: the caller reads the third vendor stream converted to its own', async (context) => {
  context.anthropic.script = [
    { kind: 'status', status: 429, body: vendorErrorBody('anthropic', 429, 'slow down'), headers: { 'retry-after': '0' } },
    { kind: 'status', status: 529, body: vendorErrorBody('anthropic', 529, 'Overloaded') },
  ];
  context.openai.script = [{ kind: 'reset' }, { kind: 'reset' }];
  const { data: stream, response } = await anthropicClient(context).messages.create({ ...LOSSY, stream: true }).withResponse();
  assert.is(response.headers.get('x-interlingua-upstream'), 'gemini');
  assert.ok(Number(response.headers.get('x-interlingua-losses')) > 0);
  let text = '';
  const types: string[] = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  assert.is(types[0], 'message_start');
  assert.is(types.at(-1), 'message_stop');
  assert.match(text, /^The /, 'the recorded Gemini stream, chunk by chunk');
  assert.match(context.gemini.upstream.requests.at(-1)!.url, /:streamGenerateContent\?alt=sse$/);
  // A Chat caller whose Anthropic primary is down gets the next target's stream: OpenAI's recorded one, Chat to Chat.
  context.anthropic.script = [{ kind: 'status', status: 503, body: vendorErrorBody('anthropic', 503, 'unavailable') }, { kind: 'status', status: 503, body: vendorErrorBody('anthropic', 503, 'unavailable') }];
  const chunks = await openaiClient(context).chat.completions.create({ model: 'claude-haiku-4-5', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let chat = '';
  for await (const chunk of chunks) chat += chunk.choices[0]?.delta.content ?? '';
  assert.match(chat, /\S/, 'the recorded OpenAI stream');
  assert.is(context.logs.at(-1)?.upstreamName, 'openai');
});

test('a stream cut before its first content event: nothing reached the caller, so it is retried', async (context) => {
  context.anthropic.script = [{ kind: 'truncate' }];
  const before = counts(context);
  const stream = await openaiClient(context).chat.completions.create({ model: 'claude-test', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.match(text, /\S/);
  assert.equal(counts(context), [before[0]! + 2, before[1]!, before[2]!], 'the same target again');
  assert.equal(context.logs.at(-1)?.attempts?.map((attempt) => [attempt.upstream, attempt.status]), [['anthropic', 500], ['anthropic', 200]]);
});

test('no retry once the first byte has reached the caller: a stream cut half-way ends in the caller error event', async (context) => {
  // Cut after four events, a first text delta among them: content has gone to the caller.
  context.anthropic.script = [{ kind: 'truncate', afterEvents: 4 }];
  const before = counts(context);
  const stream = await openaiClient(context).chat.completions.create({ model: 'claude-test', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  let failed: unknown;
  try {
    for await (const chunk of stream) void chunk;
  } catch (error) {
    failed = error;
  }
  assert.ok(failed !== undefined, 'the caller hears the stream broke');
  assert.equal(counts(context), [before[0]! + 1, before[1]!, before[2]!], 'no second call, no fallback');
});

test('a 400 that is the caller fault is not retried and not sent elsewhere', async (context) => {
  context.anthropic.script = [{ kind: 'status', status: 400, body: vendorErrorBody('anthropic', 400, 'messages: roles must alternate') }];
  const before = counts(context);
  let failed: unknown;
  try {
    await openaiClient(context).chat.completions.create({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] });
  } catch (error) {
    failed = error;
  }
  assert.instance(failed, OpenAI.BadRequestError);
  assert.match((failed as Error).message, /roles must alternate/);
  assert.equal(counts(context), [before[0]! + 1, before[1]!, before[2]!]);
});

test('every target failing: the last upstream error in the caller format, the attempts listed', async (context) => {
  const unavailable = (format: 'anthropic' | 'openai-chat' | 'gemini') => ({ kind: 'status' as const, status: 503, body: vendorErrorBody(format, 503, `${format} is down`) });
  context.anthropic.script = [unavailable('anthropic'), unavailable('anthropic')];
  context.openai.script = [unavailable('openai-chat'), unavailable('openai-chat')];
  context.gemini.script = [unavailable('gemini'), unavailable('gemini')];
  let failed: unknown;
  try {
    await openaiClient(context).chat.completions.create({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] });
  } catch (error) {
    failed = error;
  }
  assert.instance(failed, OpenAI.APIError);
  assert.is((failed as InstanceType<typeof OpenAI.APIError>).status, 503);
  assert.match((failed as Error).message, /gemini is down \(interlingua tried: anthropic 503 \w+, anthropic 503 \w+, openai 503 \w+, openai 503 \w+, gemini 503 \w+, gemini 503 \w+\)/);
});

test('the route deadline: a stalled primary is given up at the deadline, with a 504 in the caller format', async (context) => {
  context.anthropic.script = [{ kind: 'stall' }];
  const started = Date.now();
  let failed: unknown;
  try {
    await anthropicClient(context).messages.create({ model: 'slow-claude', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
  } catch (error) {
    failed = error;
  }
  const elapsed = Date.now() - started;
  assert.instance(failed, Anthropic.APIError);
  assert.is((failed as InstanceType<typeof Anthropic.APIError>).status, 504);
  assert.match((failed as Error).message, /deadline of 300 ms \(tried: anthropic cancelled\)/);
  assert.ok(elapsed >= 290 && elapsed < 2000, `answered at the deadline (${elapsed} ms)`);
});

test('a strict route refuses a lossy conversion with a 400 listing the losses, and calls nobody', async (context) => {
  const before = counts(context);
  let failed: unknown;
  try {
    await anthropicClient(context).messages.create({ ...LOSSY, model: 'strict-gpt' });
  } catch (error) {
    failed = error;
  }
  assert.instance(failed, Anthropic.BadRequestError);
  assert.match((failed as Error).message, /strict mode: converting this request to openai-chat would lose this: dropped_field at \/generation\/stop: Chat Completions takes at most 4 stop sequences/);
  assert.equal(counts(context), before);
});

test('one route of one target tried once (what the one-upstream flags build): the proxy reads the body, the log still has route and attempt', async (context) => {
  const logs: ProxyLogEntry[] = [];
  const gateway = createGateway({
    upstreams: { openai: { format: 'openai-chat', url: context.openai.upstream.url, key: 'k' } },
    routes: [{ match: '*', targets: [{ upstream: 'openai', model: 'gpt-5-nano' }] }],
    retry: { attempts: 1 },
    maxBodyBytes: 2000,
    fetch: createNodeFetch(),
    log: (entry) => logs.push(entry),
  });
  const ask = (content: string) =>
    gateway(new Request('http://gateway/v1/messages', { method: 'POST', headers: { 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content }] }) }));
  const answer = await ask('hi');
  assert.is(answer.status, 200);
  assert.is(answer.headers.get('x-interlingua-upstream'), 'openai');
  assert.is((JSON.parse(context.openai.upstream.requests.at(-1)!.body) as Record<string, unknown>)['model'], 'gpt-5-nano');
  assert.equal([logs[0]?.route, logs[0]?.model, logs[0]?.upstreamModel, logs[0]?.upstreamName, logs[0]?.attempts?.map((attempt) => [attempt.upstream, attempt.status, attempt.model])], ['*', 'claude-test', 'gpt-5-nano', 'openai', [['openai', 200, 'gpt-5-nano']]]);
  context.openai.script = [{ kind: 'status', status: 429, body: vendorErrorBody('openai-chat', 429, 'slow down') }];
  const limited = await ask('hi');
  assert.is(limited.status, 429, 'tried once: the 429 goes back as it came');
  assert.equal(logs[1]?.attempts?.map((attempt) => [attempt.status, attempt.failure]), [[429, 'rate_limit']]);
  const large = await ask('x'.repeat(3000));
  assert.is(large.status, 413);
  assert.is(((await large.json()) as { type: string }).type, 'error', 'in the caller format');
});

test('a model no route serves: a 404 in the caller format naming what is served; probes and unknown paths', async (context) => {
  let failed: unknown;
  try {
    await openaiClient(context).chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] });
  } catch (error) {
    failed = error;
  }
  assert.instance(failed, OpenAI.NotFoundError);
  assert.match((failed as Error).message, /no route of this gateway serves the model "llama3\.2"; it serves slow-claude, strict-gpt, gemini-2\.0-flash, claude-\*, gpt-\*/);
  const ollama = await fetch(`${context.url}/api/pull`, { method: 'POST', body: '{}' });
  assert.is(ollama.status, 404);
  assert.equal(Object.keys((await ollama.json()) as object), ['error'], 'Ollama error shape for /api/*');
  let ollamaError: unknown;
  try {
    await new Ollama({ host: context.url }).show({ model: 'x' });
  } catch (error) {
    ollamaError = error;
  }
  assert.match(String((ollamaError as Error).message), /no LLM endpoint at \/api\/show/, 'the ollama client shows the message, not [object Object]');
  for (const path of ['/', '/api/hello', '/v1/messages']) assert.is((await fetch(`${context.url}${path}`, { method: 'HEAD' })).status, 200, `HEAD ${path}`);
  assert.equal(await (await fetch(`${context.url}/healthz`)).json(), { status: 'ok' });
  const ready = (await (await fetch(`${context.url}/readyz`)).json()) as { status: string; upstreams: Record<string, { up: boolean }>; models: number };
  assert.equal([ready.status, Object.keys(ready.upstreams), ready.models], ['ready', ['anthropic', 'openai', 'gemini'], 3]);
});

test.run();
