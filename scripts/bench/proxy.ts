/**
 * Proxy overhead: a fake upstream on 127.0.0.1 that answers at once, loaded
 * at a fixed rate directly and through each proxy (`interlingua serve` as a
 * child process, as users run it, the bare Node proxy, the peers). The load
 * generator is a child process of its own (load-child.mjs: open loop,
 * keep-alive node:http, hrtime per request), so the benchmark's heap and its
 * collections never stall it. Peak RSS and CPU time of the proxy come from
 * /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { createServer, type AddressInfo } from 'node:net';
import { Agent, request as httpRequest } from 'node:http';
import type { FormatId } from '../../src/core/ir.ts';
import { gatewayConfigs } from './gateway-configs.ts';

/** One load run. */
export interface LoadResult {
  label: string;
  url: string;
  /** Requests per second completed (2xx and others). */
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Latency percentiles in ms. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** One proxy measured in a scenario: the TCP relay (a reference below the floor), the floor, interlingua, or a peer. */
export interface ProxyRun {
  name: string;
  kind: 'relay' | 'floor' | 'interlingua' | 'telemetry' | 'peer';
  /** How it was run (command, headers), for the report. */
  how: string;
  /** Why there is no measurement, where there is none. */
  skipped?: string;
  load?: LoadResult;
  /** Peak RSS of the proxy process (VmHWM), bytes; undefined where /proc is missing. */
  peakRss?: number;
  /** CPU time the proxy used during the measured run, as a share of one core. */
  cpuShare?: number;
  /** CPU time of the proxy process per completed request, µs (all threads). */
  cpuPerRequestUs?: number;
  /** Time to the first byte of a streamed answer, median of sequential requests, ms (interlingua; the bare proxy piping the upstream's stream in the ingress format; the TCP relay relaying the upstream's own). */
  firstByteMs?: number;
}

/** One scenario: the upstream called directly, then each proxy in front of it, in the same run. */
export interface ProxyScenario {
  title: string;
  ingress: FormatId;
  upstream: FormatId;
  direct: LoadResult;
  /** Time to the first byte of a streamed answer straight from the upstream, median of sequential requests, ms (taken in turn with the bare proxy's and interlingua's). */
  directFirstByteMs?: number;
  runs: ProxyRun[];
  /** CPU per request of the bare proxy and interlingua in interleaved rounds (see {@link cpuRounds}). */
  rounds?: CpuRounds;
  /** The same for streamed answers (the 40-event stream): the bare proxy pipes it unconverted, interlingua converts it. */
  streamRounds?: CpuRounds;
  /** The gateway's rows, CPU per request in the same rounds as {@link rounds} (scripts/bench/gateway-configs.ts): a routed request and a fallback hop. */
  gatewayRounds?: { routedUs: number[]; fallbackUs: number[] };
}

/** CPU per request, µs, of the bare proxy and `interlingua serve` loaded in turn, round after round, with each round's latency percentiles (ms). */
export interface CpuRounds {
  floorUs: number[];
  interlinguaUs: number[];
  floorP50: number[];
  floorP99: number[];
  interlinguaP50: number[];
  interlinguaP99: number[];
  /** `interlingua serve` with telemetry on (OTLP/HTTP export to a local receiver), loaded in the same rounds. */
  telemetryUs?: number[];
  /** Measured seconds per proxy and round (after a second of warm-up). */
  seconds: number;
}

/** One proxy's measurement in one round of {@link interleavedCpu}. */
export interface RoundSample {
  /** CPU per completed request, µs. */
  cpuUs: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The median of each round's ratio interlingua ÷ bare proxy. */
export function roundsRatio(rounds: CpuRounds): number {
  return median(rounds.interlinguaUs.map((value, index) => value / rounds.floorUs[index]!));
}

/** The median of each round's ratio interlingua with telemetry on ÷ bare proxy, and ÷ interlingua with it off; none without telemetry rounds. */
export function telemetryRatios(rounds: CpuRounds): { floor: number; off: number } | undefined {
  const on = rounds.telemetryUs;
  if (on === undefined || on.length === 0) return undefined;
  return { floor: median(on.map((value, index) => value / rounds.floorUs[index]!)), off: median(on.map((value, index) => value / rounds.interlinguaUs[index]!)) };
}

/** Options of {@link runProxy}. */
export interface ProxyOptions {
  root: string;
  /** Measured seconds per run. */
  duration: number;
  /** Warm-up seconds before each measured run. */
  warmup: number;
  /** Target requests per second. */
  rate: number;
  connections: number;
  /** Request bodies by format (wire JSON text). */
  requests: Partial<Record<FormatId, string>>;
  /** Upstream response bodies by format (wire JSON text). */
  responses: Partial<Record<FormatId, string>>;
  /** Upstream SSE texts by format, for requests that ask for a stream (time to first byte). */
  streams?: Partial<Record<FormatId, string>>;
  /** Also run the peers (Portkey's gateway, @musistudio/llms) where installed; default true. */
  peers?: boolean;
  /** Interleaved CPU rounds per scenario (bare proxy and interlingua in turn); 0 for none. Default 5. */
  rounds?: number;
  /** Measured seconds per proxy and round; default 3. */
  roundSeconds?: number;
  /** Interleaved CPU rounds of streamed answers per scenario (with `streams`); 0 for none. Default 3. */
  streamRounds?: number;
  progress?: (line: string) => void;
}

const PATHS: Record<FormatId, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  gemini: '/v1beta/models/bench-model:generateContent',
  ollama: '/api/chat',
  'bedrock-converse': '/model/bench-model/converse',
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** What a load run measured of the process under load (the proxy), between the start and the end of the measured part. */
interface Watched {
  /** CPU seconds the watched process used. */
  cpu?: number;
  /** Wall seconds. */
  elapsed: number;
}

/**
 * Load `url` with POSTs of `body` at a fixed rate, from a child process
 * (scripts/bench/load-child.mjs: open loop, keep-alive node:http, hrtime per
 * request), after `warmup` seconds of the same load. When `watch` names a
 * process, its CPU time is read from /proc at the start and the end of the
 * measured part.
 */
export async function load(
  label: string,
  url: string,
  body: string,
  options: { duration: number; warmup: number; rate: number; connections: number; headers?: Record<string, string>; root: string; watch?: number },
): Promise<LoadResult & { watched: Watched }> {
  const settings = { url, body, headers: options.headers ?? {}, rate: options.rate, connections: options.connections, warmup: options.warmup, duration: options.duration, timeout: 10 };
  const child = spawn(process.execPath, [join(options.root, 'scripts/bench/load-child.mjs'), JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let cpuBefore: number | undefined;
  let started = 0n;
  const result = await new Promise<{ requests: number; non2xx: number; errors: number; timeouts: number; seconds: number; p50: number; p90: number; p99: number; max: number }>((resolve, reject) => {
    let settled = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { phase?: string };
      if (message.phase === 'measure') {
        started = process.hrtime.bigint();
        if (options.watch !== undefined) cpuBefore = cpuSeconds(options.watch);
        return;
      }
      settled = true;
      resolve(message as never);
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`the load generator exited with ${code} before its result`));
    });
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = options.watch === undefined ? undefined : cpuSeconds(options.watch);
  const watched: Watched = cpuBefore === undefined || cpuAfter === undefined ? { elapsed } : { elapsed, cpu: cpuAfter - cpuBefore };
  return {
    label,
    url,
    rps: result.requests / (result.seconds || options.duration),
    requests: result.requests,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.p50,
    p90: result.p90,
    p99: result.p99,
    max: result.max,
    watched,
  };
}

/** Spawn `node ARGS` and wait for the first line matching `ready` on stdout or stderr; the rest of the output is drained. */
export function start(args: string[], cwd: string, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let done = false;
    let log = '';
    const timer = setTimeout(() => fail(new Error(`${args.join(' ')} did not start in 30 s:\n${log}`)), 30_000);
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const watch = (stream: NodeJS.ReadableStream) => {
      createInterface({ input: stream }).on('line', (line) => {
        if (done) return;
        if (log.length < 4000) log += `${line}\n`;
        const match = ready.exec(line);
        if (match !== null) {
          done = true;
          clearTimeout(timer);
          resolve({ child, match });
        }
      });
    };
    watch(child.stdout!);
    watch(child.stderr!);
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code}:\n${log}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function procStatus(pid: number, field: string): number | undefined {
  const file = `/proc/${pid}/status`;
  if (!existsSync(file)) return undefined;
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return undefined;
  const fields = readFileSync(file, 'utf8').replace(/^.*\) /s, '').split(' ');
  // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / 100;
}

const firstByteAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Time from sending a POST of `body` to the first byte of the answer, ms. */
export function firstByte(url: string, body: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = process.hrtime.bigint();
    let first: number | undefined;
    const request = httpRequest(url, { method: 'POST', agent: firstByteAgent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.on('data', () => {
        first ??= Number(process.hrtime.bigint() - started) / 1e6;
      });
      response.on('end', () => resolve(first ?? Number.NaN));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * The median time to the first byte of each target, over `count`
 * sequential requests taken in turn (one to each target, again and again,
 * after a few unmeasured turns), so that every target sees the same moments
 * of a shared machine.
 */
async function firstBytes(targets: readonly { url: string; body: string }[], count: number): Promise<number[]> {
  const times: number[][] = targets.map(() => []);
  for (let turn = -FIRST_BYTE_WARMUP; turn < count; turn++) {
    for (const [index, target] of targets.entries()) {
      const time = await firstByte(target.url, target.body);
      if (turn >= 0) times[index]!.push(time);
    }
  }
  return times.map((values) => percentile([...values].sort((a, b) => a - b), 50));
}

/** A proxy process to load in {@link interleavedCpu}. */
export interface LoadedProxy {
  name: string;
  url: string;
  pid: number;
}

/**
 * Proxies loaded in turn at `rate`, round after round (one unmeasured round
 * first), each round's CPU per request of each read from /proc: the
 * microseconds per request of every measured round, per proxy in the order
 * given, with the latency percentiles of the same runs. They see the same
 * moments of a shared machine, so a round's ratio
 * cancels most of what other work does to all of them (every other round
 * runs them in the reverse order, so that none always runs right after the
 * same one); a single run of each, one after the other, moves by ±30% on a
 * busy machine.
 */
export async function interleavedCpu(
  proxies: readonly LoadedProxy[],
  body: string,
  options: { root: string; rate: number; connections: number; rounds: number; seconds: number; progress?: (line: string) => void },
): Promise<RoundSample[][]> {
  const samples: RoundSample[][] = proxies.map(() => []);
  const order = proxies.map((_, index) => index);
  for (let round = -1; round < options.rounds; round++) {
    const line: string[] = [];
    for (const index of round % 2 === 0 ? order : [...order].reverse()) {
      const proxy = proxies[index]!;
      const measured = await load(proxy.name, proxy.url, body, { root: options.root, rate: options.rate, connections: options.connections, warmup: 1, duration: options.seconds, watch: proxy.pid });
      const completed = measured.requests - measured.non2xx - measured.errors;
      const cpu = measured.watched.cpu === undefined || completed === 0 ? Number.NaN : (measured.watched.cpu / completed) * 1e6;
      if (round >= 0) samples[index]!.push({ cpuUs: cpu, p50: measured.p50, p99: measured.p99 });
      line.push(`${proxy.name} ${cpu.toFixed(0)} µs (p50 ${measured.p50.toFixed(3)} ms)`);
    }
    options.progress?.(`  ${round < 0 ? 'warm-up round' : `round ${round + 1}`}: ${line.join(', ')}`);
  }
  return samples;
}

/** The bare proxy and `interlingua serve` (and the same with telemetry on, when given) in {@link interleavedCpu} rounds. */
export async function cpuRounds(
  proxies: { floor: { url: string; pid: number }; interlingua: { url: string; pid: number }; telemetry?: { url: string; pid: number } },
  body: string,
  options: { root: string; rate: number; connections: number; rounds: number; seconds: number; progress?: (line: string) => void },
): Promise<CpuRounds> {
  const [floor, ours, telemetry] = (await interleavedCpu(
    [
      { name: 'bare proxy', ...proxies.floor },
      { name: 'interlingua', ...proxies.interlingua },
      ...(proxies.telemetry === undefined ? [] : [{ name: 'interlingua, telemetry on', ...proxies.telemetry }]),
    ],
    body,
    options,
  )) as [RoundSample[], RoundSample[], RoundSample[] | undefined];
  return {
    ...(telemetry === undefined ? {} : { telemetryUs: telemetry.map((sample) => sample.cpuUs) }),
    floorUs: floor.map((sample) => sample.cpuUs),
    interlinguaUs: ours.map((sample) => sample.cpuUs),
    floorP50: floor.map((sample) => sample.p50),
    floorP99: floor.map((sample) => sample.p99),
    interlinguaP50: ours.map((sample) => sample.p50),
    interlinguaP99: ours.map((sample) => sample.p99),
    seconds: options.seconds,
  };
}

/** The streamed variant of a request body: `"stream": true` (Gemini says it in the path instead). */
function streamedBody(format: FormatId, body: string): string {
  if (format === 'gemini') return body;
  return JSON.stringify({ ...(JSON.parse(body) as Record<string, unknown>), stream: true });
}

/** A free TCP port on 127.0.0.1 (for servers that take a fixed port). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** How to start one proxy in front of the upstream and call it. */
interface ProxySpec {
  name: string;
  kind: ProxyRun['kind'];
  how: string;
  /** Why it cannot run here (not installed, no such route), instead of the rest. */
  skipped?: string;
  args?: () => Promise<string[]>;
  ready?: RegExp;
  /** The URL to load, given the port the proxy printed (or was given). */
  url?: (port: number) => string;
  headers?: Record<string, string>;
  /** The port when the proxy takes a fixed one instead of printing it. */
  port?: number;
  /** The request body as this proxy wants it (a model name that picks the upstream). */
  body?: (body: string) => string;
}

/** Sequential streamed requests to each target for the time to first byte, and unmeasured ones before them. */
const FIRST_BYTE_REQUESTS = 200;
const FIRST_BYTE_WARMUP = 20;

const LISTENING = /proxy listening on http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * The proxies measured in a scenario: the TCP relay (the upstream's own
 * request, `upstreamBody`, relayed as bytes), the bare Node floor,
 * interlingua serve, and the peers that can take this route.
 */
async function specsFor(root: string, ingress: FormatId, target: FormatId, upstreamPort: number, upstreamBody: string, peers: boolean, otlpUrl?: string): Promise<ProxySpec[]> {
  const upstreamBase = target === 'openai-chat' ? `http://127.0.0.1:${upstreamPort}/v1` : `http://127.0.0.1:${upstreamPort}`;
  const specs: ProxySpec[] = [
    {
      name: 'TCP relay (reads no HTTP; a reference below the floor)',
      kind: 'relay',
      how: `scripts/bench/relay-child.mjs: node:net, a connection to the upstream per caller connection, bytes piped both ways; the caller sends the ${target} request the direct row sends`,
      args: async () => [join(root, 'scripts/bench/relay-child.mjs'), `http://127.0.0.1:${upstreamPort}`],
      ready: LISTENING,
      url: (port) => `http://127.0.0.1:${port}${PATHS[target]}`,
      body: () => upstreamBody,
    },
    {
      name: 'bare Node proxy (floor)',
      kind: 'floor',
      how: 'scripts/bench/floor-proxy-child.mjs: node:http in, JSON.parse + JSON.stringify of request and response, node:http keep-alive out, no conversion',
      args: async () => [join(root, 'scripts/bench/floor-proxy-child.mjs'), `http://127.0.0.1:${upstreamPort}`],
      ready: LISTENING,
      // The floor forwards the path it got, so the upstream answers in the ingress format: parse and re-serialise only.
      url: (port) => `http://127.0.0.1:${port}${PATHS[ingress]}`,
    },
    {
      name: 'interlingua serve',
      kind: 'interlingua',
      how: `node dist/cli/main.js serve --upstream ${target} --upstream-url ${upstreamBase}`,
      args: async () => [join(root, 'dist/cli/main.js'), 'serve', '--upstream', target, '--upstream-url', upstreamBase, '--port', '0'],
      ready: LISTENING,
      url: (port) => `http://127.0.0.1:${port}${PATHS[ingress]}`,
    },
  ];
  if (otlpUrl !== undefined) {
    specs.push({
      name: 'interlingua serve, telemetry on (OTLP/HTTP export)',
      kind: 'telemetry',
      how: `node dist/cli/main.js serve --upstream ${target} --upstream-url ${upstreamBase} --otlp-endpoint ${otlpUrl} (scripts/bench/otlp-sink-child.mjs receives: a span per request and per attempt, batched; metrics every 60 s)`,
      args: async () => [join(root, 'dist/cli/main.js'), 'serve', '--upstream', target, '--upstream-url', upstreamBase, '--port', '0', '--otlp-endpoint', otlpUrl],
      ready: LISTENING,
      url: (port) => `http://127.0.0.1:${port}${PATHS[ingress]}`,
    });
  }
  if (!peers) return specs;
  specs.push(await llmsSpec(root, ingress, target, upstreamPort));
  const portkey = join(root, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  const portkeyProvider: Partial<Record<FormatId, string>> = { anthropic: 'anthropic', 'openai-chat': 'openai' };
  if (!existsSync(portkey)) {
    specs.push({ name: '@portkey-ai/gateway', kind: 'peer', how: '', skipped: 'not installed' });
  } else if (ingress !== 'openai-chat') {
    specs.push({
      name: '@portkey-ai/gateway',
      kind: 'peer',
      how: '',
      skipped: `takes OpenAI Chat requests and translates them to a provider; it does not translate ${ingress} requests to ${target}`,
    });
  } else {
    const port = await freePort();
    specs.push({
      name: '@portkey-ai/gateway',
      kind: 'peer',
      how: `node node_modules/@portkey-ai/gateway/build/start-server.js --port=${port} --headless; headers x-portkey-provider: ${portkeyProvider[target] ?? target}, x-portkey-custom-host: ${upstreamBase}${target === 'anthropic' ? '/v1' : ''}`,
      args: async () => [portkey, `--port=${port}`, '--headless'],
      ready: /Ready for connections/,
      port,
      url: (listening) => `http://127.0.0.1:${listening}/v1/chat/completions`,
      headers: {
        'x-portkey-provider': portkeyProvider[target] ?? target,
        'x-portkey-custom-host': `${upstreamBase}${target === 'anthropic' ? '/v1' : ''}`,
        authorization: 'Bearer bench-key',
      },
    });
  }
  return specs;
}

/** `@musistudio/llms` (claude-code-router's server): Anthropic callers in front of an OpenAI Chat upstream, the route claude-code-router gives it. */
async function llmsSpec(root: string, ingress: FormatId, target: FormatId, upstreamPort: number): Promise<ProxySpec> {
  const name = '@musistudio/llms';
  try {
    createRequire(join(root, 'scripts/bench/llms-child.cjs')).resolve('@musistudio/llms');
  } catch {
    return { name, kind: 'peer', how: '', skipped: 'not installed' };
  }
  if (ingress !== 'anthropic' || target !== 'openai-chat') {
    return {
      name,
      kind: 'peer',
      how: '',
      skipped: `takes Anthropic requests to OpenAI-compatible providers (claude-code-router's route); tried with an Anthropic provider behind its /v1/chat/completions, it answered with the upstream's Anthropic body unconverted`,
    };
  }
  const port = await freePort();
  return {
    name,
    kind: 'peer',
    how: `node scripts/bench/llms-child.cjs (new Server({ initialConfig: { providers: [{ name: 'bench', api_base_url: '…/v1/chat/completions', models: ['bench-model'] }] } }), its CommonJS build); model "bench,bench-model"`,
    args: async () => [join(root, 'scripts/bench/llms-child.cjs'), `http://127.0.0.1:${upstreamPort}`, String(port)],
    ready: LISTENING,
    port,
    url: (listening) => `http://127.0.0.1:${listening}/v1/messages`,
    headers: { 'x-api-key': 'bench-key' },
    body: (body) => JSON.stringify({ ...(JSON.parse(body) as Record<string, unknown>), model: 'bench,bench-model' }),
  };
}

/** Load one proxy at the scenario's rate and read its CPU time and peak RSS from /proc. */
async function measure(spec: ProxySpec, root: string, body: string, options: ProxyOptions, title: string): Promise<ProxyRun> {
  const run: ProxyRun = { name: spec.name, kind: spec.kind, how: spec.how };
  if (spec.skipped !== undefined || spec.args === undefined || spec.url === undefined || spec.ready === undefined) {
    run.skipped = spec.skipped ?? 'not configured';
    return run;
  }
  let proxy: { child: ChildProcess; match: RegExpMatchArray };
  try {
    proxy = await start(await spec.args(), root, spec.ready);
  } catch (error) {
    run.skipped = `did not start: ${(error as Error).message.split('\n')[0] ?? ''}`;
    return run;
  }
  const settings = { rate: options.rate, connections: options.connections, root, ...(spec.headers === undefined ? {} : { headers: spec.headers }) };
  try {
    const url = spec.url(spec.port ?? Number(proxy.match[1]));
    const pid = proxy.child.pid!;
    const { watched, ...result } = await load(`${title} through ${spec.name}`, url, spec.body === undefined ? body : spec.body(body), { ...settings, warmup: options.warmup, duration: options.duration, watch: pid });
    const peak = procStatus(pid, 'VmHWM');
    options.progress?.(`${title}, ${spec.name}: ${result.rps.toFixed(0)} req/s p50 ${result.p50.toFixed(3)} ms p99 ${result.p99.toFixed(3)} ms, ${result.non2xx + result.errors} failed`);
    run.load = result;
    if (peak !== undefined) run.peakRss = peak;
    const completed = result.requests - result.non2xx - result.errors;
    if (watched.cpu !== undefined) {
      run.cpuShare = watched.cpu / watched.elapsed;
      if (completed > 0) run.cpuPerRequestUs = (watched.cpu / completed) * 1e6;
    }
    if (completed === 0) run.skipped = `answered no request with 2xx (${result.non2xx} non-2xx, ${result.errors} errors)`;
    options.progress?.(`  CPU ${run.cpuPerRequestUs?.toFixed(0) ?? '?'} µs per request`);
  } finally {
    await stop(proxy.child);
  }
  return run;
}

/**
 * Both scenarios (Anthropic ingress → OpenAI Chat upstream, and the reverse):
 * the upstream directly, then the bare Node proxy (the floor), `interlingua
 * serve` and the peers in front of it, one after the other in the same run.
 */
export async function runProxy(options: ProxyOptions): Promise<ProxyScenario[]> {
  const bodiesFile = join(tmpdir(), `interlingua-bench-upstream-${process.pid}.json`);
  writeFileSync(bodiesFile, JSON.stringify({ responses: options.responses, streams: options.streams ?? {} }));
  const upstream = await start([join(options.root, 'scripts/bench/upstream-child.mjs'), bodiesFile], options.root, /^\{"port":(\d+)\}$/);
  const upstreamPort = Number(upstream.match[1]);
  const sink = await start([join(options.root, 'scripts/bench/otlp-sink-child.mjs')], options.root, /^\{"port":(\d+)\}$/);
  const otlpUrl = `http://127.0.0.1:${sink.match[1]}`;
  const scenarios: ProxyScenario[] = [];
  const settings = { rate: options.rate, connections: options.connections, root: options.root };
  try {
    const pairs: { ingress: FormatId; target: FormatId }[] = [
      { ingress: 'anthropic', target: 'openai-chat' },
      { ingress: 'openai-chat', target: 'anthropic' },
    ];
    for (const { ingress, target } of pairs) {
      const directBody = options.requests[target];
      const ingressBody = options.requests[ingress];
      if (directBody === undefined || ingressBody === undefined) continue;
      const title = `${ingress} ingress → ${target} upstream`;
      const directUrl = `http://127.0.0.1:${upstreamPort}${PATHS[target]}`;
      options.progress?.(`${title}: direct`);
      const { watched: _, ...direct } = await load(`direct to the ${target} upstream`, directUrl, directBody, { ...settings, warmup: options.warmup, duration: options.duration });
      options.progress?.(`${title}: direct ${direct.rps.toFixed(0)} req/s p50 ${direct.p50.toFixed(3)} ms p99 ${direct.p99.toFixed(3)} ms`);
      const runs: ProxyRun[] = [];
      for (const spec of await specsFor(options.root, ingress, target, upstreamPort, directBody, options.peers !== false, otlpUrl)) {
        runs.push(await measure(spec, options.root, ingressBody, options, title));
      }
      const scenario: ProxyScenario = { title, ingress, upstream: target, direct, runs };
      await interleaved(scenario, options, upstreamPort, directUrl, directBody, ingressBody, title, otlpUrl);
      scenarios.push(scenario);
    }
  } finally {
    await stop(sink.child);
    await stop(upstream.child);
    rmSync(bodiesFile, { force: true });
  }
  return scenarios;
}

/**
 * What is compared in turn: the bare proxy and `interlingua serve` run side
 * by side, the time to the first byte of a streamed answer taken from the
 * upstream directly, through the bare proxy and through interlingua in
 * turn, then the interleaved CPU rounds.
 */
async function interleaved(scenario: ProxyScenario, options: ProxyOptions, upstreamPort: number, directUrl: string, directBody: string, ingressBody: string, title: string, otlpUrl: string): Promise<void> {
  const rounds = options.rounds ?? 5;
  const streamRounds = options.streams === undefined ? 0 : (options.streamRounds ?? 3);
  if (options.streams === undefined && rounds === 0) return;
  const specs = (await specsFor(options.root, scenario.ingress, scenario.upstream, upstreamPort, directBody, false, otlpUrl)).filter((spec) => spec.args !== undefined && spec.ready !== undefined && spec.url !== undefined);
  const started: { spec: ProxySpec; child: ChildProcess; url: string }[] = [];
  try {
    for (const spec of specs) {
      const proxy = await start(await spec.args!(), options.root, spec.ready!);
      started.push({ spec, child: proxy.child, url: spec.url!(spec.port ?? Number(proxy.match[1])) });
    }
    const relay = started.find((item) => item.spec.kind === 'relay');
    const floor = started.find((item) => item.spec.kind === 'floor');
    const ours = started.find((item) => item.spec.kind === 'interlingua');
    const telemetry = started.find((item) => item.spec.kind === 'telemetry');
    if (relay === undefined || floor === undefined || ours === undefined) return;
    const streamed = streamedBody(scenario.ingress, ingressBody);
    const roundOptions = { root: options.root, rate: options.rate, connections: options.connections, seconds: options.roundSeconds ?? 3, ...(options.progress === undefined ? {} : { progress: options.progress }) };
    const loaded = { floor: { url: floor.url, pid: floor.child.pid! }, interlingua: { url: ours.url, pid: ours.child.pid! }, ...(telemetry === undefined ? {} : { telemetry: { url: telemetry.url, pid: telemetry.child.pid! } }) };
    if (options.streams !== undefined) {
      options.progress?.(`${title}: time to the first byte, direct, TCP relay, bare proxy and interlingua in turn`);
      const upstreamStreamed = streamedBody(scenario.upstream, directBody);
      const [direct, relayed, bare, interlingua] = await firstBytes(
        [
          { url: directUrl, body: upstreamStreamed },
          { url: relay.url, body: upstreamStreamed },
          { url: floor.url, body: streamed },
          { url: ours.url, body: streamed },
        ],
        FIRST_BYTE_REQUESTS,
      );
      scenario.directFirstByteMs = direct!;
      const firstByteOf: Partial<Record<ProxyRun['kind'], number>> = { relay: relayed!, floor: bare!, interlingua: interlingua! };
      for (const run of scenario.runs) {
        const time = firstByteOf[run.kind];
        if (time !== undefined) run.firstByteMs = time;
      }
      options.progress?.(`  direct ${direct!.toFixed(3)} ms, TCP relay ${relayed!.toFixed(3)} ms, bare proxy ${bare!.toFixed(3)} ms, interlingua ${interlingua!.toFixed(3)} ms`);
    }
    if (rounds > 0) {
      // The gateway's two rows run in the same rounds as the bare proxy and serve, so their ratios cancel the machine's other work alike.
      const configs = gatewayConfigs(scenario.upstream, upstreamPort);
      try {
        for (const [name, file] of [['routed', configs.routed], ['fallback', configs.fallback]] as const) {
          const proxy = await start([join(options.root, 'dist/cli/main.js'), 'serve', '--config', file, '--port', '0'], options.root, LISTENING);
          started.push({ spec: { ...ours.spec, name: `serve --config, ${name}` }, child: proxy.child, url: `http://127.0.0.1:${proxy.match[1]}${PATHS[scenario.ingress]}` });
        }
      } finally {
        for (const file of Object.values(configs)) rmSync(file, { force: true });
      }
      const [routed, fallback] = started.slice(-2) as [(typeof started)[number], (typeof started)[number]];
      options.progress?.(`${title}: CPU per request in ${rounds} interleaved rounds (bare proxy, interlingua, and the gateway routed and with a fallback hop)`);
      const samples = await interleavedCpu(
        [
          { name: 'bare proxy', ...loaded.floor },
          { name: 'interlingua', ...loaded.interlingua },
          { name: 'gateway routed', url: routed.url, pid: routed.child.pid! },
          { name: 'gateway fallback hop', url: fallback.url, pid: fallback.child.pid! },
        ],
        ingressBody,
        { ...roundOptions, rounds },
      );
      const [floorSamples, oursSamples, routedSamples, fallbackSamples] = samples as [RoundSample[], RoundSample[], RoundSample[], RoundSample[]];
      scenario.rounds = {
        floorUs: floorSamples.map((sample) => sample.cpuUs),
        interlinguaUs: oursSamples.map((sample) => sample.cpuUs),
        floorP50: floorSamples.map((sample) => sample.p50),
        floorP99: floorSamples.map((sample) => sample.p99),
        interlinguaP50: oursSamples.map((sample) => sample.p50),
        interlinguaP99: oursSamples.map((sample) => sample.p99),
        seconds: roundOptions.seconds,
      };
      scenario.gatewayRounds = { routedUs: routedSamples.map((sample) => sample.cpuUs), fallbackUs: fallbackSamples.map((sample) => sample.cpuUs) };
    }
    if (streamRounds > 0) {
      options.progress?.(`${title}: CPU per streamed request in ${streamRounds} interleaved rounds`);
      scenario.streamRounds = await cpuRounds(loaded, streamed, { ...roundOptions, rounds: streamRounds });
    }
  } finally {
    for (const item of started) await stop(item.child);
  }
}
