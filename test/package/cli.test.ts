/** The `interlingua` command: help, detect, convert (bodies and streams), strict mode, bad input and usage mistakes. */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { implementedFormats } from '../../src/formats/registry.ts';
import { REPO_ROOT } from '../support/fixtures.ts';

const BIN = join(REPO_ROOT, 'bin', 'interlingua.js');
const CROSS = join(REPO_ROOT, 'golden', 'cross');

function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { input: input ?? '', encoding: 'utf8', cwd: REPO_ROOT });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const test = suite('cli');

test('--help on the command and on every subcommand', () => {
  const top = run(['--help']);
  assert.is(top.code, 0);
  for (const command of ['convert', 'detect', 'serve']) {
    assert.match(top.stdout, command);
    const help = run([command, '--help']);
    assert.is(help.code, 0, command);
    assert.match(help.stdout, `Usage: interlingua ${command}`);
  }
});

test('--version prints the package version', () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const result = run([flag]);
    assert.is(result.code, 0, flag);
    assert.is(result.stdout, `${version}\n`);
  }
});

test('serve: a port out of range and a port in use are one line each, exit 2, no stack', async () => {
  const range = run(['serve', '--upstream', 'anthropic', '--upstream-url', 'http://127.0.0.1:9', '--pass-through-auth', '--port', '99999']);
  assert.is(range.code, 2);
  assert.is(range.stderr, 'interlingua: --port must be from 0 to 65535, got "99999"\n');
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const busy = run(['serve', '--upstream', 'anthropic', '--upstream-url', 'http://127.0.0.1:9', '--pass-through-auth', '--port', String(port)]);
    assert.is(busy.code, 2);
    assert.match(busy.stderr, `cannot listen on 127.0.0.1:${port}: the port is in use`);
    assert.is(busy.stderr.split('\n').filter(Boolean).length, 1, busy.stderr);
  } finally {
    taken.close();
  }
});

test('convert into a pipe that closes early (| head) ends quietly, whole bodies and streams', async () => {
  const big = JSON.stringify({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(4_000_000) }] });
  const stream = readFileSync(join(REPO_ROOT, 'golden/anthropic/stream-error-overloaded/stream.sse'), 'utf8').repeat(20_000);
  for (const [args, input] of [[['convert', '--from', 'anthropic', '--to', 'openai-chat'], big], [['convert', '--kind', 'stream', '--from', 'anthropic', '--to', 'openai-chat'], stream]] as const) {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', () => child.stdout.destroy());
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.is(code, 0, stderr);
    assert.not.match(stderr, 'EPIPE');
  }
});

test('usage mistakes exit 2 with one line', () => {
  const unknown = run(['frobnicate']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, 'unknown command');
  // A name that an object literal inherits is no command either.
  for (const name of ['constructor', 'toString', '__proto__']) {
    const inherited = run([name]);
    assert.is(inherited.code, 2, name);
    assert.match(inherited.stderr, 'unknown command');
  }
  const badFormat = run(['convert', '--to', 'cohere'], '{}');
  assert.is(badFormat.code, 2);
  assert.is(badFormat.stderr.trim().split('\n').length, 1);
  const badOption = run(['convert', '--bogus']);
  assert.is(badOption.code, 2);
});

test('detect prints the format and kind of a golden file and of stdin', () => {
  const file = run(['detect', join(CROSS, 'plain-chat', 'gemini.request.json')]);
  assert.is(file.code, 0);
  assert.equal(JSON.parse(file.stdout), { format: 'gemini', kind: 'request', certain: true });
  const stdin = run(['detect', '-'], JSON.stringify({ type: 'message', content: [] }));
  assert.equal(JSON.parse(stdin.stdout), { format: 'anthropic', kind: 'response', certain: true });
  const nothing = run(['detect'], '{"hello": 1}');
  assert.is(nothing.code, 2);
  const notJson = run(['detect'], '{"hello": ');
  assert.is(notJson.code, 1);
  assert.match(notJson.stderr, 'invalid_json');
});

const formats = implementedFormats();
if (formats.includes('anthropic') && formats.includes('openai-chat')) {
  test('convert a golden request; losses on stderr; --strict fails on losses', () => {
    const source = join(CROSS, 'parallel-tools', 'anthropic.request.json');
    const result = run(['convert', '--from', 'anthropic', '--to', 'openai-chat', source]);
    assert.is(result.code, 0, result.stderr);
    const body = JSON.parse(result.stdout) as { messages: unknown[] };
    assert.ok(Array.isArray(body.messages));
    const lossy = run(['convert', '--from', 'anthropic', '--to', 'openai-chat', '--strict', join(CROSS, 'thinking', 'anthropic.request.json')]);
    assert.is(lossy.code, 1);
    assert.match(lossy.stderr, 'strict_loss');
    const detected = run(['convert', '--to', 'anthropic', join(CROSS, 'plain-chat', 'openai-chat.response.json')]);
    assert.is(detected.code, 0, detected.stderr);
    assert.is((JSON.parse(detected.stdout) as { type: string }).type, 'message');
  });

  test('convert --kind count-request and count-response: token-counting bodies and answers', () => {
    const body = JSON.stringify({ model: 'claude-test', system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] });
    const request = run(['convert', '--from', 'anthropic', '--to', 'gemini', '--kind', 'count-request', '--model', 'gemini-test'], body);
    assert.is(request.code, 0, request.stderr);
    assert.equal(JSON.parse(request.stdout), {
      generateContentRequest: { model: 'models/gemini-test', systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    });
    const answer = run(['convert', '--from', 'gemini', '--to', 'openai-responses', '--kind', 'count-response'], JSON.stringify({ totalTokens: 12 }));
    assert.is(answer.code, 0, answer.stderr);
    assert.equal(JSON.parse(answer.stdout), { object: 'response.input_tokens', input_tokens: 12 });
    const noFrom = run(['convert', '--to', 'gemini', '--kind', 'count-request'], body);
    assert.is(noFrom.code, 2);
    assert.match(noFrom.stderr, 'needs --from');
    const chat = run(['convert', '--from', 'anthropic', '--to', 'openai-chat', '--kind', 'count-request'], body);
    assert.is(chat.code, 1);
    assert.match(chat.stderr, 'openai-chat has no token-counting endpoint');
  });

  test('bad input exits 1 with the pointer of the offending value', () => {
    const result = run(['convert', '--from', 'anthropic', '--to', 'openai-chat', '--kind', 'request'], JSON.stringify({ model: 'm', max_tokens: 5, messages: 'hello' }));
    assert.is(result.code, 1);
    assert.match(result.stderr, '/messages');
    assert.is(result.stderr.trim().split('\n').length, 1);
  });
}

test.run();
