/**
 * The benchmark's code, without timing anything: the workload generators are
 * deterministic and give bodies every format decodes, one conversion per
 * workload runs (interlingua and llm-bridge), streams transcode, and the
 * report renders, so `npm run bench` cannot rot unnoticed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { translateBetweenProviders } from 'llm-bridge';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bridgeProvider, runConversions } from '../../scripts/bench/conversions.ts';
import { runCorpus } from '../../scripts/bench/corpus.ts';
import { cellRatios, outputFloorOf } from '../../scripts/bench/floors.ts';
import { differences, wireFacts } from '../../scripts/bench/meaning.ts';
import { normalizeSection, runNormalizeBench } from '../../scripts/bench/normalize.ts';
import { REPO_ROOT } from '../support/fixtures.ts';
import { markdown, targetRows, type BenchRun } from '../../scripts/bench/report.ts';
import { framedBytes, splitSse, streamFacts, transcodeMessages } from '../../scripts/bench/streams.ts';
import type { RoundTiming, Timing } from '../../scripts/bench/timing.ts';
import {
  BENCH_MODEL,
  anthropicStreamMessages,
  bodyWorkloads,
  smallChatBodies,
  streamWorkload,
  streamingFormats,
} from '../../scripts/bench/workloads.ts';

const test = suite('bench');
const workloads = bodyWorkloads({ imageSize: 64 * 1024, turns: 4 });

test('workloads are deterministic and exist in every implemented format', () => {
  const again = bodyWorkloads({ imageSize: 64 * 1024, turns: 4 });
  assert.equal(
    workloads.map((workload) => workload.name),
    ['small-chat', 'conversation-50', 'image-10mb', 'thinking-tools-response'],
  );
  for (const [index, workload] of workloads.entries()) {
    assert.equal(workload.texts, again[index]!.texts, workload.name);
    for (const format of implementedFormats()) assert.type(workload.texts[format], 'string', `${workload.name} ${format}`);
  }
  const image = JSON.parse(workloads[2]!.texts.anthropic!) as { messages: { content: { source?: { data: string } }[] }[] };
  assert.is(image.messages[0]!.content[0]!.source!.data.length, 64 * 1024);
});

test('one conversion per workload: interlingua keeps the meaning of the Anthropic source for Anthropic', () => {
  for (const workload of workloads) {
    const text = workload.texts['openai-chat']!;
    const convert = workload.kind === 'request' ? convertRequest : convertResponse;
    const out = convert(text, { from: 'openai-chat', to: 'anthropic', model: BENCH_MODEL });
    const expected = wireFacts(workload.kind, 'openai-chat', JSON.parse(text));
    const actual = wireFacts(workload.kind, 'anthropic', out.body);
    assert.equal(differences(expected, actual), [], workload.name);
  }
});

test('one llm-bridge conversion per request workload runs', () => {
  for (const workload of workloads.filter((item) => item.kind === 'request')) {
    const out = translateBetweenProviders(bridgeProvider('anthropic'), bridgeProvider('openai-chat'), JSON.parse(workload.texts.anthropic!) as never);
    assert.type(JSON.stringify(out), 'string', workload.name);
  }
});

test('the stream workload has the requested number of events and transcodes between streaming formats', () => {
  assert.is(anthropicStreamMessages(300).length, 300);
  const stream = streamWorkload(300);
  const formats = streamingFormats();
  if (!formats.includes('anthropic')) return;
  assert.is(stream.events.anthropic, 300);
  for (const from of formats) {
    const messages = stream.messages[from]!;
    assert.is(messages.length, stream.events[from]);
    const text = stream.texts[from];
    if (text !== undefined) assert.is(splitSse(text).length, stream.events[from]);
    assert.type(streamFacts(from, framedBytes(from, messages)), 'object', `${from} decodes in its own framing`);
    for (const to of formats.filter((format) => format !== from)) {
      const out = transcodeMessages(messages, from, to);
      const facts = streamFacts(to, out.bytes);
      assert.type(facts, 'object', `${from} → ${to}: ${String(facts)}`);
    }
  }
});

test('the proxy bodies exist in every format', () => {
  const bodies = smallChatBodies();
  for (const format of implementedFormats()) {
    assert.type(bodies.requests[format], 'string');
    assert.type(bodies.responses[format], 'string');
  }
});

test('the report renders from a run', () => {
  const timing = { ns: 2000, min: 1000, iterations: 10, samples: 3 };
  const workload = workloads[0]!;
  const run: BenchRun = {
    quick: true,
    machine: { Node: process.version },
    settings: {},
    workloads: [workload],
    conversions: [
      {
        workload: workload.name,
        kind: 'request',
        from: 'anthropic',
        to: 'openai-chat',
        sourceBytes: 100,
        outputBytes: 120,
        floor: timing,
        outputFloor: timing,
        timing,
        ratio: 1,
        outputFloorRatio: 1.1,
        overOutputFloor: 0.9,
        losses: 0,
        differences: [],
        others: [{ name: 'llm-bridge', timing, ratio: 1.5, differences: ['system: "a" → ""'] }],
      },
    ],
    corpus: [{ from: 'gemini', to: 'anthropic', bodies: 3, refused: 1, bytes: 300, floor: timing, outputFloor: timing, timing, ratio: 1.7, outputFloorRatio: 1.3, overOutputFloor: 1.31, losses: 2 }],
    streams: [],
    memory: [{ operation: 'anthropic → gemini', bodyBytes: 100, outputBytes: 100, rssBefore: 1000, peak: 1200, added: 200 }],
    proxy: [],
    otherProxies: ['none'],
    otherTranslators: ['none'],
    seconds: 1,
  };
  const text = markdown(run, 'notes');
  assert.ok(text.includes('| anthropic → openai-chat |'));
  assert.ok(text.includes('system: "a" → ""'));
  assert.ok(targetRows(run).some((row) => row[2] === 'met'));
  assert.ok(text.includes('| gemini → anthropic | 2 (1 refused) |'));
  assert.ok(targetRows(run).some((row) => row[0]?.endsWith('corpus requests') === true && row[2] === '**missed**'));
});

test('the proxy report takes the CPU verdict from the whole-answer rounds and shows the streamed rounds as a measure', () => {
  const load = { label: 'x', url: 'http://127.0.0.1', rps: 1000, requests: 10000, non2xx: 0, errors: 0, timeouts: 0, p50: 0.3, p90: 0.5, p99: 1, max: 2 };
  const rounds = (floor: number[], ours: number[], floorP99: number[], oursP99: number[]) => ({
    floorUs: floor,
    interlinguaUs: ours,
    floorP50: floor.map(() => 0.5),
    floorP99,
    interlinguaP50: ours.map(() => 0.9),
    interlinguaP99: oursP99,
    seconds: 3,
  });
  const run: BenchRun = {
    quick: true,
    machine: {},
    settings: {},
    workloads: [],
    conversions: [],
    corpus: [],
    streams: [],
    memory: [],
    proxy: [
      {
        title: 'anthropic ingress → openai-chat upstream',
        ingress: 'anthropic',
        upstream: 'openai-chat',
        direct: load,
        directFirstByteMs: 0.4,
        runs: [
          { name: 'TCP relay', kind: 'relay', how: 'relay', load: { ...load, p50: 0.5, p99: 1.6 }, cpuPerRequestUs: 90, firstByteMs: 0.7 },
          { name: 'bare Node proxy (floor)', kind: 'floor', how: 'bare', load, cpuPerRequestUs: 200, firstByteMs: 1.1 },
          { name: 'interlingua serve', kind: 'interlingua', how: 'serve', load, cpuPerRequestUs: 220, firstByteMs: 1.4 },
        ],
        rounds: rounds([200, 210, 190], [220, 231, 209], [1, 1, 1], [1, 1, 1]),
        streamRounds: rounds([250, 260, 240], [500, 650, 600], [2, 3, 4], [5, 7, 6]),
        gatewayRounds: { routedUs: [231, 231, 209], fallbackUs: [400, 420, 380] },
      },
    ],
    otherProxies: [],
    otherTranslators: [],
    seconds: 1,
  };
  const text = markdown(run, '');
  // Whole answers: every round 1.10×, so the verdict is 1.10× and met; the streamed rounds (2.0–2.5×) do not enter it.
  assert.ok(targetRows(run).some((row) => row[0]?.startsWith('proxy CPU per request') === true && row[1]?.startsWith('1.10×') === true && row[2] === 'met'));
  assert.ok(text.includes('bare proxy 250, 260, 240 µs; interlingua 500, 650, 600 µs; median of the rounds\' ratios 2.50×'));
  assert.ok(text.includes('bare proxy p50 0.500 ms, p99 3.000 ms; interlingua p50 0.900 ms, p99 6.000 ms'));
  // The gateway's rows: each round's ratio to the bare proxy and to serve, in the same rounds (routed 1.155, 1.1, 1.1 → 1.10× the floor; 1.05, 1.0, 1.0 → 1.00× serve).
  assert.ok(text.includes('a routed request (four upstreams, four routes, the last one matching) 231, 231, 209 µs, 1.10× the bare proxy and 1.00× `serve`'), text);
  assert.ok(text.includes('a fallback hop (the primary answers 529 overloaded_error, the second target answers) 400, 420, 380 µs, 2.00× the bare proxy'));
  // The TCP relay is a reference beside the latency verdicts, never the floor of the CPU ratio.
  const rows = targetRows(run);
  assert.ok(rows.some((row) => row[0]?.includes('first byte') === true && row[1]?.includes('a TCP relay, which reads no HTTP: +0.300 ms; the bare proxy piping a stream: +0.700 ms') === true), JSON.stringify(rows));
  assert.ok(rows.some((row) => row[0]?.includes('p50') === true && row[1]?.includes('a TCP relay, which reads no HTTP: +0.200 ms / +0.600 ms; the bare proxy: +0.000 ms') === true), JSON.stringify(rows));
  assert.ok(text.includes('| TCP relay | 1000 | 0.500 ms | 1.600 ms | +0.200 / +0.600 ms | 90 µs | 0.45× |'), text);
});

test('the verdict on another translator counts every pair, and names the pairs it won with an output that means something else', () => {
  const timing = { ns: 2000, min: 1000, iterations: 10, samples: 3 };
  const workload = workloads[0]!;
  const base = { workload: workload.name, kind: 'request' as const, sourceBytes: 100, outputBytes: 120, floor: timing, outputFloor: timing, timing, outputFloorRatio: 1, overOutputFloor: 1, losses: 0 };
  const cells = [
    // Faster than llm-bridge.
    { ...base, from: 'anthropic' as const, to: 'openai-chat' as const, ratio: 1.2, differences: [], others: [{ name: 'llm-bridge', timing, ratio: 1.5, differences: [] }] },
    // Slower, and llm-bridge dropped the tool calls (a difference interlingua does not have).
    { ...base, from: 'anthropic' as const, to: 'openai-responses' as const, ratio: 1.4, differences: [], others: [{ name: 'llm-bridge', timing, ratio: 1.0, differences: ['tool calls: 2 → none'] }] },
    // Slower; llm-bridge's only difference is one interlingua shares (a synthesised id).
    { ...base, from: 'anthropic' as const, to: 'gemini' as const, ratio: 1.4, differences: ['tool call ids: 2 → 2'], others: [{ name: 'llm-bridge', timing, ratio: 1.3, differences: ['tool call ids: 2 → 2'] }] },
  ];
  const run: BenchRun = { quick: true, machine: {}, settings: {}, workloads: [workload], conversions: cells, corpus: [], streams: [], memory: [], proxy: [], otherProxies: [], otherTranslators: [], seconds: 1 };
  const row = targetRows(run).find((item) => item[0] === `faster than llm-bridge: ${workload.name}`)!;
  assert.is(row[1], "1/3 pairs faster; in 1 of the 2 others llm-bridge's output means something other than the source (anthropic → openai-responses; see the list under the table)");
  assert.is(row[2], '**missed**', 'the verdict counts every pair');
  const kept = targetRows({ ...run, conversions: [cells[0]!, cells[2]!] }).find((item) => item[0] === `faster than llm-bridge: ${workload.name}`)!;
  assert.is(kept[1], "1/2 pairs faster; llm-bridge's output keeps the meaning in the 1 other");
});

/** A timing of the given rounds (ns per operation), as `measureRounds` returns it. */
function rounds(...values: number[]): RoundTiming {
  return { ns: values[0]!, min: Math.min(...values), iterations: values.length, samples: values.length, rounds: values, cpuRounds: values, cpuMin: Math.min(...values) };
}

test('a cell\'s ratios pair the right timings, round by round', () => {
  const floor = rounds(100, 200, 100);
  const outputFloor = rounds(130, 260, 120);
  const conversion = rounds(160, 300, 150);
  assert.equal(cellRatios(floor, outputFloor, conversion), { ratio: 1.5, outputFloorRatio: 1.3, overOutputFloor: 160 / 130 });
});

test('the output floor parses the sources and stringifies the outputs', () => {
  const sources = ['{"a":1}', '{"a":[1,2,3,4,5,6,7,8,9]}'];
  const outputs = ['{"b": [1, 2]}', '{ "c" : "x" }'];
  assert.is(outputFloorOf(sources, outputs)(), '{"b":[1,2]}'.length + '{"c":"x"}'.length);
  assert.throws(() => outputFloorOf(['{'], ['{}'])(), SyntaxError);
});

/** The structure every timed cell must have: its own output floor, timed in the floor's rounds, and ratios from those three timings. */
function checkCellTimings(cell: { floor: Timing; outputFloor: Timing; timing: Timing; ratio: number; outputFloorRatio: number; overOutputFloor: number }, name: string): void {
  const floor = cell.floor as RoundTiming;
  const outputFloor = cell.outputFloor as RoundTiming;
  const timing = cell.timing as RoundTiming;
  assert.ok(outputFloor !== floor && outputFloor !== timing, `${name}: the output floor is a timing of its own`);
  assert.is(outputFloor.rounds.length, floor.rounds.length, `${name}: same rounds`);
  assert.is(timing.rounds.length, floor.rounds.length, `${name}: same rounds`);
  assert.equal({ ratio: cell.ratio, outputFloorRatio: cell.outputFloorRatio, overOutputFloor: cell.overOutputFloor }, cellRatios(floor, outputFloor, timing), name);
}

test('conversion cells carry an output floor per target from the same rounds (tiny budget, no time asserted)', async () => {
  const cells = await runConversions([workloads[0]!], { budgetMs: 0.2, sampleMs: 0.02 });
  assert.is(cells.length, implementedFormats().length ** 2);
  for (const cell of cells) checkCellTimings(cell, `${cell.from} → ${cell.to}`);
  for (const from of implementedFormats()) {
    const own = cells.filter((cell) => cell.from === from);
    assert.is(new Set(own.map((cell) => cell.floor)).size, 1, `${from}: one floor`);
    assert.is(new Set(own.map((cell) => cell.outputFloor)).size, own.length, `${from}: an output floor per target`);
  }
});

test('corpus cells carry an output floor per target over the bodies converted (tiny budget, no time asserted)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'bench-corpus-'));
  try {
    for (const format of ['openai-chat', 'gemini'] as const) {
      const source = join('test/corpus', format, 'request');
      const target = join(root, source);
      mkdirSync(target, { recursive: true });
      for (const file of readdirSync(source).filter((name) => name.endsWith('.json')).slice(0, 3)) writeFileSync(join(target, file), readFileSync(join(source, file)));
    }
    const cells = await runCorpus(root, { budgetMs: 0.2, sampleMs: 0.02 });
    assert.is(cells.length, 2 * implementedFormats().length);
    for (const cell of cells) checkCellTimings(cell, `corpus ${cell.from} → ${cell.to}`);
    assert.is(new Set(cells.map((cell) => cell.outputFloor)).size, cells.length, 'an output floor per cell');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the report shows the output floor columns, and the output floors of the cells over in the Targets table', () => {
  const timing = { ns: 2000, min: 1000, iterations: 10, samples: 3 };
  const workload = workloads[0]!;
  const base = { workload: workload.name, kind: 'request' as const, sourceBytes: 100, outputBytes: 120, floor: timing, outputFloor: timing, timing, losses: 0, differences: [], others: [] };
  const run: BenchRun = {
    quick: true,
    machine: {},
    settings: {},
    workloads: [workload],
    conversions: [
      { ...base, from: 'gemini', to: 'openai-responses', ratio: 1.8, outputFloorRatio: 1.35, overOutputFloor: 1.33 },
      { ...base, from: 'gemini', to: 'anthropic', ratio: 1.6, outputFloorRatio: 1.05, overOutputFloor: 1.52 },
      { ...base, from: 'gemini', to: 'gemini', ratio: 1.2, outputFloorRatio: 1.4, overOutputFloor: 0.86 },
    ],
    corpus: [
      { from: 'openai-chat', to: 'gemini', bodies: 3, refused: 0, bytes: 300, floor: timing, outputFloor: timing, timing, ratio: 1.4, outputFloorRatio: 1.12, overOutputFloor: 1.25, losses: 0 },
      { from: 'openai-chat', to: 'ollama', bodies: 3, refused: 0, bytes: 300, floor: timing, outputFloor: timing, timing, ratio: 1.6, outputFloorRatio: 1.2, overOutputFloor: 1.33, losses: 0 },
    ],
    streams: [],
    memory: [],
    proxy: [],
    otherProxies: [],
    otherTranslators: [],
    seconds: 1,
  };
  const text = markdown(run, '');
  assert.ok(text.includes('| from → to | source | floor | interlingua | ratio | output floor | interlingua ÷ output floor | losses |'), 'conversion table head');
  assert.ok(text.includes('| gemini → openai-responses | 100 B | 2.00 µs | 2.00 µs | **1.80×** | 1.35× | 1.33× | 0 |'), 'conversion row');
  assert.ok(text.includes('| gemini → gemini | 100 B | 2.00 µs | 2.00 µs | 1.20× | 1.40× | 0.86× | 0 |'), 'same-format row');
  assert.ok(text.includes('| from → to | bodies | source | floor | interlingua | ratio | output floor | interlingua ÷ output floor | losses |'), 'corpus table head');
  assert.ok(text.includes('| openai-chat → gemini | 3 | 300 B | 2.00 µs | 2.00 µs | 1.40× | 1.12× | 1.25× | 0 |'), 'corpus row');
  assert.ok(text.includes('**Output floor**'), 'Method explains the output floor');
  const rows = targetRows(run);
  const conversions = rows.find((row) => row[0]?.endsWith(`floor: ${workload.name}`) === true)!;
  assert.is(conversions[1], '1/3 cells within; worst 1.80× (gemini → openai-responses); the 2 over have output floors of 1.05–1.35×');
  assert.is(conversions[2], '**missed**', 'the verdict is still the ratio to the floor');
  const corpus = rows.find((row) => row[0]?.endsWith('corpus requests') === true)!;
  assert.is(corpus[1], '1/2 pairs within; worst 1.60× (openai-chat → ollama); the 1 over has an output floor of 1.20×');
});

test('normalize rows: each run reads every generated record (the large input with its images too), with a peak RSS, and renders', () => {
  const rows = runNormalizeBench(REPO_ROOT, { mediumBytes: 40_000, largeBytes: 600_000, progress: () => {} });
  assert.is(rows.length, 8);
  const medium = rows[0]?.records ?? 0;
  assert.ok(medium > 20);
  for (const row of rows.slice(0, 6)) assert.is(row.records, medium, row.name);
  assert.ok((rows[6]?.records ?? 0) > 20, 'OTLP lines give a record per span');
  assert.ok((rows[7]?.records ?? 0) > 20, 'the large input is read line by line');
  for (const row of rows) assert.ok(row.peakRss > 10_000_000 && row.cpuSeconds > 0 && row.megabytesPerSecond > 0, row.name);
  assert.match(normalizeSection(rows, '1.00 / 1.00 / 1.00'), '| JSONL → Parquet, --jobs 2 |');
});

test.run();
