/**
 * The state cell of `npm run bench` (issue 41): CPU per request of a chained
 * Responses turn (its history read from the store and prepended, its answer
 * stored) against a stateless request carrying the same history in its body,
 * through the proxy's exchange in this process in front of a fake Anthropic
 * upstream (an in-process `fetch` answering a canned body), so what differs
 * is only the state layer. Arms are run in interleaved rounds and their
 * medians compared in the same run; the file and Redis stores are measured
 * where this branch's `openStore` opens them (Redis with a `redis-server`
 * started here), and say why not otherwise. p50 and p99 of the per-request
 * time show what the store's round trips add.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExchange, type ProxyConfig } from '../../src/proxy/index.ts';
import { CallerCancel, type Exchange, type Inbound } from '../../src/proxy/exchange.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import type { StateStore } from '../../src/store/store.ts';
import { openStore } from '../../src/node/open-store.ts';

/** One arm's figures. */
export interface StateBenchRow {
  arm: string;
  /** Median over rounds of CPU (user + system) per request, in µs; undefined when the arm could not run. */
  cpuPerRequestUs?: number;
  /** Against the stateless arm of the same run. */
  ratio?: number;
  p50Us?: number;
  p99Us?: number;
  /** Why the arm did not run. */
  skipped?: string;
}

const TURNS = 10;
const ANSWER = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: 'The order shipped on Monday and should arrive on Thursday, tracking number 1Z999.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 420, output_tokens: 24 },
});

/** The conversation's earlier turns as Responses input items. */
function history(): unknown[] {
  const items: unknown[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    items.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `Question ${turn}: where is order A-${turn}, and when will it arrive at the warehouse?` }] });
    items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Order A-${turn} shipped on Monday and should arrive on Thursday; its tracking number is 1Z${turn}99.` }] });
  }
  return items;
}

const upstreamFetch: typeof fetch = async () => new Response(ANSWER, { status: 200, headers: { 'content-type': 'application/json' } });

function inbound(body: string, pathname = '/v1/responses', method = 'POST'): Inbound {
  return {
    method,
    pathname,
    query: () => null,
    header: (name) => (name === 'authorization' ? 'Bearer bench-caller' : name === 'content-type' ? 'application/json' : null),
    text: async () => body,
    signal: new CallerCancel(),
  };
}

function exchangeWith(store: StateStore | undefined): Exchange {
  const config: ProxyConfig = { upstream: { format: 'anthropic', baseUrl: 'http://127.0.0.1:9', apiKey: 'bench-key' }, modelMap: { '*': 'claude-bench' }, fetch: upstreamFetch, telemetry: false };
  if (store !== undefined) config.store = store;
  return createExchange(config);
}

/** A chained arm: the base response stored once (the history as its input), then every request chains to it. */
async function chainedArm(store: StateStore): Promise<() => Promise<void>> {
  const exchange = exchangeWith(store);
  const base = await exchange(inbound(JSON.stringify({ model: 'gpt-bench', input: history() })));
  const id = (JSON.parse(base.body as string) as { id: string }).id;
  const body = JSON.stringify({ model: 'gpt-bench', previous_response_id: id, input: 'And the next one?' });
  return async () => {
    const answer = await exchange(inbound(body));
    if (answer.status !== 200) throw new Error(`the chained turn answered ${answer.status}: ${String(answer.body)}`);
  };
}

function statelessArm(): () => Promise<void> {
  const exchange = exchangeWith(undefined);
  const body = JSON.stringify({ model: 'gpt-bench', input: [...history(), { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The order shipped on Monday and should arrive on Thursday, tracking number 1Z999.' }] }, { type: 'message', role: 'user', content: 'And the next one?' }] });
  return async () => {
    const answer = await exchange(inbound(body));
    if (answer.status !== 200) throw new Error(`the stateless request answered ${answer.status}`);
  };
}

/** One round of `count` requests: CPU per request (µs) and each request's time. */
async function round(run: () => Promise<void>, count: number, times: number[]): Promise<number> {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const at = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - at) / 1000);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Opens `spec`, or says why it cannot be. */
async function tryOpen(spec: string): Promise<StateStore | string> {
  try {
    const store = await openStore(spec);
    await store.get('interlingua:bench:probe');
    return store;
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? 'failed';
  }
}

/** The state cells: stateless, chained on the memory store, and on the file and Redis stores where they open. */
export async function runStateBench(root: string, options: { rounds: number; perRound: number; progress: (line: string) => void }): Promise<StateBenchRow[]> {
  const arms: { name: string; run?: () => Promise<void>; skipped?: string; close?: () => Promise<void> }[] = [
    { name: 'stateless (the history in the body, no store)', run: statelessArm() },
    { name: 'chained, memory store', run: await chainedArm(createMemoryStore()) },
  ];
  const directory = mkdtempSync(join(tmpdir(), 'interlingua-bench-state-'));
  const file = existsSync(join(root, 'src/store/file.ts')) ? await tryOpen(join(directory, 'state.db')) : 'the file store is not on this branch';
  if (typeof file === 'string') arms.push({ name: 'chained, file store', skipped: file });
  else arms.push({ name: 'chained, file store', run: await chainedArm(file), close: () => file.close?.() ?? Promise.resolve() });
  let redis: ChildProcess | undefined;
  if (!existsSync(join(root, 'src/store/redis.ts'))) arms.push({ name: 'chained, Redis store', skipped: 'the Redis store is not on this branch' });
  else if (spawnSync('redis-server', ['--version']).status !== 0) arms.push({ name: 'chained, Redis store', skipped: 'redis-server is not installed' });
  else {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    let store: StateStore | string = 'redis-server did not start';
    for (let tries = 0; tries < 50; tries++) {
      store = await tryOpen(`redis://127.0.0.1:${port}`);
      if (typeof store !== 'string') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (typeof store === 'string') arms.push({ name: 'chained, Redis store', skipped: store });
    else {
      const opened = store;
      arms.push({ name: 'chained, Redis store', run: await chainedArm(opened), close: () => opened.close?.() ?? Promise.resolve() });
    }
  }
  const cpu = new Map<string, number[]>();
  const times = new Map<string, number[]>();
  try {
    for (const arm of arms) if (arm.run !== undefined) for (let index = 0; index < options.perRound; index++) await arm.run();
    for (let index = 0; index < options.rounds; index++) {
      for (const arm of arms) {
        if (arm.run === undefined) continue;
        const list = times.get(arm.name) ?? [];
        times.set(arm.name, list);
        cpu.set(arm.name, [...(cpu.get(arm.name) ?? []), await round(arm.run, options.perRound, list)]);
      }
    }
  } finally {
    for (const arm of arms) await arm.close?.();
    redis?.kill('SIGTERM');
    rmSync(directory, { recursive: true, force: true });
  }
  const floor = medianOf(cpu.get(arms[0]!.name) ?? []);
  return arms.map((arm) => {
    if (arm.run === undefined) return { arm: arm.name, skipped: arm.skipped ?? 'not run' };
    const perRequest = medianOf(cpu.get(arm.name) ?? []);
    const sorted = [...(times.get(arm.name) ?? [])].sort((a, b) => a - b);
    const row: StateBenchRow = { arm: arm.name, cpuPerRequestUs: perRequest, ratio: perRequest / floor, p50Us: quantile(sorted, 0.5), p99Us: quantile(sorted, 0.99) };
    options.progress(`${arm.name}: ${perRequest.toFixed(0)} µs CPU per request (${row.ratio!.toFixed(2)}× stateless), p99 ${row.p99Us!.toFixed(0)} µs`);
    return row;
  });
}

function cells(row: StateBenchRow): string[] {
  if (row.cpuPerRequestUs === undefined) return [row.arm, '—', '—', '—', '—', `not measured: ${row.skipped ?? ''}`];
  return [row.arm, row.cpuPerRequestUs.toFixed(0), `${row.ratio?.toFixed(2)}×`, (row.p50Us ?? 0).toFixed(0), (row.p99Us ?? 0).toFixed(0), ''];
}

const HEAD = ['arm', 'CPU per request (µs)', 'vs stateless', 'p50 (µs)', 'p99 (µs)', 'note'];

/** The markdown section of the state rows. */
export function stateSection(rows: readonly StateBenchRow[], rounds: number, perRound: number): string {
  if (rows.length === 0) return '';
  return [
    '## State (stateful Responses)',
    '',
    `A Responses turn through the proxy's exchange in this process to a fake Anthropic upstream (an in-process \`fetch\`), ${TURNS * 2 + 1} earlier items of history: stateless, with the history in the body and no store, against chained by \`previous_response_id\` (the stored history read, prepended and converted, the answer stamped and stored). ${rounds} interleaved rounds of ${perRound} sequential requests per arm; CPU is the median round's user + system time per request, p50/p99 the per-request time over all rounds (the store's round trips are in it, not in CPU).`,
    '',
    `| ${HEAD.join(' | ')} |`,
    `| ${HEAD.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${cells(row).join(' | ')} |`),
    '',
  ].join('\n');
}

/** The console lines of the state rows. */
export function stateConsole(rows: readonly StateBenchRow[]): string {
  if (rows.length === 0) return '';
  return ['\nState', ...rows.map((row) => `  ${cells(row).filter((cell) => cell !== '').join('  ')}`)].join('\n');
}
