/**
 * `npm run bench`: conversion, stream, memory and proxy benchmarks (issue 9).
 * Prints tables and writes docs/BENCHMARKS.md (machine, Node version, date).
 *
 *   npm run bench                  full run (< 5 minutes on 2 cores), writes docs/BENCHMARKS.md
 *   npm run bench -- --quick       short smoke run with small workloads; prints only
 *   options: --only=package,conversions,corpus,streams,memory,stores,proxy,state,normalize   --write / --no-write   --out=FILE
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem, platform, release } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runConversions } from './bench/conversions.ts';
import { runCorpus } from './bench/corpus.ts';
import { runMemory, runMemoryPerPart } from './bench/memory.ts';
import { normalizeConsole, normalizeSection, runNormalizeBench, type NormalizeBenchRow } from './bench/normalize.ts';
import { runPackage } from './bench/package.ts';
import { runProxy } from './bench/proxy.ts';
import { runReasoningState } from './bench/reasoning-state.ts';
import { runStateBench, stateConsole, stateSection, type StateBenchRow } from './bench/state.ts';
import { consoleSummary, markdown, type BenchRun } from './bench/report.ts';
import { runStores } from './bench/stores.ts';
import { runStreamsApart } from './bench/streams.ts';
import { formatNs, sink } from './bench/timing.ts';
import { bodyWorkloads, smallChatBodies, streamWorkload } from './bench/workloads.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SECTIONS = ['package', 'conversions', 'corpus', 'streams', 'memory', 'stores', 'proxy', 'state', 'normalize'] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    write: { type: 'boolean' },
    'no-write': { type: 'boolean' },
    out: { type: 'string' },
  },
});
const quick = values.quick === true;
const only = new Set<Section>((values.only?.split(',') ?? SECTIONS) as Section[]);
for (const section of only) if (!SECTIONS.includes(section)) throw new Error(`--only: unknown section "${section}"; use ${SECTIONS.join(', ')}`);
const write = values['no-write'] === true ? false : (values.write ?? !quick);
const out = resolve(values.out ?? join(ROOT, 'docs/BENCHMARKS.md'));

const settings = quick
  ? { budgetMs: 20, corpusWarmupMs: 20, imageSize: 256 * 1024, turns: 5, streamEvents: 500, duration: 1, warmup: 0.3, rate: 200, normalizeBytes: 2e6, normalizeLargeBytes: 20e6 }
  : { budgetMs: 250, corpusWarmupMs: 1000, imageSize: 10 * 1024 * 1024, turns: 50, streamEvents: 10_000, duration: 10, warmup: 2, rate: 1000, normalizeBytes: 20e6, normalizeLargeBytes: 1e9 };

function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? commit : `${commit} (with uncommitted changes)`;
  } catch {
    return 'unknown';
  }
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const started = Date.now();
const load = loadavg();
const machine: Record<string, string> = {
  date: new Date().toISOString(),
  CPU: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB (${(freemem() / 1024 ** 3).toFixed(1)} GiB free at start)`,
  OS: `${platform()} ${release()}`,
  Node: process.version,
  'load average at start (1/5/15 min)': load.map((value) => value.toFixed(2)).join(' / '),
  commit: gitCommit(),
  'llm-bridge': packageVersion('llm-bridge'),
};

log(`interlingua bench${quick ? ' --quick' : ''}: generating workloads…`);
const workloads = bodyWorkloads({ imageSize: settings.imageSize, turns: settings.turns });
const stream = only.has('streams') ? streamWorkload(settings.streamEvents) : undefined;

const run: BenchRun = {
  quick,
  machine,
  settings: {
    'time per cell': `${settings.budgetMs} ms measured (three times that for bodies over 1 MB; output floors half that; streams: ${settings.budgetMs} ms per pipeline), after a warm-up of a fifth of that (corpus folders: each conversion first runs ${settings.corpusWarmupMs} ms on its own, see the corpus section)`,
    'image workload': `${(settings.imageSize / 1024 / 1024).toFixed(2)} MiB of base64`,
    'proxy load': `${settings.rate} req/s for ${settings.duration} s (after ${settings.warmup} s of warm-up), 10 connections`,
  },
  workloads: only.has('conversions') ? workloads : [],
  conversions: [],
  corpus: [],
  ...(stream === undefined ? {} : { stream }),
  streams: [],
  memory: [],
  proxy: [],
  otherProxies: [],
  otherTranslators: [
    `llm-bridge ${packageVersion('llm-bridge')}: measured (translateBetweenProviders for requests, handleUniversalStreamRequest for streams).`,
    `llm-protocol ${packageVersion('llm-protocol')}: measured on Anthropic Messages ⇄ OpenAI Chat requests and responses (its adapters' parse and render; it has no other formats).`,
    existsSync(join(ROOT, 'node_modules', 'rosetta-ai'))
      ? 'rosetta-ai is installed but not wired into this benchmark yet.'
      : 'rosetta-ai ("the translation layer for LLM provider messages" on the npm registry): not measured — not installed (the benchmark installs nothing; add it as a devDependency to compare).',
  ],
  seconds: 0,
};

if (only.has('package')) {
  log('package: CLI start-up and bundle sizes of dist/…');
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) throw new Error('dist/ is missing: run "npm run build" first (npm run bench measures the compiled build)');
  run.package = await runPackage(ROOT, quick ? 5 : 15);
}

if (only.has('conversions')) {
  log('conversions…');
  run.conversions = await runConversions(workloads, {
    budgetMs: settings.budgetMs,
    progress: (cell) => log(`  ${cell.workload} ${cell.from} → ${cell.to}: ${formatNs(cell.timing.min)} (${cell.ratio.toFixed(2)}× floor; output floor ${cell.outputFloorRatio.toFixed(2)}×)`),
  });
}

if (only.has('corpus')) {
  log('corpus requests…');
  run.corpus = await runCorpus(ROOT, {
    budgetMs: settings.budgetMs,
    warmupMs: settings.corpusWarmupMs,
    progress: (cell) => log(`  corpus ${cell.from} → ${cell.to}: ${cell.ratio.toFixed(2)}× floor; output floor ${cell.outputFloorRatio.toFixed(2)}× (${cell.bodies - cell.refused} bodies)`),
  });
}

if (stream !== undefined) {
  log('streams (a child process)…');
  run.streams = await runStreamsApart(ROOT, settings.streamEvents, settings.budgetMs);
}

if (only.has('memory')) {
  log('memory (child processes)…');
  const image = workloads.find((workload) => workload.name === 'image-10mb');
  const text = image?.texts.anthropic;
  if (text !== undefined) run.memory = runMemory(ROOT, 'anthropic', text);
  // The per-part cost: RSS per MB of a body of tiny text blocks (issue 38).
  run.memoryParts = runMemoryPerPart(ROOT);
}

if (only.has('stores')) {
  log('stores (memory, file, Redis)…');
  run.stores = await runStores({ budgetMs: settings.budgetMs, progress: (line) => log(`  ${line}`) });
  for (const reason of run.stores.skipped) log(`  SKIPPED ${reason}`);
}

if (only.has('proxy')) {
  log('proxy…');
  try {
    run.proxy = await runProxy({
      root: ROOT,
      duration: settings.duration,
      warmup: settings.warmup,
      rate: settings.rate,
      connections: 10,
      ...smallChatBodies(),
      streams: streamWorkload(40).texts,
      progress: (line) => log(`  ${line}`),
    });
  } catch (error) {
    run.proxyError = (error as Error).message.split('\n')[0] ?? 'failed';
    log(`  proxy benchmark failed: ${(error as Error).message}`);
  }
  log('proxy: reasoning state kept for a Chat caller, with and without a memory store…');
  run.reasoningState = await runReasoningState(quick ? 200 : 2000);
  log(`  +${run.reasoningState.addedUs.toFixed(1)} µs per request with a memory store (${run.reasoningState.keeperUs.toFixed(1)} µs of it the keeper's own)`);
  run.otherProxies.push(
    `@portkey-ai/gateway ${packageVersion('@portkey-ai/gateway')}: ${existsSync(join(ROOT, 'node_modules/@portkey-ai/gateway')) ? 'measured where it takes the route (OpenAI Chat ingress), against the same fake upstream through x-portkey-custom-host' : 'not installed'}.`,
    `@musistudio/llms ${packageVersion('@musistudio/llms')} (the claude-code-router server): ${existsSync(join(ROOT, 'node_modules/@musistudio/llms')) ? 'measured where it takes the route (Anthropic ingress to an OpenAI Chat upstream, configured as claude-code-router configures it), against the same fake upstream' : 'not installed'}.`,
  );
}

let stateRows: StateBenchRow[] = [];
const stateRounds = quick ? { rounds: 3, perRound: 50 } : { rounds: 9, perRound: 400 };
if (only.has('state')) {
  log('state (stateful Responses through the exchange, in this process)…');
  stateRows = await runStateBench(ROOT, { ...stateRounds, progress: (line) => log(`  ${line}`) });
}

let normalizeRows: NormalizeBenchRow[] = [];
if (only.has('normalize')) {
  log('normalize (child processes; generated JSONL in a temporary folder)…');
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) throw new Error('dist/ is missing: run "npm run build" first');
  normalizeRows = runNormalizeBench(ROOT, {
    mediumBytes: settings.normalizeBytes,
    largeBytes: settings.normalizeLargeBytes,
    progress: (row) => log(`  ${row.name}: ${Math.round(row.recordsPerSecond)} records/s, ${row.megabytesPerSecond.toFixed(1)} MB/s, peak RSS ${(row.peakRss / 1024 / 1024).toFixed(0)} MiB`),
  });
}

run.seconds = (Date.now() - started) / 1000;
run.machine['load average at end (1/5/15 min)'] = loadavg().map((value) => value.toFixed(2)).join(' / ');
console.log(consoleSummary(run) + stateConsole(stateRows) + normalizeConsole(normalizeRows));
if (write) {
  const notesFile = join(ROOT, 'scripts/bench/notes.md');
  const notes = existsSync(notesFile) ? readFileSync(notesFile, 'utf8').trim() : '';
  // The normalize section goes before the profile notes that close the report.
  const report = markdown(run, notes);
  const notesAt = report.indexOf('## What the profiles show');
  const section = stateSection(stateRows, stateRounds.rounds, stateRounds.perRound) + normalizeSection(normalizeRows, machine['load average at start (1/5/15 min)'] ?? '?');
  writeFileSync(out, notesAt < 0 || section === '' ? report + section : `${report.slice(0, notesAt)}${section}\n${report.slice(notesAt)}`);
  log(`\nwrote ${out} (${run.seconds.toFixed(0)} s)`);
}
if (sink === -1) log('');
