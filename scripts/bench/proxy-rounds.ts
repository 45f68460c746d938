/**
 * The proxy's CPU per request in interleaved rounds: the bare Node proxy and
 * `interlingua serve` (the compiled build) loaded in turn at 1,000 req/s,
 * round after round, so that both see the same moments of a shared machine;
 * prints each round, the median per proxy, and the median of each round's
 * ratio to the bare proxy (both loaded within seconds of each other, so a
 * round's ratio cancels most of what the machine's other work does to
 * both). A single run of `npm run bench` moves by ±30% on a busy machine;
 * the median of rounds moves less. One unmeasured round first warms every
 * process up (the first measured round used to be the highest).
 * `--against=DIR` adds another build of interlingua (a copy of `dist/` from
 * another commit, kept inside the checkout so it finds node_modules) to
 * every round, for an A/B of two builds.
 *
 *   npx tsx scripts/bench/proxy-rounds.ts [--rounds=5] [--ingress=anthropic] [--seconds=4] [--against=.dist-base]
 *
 * The upstream is OpenAI Chat for Anthropic ingress and Anthropic otherwise.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { load, start, stop } from './proxy.ts';
import { smallChatBodies } from './workloads.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { rounds: { type: 'string' }, ingress: { type: 'string' }, seconds: { type: 'string' }, against: { type: 'string' } } });
const rounds = Number(values.rounds ?? 5);
const seconds = Number(values.seconds ?? 4);
const ingress = values.ingress === 'openai-chat' ? 'openai-chat' : 'anthropic';
const target = ingress === 'anthropic' ? 'openai-chat' : 'anthropic';
const path = ingress === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
const bodies = smallChatBodies();
const body = bodies.requests[ingress];
if (body === undefined) throw new Error(`no ${ingress} request body`);

const file = join(tmpdir(), `interlingua-rounds-${process.pid}.json`);
writeFileSync(file, JSON.stringify({ responses: bodies.responses }));
const upstream = await start([join(ROOT, 'scripts/bench/upstream-child.mjs'), file], ROOT, /^\{"port":(\d+)\}$/);
const origin = `http://127.0.0.1:${upstream.match[1]}`;
const LISTENING = /proxy listening on http:\/\/127\.0\.0\.1:(\d+)/;
const serveArgs = ['serve', '--upstream', target, '--upstream-url', target === 'openai-chat' ? `${origin}/v1` : origin, '--port', '0'];
const proxies = [
  { name: 'bare Node proxy', process: await start([join(ROOT, 'scripts/bench/floor-proxy-child.mjs'), origin], ROOT, LISTENING) },
  { name: 'interlingua serve', process: await start([join(ROOT, 'dist/cli/main.js'), ...serveArgs], ROOT, LISTENING) },
];
if (values.against !== undefined) proxies.push({ name: `interlingua serve (${values.against})`, process: await start([join(resolve(ROOT, values.against), 'cli/main.js'), ...serveArgs], ROOT, LISTENING) });
const samples = new Map<string, number[]>(proxies.map((proxy) => [proxy.name, []]));
try {
  for (let round = -1; round < rounds; round++) {
    const line: string[] = [];
    // Every other round in the reverse order, so that no proxy always runs right after the same one.
    for (const proxy of round % 2 === 0 ? proxies : [...proxies].reverse()) {
      const url = `http://127.0.0.1:${proxy.process.match[1]}${path}`;
      const result = await load(proxy.name, url, body, { root: ROOT, rate: 1000, connections: 10, warmup: 1, duration: seconds, watch: proxy.process.child.pid! });
      const completed = result.requests - result.non2xx - result.errors;
      const cpu = result.watched.cpu === undefined || completed === 0 ? Number.NaN : (result.watched.cpu / completed) * 1e6;
      // Round −1 only warms up.
      if (round >= 0) samples.get(proxy.name)!.push(cpu);
      line.push(`${proxy.name} ${cpu.toFixed(0)} µs (p50 ${result.p50.toFixed(3)} ms)`);
    }
    process.stdout.write(`${round < 0 ? 'warm-up' : `round ${round + 1}`}: ${line.join(', ')}\n`);
  }
} finally {
  for (const proxy of proxies) await stop(proxy.process.child);
  await stop(upstream.child);
  rmSync(file, { force: true });
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const floors = samples.get('bare Node proxy')!;
for (const [name, values] of samples) {
  const ratios = values.map((value, index) => value / floors[index]!);
  process.stdout.write(`${name}: median ${median(values).toFixed(0)} µs per request (${(median(values) / median(floors)).toFixed(2)}× the bare proxy's median; median of the rounds' ratios ${median(ratios).toFixed(2)}×)\n`);
}
