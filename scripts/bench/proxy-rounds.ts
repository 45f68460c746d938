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
 * every round, for an A/B of two builds. `--first-byte=N` first takes the
 * time to the first byte of a streamed answer (the benchmark's 40-event
 * stream, sent whole at once) over N turns, each turn one sequential request
 * straight to the upstream, one through the bare proxy and one through each
 * build (the builds in alternating order), after 30 unmeasured turns; it
 * prints the medians and, with `--against`, the median of the turns'
 * differences between the two builds (`--rounds=0` skips the CPU rounds).
 * `--streamed` loads the CPU rounds with streamed requests (the same
 * 40-event stream), which the bare proxy pipes unconverted. `--otlp` adds
 * this build with telemetry on (`--otlp-endpoint` to a local OTLP/HTTP
 * receiver, scripts/bench/otlp-sink-child.mjs) to every round. `--gateway`
 * adds the gateway's two rows to every round (scripts/bench/gateway-configs.ts):
 * `serve --config` with a routed request, and with a fallback hop (the
 * primary answers 529, the second target answers).
 *
 *   npx tsx scripts/bench/proxy-rounds.ts [--rounds=5] [--ingress=anthropic] [--seconds=4] [--against=.dist-base] [--first-byte=2000] [--streamed] [--otlp] [--gateway]
 *
 * The upstream is OpenAI Chat for Anthropic ingress and Anthropic otherwise.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { firstByte, interleavedCpu, median, start, stop, type RoundSample } from './proxy.ts';
import { smallChatBodies, streamWorkload } from './workloads.ts';
import { gatewayConfigs } from './gateway-configs.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { rounds: { type: 'string' }, ingress: { type: 'string' }, seconds: { type: 'string' }, against: { type: 'string' }, 'first-byte': { type: 'string' }, streamed: { type: 'boolean' }, otlp: { type: 'boolean' }, gateway: { type: 'boolean' } } });
const rounds = Number(values.rounds ?? 5);
const seconds = Number(values.seconds ?? 4);
const ingress = values.ingress === 'openai-chat' ? 'openai-chat' : 'anthropic';
const target = ingress === 'anthropic' ? 'openai-chat' : 'anthropic';
const path = ingress === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
const bodies = smallChatBodies();
const body = bodies.requests[ingress];
if (body === undefined) throw new Error(`no ${ingress} request body`);

const file = join(tmpdir(), `interlingua-rounds-${process.pid}.json`);
writeFileSync(file, JSON.stringify({ responses: bodies.responses, streams: streamWorkload(40).texts }));
const upstream = await start([join(ROOT, 'scripts/bench/upstream-child.mjs'), file], ROOT, /^\{"port":(\d+)\}$/);
const origin = `http://127.0.0.1:${upstream.match[1]}`;
const LISTENING = /proxy listening on http:\/\/127\.0\.0\.1:(\d+)/;
const serveArgs = ['serve', '--upstream', target, '--upstream-url', target === 'openai-chat' ? `${origin}/v1` : origin, '--port', '0'];
const proxies = [
  { name: 'bare Node proxy', process: await start([join(ROOT, 'scripts/bench/floor-proxy-child.mjs'), origin], ROOT, LISTENING) },
  { name: 'interlingua serve', process: await start([join(ROOT, 'dist/cli/main.js'), ...serveArgs], ROOT, LISTENING) },
];
const sink = values.otlp === true ? await start([join(ROOT, 'scripts/bench/otlp-sink-child.mjs')], ROOT, /^\{"port":(\d+)\}$/) : undefined;
if (sink !== undefined) proxies.push({ name: 'interlingua serve, telemetry on', process: await start([join(ROOT, 'dist/cli/main.js'), ...serveArgs, '--otlp-endpoint', `http://127.0.0.1:${sink.match[1]}`], ROOT, LISTENING) });
const configs = values.gateway === true ? gatewayConfigs(target, Number(upstream.match[1])) : undefined;
if (configs !== undefined) {
  proxies.push({ name: 'serve --config, routed', process: await start([join(ROOT, 'dist/cli/main.js'), 'serve', '--config', configs.routed, '--port', '0'], ROOT, LISTENING) });
  proxies.push({ name: 'serve --config, fallback hop', process: await start([join(ROOT, 'dist/cli/main.js'), 'serve', '--config', configs.fallback, '--port', '0'], ROOT, LISTENING) });
}
if (values.against !== undefined) proxies.push({ name: `interlingua serve (${values.against})`, process: await start([join(resolve(ROOT, values.against), 'cli/main.js'), ...serveArgs], ROOT, LISTENING) });
/** The streamed variant of a request body. */
const streamed = (text: string) => JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), stream: true });
const turns = Number(values['first-byte'] ?? 0);
let measured: RoundSample[][] = [];
try {
  if (turns > 0) {
    const upstreamBody = bodies.requests[target];
    if (upstreamBody === undefined) throw new Error(`no ${target} request body`);
    const direct = { name: `direct to the ${target} upstream`, url: `${origin}${target === 'openai-chat' ? '/v1/chat/completions' : '/v1/messages'}`, body: streamed(upstreamBody) };
    const through = proxies.map((proxy) => ({ name: proxy.name, url: `http://127.0.0.1:${proxy.process.match[1]}${path}`, body: streamed(body) }));
    const builds = through.slice(1);
    const times: number[][] = [direct, ...through].map(() => []);
    for (let turn = -30; turn < turns; turn++) {
      const order = [0, 1, ...builds.map((_, index) => 2 + ((index + turn + 30) % builds.length))];
      for (const index of order) {
        const to = index === 0 ? direct : through[index - 1]!;
        const time = await firstByte(to.url, to.body);
        if (turn >= 0) times[index]!.push(time);
      }
    }
    for (const [index, to] of [direct, ...through].entries()) {
      const added = index === 0 ? '' : ` (+${(median(times[index]!) - median(times[0]!)).toFixed(3)} ms over direct)`;
      process.stdout.write(`first byte, ${to.name}: median ${median(times[index]!).toFixed(3)} ms${added}\n`);
    }
    if (builds.length === 2) {
      const differences = times[3]!.map((time, turn) => time - times[2]![turn]!);
      process.stdout.write(`first byte, ${builds[1]!.name} − ${builds[0]!.name}, median of the turns' differences: ${median(differences).toFixed(3)} ms\n`);
    }
  }
  if (rounds > 0) {
    measured = await interleavedCpu(
      proxies.map((proxy) => ({ name: proxy.name, url: `http://127.0.0.1:${proxy.process.match[1]}${path}`, pid: proxy.process.child.pid! })),
      values.streamed === true ? streamed(body) : body,
      { root: ROOT, rate: 1000, connections: 10, rounds, seconds, progress: (line) => process.stdout.write(`${line.trim()}\n`) },
    );
  }
} finally {
  for (const proxy of proxies) await stop(proxy.process.child);
  if (sink !== undefined) await stop(sink.child);
  await stop(upstream.child);
  rmSync(file, { force: true });
  if (configs !== undefined) for (const config of Object.values(configs)) rmSync(config, { force: true });
}
const cpuOf = (rounds: RoundSample[]) => rounds.map((sample) => sample.cpuUs);
for (const [index, rounds] of measured.entries()) {
  const name = proxies[index]!.name;
  const values = cpuOf(rounds);
  const floors = cpuOf(measured[0]!);
  const ratios = values.map((value, index) => value / floors[index]!);
  process.stdout.write(
    `${name}: median ${median(values).toFixed(0)} µs per request (${(median(values) / median(floors)).toFixed(2)}× the bare proxy's median; median of the rounds' ratios ${median(ratios).toFixed(2)}×); p50 ${median(rounds.map((sample) => sample.p50)).toFixed(3)} ms, p99 ${median(rounds.map((sample) => sample.p99)).toFixed(3)} ms (medians of the rounds)\n`,
  );
}
