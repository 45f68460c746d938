/**
 * Proxy overhead: a fake upstream on 127.0.0.1 that answers at once, loaded
 * at a fixed rate by autocannon directly and through `interlingua serve`
 * (a child process, as users run it). Latencies are taken from autocannon's
 * per-response timings (hrtime, sub-millisecond), not its whole-millisecond
 * histogram. Peak RSS and CPU time of the proxy come from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { FormatId } from '../../src/core/ir.ts';

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

/** One proxy scenario: direct and through the proxy. */
export interface ProxyScenario {
  title: string;
  ingress: FormatId;
  upstream: FormatId;
  direct: LoadResult;
  proxied: LoadResult;
  /** Peak RSS of the proxy process (VmHWM), bytes; undefined where /proc is missing. */
  proxyPeakRss?: number;
  /** CPU time the proxy used during the measured run, as a share of one core. */
  proxyCpu?: number;
  /** CPU time of the proxy process per proxied request, µs. */
  cpuPerRequestUs?: number;
  /** A variant of the proxy that is not what `interlingua serve` runs (an experiment for a suggested fix). */
  experiment: boolean;
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
  /** Also run the experiment (upstream through node:http); default true. */
  experiment?: boolean;
  progress?: (line: string) => void;
}

const PATHS: Record<FormatId, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  gemini: '/v1beta/models/bench-model:generateContent',
  ollama: '/api/chat',
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Load `url` with POSTs of `body` at a fixed rate. */
export async function load(label: string, url: string, body: string, options: { duration: number; rate: number; connections: number }): Promise<LoadResult> {
  const times: number[] = [];
  const instance = autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: options.connections,
    duration: options.duration,
    overallRate: options.rate,
    timeout: 10,
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, time: number) => {
    if (statusCode >= 200 && statusCode < 300) times.push(time);
  });
  const result = await instance;
  times.sort((a, b) => a - b);
  return {
    label,
    url,
    rps: result.requests.total / (result.duration || options.duration),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
    max: times.length === 0 ? Number.NaN : times[times.length - 1]!,
  };
}

/** Spawn `node ARGS` and wait for the first line matching `ready` on stdout or stderr; the rest of the output is drained. */
function start(args: string[], cwd: string, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
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

async function stop(child: ChildProcess): Promise<void> {
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

/** Run both scenarios (Anthropic ingress → OpenAI Chat upstream, and the reverse) through `interlingua serve`, then the node:http experiment. */
export async function runProxy(options: ProxyOptions): Promise<ProxyScenario[]> {
  const bodiesFile = join(tmpdir(), `interlingua-bench-upstream-${process.pid}.json`);
  writeFileSync(bodiesFile, JSON.stringify(options.responses));
  const upstream = await start(['--import', 'tsx', join(options.root, 'scripts/bench/upstream-child.ts'), bodiesFile], options.root, /^\{"port":(\d+)\}$/);
  const upstreamPort = Number(upstream.match[1]);
  const scenarios: ProxyScenario[] = [];
  const settings = { rate: options.rate, connections: options.connections };
  try {
    const runs: { ingress: FormatId; target: FormatId; experiment: boolean }[] = [
      { ingress: 'anthropic', target: 'openai-chat', experiment: false },
      { ingress: 'openai-chat', target: 'anthropic', experiment: false },
      ...(options.experiment === false ? [] : [{ ingress: 'anthropic' as const, target: 'openai-chat' as const, experiment: true }]),
    ];
    for (const { ingress, target, experiment } of runs) {
      const directBody = options.requests[target];
      const ingressBody = options.requests[ingress];
      if (directBody === undefined || ingressBody === undefined) continue;
      const baseUrl = target === 'openai-chat' ? `http://127.0.0.1:${upstreamPort}/v1` : `http://127.0.0.1:${upstreamPort}`;
      const args = experiment
        ? ['--import', 'tsx', join(options.root, 'scripts/bench/proxy-child.ts'), target, baseUrl]
        : [join(options.root, 'bin/interlingua.js'), 'serve', '--upstream', target, '--upstream-url', baseUrl, '--port', '0'];
      const proxy = await start(args, options.root, /proxy listening on http:\/\/127\.0\.0\.1:(\d+)/);
      const proxyPort = Number(proxy.match[1]);
      const title = experiment
        ? `${ingress} ingress → ${target} upstream, experiment: upstream called through node:http instead of fetch`
        : `${ingress} ingress → ${target} upstream`;
      try {
        const directUrl = `http://127.0.0.1:${upstreamPort}${PATHS[target]}`;
        const proxyUrl = `http://127.0.0.1:${proxyPort}${PATHS[ingress]}`;
        options.progress?.(`${title}: warming up`);
        await load('warm-up', directUrl, directBody, { ...settings, duration: options.warmup });
        await load('warm-up', proxyUrl, ingressBody, { ...settings, duration: options.warmup });
        const direct = await load(`direct to the ${target} upstream`, directUrl, directBody, { ...settings, duration: options.duration });
        options.progress?.(`${title}: direct ${direct.rps.toFixed(0)} req/s p50 ${direct.p50.toFixed(3)} ms p99 ${direct.p99.toFixed(3)} ms`);
        const pid = proxy.child.pid!;
        const cpuBefore = cpuSeconds(pid);
        const started = process.hrtime.bigint();
        const label = experiment ? `${ingress} → interlingua (node:http upstream) → ${target}` : `${ingress} → interlingua serve → ${target}`;
        const proxied = await load(label, proxyUrl, ingressBody, { ...settings, duration: options.duration });
        const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
        const cpuAfter = cpuSeconds(pid);
        const peak = procStatus(pid, 'VmHWM');
        options.progress?.(`${title}: proxied ${proxied.rps.toFixed(0)} req/s p50 ${proxied.p50.toFixed(3)} ms p99 ${proxied.p99.toFixed(3)} ms`);
        const scenario: ProxyScenario = { title, ingress, upstream: target, experiment, direct, proxied };
        if (peak !== undefined) scenario.proxyPeakRss = peak;
        if (cpuBefore !== undefined && cpuAfter !== undefined) {
          scenario.proxyCpu = (cpuAfter - cpuBefore) / elapsed;
          if (proxied.requests > 0) scenario.cpuPerRequestUs = ((cpuAfter - cpuBefore) / proxied.requests) * 1e6;
        }
        scenarios.push(scenario);
      } finally {
        await stop(proxy.child);
      }
    }
  } finally {
    await stop(upstream.child);
    rmSync(bodiesFile, { force: true });
  }
  return scenarios;
}
