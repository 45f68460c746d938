/**
 * State that outlives a process: a conversation by `previous_response_id`
 * and one by `conversation` through `interlingua serve --store FILE`, which
 * is stopped and started again between turns; and through two `serve`
 * processes sharing one real Redis (`redis-server` started here), the turns
 * alternating between them. Each backend's tests are skipped with a message
 * where `openStore` cannot open it on this branch, or `redis-server` is not
 * installed. Runs the compiled build (`npm run build` first).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { openStore } from '../../src/node/open-store.ts';
import { startStrictUpstream, type StrictUpstream } from '../support/strict/index.ts';
import { REPO_ROOT } from '../support/fixtures.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const test = suite('state across serve restarts and processes');
const DIR = mkdtempSync(join(tmpdir(), 'interlingua-state-'));
const SCRIPT = [
  { kind: 'text' as const, text: 'First answer.' },
  { kind: 'text' as const, text: 'Second answer.' },
  { kind: 'text' as const, text: 'Third answer.' },
];

/** Why `spec` cannot be opened here, or `undefined` when it can. */
async function unopenable(spec: string): Promise<string | undefined> {
  try {
    const store = await openStore(spec);
    await store.get('interlingua:probe');
    await store.close?.();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Why this branch has no `name` store backend (src/store/<name>.ts, which `openStore` loads), or `undefined`; only that skips, any failure of a backend fails its test. */
function noBackend(name: string): string | undefined {
  return existsSync(join(REPO_ROOT, 'src', 'store', `${name}.ts`)) ? undefined : `src/store/${name}.ts is not on this branch`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Three turns, each through the serve process `which(turn)` gives; the upstream's message counts. */
async function threeTurns(upstream: StrictUpstream, how: 'previous' | 'conversation', serveFor: (turn: number) => Promise<ServeProcess>): Promise<void> {
  let previous: string | undefined;
  let conversation: string | undefined;
  for (const [turn, input] of ['One.', 'Two.', 'Three.'].entries()) {
    const proxy = await serveFor(turn);
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    if (how === 'conversation' && conversation === undefined) conversation = (await client.conversations.create({})).id;
    const chain = how === 'previous' ? (previous === undefined ? {} : { previous_response_id: previous }) : { conversation: conversation as string };
    const response = await client.responses.create({ model: 'gpt-test', input, ...chain });
    previous = response.id;
  }
  assert.equal(upstream.refusals(), []);
  const counts = upstream.received.map((request) => (request.body['messages'] as unknown[]).length);
  assert.equal(counts, [1, 3, 5], 'every turn carries the turns before it');
  assert.ok(JSON.stringify(upstream.received[2]?.body).includes('First answer.'));
}

const upstreamArgs = (upstream: StrictUpstream) => ['--upstream', 'anthropic', '--upstream-url', upstream.url, '--api-key-env', 'STATE_KEY', '--model-map', '*=claude-test'];

const fileMissing = noBackend('file');
if (fileMissing !== undefined) process.stderr.write(`restart.test.ts: the file store cannot be opened on this branch (${fileMissing}); its restart tests are SKIPPED\n`);
const withFile = fileMissing === undefined ? test : test.skip;

for (const how of ['previous', 'conversation'] as const) {
  withFile(`serve --store FILE, restarted between every turn: the ${how === 'previous' ? 'previous_response_id chain' : 'conversation'} continues`, async () => {
    const upstream = await startStrictUpstream({ format: 'anthropic', script: SCRIPT });
    const spec = join(DIR, `restart-${how}.db`);
    let running: ServeProcess | undefined;
    try {
      await threeTurns(upstream, how, async () => {
        await running?.stop();
        running = await startServe([...upstreamArgs(upstream), '--store', spec]);
        return running;
      });
    } finally {
      await running?.stop();
      await upstream.close();
    }
  });
}

const redisInstalled = spawnSync('redis-server', ['--version']).status === 0;
const redisMissing = redisInstalled ? noBackend('redis') : 'redis-server is not installed (Debian: apt-get install redis-server)';
if (redisMissing !== undefined) process.stderr.write(`restart.test.ts: the Redis tests are SKIPPED: ${redisMissing}\n`);
const withRedis = redisMissing === undefined ? test : test.skip;

for (const how of ['previous', 'conversation'] as const) {
  withRedis(`two serve processes sharing one Redis, the turns alternating: the ${how === 'previous' ? 'previous_response_id chain' : 'conversation'} continues`, async () => {
    const port = await freePort();
    const redis: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const upstream = await startStrictUpstream({ format: 'anthropic', script: SCRIPT });
    const spec = `redis://127.0.0.1:${port}`;
    const processes: ServeProcess[] = [];
    try {
      for (let tries = 0; (await unopenable(spec)) !== undefined && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
      processes.push(await startServe([...upstreamArgs(upstream), '--store', spec]), await startServe([...upstreamArgs(upstream), '--store', spec]));
      await threeTurns(upstream, how, async (turn) => processes[turn % 2]!);
    } finally {
      for (const process of processes) await process.stop();
      await upstream.close();
      redis.kill('SIGTERM');
    }
  });
}

test.after(() => rmSync(DIR, { recursive: true, force: true }));

test.run();
