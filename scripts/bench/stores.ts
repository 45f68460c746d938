/**
 * The state stores' raw cost (issue 41): one `set` and one `get` of the same
 * key, per operation pair, for the memory, file and Redis stores of the
 * compiled build, timed in interleaved rounds in this process. The Redis
 * store talks to a real `redis-server` started here on a free port (the cell
 * is skipped, saying why, where it is not installed). Two values: a stored
 * Responses answer of about 4 KiB and a 50-turn history of about 256 KiB.
 * CPU is this process's (the client's side); the Redis server's own CPU is
 * read from /proc where it can be, and reported beside it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '../../dist/store/file.js';
import { createMemoryStore } from '../../dist/store/memory.js';
import { createRedisStore } from '../../dist/store/redis.js';
import type { StateStore } from '../../dist/store/store.js';
import { findRedisServer, startRedisServer } from '../../test/store/redis-server.ts';
import { formatNs, measureRounds, pairedRatio } from './timing.ts';

/** One backend on one value. */
export interface StoreCell {
  store: 'memory' | 'file' | 'redis';
  value: string;
  valueChars: number;
  /** Wall ns per set + get, median over rounds. */
  wallNs: number;
  /** This process's CPU ns per set + get, median over rounds. */
  cpuNs: number;
  /** The Redis server's CPU ns per set + get over the whole measurement (Linux), where measured. */
  serverCpuNs?: number;
  /** Median over rounds of this cell's wall time ÷ the memory store's in the same round. */
  ratioToMemory: number;
}

/** The run: cells, and why a backend was skipped. */
export interface StoreBench {
  cells: StoreCell[];
  skipped: string[];
}

/** A value shaped like what the proxy stores: a Responses answer and its input, as JSON, about `chars` long. */
function storedValue(chars: number): string {
  const turn = {
    role: 'assistant',
    content: [{ type: 'output_text', text: 'The forecast for Paris is mild, 18 °C, with light wind from the west. ', annotations: [] }],
    tool_calls: [{ id: 'call_0123456789', name: 'get_weather', arguments: '{"location":"Paris","unit":"celsius"}' }],
  };
  const items: unknown[] = [];
  let text = '';
  while (text.length < chars) {
    items.push(turn);
    text = JSON.stringify({ id: 'resp_0123456789abcdef01234567', model: 'claude-opus-4-8', input: items, output: [turn], usage: { input_tokens: 1200, output_tokens: 96 } });
  }
  return text;
}

/** CPU jiffies (user + system) of process `pid`, or undefined off Linux. */
function processTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Measure every store on both values. */
export async function runStores(options: { budgetMs: number; progress: (line: string) => void }): Promise<StoreBench> {
  const folder = mkdtempSync(join(tmpdir(), 'interlingua-bench-stores-'));
  const skipped: string[] = [];
  const binary = findRedisServer();
  const server = 'path' in binary ? await startRedisServer(binary.path) : undefined;
  if (!('path' in binary)) skipped.push(`redis: ${binary.missing}`);
  const stores: { name: StoreCell['store']; store: StateStore }[] = [
    { name: 'memory', store: createMemoryStore() },
    { name: 'file', store: createFileStore({ path: join(folder, 'bench.db') }) },
  ];
  if (server !== undefined) stores.push({ name: 'redis', store: createRedisStore({ url: server.url }) });
  const cells: StoreCell[] = [];
  try {
    for (const [label, chars] of [['4 KiB answer', 4 * 1024], ['256 KiB history', 256 * 1024]] as const) {
      const value = storedValue(chars);
      const keys = Array.from({ length: 256 }, (_, index) => `interlingua:response:0123456789abcdef0123456789abcdef:resp_${index}`);
      const operations = stores.map(({ store }) => {
        let next = 0;
        return async () => {
          const key = keys[(next = (next + 1) % keys.length)] ?? '';
          await store.set(key, value);
          return store.get(key);
        };
      });
      for (const { name, store } of stores) {
        await store.set('interlingua:bench:check', value);
        if ((await store.get('interlingua:bench:check')) !== value) throw new Error(`the ${name} store did not give back the ${label} it was given`);
      }
      const ticksBefore = processTicks(server?.pid);
      const timings = await measureRounds(operations, { budgetMs: options.budgetMs });
      const ticksAfter = processTicks(server?.pid);
      const memory = timings[0];
      for (const [index, { name }] of stores.entries()) {
        const timing = timings[index];
        if (timing === undefined || memory === undefined) continue;
        const cell: StoreCell = { store: name, value: label, valueChars: value.length, wallNs: timing.ns, cpuNs: median(timing.cpuRounds), ratioToMemory: pairedRatio(timing, memory) };
        if (name === 'redis' && ticksBefore !== undefined && ticksAfter !== undefined) cell.serverCpuNs = ((ticksAfter - ticksBefore) * 1e7) / timing.iterations;
        cells.push(cell);
        options.progress(`${name} ${label}: ${formatNs(cell.wallNs)} wall, ${formatNs(cell.cpuNs)} CPU per set + get${cell.serverCpuNs === undefined ? '' : ` (+ ${formatNs(cell.serverCpuNs)} in redis-server)`}`);
      }
    }
  } finally {
    await Promise.all(stores.map(({ store }) => store.close?.()));
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  return { cells, skipped };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The Markdown section of docs/BENCHMARKS.md. */
export function storesSection(bench: StoreBench | undefined): string {
  if (bench === undefined) return 'Not measured in this run.';
  const rows = bench.cells.map((cell) => [
    cell.store,
    `${cell.value} (${cell.valueChars.toLocaleString('en-US')} chars)`,
    formatNs(cell.wallNs),
    formatNs(cell.cpuNs),
    cell.serverCpuNs === undefined ? '–' : formatNs(cell.serverCpuNs),
    `${cell.ratioToMemory.toFixed(1)}×`,
  ]);
  const head = ['store', 'value', 'wall per set + get', 'CPU per set + get (this process)', 'CPU in redis-server', 'wall ÷ memory'];
  const table = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
  const skipped = bench.skipped.length === 0 ? '' : `\n\nSkipped: ${bench.skipped.join('; ')}.`;
  return `One \`set\` then one \`get\` of the same key (256 keys in turn), per pair, for each store of the compiled build, timed in interleaved rounds in one process (scripts/bench/stores.ts); the Redis store against a \`redis-server\` started on a free loopback port without persistence, sequential calls (one round trip each, no pipelining). CPU is this process's; the Redis server's own is read from /proc over the same rounds.\n\n${table}${skipped}`;
}
