/**
 * Instructions per request of `interlingua serve`, counted by callgrind
 * (valgrind), which a loaded machine does not move the way it moves CPU
 * time: the build's serve runs under `valgrind --tool=callgrind` with
 * instrumentation off, takes `--warm` seconds of requests at `--rate` (so
 * the JIT has settled), then callgrind is switched on for `--measure`
 * seconds and its counters dumped; the count divided by the requests
 * answered is printed as one JSON line. For an A/B, run it once per build
 * (`--dist=DIR`: another commit's `dist/`, inside a checkout that has
 * node_modules). `node --single-threaded` keeps the garbage collector and
 * the compiler on the counted thread, so repeated runs agree to about 1%.
 * Skips with a message when valgrind is not installed.
 *
 *   npx tsx scripts/bench/proxy-instructions.ts [--dist=dist] [--streamed] [--ingress=openai-chat] [--rate=200] [--warm=20] [--measure=4]
 *
 * The upstream is OpenAI Chat for Anthropic ingress and Anthropic otherwise.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { load, start, stop } from './proxy.ts';
import { smallChatBodies, streamWorkload } from './workloads.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { dist: { type: 'string' }, streamed: { type: 'boolean' }, ingress: { type: 'string' }, rate: { type: 'string' }, warm: { type: 'string' }, measure: { type: 'string' } } });
if (spawnSync('valgrind', ['--version']).error !== undefined) {
  process.stdout.write('skipped: valgrind is not installed (apt-get install valgrind)\n');
  process.exit(0);
}
const dist = resolve(ROOT, values.dist ?? 'dist');
const ingress = values.ingress === 'openai-chat' ? 'openai-chat' : 'anthropic';
const target = ingress === 'anthropic' ? 'openai-chat' : 'anthropic';
const path = ingress === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
const rate = Number(values.rate ?? 200);
const bodies = smallChatBodies();
const plain = bodies.requests[ingress];
if (plain === undefined) throw new Error(`no ${ingress} request body`);
const body = values.streamed === true ? JSON.stringify({ ...(JSON.parse(plain) as Record<string, unknown>), stream: true }) : plain;

const scratch = join(tmpdir(), `interlingua-instructions-${process.pid}`);
writeFileSync(`${scratch}.json`, JSON.stringify({ responses: bodies.responses, streams: streamWorkload(40).texts }));
const upstream = await start([join(ROOT, 'scripts/bench/upstream-child.mjs'), `${scratch}.json`], ROOT, /^\{"port":(\d+)\}$/);
const origin = `http://127.0.0.1:${upstream.match[1]}`;
const serveArgs = ['serve', '--upstream', target, '--upstream-url', target === 'openai-chat' ? `${origin}/v1` : origin, '--port', '0'];
const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${scratch}.out`, process.execPath, '--single-threaded', join(dist, 'cli/main.js'), ...serveArgs], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
try {
  const port = await new Promise<string>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error('serve did not start under valgrind in 120 s')), 120_000);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        const match = /proxy listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
        if (match === null) return;
        clearTimeout(timer);
        resolvePort(match[1]!);
      });
    }
  });
  const url = `http://127.0.0.1:${port}${path}`;
  await load('warm-up', url, body, { root: ROOT, rate, connections: 4, warmup: 0, duration: Number(values.warm ?? 20) });
  execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
  const measured = await load('measured', url, body, { root: ROOT, rate, connections: 4, warmup: 0, duration: Number(values.measure ?? 4) });
  execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
  const answered = measured.requests - measured.errors - measured.non2xx;
  let instructions = 0;
  for (const name of readdirSync(tmpdir()).filter((file) => file.startsWith(`${scratch.slice(tmpdir().length + 1)}.out.`))) {
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(tmpdir(), name), 'utf8'));
    if (totals !== null) instructions += Number(totals[1]);
  }
  process.stdout.write(`${JSON.stringify({ dist, ingress, streamed: values.streamed === true, requests: measured.requests, answered, instructionsPerRequest: Math.round(instructions / answered) })}\n`);
} finally {
  await stop(child);
  await stop(upstream.child);
  for (const name of readdirSync(tmpdir()).filter((file) => file.startsWith(scratch.slice(tmpdir().length + 1)))) rmSync(join(tmpdir(), name), { force: true });
}
