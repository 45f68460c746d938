/**
 * Turn a benchmark run into console tables and docs/BENCHMARKS.md: the
 * machine, the targets met or missed, a table per workload, the differences
 * between translators, streams, memory and the proxy, and the profile notes.
 */
import { reasoningStateSection, type ReasoningStateCell } from './reasoning-state-report.ts';
import type { ConversionCell, OtherResult } from './conversions.ts';
import type { CorpusCell } from './corpus.ts';
import type { MemoryResult } from './memory.ts';
import type { PackageRun } from './package.ts';
import { median, roundsRatio, telemetryRatios, type CpuRounds, type ProxyScenario } from './proxy.ts';
import { storesSection, type StoreBench } from './stores.ts';
import type { StreamCell } from './streams.ts';
import { formatNs } from './timing.ts';
import type { BodyWorkload, StreamWorkload } from './workloads.ts';

/** Everything one run measured. */
export interface BenchRun {
  quick: boolean;
  machine: Record<string, string>;
  settings: Record<string, string>;
  workloads: BodyWorkload[];
  conversions: ConversionCell[];
  /** Real recorded requests (the corpus) converted to every format. */
  corpus: CorpusCell[];
  stream?: StreamWorkload;
  streams: StreamCell[];
  memory: MemoryResult[];
  /** The same for a body of tiny text blocks: the memory cost per part (RSS per MB of body). */
  memoryParts?: MemoryResult[];
  /** CLI start-up and bundle sizes of the compiled build. */
  package?: PackageRun;
  /** The state stores' raw get + set cost. */
  stores?: StoreBench;
  proxy: ProxyScenario[];
  /** Why the proxy section has no numbers, where it has none. */
  proxyError?: string;
  /** The CPU that keeping and restoring reasoning state adds per request (scripts/bench/reasoning-state.ts). */
  reasoningState?: ReasoningStateCell;
  /** Competing proxies and why they were or were not measured. */
  otherProxies: string[];
  /** Other translators and why they were or were not measured. */
  otherTranslators: string[];
  seconds: number;
}

/** The targets of issue 15. */
export const TARGETS = {
  conversionRatio: 1.5,
  streamEventsPerSecond: 500_000,
  streamPerEventEventsPerSecond: 250_000,
  proxyCpuRatio: 1.2,
  telemetryOnRatio: 1.25,
  proxyP50Ms: 0.3,
  proxyP99Ms: 1.5,
  proxyFirstByteMs: 0.5,
  proxyRate: 1000,
  memoryFactor: 2.5,
  cliStartupMs: 150,
  pairBundleBytes: 60 * 1024,
} as const;

/** "; the N over have output floors of A–B×" for the cells over the conversion target (what the target's own text costs them; see Method), or nothing when none is over. */
function outputFloorClause(cells: readonly { ratio: number; outputFloorRatio: number }[]): string {
  const over = cells.filter((cell) => cell.ratio > TARGETS.conversionRatio).map((cell) => cell.outputFloorRatio);
  if (over.length === 0) return '';
  const low = ratioText(Math.min(...over));
  const high = ratioText(Math.max(...over));
  return over.length === 1 ? `; the 1 over has an output floor of ${low}` : `; the ${over.length} over have output floors of ${low === high ? low : `${low.slice(0, -1)}–${high}`}`;
}

/** The package section: CLI start-up beside Node's own, and bundle sizes. */
function packageSection(run: BenchRun): string {
  const result = run.package;
  if (result === undefined) return 'Not measured in this run.';
  const { startup } = result;
  const rows = result.bundles.map((bundle) => [escape(bundle.name), bytesText(bundle.bytes), bytesText(bundle.gzipBytes)]);
  return `\`node dist/cli/main.js --help\` (the installed bin): **${startup.cliHelpMs.toFixed(0)} ms**, median of ${startup.runs} runs, beside \`node -e 0\` at ${startup.nodeMs.toFixed(0)} ms in the same runs (target ≤ ${TARGETS.cliStartupMs} ms: ${mark(startup.cliHelpMs <= TARGETS.cliStartupMs)}). The CLI loads a command's module only when that command runs. \`node dist/cli/main.js serve\` (an OpenAI Chat upstream) from the spawn to its listening line: ${startup.serveMs.toFixed(0)} ms, median of ${startup.runs} runs (a measure).

esbuild browser bundles of \`dist/\` (minified, ESM; target for the first row ≤ ${bytesText(TARGETS.pairBundleBytes)}: ${mark((result.bundles[0]?.bytes ?? Infinity) <= TARGETS.pairBundleBytes)}):

${table(['bundle', 'minified', 'gzip'], rows)}`;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const bytesText = (bytes: number) => (bytes >= 1024 * 1024 ? mb(bytes) : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`);
const ratioText = (ratio: number | undefined) => (ratio === undefined || !Number.isFinite(ratio) ? '–' : `${ratio.toFixed(2)}×`);
const rate = (perSecond: number) => (perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(2)} M/s` : `${(perSecond / 1e3).toFixed(0)} k/s`);
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(3)} ms` : '–');
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
const escape = (text: string) => text.replace(/\|/g, '\\|');

function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** The verdict on each target, as table rows. */
export function targetRows(run: BenchRun): string[][] {
  const rows: string[][] = [];
  for (const workload of run.workloads) {
    const cells = run.conversions.filter((cell) => cell.workload === workload.name);
    if (cells.length === 0) continue;
    const worst = cells.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    const within = cells.filter((cell) => cell.ratio <= TARGETS.conversionRatio).length;
    rows.push([
      `conversion ≤ ${TARGETS.conversionRatio}× floor: ${workload.name}`,
      `${within}/${cells.length} cells within; worst ${ratioText(worst.ratio)} (${worst.from} → ${worst.to})${outputFloorClause(cells)}`,
      mark(within === cells.length),
    ]);
    for (const name of otherNames(cells)) {
      const compared = cells.flatMap((cell) => cell.others.filter((other) => other.name === name && other.timing !== undefined).map((other) => ({ cell, other })));
      if (compared.length === 0) continue;
      const slower = compared.filter(({ cell, other }) => !(cell.ratio < (other.ratio ?? Infinity)));
      const faster = compared.length - slower.length;
      rows.push([`faster than ${name}: ${workload.name}`, `${faster}/${compared.length} pairs faster${meaningClause(name, slower)}`, mark(faster === compared.length)]);
    }
  }
  if (run.corpus.length > 0) {
    const worst = run.corpus.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    const within = run.corpus.filter((cell) => cell.ratio <= TARGETS.conversionRatio).length;
    rows.push([
      `conversion ≤ ${TARGETS.conversionRatio}× floor: corpus requests`,
      `${within}/${run.corpus.length} pairs within; worst ${ratioText(worst.ratio)} (${worst.from} → ${worst.to})${outputFloorClause(run.corpus)}`,
      mark(within === run.corpus.length),
    ]);
  }
  if (run.streams.length > 0) {
    const worst = run.streams.reduce((a, b) => (b.eventsPerSecond < a.eventsPerSecond ? b : a));
    const best = run.streams.reduce((a, b) => (b.eventsPerSecond > a.eventsPerSecond ? b : a));
    const within = run.streams.filter((cell) => cell.eventsPerSecond >= TARGETS.streamEventsPerSecond).length;
    const withinCpu = run.streams.filter((cell) => cell.cpuEventsPerSecond >= TARGETS.streamEventsPerSecond).length;
    rows.push([
      `stream ≥ ${rate(TARGETS.streamEventsPerSecond)} events per core (convertStream)`,
      `${within}/${run.streams.length} pairs; ${rate(worst.eventsPerSecond)} (${worst.from} → ${worst.to}) to ${rate(best.eventsPerSecond)} (${best.from} → ${best.to}); per second of CPU time of every thread: ${withinCpu}/${run.streams.length}`,
      mark(within === run.streams.length),
    ]);
    const slowest = run.streams.reduce((a, b) => (b.perEventEventsPerSecond < a.perEventEventsPerSecond ? b : a));
    const withinPerEvent = run.streams.filter((cell) => cell.perEventEventsPerSecond >= TARGETS.streamPerEventEventsPerSecond).length;
    const withinPerEventCpu = run.streams.filter((cell) => cell.perEventCpuEventsPerSecond >= TARGETS.streamPerEventEventsPerSecond).length;
    rows.push([
      `stream ≥ ${rate(TARGETS.streamPerEventEventsPerSecond)} events per core, one event per chunk (convertStream)`,
      `${withinPerEvent}/${run.streams.length} pairs; slowest ${rate(slowest.perEventEventsPerSecond)} (${slowest.from} → ${slowest.to}); per second of CPU time of every thread: ${withinPerEventCpu}/${run.streams.length}`,
      mark(withinPerEvent === run.streams.length),
    ]);
    const compared = run.streams.flatMap((cell) => cell.others.filter((other) => other.timing !== undefined).map((other) => ({ cell, other })));
    if (compared.length > 0) {
      const faster = compared.filter(({ cell, other }) => cell.ratio < (other.ratio ?? Infinity)).length;
      rows.push([`faster than llm-bridge: ${run.stream?.name ?? 'stream'}`, `${faster}/${compared.length} pairs faster`, mark(faster === compared.length)]);
    }
  }
  for (const scenario of run.proxy) {
    const relay = scenario.runs.find((item) => item.kind === 'relay');
    const floor = scenario.runs.find((item) => item.kind === 'floor');
    const ours = scenario.runs.find((item) => item.kind === 'interlingua');
    if (ours?.load === undefined) continue;
    const p50 = ours.load.p50 - scenario.direct.p50;
    const p99 = ours.load.p99 - scenario.direct.p99;
    const sustained = ours.load.rps >= TARGETS.proxyRate * 0.95;
    const rounds = scenario.rounds;
    if (rounds !== undefined && rounds.floorUs.length > 0) {
      // The verdict takes the interleaved rounds: one run of each proxy after the other moves by ±30% on a shared machine.
      const ratio = roundsRatio(rounds);
      const single = floor?.cpuPerRequestUs !== undefined && ours.cpuPerRequestUs !== undefined ? `; the single runs above: ${ours.cpuPerRequestUs.toFixed(0)} µs vs ${floor.cpuPerRequestUs.toFixed(0)} µs, ${(ours.cpuPerRequestUs / floor.cpuPerRequestUs).toFixed(2)}×` : '';
      rows.push([
        `proxy CPU per request ≤ ${TARGETS.proxyCpuRatio}× the bare Node proxy: ${scenario.title}`,
        `${ratio.toFixed(2)}× (median of ${rounds.floorUs.length} interleaved rounds' ratios; medians ${median(rounds.interlinguaUs).toFixed(0)} µs vs ${median(rounds.floorUs).toFixed(0)} µs${single})`,
        mark(ratio <= TARGETS.proxyCpuRatio),
      ]);
      const telemetry = telemetryRatios(rounds);
      if (telemetry !== undefined) {
        rows.push([
          `telemetry on (OTLP/HTTP export) ≤ ${TARGETS.telemetryOnRatio}× telemetry off, CPU per request: ${scenario.title}`,
          `${telemetry.off.toFixed(2)}× (median of the rounds' ratios; ${median(rounds.telemetryUs!).toFixed(0)} µs on, ${median(rounds.interlinguaUs).toFixed(0)} µs off; ${telemetry.floor.toFixed(2)}× the bare Node proxy, off ${ratio.toFixed(2)}×)`,
          mark(telemetry.off <= TARGETS.telemetryOnRatio),
        ]);
      }
    } else if (floor?.cpuPerRequestUs !== undefined && ours.cpuPerRequestUs !== undefined) {
      const ratio = ours.cpuPerRequestUs / floor.cpuPerRequestUs;
      rows.push([
        `proxy CPU per request ≤ ${TARGETS.proxyCpuRatio}× the bare Node proxy: ${scenario.title}`,
        `${ours.cpuPerRequestUs.toFixed(0)} µs vs ${floor.cpuPerRequestUs.toFixed(0)} µs (${ratio.toFixed(2)}×, one run each)`,
        mark(ratio <= TARGETS.proxyCpuRatio),
      ]);
    }
    if (ours.firstByteMs !== undefined && scenario.directFirstByteMs !== undefined) {
      const added = ours.firstByteMs - scenario.directFirstByteMs;
      rows.push([
        `proxy adds ≤ ${TARGETS.proxyFirstByteMs} ms to the first byte of a streamed answer: ${scenario.title}`,
        `+${added.toFixed(3)} ms (${ours.firstByteMs.toFixed(3)} ms through the proxy, ${scenario.directFirstByteMs.toFixed(3)} ms direct; medians of sequential requests taken in turn${relay?.firstByteMs === undefined ? '' : `; a TCP relay, which reads no HTTP: +${(relay.firstByteMs - scenario.directFirstByteMs).toFixed(3)} ms`}${floor?.firstByteMs === undefined ? '' : `; the bare proxy piping a stream: +${(floor.firstByteMs - scenario.directFirstByteMs).toFixed(3)} ms; interlingua over the bare proxy: ${signed(ours.firstByteMs - floor.firstByteMs)} ms`})`,
        mark(added <= TARGETS.proxyFirstByteMs),
      ]);
    }
    rows.push([
      `proxy adds ≤ ${TARGETS.proxyP50Ms} ms p50, ≤ ${TARGETS.proxyP99Ms} ms p99 over the upstream at ${TARGETS.proxyRate} req/s: ${scenario.title}`,
      `+${p50.toFixed(3)} ms p50, +${p99.toFixed(3)} ms p99 at ${ours.load.rps.toFixed(0)} req/s${floor?.load === undefined ? '' : ` (${relay?.load === undefined ? '' : `a TCP relay, which reads no HTTP: +${(relay.load.p50 - scenario.direct.p50).toFixed(3)} ms / +${(relay.load.p99 - scenario.direct.p99).toFixed(3)} ms; `}the bare proxy: +${(floor.load.p50 - scenario.direct.p50).toFixed(3)} ms / +${(floor.load.p99 - scenario.direct.p99).toFixed(3)} ms; interlingua over the bare proxy: ${signed(ours.load.p50 - floor.load.p50)} / ${signed(ours.load.p99 - floor.load.p99)} ms)`}`,
      mark(sustained && p50 <= TARGETS.proxyP50Ms && p99 <= TARGETS.proxyP99Ms),
    ]);
  }
  for (const result of run.memory.filter((item) => !item.operation.startsWith('floor'))) {
    const factor = result.added / result.bodyBytes;
    rows.push([`peak memory ≤ ${TARGETS.memoryFactor}× body: ${result.operation}`, `${mb(result.added)} added for a ${mb(result.bodyBytes)} body (${factor.toFixed(2)}×)`, mark(factor <= TARGETS.memoryFactor)]);
  }
  return rows;
}

/** Where another translator's output means something other than the source, beyond interlingua's own differences (listed under the table). */
function extraDifferences(cell: ConversionCell, other: OtherResult): string[] {
  return other.differences.filter((difference) => !cell.differences.includes(difference));
}

/**
 * Of the pairs where `name` was as fast or faster, those whose output means
 * something other than the source (tool calls dropped, a body the target
 * rejects): the verdict counts them as they are, and the reader sees which
 * of them are not the same job.
 */
function meaningClause(name: string, slower: readonly { cell: ConversionCell; other: OtherResult }[]): string {
  if (slower.length === 0) return '';
  const otherwise = slower.filter(({ cell, other }) => extraDifferences(cell, other).length > 0).map(({ cell }) => `${cell.from} → ${cell.to}`);
  if (otherwise.length === 0) return `; ${name}'s output keeps the meaning in ${slower.length === 1 ? 'the 1 other' : `all ${slower.length} others`}`;
  const pairs = slower.length === 1 ? 'the other pair' : `${otherwise.length} of the ${slower.length} others`;
  return `; in ${pairs} ${name}'s output means something other than the source (${otherwise.join(', ')}; see the list under the table)`;
}

/** The other translators that appear in `cells`, in order of first appearance. */
function otherNames(cells: readonly ConversionCell[]): string[] {
  const names: string[] = [];
  for (const cell of cells) for (const other of cell.others) if (!names.includes(other.name)) names.push(other.name);
  return names;
}

function differencesSection(run: BenchRun, workload: BodyWorkload): string {
  const lines: string[] = [];
  for (const cell of run.conversions.filter((item) => item.workload === workload.name)) {
    for (const other of cell.others) {
      if (other.error !== undefined) lines.push(`- ${cell.from} → ${cell.to}: ${other.name} threw: ${escape(other.error)}`);
      const extra = extraDifferences(cell, other);
      if (extra.length > 0) lines.push(`- ${cell.from} → ${cell.to}, ${other.name}: ${extra.map(escape).join('; ')}`);
    }
  }
  const ownLines = run.conversions
    .filter((item) => item.workload === workload.name && item.differences.length > 0)
    .map((cell) => `- ${cell.from} → ${cell.to}, interlingua (${cell.losses} losses reported): ${cell.differences.map(escape).join('; ')}`);
  const parts: string[] = [];
  if (lines.length > 0) parts.push(`Where another translator's output means something other than the source (decoded by interlingua, beyond interlingua's own differences):\n\n${lines.join('\n')}`);
  if (ownLines.length > 0) parts.push(`Where interlingua's own output differs from the source (each is a loss it reports, or a synthesised id):\n\n${ownLines.join('\n')}`);
  return parts.join('\n\n');
}

function workloadSection(run: BenchRun, workload: BodyWorkload): string {
  const cells = run.conversions.filter((cell) => cell.workload === workload.name);
  const names = otherNames(cells);
  const head = ['from → to', 'source', 'floor', 'interlingua', 'ratio', 'output floor', 'interlingua ÷ output floor', ...names.flatMap((name) => [name, 'ratio']), 'losses'];
  const rows = cells.map((cell) => {
    return [
      `${cell.from} → ${cell.to}`,
      bytesText(cell.sourceBytes),
      formatNs(cell.floor.ns),
      formatNs(cell.timing.ns),
      cell.ratio <= TARGETS.conversionRatio ? ratioText(cell.ratio) : `**${ratioText(cell.ratio)}**`,
      ratioText(cell.outputFloorRatio),
      ratioText(cell.overOutputFloor),
      ...names.flatMap((name) => {
        const other = cell.others.find((item) => item.name === name);
        return [other?.timing === undefined ? (other?.error === undefined ? '–' : 'threw') : formatNs(other.timing.ns), ratioText(other?.ratio)];
      }),
      String(cell.losses),
    ];
  });
  const differences = differencesSection(run, workload);
  return `### ${workload.title} (\`${workload.name}\`)\n\n${table(head, rows)}${differences === '' ? '' : `\n\n${differences}`}`;
}

function corpusSection(run: BenchRun): string {
  if (run.corpus.length === 0) return 'Not measured in this run.';
  const rows = run.corpus.map((cell) => [
    `${cell.from} → ${cell.to}`,
    `${cell.bodies - cell.refused}${cell.refused === 0 ? '' : ` (${cell.refused} refused)`}`,
    bytesText(cell.bytes),
    formatNs(cell.floor.ns),
    formatNs(cell.timing.ns),
    cell.ratio <= TARGETS.conversionRatio ? ratioText(cell.ratio) : `**${ratioText(cell.ratio)}**`,
    ratioText(cell.outputFloorRatio),
    ratioText(cell.overOutputFloor),
    String(cell.losses),
  ]);
  return `Every request body of \`test/corpus/<format>/request\` (recorded from the vendors' APIs by other projects) converted to every format; one cell is the whole folder, the floor is \`JSON.stringify(JSON.parse(text))\` of the same bodies, timed in interleaved rounds as above (ratio = median over rounds; target ≤ ${TARGETS.conversionRatio}×), with the output floor over the same bodies and their outputs. A body a target refuses with a typed error is counted and left out of every time. Before the rounds, each conversion runs alone for the corpus warm-up the Method gives: a folder is 24–176 different bodies, and after the rounds' usual warm-up alone the code of their many paths was still reaching the optimising compiler during the measured rounds (OpenAI Chat → Anthropic, the same build and machine: 1.95–2.21× the floor after 50 ms of warm-up, 1.55–1.76× after 1–3 s), so the cells measured the compiler's progress more than the conversions.

${table(['from → to', 'bodies', 'source', 'floor', 'interlingua', 'ratio', 'output floor', 'interlingua ÷ output floor', 'losses'], rows)}`;
}

function streamSection(run: BenchRun): string {
  if (run.streams.length === 0) return 'No stream was measured.';
  const head = ['from → to', 'events', 'floor', 'convertStream', 'events/s', 'CPU', '1 event per chunk', 'CPU', 'codecs alone', 'events/s', 'llm-bridge', 'events/s', 'losses'];
  const rows = run.streams.map((cell) => {
    const other = cell.others[0];
    return [
      `${cell.from} → ${cell.to}`,
      String(cell.events),
      formatNs(cell.floor.ns),
      formatNs(cell.pipeline.ns),
      cell.eventsPerSecond >= TARGETS.streamEventsPerSecond ? rate(cell.eventsPerSecond) : `**${rate(cell.eventsPerSecond)}**`,
      rate(cell.cpuEventsPerSecond),
      cell.perEventEventsPerSecond >= TARGETS.streamPerEventEventsPerSecond ? rate(cell.perEventEventsPerSecond) : `**${rate(cell.perEventEventsPerSecond)}**`,
      rate(cell.perEventCpuEventsPerSecond),
      formatNs(cell.codecs.ns),
      rate(cell.codecEventsPerSecond),
      other?.timing === undefined ? (other?.error === undefined ? '–' : 'threw') : formatNs(other.timing.ns),
      other?.eventsPerSecond === undefined ? '–' : rate(other.eventsPerSecond),
      String(cell.losses),
    ];
  });
  const lines: string[] = [];
  for (const cell of run.streams) {
    for (const other of cell.others) {
      if (other.error !== undefined) lines.push(`- ${cell.from} → ${cell.to}: ${other.name} threw: ${escape(other.error)}`);
      const extra = other.differences.filter((difference) => !cell.differences.includes(difference));
      if (extra.length > 0) lines.push(`- ${cell.from} → ${cell.to}, ${other.name}: ${extra.map(escape).join('; ')}`);
    }
  }
  const own = run.streams.filter((cell) => cell.differences.length > 0).map((cell) => `- ${cell.from} → ${cell.to}, interlingua (${cell.losses} losses reported): ${cell.differences.map(escape).join('; ')}`);
  const notes = [
    lines.length === 0 ? '' : `Where llm-bridge's output stream means something other than the source (accumulated by interlingua's decoder, beyond interlingua's own differences):\n\n${lines.join('\n')}`,
    own.length === 0 ? '' : `Where interlingua's own output stream differs from the source (each is a loss it reports, or a synthesised id):\n\n${own.join('\n')}`,
  ].filter((note) => note !== '');
  return `${table(head, rows)}${notes.length === 0 ? '' : `\n\n${notes.join('\n\n')}`}`;
}

function memorySection(run: BenchRun): string {
  if (run.memory.length === 0) return 'Not measured in this run.';
  const rows = run.memory.map((result) => [
    result.operation,
    mb(result.bodyBytes),
    mb(result.rssBefore),
    mb(result.peak),
    mb(result.added),
    `${(result.added / result.bodyBytes).toFixed(2)}×`,
  ]);
  const parts = (run.memoryParts ?? []).map((result) => [
    result.operation,
    mb(result.bodyBytes),
    mb(result.rssBefore),
    mb(result.peak),
    mb(result.added),
    `${(result.added / result.bodyBytes).toFixed(2)}×`,
    result.allocated === undefined ? '' : `${(result.allocated / result.bodyBytes).toFixed(2)}×`,
  ]);
  const main = table(['operation', 'body', 'RSS before', 'peak RSS', 'added at peak', 'added ÷ body'], rows);
  if (parts.length === 0) return main;
  return `${main}\n\nMemory per MB of body, for a body of tiny text blocks (the per-part cost; "added ÷ body" is MB of RSS per MB of body; "allocated ÷ body" MB allocated, garbage included, per MB of body, from V8's sampling heap profiler in a child of its own: the peak RSS holds only what lives at once and a young generation V8 sizes by what survives, so it hides short-lived copies):\n\n${table(['operation', 'body', 'RSS before', 'peak RSS', 'added at peak', 'added ÷ body', 'allocated ÷ body'], parts)}`;
}

/** A difference in ms with its sign. */
function signed(value: number): string {
  return `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(3)}`;
}

/** A gateway row: its CPU per request per round, and the medians of the rounds' ratios to the bare proxy and to the one-upstream `serve`. */
function gatewayRow(what: string, values: readonly number[], rounds: CpuRounds): string {
  const toFloor = median(values.map((value, index) => value / rounds.floorUs[index]!));
  const toServe = median(values.map((value, index) => value / rounds.interlinguaUs[index]!));
  return `${what} ${values.map((value) => value.toFixed(0)).join(', ')} µs, ${toFloor.toFixed(2)}× the bare proxy and ${toServe.toFixed(2)}× \`serve\` (medians of the rounds' ratios)`;
}

/** Each round's CPU per request of the bare proxy and of interlingua, and the median of the rounds' ratios. */
function roundsFigures(rounds: CpuRounds): string {
  const list = (values: readonly number[]) => values.map((value) => value.toFixed(0)).join(', ');
  const telemetry = telemetryRatios(rounds);
  const on = telemetry === undefined ? '' : `; interlingua with telemetry on (OTLP/HTTP export to a local receiver) ${list(rounds.telemetryUs!)} µs, ${telemetry.floor.toFixed(2)}× the bare proxy, ${telemetry.off.toFixed(2)}× telemetry off`;
  return `bare proxy ${list(rounds.floorUs)} µs; interlingua ${list(rounds.interlinguaUs)} µs; median of the rounds' ratios ${roundsRatio(rounds).toFixed(2)}×${on}`;
}

function proxySection(run: BenchRun): string {
  if (run.proxy.length === 0) return run.proxyError === undefined ? 'Not measured in this run.' : `Not measured: ${run.proxyError}`;
  const parts: string[] = [];
  for (const scenario of run.proxy) {
    const relay = scenario.runs.find((item) => item.kind === 'relay');
    const floor = scenario.runs.find((item) => item.kind === 'floor');
    const rows: string[][] = [[`direct to the ${scenario.upstream} upstream`, scenario.direct.rps.toFixed(0), ms(scenario.direct.p50), ms(scenario.direct.p99), '', '', '', '', String(scenario.direct.non2xx + scenario.direct.errors)]];
    for (const item of scenario.runs) {
      const name = item.kind === 'interlingua' ? `**${item.name}**` : item.name;
      if (item.load === undefined || item.skipped !== undefined) {
        rows.push([name, '', '', '', '', '', '', '', `not measured: ${escape(item.skipped ?? 'unknown')}`]);
        continue;
      }
      const cpu = item.cpuPerRequestUs;
      rows.push([
        name,
        item.load.rps.toFixed(0),
        ms(item.load.p50),
        ms(item.load.p99),
        `+${(item.load.p50 - scenario.direct.p50).toFixed(3)} / +${(item.load.p99 - scenario.direct.p99).toFixed(3)} ms`,
        cpu === undefined ? '–' : `${cpu.toFixed(0)} µs`,
        cpu === undefined || floor?.cpuPerRequestUs === undefined ? '–' : `${(cpu / floor.cpuPerRequestUs).toFixed(2)}×`,
        item.peakRss === undefined ? '–' : mb(item.peakRss),
        String(item.load.non2xx + item.load.errors),
      ]);
    }
    const how = scenario.runs.filter((item) => item.how !== '').map((item) => `- ${item.name}: ${escape(item.how)}`).join('\n');
    const ours = scenario.runs.find((item) => item.kind === 'interlingua');
    const firstByte =
      ours?.firstByteMs === undefined || scenario.directFirstByteMs === undefined
        ? ''
        : `\n\nTime to the first byte of a streamed answer (40-event stream, the upstream sends it whole at once; median of 200 sequential requests to each, direct, TCP relay, bare proxy and interlingua taken in turn, no other load): ${scenario.directFirstByteMs.toFixed(3)} ms direct, ${ours.firstByteMs.toFixed(3)} ms through interlingua (+${(ours.firstByteMs - scenario.directFirstByteMs).toFixed(3)} ms)${floor?.firstByteMs === undefined ? '' : `, ${floor.firstByteMs.toFixed(3)} ms through the bare proxy piping the upstream's stream in the caller's format (+${(floor.firstByteMs - scenario.directFirstByteMs).toFixed(3)} ms)`}${relay?.firstByteMs === undefined ? '' : `, ${relay.firstByteMs.toFixed(3)} ms through the TCP relay (+${(relay.firstByteMs - scenario.directFirstByteMs).toFixed(3)} ms)`}.`;
    const rounds = scenario.rounds;
    const roundsText =
      rounds === undefined || rounds.floorUs.length === 0
        ? ''
        : `\n\nCPU per request in ${rounds.floorUs.length} interleaved rounds (the bare proxy and interlingua loaded in turn at the same rate, ${rounds.seconds} s each after 1 s of warm-up, one unmeasured round first): ${roundsFigures(rounds)} (the target's verdict uses this; the table's single runs are one after the other).`;
    const gateway = scenario.gatewayRounds;
    const gatewayText =
      gateway === undefined || rounds === undefined || gateway.routedUs.length === 0
        ? ''
        : `\n\nThe gateway (\`serve --config\`, scripts/bench/gateway-configs.ts), in the same rounds: ${gatewayRow('a routed request (four upstreams, four routes, the last one matching)', gateway.routedUs, rounds)}; ${gatewayRow("a fallback hop (the primary answers 529 overloaded_error, the second target answers)", gateway.fallbackUs, rounds)}. Goal for the routed request: ≤ 1.05× \`serve\` with one upstream (the fallback hop makes two upstream calls, so it is a measure).`;
    const streamed = scenario.streamRounds;
    const streamedText =
      streamed === undefined || streamed.floorUs.length === 0
        ? ''
        : `\n\nStreamed answers (a measure, not a goal: the bare proxy pipes the upstream's stream in the caller's format without reading it, interlingua converts each of its 40 events), CPU per request in ${streamed.floorUs.length} interleaved rounds as above with the request asking for a stream: ${roundsFigures(streamed)}. Latency to the end of the stream, medians of the rounds: bare proxy p50 ${ms(median(streamed.floorP50))}, p99 ${ms(median(streamed.floorP99))}; interlingua p50 ${ms(median(streamed.interlinguaP50))}, p99 ${ms(median(streamed.interlinguaP99))}.`;
    parts.push(
      `### ${scenario.title}\n\n${table(['proxy', 'req/s', 'p50', 'p99', 'added p50 / p99', 'CPU per request', '÷ floor', 'peak RSS', 'failed'], rows)}${firstByte}${roundsText}${gatewayText}${streamedText}\n\n${how}`,
    );
  }
  return parts.join('\n\n');
}

/** docs/BENCHMARKS.md from a run, with the analysis notes written from its profiles. */
export function markdown(run: BenchRun, notes: string): string {
  const machine = Object.entries(run.machine).map(([key, value]) => `- ${key}: ${value}`).join('\n');
  const settings = Object.entries(run.settings).map(([key, value]) => `- ${key}: ${value}`).join('\n');
  const workloads = run.workloads.map((workload) => workloadSection(run, workload)).join('\n\n');
  return `# Benchmarks

Written by \`npm run bench\` (scripts/bench.ts)${run.quick ? ' in **--quick** mode (smoke numbers, not for comparison)' : ''}; the run took ${run.seconds.toFixed(0)} s. Numbers are from one run on the machine below; rerun to compare.

## Machine

${machine}

## Method

${settings}
- Workloads are generated deterministically (scripts/bench/workloads.ts): each body is built once as Anthropic wire JSON and converted once by interlingua into the other formats; the stream is built as Anthropic SSE and transcoded once into every format whose codec streams.
- **Floor**: \`JSON.stringify(JSON.parse(text))\` of the same source text, timed in the same run. A conversion is timed as text → \`convertRequest\`/\`convertResponse\` (which parses) → \`JSON.stringify\`, so it compares with the floor directly. llm-bridge is timed the same way: \`JSON.parse\` → \`translateBetweenProviders\` → \`JSON.stringify\`; llm-protocol as \`JSON.parse\` → the source adapter's \`parseRequest\`/\`parseResponse\` → the target adapter's \`renderRequest\`/\`renderResponse\` → \`JSON.stringify\`. interlingua's output is written with \`stringifyBody\` (\`JSON.stringify\`'s text, with base64 of 64 KiB or more, data URLs and bare, spliced in apart: a rope that shares the data, which the proxy writes piece by piece, \`bodyText\`). The library is the compiled build in \`dist/\` (\`npm run bench\` builds it first), as users run it.
- **Output floor** (a measure, not a goal): \`JSON.parse\` of the source text + \`JSON.stringify\` of interlingua's output, parsed once beforehand, timed in the same rounds as the floor (with half the warm-up, batch and budget of the others): the text work any translator that writes this same output must do. Where the target's body is bigger or more nested than the source's (ids, \`status\` and echoed settings in a Responses answer; \`role\` fields and part lists in Gemini), this alone costs more than the floor. "output floor" is its ratio to the floor, "interlingua ÷ output floor" what the conversion costs beyond the target's own text; the verdict stays interlingua ÷ floor.
- **Interleaved rounds**: for each source, the floor and every conversion from it (interlingua's and llm-bridge's) are warmed up, then timed in rounds, each round running one batch (about 5 ms) of every function in turn, until each has had its time budget. The machine is shared (see the load average above): a slow phase hits every function of a round alike, so the **ratio** is the median over rounds of (conversion ÷ floor in the same round), and "faster than llm-bridge" compares those ratios (every pair timed counts; the verdict line names the pairs the other translator won with an output that means something other than the source, as the list under each table shows). Times shown are medians per call. Same-format pairs (a round trip through the IR) are included.
- Meaning checks: every output (interlingua's, llm-bridge's and llm-protocol's) is decoded by interlingua's decoder of the target format and reduced to facts (text, tool calls and ids, tool results, images, reasoning, system, tools, model, max tokens, …), compared with the source's. Tool call ids that differ in Gemini rows are ids synthesised because Gemini has none.
- Streams: each format's stream in its own framing (SSE; NDJSON lines for Ollama; AWS event-stream frames for Bedrock) is fed in 16 KiB chunks through \`convertStream\` (bytes → bytes; the timed run only collects the output chunks), and again cut after every event as a live upstream sends them ("1 event per chunk"; the target verdict uses the 16 KiB column); "codecs alone" runs the same decoder and encoder synchronously over the parsed events and writes the output in the target's framing. The floor is \`JSON.parse\` + \`JSON.stringify\` of every event's data. Floor, codecs alone, \`convertStream\` and llm-bridge run in interleaved rounds as above, in a child process of their own (scripts/bench/streams-child.ts), whose heap holds only the stream workload. Events per second count the source's events and use the best round (the closest to one uncontended core); the "CPU" columns give the same per second of the process's CPU time (\`process.cpuUsage\`, user + system of every thread), which counts the garbage collector's threads working beside the main one as well, so it reads lower where they do. Times shown are medians.
- Memory: each operation on the 10 MB request runs in its own child process (\`--expose-gc\`, code warmed first); "added at peak" is the process's peak RSS after the operation minus the RSS just before it (body text loaded, after a GC). On Linux the peak is \`VmHWM\` of /proc/self/status, reset to the current RSS just before the operation (\`5\` written to /proc/self/clear_refs); \`process.resourceUsage().maxRSS\` would carry over the parent's size at the fork, which hid every operation behind the benchmark process's own RSS once it grew past the child's peak.
- Proxy: a plain \`node:http\` upstream child on 127.0.0.1 answers every POST at once with a fixed small-chat body; \`node dist/cli/main.js serve\` (the compiled bin) runs as a child; the load generator (scripts/bench/load-child.mjs) is a child process of its own, open loop at a fixed rate over 10 keep-alive \`node:http\` connections, first directly against the upstream (the upstream's own format), then through each proxy (the other format), and through a TCP relay (scripts/bench/relay-child.mjs: bytes piped to the upstream, no HTTP read; the upstream's own format) as a reference: what one more Node process on the path costs here, the least any proxy can add. Latencies run from handing a request to the client to the end of its answer (hrtime, per request, no histogram); load generator, upstream and proxy share the machine's cores. The streamed rounds load the same two proxies with the request asking for a stream: the upstream answers with the 40-event stream at once.

## Targets

${table(['target', 'measured', 'verdict'], targetRows(run))}

## Package: start-up and bundle size

${packageSection(run)}

## Conversions

Times are medians per call; ratio = median over rounds of time ÷ floor (target ≤ ${TARGETS.conversionRatio}×; bold where missed); "output floor" and "interlingua ÷ output floor" are medians over the same rounds (see Method). llm-bridge translates requests only (it has no whole-response conversion), so response rows have no llm-bridge time; llm-protocol has Anthropic Messages and OpenAI Chat only (requests and responses), so the other rows have no llm-protocol time.

Other translators:

${run.otherTranslators.map((line) => `- ${line}`).join('\n')}

${workloads}

### Real recorded requests (the corpus)

${corpusSection(run)}

## Streams: ${run.stream?.title ?? 'none'}

${run.stream === undefined ? '' : `Source events per format: ${Object.entries(run.stream.events).map(([format, count]) => `${format} ${count}`).join(', ')} (the Anthropic stream has the thinking, text and two tool calls in small deltas; the others are its transcoding, so formats that drop reasoning or merge deltas have fewer events).\n\n`}${streamSection(run)}

## Memory: the 10 MB request

${memorySection(run)}

## State stores: get + set

${storesSection(run.stores)}

## Proxy overhead

${proxySection(run)}

${reasoningStateSection(run.reasoningState)}
Other translating proxies:

${run.otherProxies.map((line) => `- ${line}`).join('\n')}

## What the profiles show, what was fixed, what remains

${notes}
`;
}

/** A compact console summary of the run. */
export function consoleSummary(run: BenchRun): string {
  const lines: string[] = [];
  if (run.package !== undefined) {
    lines.push(`\nCLI --help ${run.package.startup.cliHelpMs.toFixed(0)} ms (node -e 0: ${run.package.startup.nodeMs.toFixed(0)} ms); serve to listening ${run.package.startup.serveMs.toFixed(0)} ms`);
    for (const bundle of run.package.bundles) lines.push(`  ${bytesText(bundle.bytes).padStart(10)} min, ${bytesText(bundle.gzipBytes).padStart(9)} gzip  ${bundle.name}`);
  }
  for (const workload of run.workloads) {
    lines.push(`\n${workload.title}`);
    lines.push(`  ${'from → to'.padEnd(38)} ${'floor'.padStart(10)} ${'interlingua'.padStart(12)} ${'ratio'.padStart(7)} ${'out floor'.padStart(9)} ${'llm-bridge'.padStart(11)} ${'ratio'.padStart(7)} losses`);
    for (const cell of run.conversions.filter((item) => item.workload === workload.name)) {
      const other = cell.others[0];
      lines.push(
        `  ${`${cell.from} → ${cell.to}`.padEnd(38)} ${formatNs(cell.floor.ns).padStart(10)} ${formatNs(cell.timing.ns).padStart(12)} ${ratioText(cell.ratio).padStart(7)} ${ratioText(cell.outputFloorRatio).padStart(9)} ${(other?.timing === undefined ? (other?.error === undefined ? '–' : 'threw') : formatNs(other.timing.ns)).padStart(11)} ${ratioText(other?.ratio).padStart(7)} ${cell.losses}`,
      );
    }
  }
  if (run.streams.length > 0) {
    lines.push(`\n${run.stream?.title ?? 'Streams'}`);
    lines.push(`  ${'from → to'.padEnd(38)} ${'events'.padStart(6)} ${'convertStream'.padStart(14)} ${'events/s'.padStart(10)} ${'1/chunk'.padStart(10)} ${'codecs'.padStart(10)} ${'llm-bridge'.padStart(11)}`);
    for (const cell of run.streams) {
      const other = cell.others[0];
      lines.push(
        `  ${`${cell.from} → ${cell.to}`.padEnd(38)} ${String(cell.events).padStart(6)} ${formatNs(cell.pipeline.ns).padStart(14)} ${rate(cell.eventsPerSecond).padStart(10)} ${rate(cell.perEventEventsPerSecond).padStart(10)} ${rate(cell.codecEventsPerSecond).padStart(10)} ${(other?.eventsPerSecond === undefined ? '–' : rate(other.eventsPerSecond)).padStart(11)}`,
      );
    }
  }
  if (run.memory.length > 0) {
    lines.push('\nMemory (10 MB request, child processes)');
    for (const result of run.memory) lines.push(`  ${result.operation.padEnd(38)} peak ${mb(result.peak).padStart(10)} added ${mb(result.added).padStart(10)} (${(result.added / result.bodyBytes).toFixed(2)}× body)`);
  }
  if (run.stores !== undefined) {
    lines.push('\nStores (set + get)');
    for (const cell of run.stores.cells) lines.push(`  ${`${cell.store} ${cell.value}`.padEnd(32)} wall ${formatNs(cell.wallNs).padStart(9)}  CPU ${formatNs(cell.cpuNs).padStart(9)}  ${cell.ratioToMemory.toFixed(1)}× memory`);
    for (const reason of run.stores.skipped) lines.push(`  skipped: ${reason}`);
  }
  if (run.proxy.length > 0 || run.proxyError !== undefined) {
    lines.push('\nProxy');
    if (run.proxyError !== undefined) lines.push(`  not measured: ${run.proxyError}`);
    for (const scenario of run.proxy) {
      lines.push(`  ${scenario.title}`);
      lines.push(`    ${'direct'.padEnd(32)} ${scenario.direct.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(scenario.direct.p50)}  p99 ${ms(scenario.direct.p99)}`);
      for (const item of scenario.runs) {
        if (item.load === undefined || item.skipped !== undefined) lines.push(`    ${item.name.padEnd(32)} not measured: ${item.skipped ?? 'unknown'}`);
        else lines.push(`    ${item.name.padEnd(32)} ${item.load.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(item.load.p50)}  p99 ${ms(item.load.p99)}  CPU ${item.cpuPerRequestUs?.toFixed(0) ?? '?'} µs/req`);
      }
    }
  }
  lines.push('\nTargets');
  for (const [target, measured, verdict] of targetRows(run)) lines.push(`  ${verdict!.replace(/\*/g, '').padEnd(7)} ${target}: ${measured}`);
  return lines.join('\n');
}
