/**
 * `interlingua serve --config FILE` as users run it (the built CLI in a
 * child process): every official SDK's `models.list()` reads the configured
 * models in its own shape, a local model reaches the Ollama upstream that
 * lists it, start-up says its warnings out loud, and a mistake in the file
 * stops it with the line.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import { GOLDEN_DIR, readJson, REPO_ROOT } from '../support/fixtures.ts';
import { startUpstream, type FakeUpstream } from '../support/strict/index.ts';
import { startScriptedVendor, type ScriptedVendor } from '../support/corpus-vendors.ts';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

interface Context {
  directory: string;
  anthropic: ScriptedVendor;
  ollama: FakeUpstream;
  child: ChildProcess;
  url: string;
  stderr: string;
}

const test = suite<Context>('gateway: interlingua serve --config');

function configText(context: Context): string {
  return `# The commonest case: Claude to Anthropic (then OpenAI), GPT to OpenAI, local models to Ollama.
upstreams:
  anthropic: { format: anthropic, url: ${context.anthropic.upstream.url}, key: "\${TEST_GATEWAY_ANTHROPIC_KEY}", models: [claude-test-1] }
  openai:    { format: openai-chat, url: http://127.0.0.1:9/v1 }
  local:     { format: ollama, url: ${context.ollama.url}, models: [llama3.2, qwen3] }
  google:    { format: gemini, url: http://127.0.0.1:9, key: g, models: [gemini-2.0-flash] }
routes:
  - match: "claude-*"
    targets:
      - upstream: anthropic
      - upstream: openai
        model: gpt-5-nano
  - match: gpt-4o
    targets: [{ upstream: openai }]
`;
}

test.before(async (context) => {
  context.directory = mkdtempSync(join(tmpdir(), 'interlingua-gateway-'));
  context.anthropic = await startScriptedVendor('anthropic');
  context.ollama = await startUpstream('ollama');
  context.ollama.behaviour = { kind: 'answer', body: readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', 'ollama.response.json')) };
  const file = join(context.directory, 'gateway.yaml');
  writeFileSync(file, configText(context));
  context.stderr = '';
  context.child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TEST_GATEWAY_ANTHROPIC_KEY: 'sk-ant-from-env' } });
  context.url = await new Promise<string>((resolve, reject) => {
    context.child.stderr!.on('data', (chunk: Buffer) => {
      context.stderr += chunk.toString();
      const match = /listening on (http:\/\/[^ ]+)/.exec(context.stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    context.child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${context.stderr}`)));
  });
});

test.after(async (context) => {
  context.child.kill();
  await Promise.all([context.anthropic.upstream.close(), context.ollama.close()]);
  rmSync(context.directory, { recursive: true, force: true });
});

const EXPECTED = ['gpt-4o', 'claude-test-1', 'llama3.2', 'qwen3', 'gemini-2.0-flash'];

test('start-up names the upstreams and warns of the one without a key', (context) => {
  assert.match(context.stderr, /proxy listening on http:\/\/127\.0\.0\.1:\d+ → 4 upstreams \(anthropic, openai, local, google\), 2 routes/);
  assert.match(context.stderr, /warning: upstream "openai" \(openai-chat\) has no key/);
  assert.not.match(context.stderr, /upstream "anthropic" .*has no key/, 'the key came from the environment');
});

test('OpenAI models.list(): the OpenAI list shape', async (context) => {
  const models = [];
  for await (const model of new OpenAI({ apiKey: 'caller', baseURL: `${context.url}/v1`, maxRetries: 0 }).models.list()) models.push(model);
  assert.equal(models.map((model) => model.id), EXPECTED);
  assert.equal(Object.keys(models[0]!).sort(), ['created', 'id', 'object', 'owned_by']);
  assert.is(models[1]!.owned_by, 'anthropic');
  const one = await new OpenAI({ apiKey: 'caller', baseURL: `${context.url}/v1`, maxRetries: 0 }).models.retrieve('qwen3');
  assert.is(one.owned_by, 'local');
});

test('Anthropic models.list(): its ModelInfo shape, picked by anthropic-version', async (context) => {
  const models = [];
  for await (const model of new Anthropic({ apiKey: 'caller', baseURL: context.url, maxRetries: 0 }).models.list()) models.push(model);
  assert.equal(models.map((model) => model.id), EXPECTED);
  assert.is(models[0]!.type, 'model');
  assert.is(typeof models[0]!.created_at, 'string');
});

test('Gemini models.list(): names under models/', async (context) => {
  const pager = await new GoogleGenAI({ apiKey: 'caller', httpOptions: { baseUrl: context.url } }).models.list();
  const names = [];
  for await (const model of pager) names.push(model.name);
  assert.equal(names, EXPECTED.map((id) => `models/${id}`));
});

test('Ollama list(): /api/tags, and a listed local model reaches the Ollama upstream', async (context) => {
  const ollama = new Ollama({ host: context.url });
  const list = await ollama.list();
  assert.equal(list.models.map((model) => model.name), EXPECTED);
  const reply = await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'Say hello in French.' }], stream: false });
  assert.is(reply.message.content, 'Bonjour !');
  assert.is(context.ollama.received.at(-1)?.body['model'], 'llama3.2');
});

test('a Claude model through the CLI: the key from ${VAR} goes upstream, the answer names the upstream', async (context) => {
  const { data, response } = await new Anthropic({ apiKey: 'caller', baseURL: context.url, maxRetries: 0 }).messages.create({ model: 'claude-test-1', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  assert.is(data.type, 'message');
  assert.is(response.headers.get('x-interlingua-upstream'), 'anthropic');
  assert.is(context.anthropic.upstream.requests.at(-1)?.headers['x-api-key'], 'sk-ant-from-env');
});

test('a mistake in the file stops serve with exit 2, the file and the line', (context) => {
  const file = join(context.directory, 'broken.yaml');
  writeFileSync(file, 'upstreams:\n  openai: { format: openai-chat, url: https://api.openai.com/v1 }\nroutes:\n  - match: "*"\n    targets: [{ upstream: open-ai }]\n');
  const result = spawnSync(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], { encoding: 'utf8', timeout: 20_000 });
  assert.is(result.status, 2);
  assert.match(result.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:\\d+: routes\\[0\\]\\.targets\\[0\\]\\.upstream: no upstream is named "open-ai" \\(did you mean "openai"\\?\\)`));
  const both = spawnSync(process.execPath, [BIN, 'serve', '--config', file, '--upstream', 'anthropic'], { encoding: 'utf8', timeout: 20_000 });
  assert.is(both.status, 2);
  assert.match(both.stderr, /--config names the upstreams; drop --upstream/);
});

test.run();
