/**
 * State in the gateway and in `interlingua serve`: one store shared by every
 * upstream, so a chain started on Anthropic goes on through a fallback to
 * Gemini with the whole history in Gemini's format; the reasoning state
 * Anthropic issued is not Gemini's, and is reported lost rather than sent.
 * `serve --store memory` keeps a conversation for the openai client;
 * `--store` with a spec it cannot open is a usage error, and without
 * `--store` no state is kept. Runs the compiled build for `serve`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { createGateway } from '../../src/gateway/gateway.ts';
import { serve, portOf } from '../../src/node/server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { REPO_ROOT } from '../support/fixtures.ts';
import { startStrictUpstream } from '../support/strict/index.ts';
import { startServe } from './serve-process.ts';

const test = suite('state through the gateway and serve');
const BIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

test('a chain crosses a fallback from Anthropic to Gemini: Gemini receives the whole history, and the reasoning state it cannot take is a loss', async () => {
  const anthropic = await startStrictUpstream({
    format: 'anthropic',
    script: [
      { kind: 'text', text: 'Order A-18 is on its way.', reasoning: 'The order was looked up.' },
      { kind: 'error', status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
    ],
  });
  const gemini = await startStrictUpstream({ format: 'gemini', script: [{ kind: 'text', text: 'It should arrive on Thursday.' }] });
  const logged: { losses?: unknown; lossCodes?: string[] }[] = [];
  const gateway = createGateway({
    upstreams: { claude: { format: 'anthropic', url: anthropic.url, key: 'anthropic-key' }, gemini: { format: 'gemini', url: gemini.url, key: 'gemini-key' } },
    routes: [{ match: '*', targets: [{ upstream: 'claude', model: 'claude-test' }, { upstream: 'gemini', model: 'gemini-test' }], retry: { attempts: 1 } }],
    store: createMemoryStore(),
    fetch: createNodeFetch(),
    log: (entry) => logged.push(entry as never),
  });
  const server = await serve(gateway, { port: 0 });
  try {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `http://127.0.0.1:${portOf(server)}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-test', input: 'Where is order A-18?', reasoning: { effort: 'high' } });
    assert.ok(first.output.some((item) => item.type === 'reasoning'), 'the Anthropic answer carries its reasoning');
    const second = await client.responses.create({ model: 'gpt-test', previous_response_id: first.id, input: 'When will it arrive?' });
    assert.equal(second.output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')) : [])).join(''), 'It should arrive on Thursday.');
    assert.equal(gemini.refusals(), []);
    const contents = gemini.received[0]?.body['contents'] as { role: string; parts: { text?: string; thought?: boolean }[] }[];
    assert.equal(contents.map((content) => content.role), ['user', 'model', 'user']);
    assert.equal(contents[1]?.parts.filter((part) => part.thought !== true).map((part) => part.text), ['Order A-18 is on its way.']);
    assert.ok(!JSON.stringify(contents).includes('interlingua.1'), 'no wrapped Anthropic signature goes to Gemini');
    assert.ok(logged.some((entry) => (entry.lossCodes ?? []).some((code) => /reasoning|unsupported_part/.test(code))), `the lost reasoning is reported: ${JSON.stringify(logged.map((entry) => entry.lossCodes))}`);
    const fetched = await client.responses.retrieve(second.id);
    assert.equal(fetched.previous_response_id, first.id);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await anthropic.close();
    await gemini.close();
  }
});

test('serve --store memory: a conversation by previous_response_id through the real process', async () => {
  const upstream = await startStrictUpstream({ format: 'anthropic', script: [{ kind: 'text', text: 'First.' }, { kind: 'text', text: 'Second.' }] });
  const proxy = await startServe(['--upstream', 'anthropic', '--upstream-url', upstream.url, '--api-key-env', 'STATE_KEY', '--model-map', '*=claude-test', '--store', 'memory', '--store-ttl', '3600']);
  try {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'gpt-test', input: 'One.' });
    await client.responses.create({ model: 'gpt-test', previous_response_id: first.id, input: 'Two.' });
    const messages = upstream.received[1]?.body['messages'] as unknown[];
    assert.equal(messages.length, 3, 'the second turn carries the first');
    assert.equal(upstream.refusals(), []);
  } finally {
    await proxy.stop();
    await upstream.close();
  }
});

test('serve --config with store: memory in the file: the chain goes on through the gateway', async () => {
  const upstream = await startStrictUpstream({ format: 'ollama', script: [{ kind: 'text', text: 'First.' }, { kind: 'text', text: 'Second.' }] });
  const directory = mkdtempSync(join(tmpdir(), 'interlingua-gateway-state-'));
  const file = join(directory, 'gateway.yaml');
  writeFileSync(file, `upstreams:\n  local:\n    format: ollama\n    url: ${upstream.url}\n    models: [llama-test]\nstore: memory\nstoreTtlSeconds: 600\n`);
  const proxy = await startServe(['--config', file]);
  try {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'llama-test', input: 'One.' });
    await client.responses.create({ model: 'llama-test', previous_response_id: first.id, input: 'Two.' });
    assert.equal(upstream.refusals(), []);
    assert.equal((upstream.received[1]?.body['messages'] as unknown[]).length, 3);
  } finally {
    await proxy.stop();
    await upstream.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('serve: a store spec it cannot open, and --store-ttl without --store, are usage errors', async () => {
  for (const [args, said] of [
    [['--store', 'mongodb://nowhere'], /--store mongodb:\/\/nowhere/],
    [['--store-ttl', '60'], /--store-ttl .*needs a store/],
  ] as const) {
    const child = spawn(process.execPath, [BIN, 'serve', '--upstream', 'anthropic', '--upstream-url', 'http://127.0.0.1:9', '--port', '0', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 2, stderr);
    assert.match(stderr, said);
    assert.not.match(stderr, /\n\s+at /, 'no stack trace');
  }
});

test.run();
