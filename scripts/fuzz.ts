/**
 * `npm run fuzz`: a long fuzz run outside the normal tests. Every input is
 * derived from its number alone, so any finding reproduces with
 * `npm run fuzz -- --only <n>`.
 *
 * Inputs, by number (n % 100):
 * - 0–44   a real payload (golden or corpus) with 1–4 mutations, converted to every format;
 * - 45–54  the same payload decoded, its IR mutated (null or a wrong type in any array slot or
 *          field, entries inserted, fields dropped), handed to every format's encodeRequest /
 *          encodeResponse / encodeError: a typed error must name a pointer that lands in the IR;
 * - 55–69  a random wire body made of the corpus vocabulary, converted to every format;
 * - 70–79  a random IR conversation: encode → decode → encode must be stable (see DESIGN "Reliability");
 * - 80–96  a recorded stream with mutated events and garbage, through the stream decoder and every encoder;
 * - 97–99  a recorded stream's bytes re-chunked, truncated and garbled (in its own framing: SSE, Ollama's
 *          NDJSON, Bedrock's binary event stream), through `convertStream` end to end, the output read
 *          back in the target's framing.
 * Every format is a source and a target (Bedrock and Ollama included); mutations include array holes.
 * Before those, a fixed set of big inputs: a 50 MB string and 10,000-deep nesting in every format and kind.
 *
 * Each input ends as a conversion, a typed error (`InterlinguaError` with a
 * JSON pointer), or anything else: an exception of another kind, a pointer
 * that does not land in the body, a stream that rejects or hangs. The run
 * prints the counts and exits 1 unless "anything else" is zero.
 *
 * Options: --inputs N (default 1,000,000), --workers N (default: cores),
 * --seed N (offset of the input numbers), --only N, --huge-mb N (default 50),
 * --no-big (skip the fixed big inputs), --seconds N (stop after N seconds, however many inputs ran:
 * the report counts what did).
 */
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { parseArgs } from 'node:util';
import { convertError, convertRequest, convertResponse, decodeError, decodeRequest, decodeResponse, encodeError, encodeRequest, encodeResponse } from '../src/formats/convert.ts';
import { detectFormat } from '../src/core/detect.ts';
import { implementedFormats, codecFor } from '../src/formats/registry.ts';
import { accumulate } from '../src/core/accumulate.ts';
import { convertStream, errorFromException, framingFor } from '../src/formats/stream.ts';
import { LossCollector } from '../src/core/losses.ts';
import fc from 'fast-check';
import type { FormatId, Request as IrRequest, Response as IrResponse } from '../src/core/ir.ts';
import { tooDeep } from '../src/core/wire.ts';
import type { StreamEvent, WireEvent } from '../src/core/stream-events.ts';
import { irRequestArbitrary, irResponseArbitrary } from '../test/support/arbitraries/ir-arbitraries.ts';
import { irRoundTrip, sampleOne } from '../test/support/arbitraries/ir-trips.ts';
import { applyPlan, mutateValue, SLOT_MUTATIONS, randomKinds, type MutateOptions } from '../test/support/arbitraries/mutations.ts';
import { classify, describeError, isTypedError, pointerLandsIn } from '../test/support/arbitraries/outcomes.ts';
import { loadSeeds, vocabularyOf, type Seed, type Vocabulary } from '../test/support/arbitraries/payloads.ts';
import { deeplyNested, int, pick, seeded, type Rng } from '../test/support/arbitraries/random.ts';
import { garbleStream, loadStreamSeeds, parseSse, type StreamSeed } from '../test/support/arbitraries/streams.ts';
import { randomWireBody } from '../test/support/arbitraries/wire-bodies.ts';
import { chunked, collect, streamingFormats } from '../test/support/streams.ts';

type Kind = 'request' | 'response' | 'error';
const CONVERT = { request: convertRequest, response: convertResponse, error: convertError } as const;
const DECODE = { request: decodeRequest, response: decodeResponse, error: decodeError } as const;
const ENCODE = { request: encodeRequest, response: encodeResponse, error: encodeError } as const;
const PHASES = ['mutation', 'ir-mutation', 'random-body', 'ir-round-trip', 'stream-events', 'stream-bytes', 'big'] as const;
type Phase = (typeof PHASES)[number];

/** Counts of one worker (or of the whole run). */
interface Tally {
  inputs: number;
  attempts: number;
  converted: number;
  typed: number;
  other: number;
  byPhase: Record<string, { inputs: number; attempts: number; converted: number; typed: number; other: number; ms: number }>;
  /** One example per distinct failure. */
  failures: Record<string, { count: number; input: number; note: string }>;
  slowest: { ms: number; input: number; phase: string };
}

function emptyTally(): Tally {
  return { inputs: 0, attempts: 0, converted: 0, typed: 0, other: 0, byPhase: {}, failures: {}, slowest: { ms: 0, input: -1, phase: '' } };
}

/** What the worker knows: seeds, vocabulary, streams. */
interface Material {
  formats: FormatId[];
  streaming: FormatId[];
  seeds: Seed[];
  vocabulary: Vocabulary;
  vocabularies: Map<string, Vocabulary>;
  streams: StreamSeed[];
  mutate: MutateOptions;
  irRequests: Map<FormatId, fc.Arbitrary<IrRequest>>;
  irResponses: Map<FormatId, fc.Arbitrary<IrResponse>>;
}

class Recorder {
  constructor(
    readonly tally: Tally,
    readonly input: number,
    readonly phase: Phase,
  ) {
    const phaseTally = (tally.byPhase[phase] ??= { inputs: 0, attempts: 0, converted: 0, typed: 0, other: 0, ms: 0 });
    phaseTally.inputs++;
    tally.inputs++;
  }

  private count(field: 'converted' | 'typed' | 'other'): void {
    const phaseTally = this.tally.byPhase[this.phase]!;
    phaseTally.attempts++;
    phaseTally[field]++;
    this.tally.attempts++;
    this.tally[field]++;
  }

  converted(): void {
    this.count('converted');
  }

  typed(): void {
    this.count('typed');
  }

  other(signature: string, note: string): void {
    this.count('other');
    const key = `${this.phase}: ${signature}`;
    const known = this.tally.failures[key];
    if (known === undefined) this.tally.failures[key] = { count: 1, input: this.input, note };
    else known.count++;
  }
}

// ---------------------------------------------------------------------------
// Phases

function fuzzBody(recorder: Recorder, material: Material, format: FormatId, kind: Kind, body: unknown, note: string): void {
  const decoded = classify(() => DECODE[kind](format, body, { model: 'fuzz-model' }));
  if (decoded.outcome === 'other') {
    recorder.other(describeError(decoded.error), `${note}; decode ${format} ${kind}`);
    return;
  }
  if (decoded.outcome === 'typed') {
    const path = (decoded.error as { path: string }).path;
    let root = body;
    if (typeof body === 'string') {
      try {
        root = JSON.parse(body);
      } catch {
        root = undefined;
      }
    }
    if (path === '' || pointerLandsIn(root, path)) recorder.typed();
    else recorder.other(`decode error pointer ${format} ${kind} misses the body`, `${note}; pointer ${path}; ${(decoded.error as Error).message.slice(0, 160)}`);
    return;
  }
  for (const to of material.formats) {
    const result = classify(() => CONVERT[kind](body, { from: format, to, model: 'fuzz-model' }));
    if (result.outcome === 'converted') recorder.converted();
    else if (result.outcome === 'typed') recorder.typed();
    else recorder.other(describeError(result.error), `${note}; ${format} → ${to} ${kind}`);
  }
  const detected = classify(() => detectFormat(body));
  if (detected.outcome === 'other') recorder.other(describeError(detected.error), `${note}; detectFormat`);
}

function mutationInput(recorder: Recorder, material: Material, rng: Rng): void {
  const seed = pick(rng, material.seeds);
  const plan = { seed: Math.floor(rng() * 0x7fffffff), kinds: randomKinds(rng, int(rng, 1, 4)) };
  const { body, notes } = applyPlan(seed.text, plan, material.mutate);
  fuzzBody(recorder, material, seed.format, seed.kind, body, `${seed.name}: ${notes.join(', ')}`);
}

/** A real payload decoded, its IR mutated, and the IR handed to every format's encoder. */
function irMutationInput(recorder: Recorder, material: Material, rng: Rng): void {
  const seed = pick(rng, material.seeds);
  let ir: unknown;
  try {
    ir = DECODE[seed.kind](seed.format, seed.text, { model: 'fuzz-model' }).ir;
  } catch (error) {
    recorder.other(`decode of an unmutated seed ${seed.format} ${seed.kind}: ${describeError(error)}`, seed.name);
    return;
  }
  // Mostly the crash class (null or a wrong type in a slot, an entry inserted), sometimes any mutation.
  const kinds = rng() < 0.7 ? Array.from({ length: int(rng, 1, 3) }, () => pick(rng, SLOT_MUTATIONS)) : randomKinds(rng, int(rng, 1, 3));
  const { value, notes } = mutateValue(ir, Math.floor(rng() * 0x7fffffff), kinds, material.mutate);
  const note = `IR of ${seed.name}: ${notes.join(', ')}`;
  for (const to of material.formats) {
    const result = classify(() => (ENCODE[seed.kind] as (format: FormatId, input: unknown) => unknown)(to, value));
    if (result.outcome === 'converted') recorder.converted();
    else if (result.outcome === 'other') recorder.other(`encode ${seed.kind} → ${to}: ${describeError(result.error)}`, note);
    else {
      const path = (result.error as { path: string }).path;
      if (path === '' || pointerLandsIn(value, path)) recorder.typed();
      else recorder.other(`encode error pointer ${seed.kind} → ${to} misses the IR`, `${note}; pointer ${path}; ${(result.error as Error).message.slice(0, 160)}`);
    }
  }
}

function randomBodyInput(recorder: Recorder, material: Material, rng: Rng): void {
  const format = pick(rng, material.formats);
  const kind = pick(rng, ['request', 'response', 'error'] as const);
  const vocabulary = rng() < 0.7 ? (material.vocabularies.get(`${format} ${kind}`) ?? material.vocabulary) : material.vocabulary;
  fuzzBody(recorder, material, format, kind, randomWireBody(rng, vocabulary), `random ${format} ${kind} body`);
}

function irInput(recorder: Recorder, material: Material, rng: Rng): void {
  const format = pick(rng, material.formats);
  const kind = rng() < 0.6 ? 'request' : 'response';
  const seed = Math.floor(rng() * 0x7fffffff);
  const ir = kind === 'request' ? sampleOne(material.irRequests.get(format)!, seed) : sampleOne(material.irResponses.get(format)!, seed);
  const result = irRoundTrip(format, kind, ir);
  if (result.ok) recorder.converted();
  else if (result.typed) recorder.typed();
  else recorder.other(`${format} ${kind}: ${result.problem}`, `random IR ${format} ${kind}: ${result.detail}`);
}

/** The stream stages' behaviour, synchronously: decode until an error, then encode everything. */
function streamEventsInput(recorder: Recorder, material: Material, rng: Rng): void {
  const pool = material.streams;
  if (pool.length === 0) return;
  const seed = pick(rng, pool);
  const { bytes, notes } = garbleStream(seed, rng, { rechunk: false, truncate: false, garbage: 0, mutations: int(rng, 1, 3) }, material.mutate);
  const events: WireEvent[] = parseSse(new TextDecoder().decode(bytes)).map((message) => {
    if (message.data === '[DONE]') return message.event === undefined ? { data: '[DONE]' } : { event: message.event, data: '[DONE]' };
    try {
      const data: unknown = JSON.parse(message.data);
      // As the SSE stage does: data nested too deep is not a usable event.
      if (tooDeep(data) !== undefined) throw new Error('too deep');
      return message.event === undefined ? { data } : { event: message.event, data };
    } catch (error) {
      return { data: message.data, invalid: (error as Error).message, ...(message.event === undefined ? {} : { event: message.event }) };
    }
  });
  // Truncate the event list sometimes: a stream that stops early must be flushed cleanly.
  const cut = rng() < 0.3 ? int(rng, 0, events.length) : events.length;
  const note = `${seed.name}: ${notes.join(', ')}${cut < events.length ? `, cut after ${cut} events` : ''}`;
  const losses = new LossCollector();
  const decoder = codecFor(seed.format).createStreamDecoder!({ losses, model: 'fuzz-model' });
  const irEvents: StreamEvent[] = [];
  let failed = false;
  for (const event of events.slice(0, cut)) {
    if (event.invalid !== undefined) {
      irEvents.push({ type: 'error', error: { type: 'server', message: 'not JSON' } });
      failed = true;
      break;
    }
    try {
      irEvents.push(...decoder.decode(event));
    } catch (error) {
      if (!isTypedError(error)) recorder.other(`stream decoder ${seed.format}: ${describeError(error)}`, note);
      else recorder.typed();
      irEvents.push({ type: 'error', error: errorFromException(error) });
      failed = true;
      break;
    }
  }
  if (!failed) {
    try {
      irEvents.push(...decoder.flush());
    } catch (error) {
      if (!isTypedError(error)) recorder.other(`stream decoder flush ${seed.format}: ${describeError(error)}`, note);
      else recorder.typed();
      return;
    }
  }
  const accumulated = classify(() => accumulate(irEvents));
  if (accumulated.outcome === 'other') recorder.other(`accumulate: ${describeError(accumulated.error)}`, note);
  for (const to of material.streaming) {
    const encoder = codecFor(to).createStreamEncoder!({ losses: new LossCollector(), model: 'fuzz-model' });
    const result = classify(() => {
      const out = [];
      for (const event of irEvents) out.push(...encoder.encode(event));
      out.push(...encoder.flush());
      for (const message of out) if (message.data !== '[DONE]') JSON.parse(message.data);
      return out;
    });
    // The stream stages turn an encoder's typed error into the target's error event; anything else breaks the caller's stream.
    if (result.outcome === 'converted') recorder.converted();
    else if (result.outcome === 'typed') recorder.typed();
    else recorder.other(`stream encoder ${seed.format} → ${to}: ${describeError(result.error)}`, note);
  }
}

const STREAM_TIMEOUT_MS = 10_000;

async function streamBytesInput(recorder: Recorder, material: Material, rng: Rng): Promise<void> {
  const pool = material.streams;
  if (pool.length === 0) return;
  const seed = pick(rng, pool);
  const options = { rechunk: true, truncate: rng() < 0.4, garbage: rng() < 0.5 ? int(rng, 1, 3) : 0, mutations: rng() < 0.3 ? 1 : 0 };
  const garbled = garbleStream(seed, rng, options, material.mutate);
  let { bytes, cuts } = garbled;
  const notes = garbled.notes;
  const framing = framingFor(seed.format);
  if (framing.contentType !== 'text/event-stream') {
    // Ollama's NDJSON and Bedrock's binary event stream: the garbled events (garbage lines included) in the source's own framing, cut and re-chunked there.
    bytes = framing.write(parseSse(new TextDecoder().decode(bytes)));
    if (options.truncate && bytes.length > 0) bytes = bytes.subarray(0, int(rng, 0, bytes.length - 1));
    cuts = cuts.map((cut) => Math.max(1, Math.min(cut, bytes.length - 1)));
    notes.push(`as ${framing.contentType}`);
  }
  const to = pick(rng, material.streaming);
  const note = `${seed.name} → ${to}: ${notes.join(', ')}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const converted = convertStream(chunked(bytes, cuts), { from: seed.format, to, model: 'fuzz-model' });
    const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('HANG: the converted stream did not end')), STREAM_TIMEOUT_MS)));
    const chunks = await Promise.race([collect(converted), hang]);
    await Promise.race([converted.losses, hang]);
    // The output must be valid in the target's own framing, every event JSON.
    const reader = framingFor(to).createReader();
    const output = Buffer.concat(chunks);
    for (const event of [...reader.push(new Uint8Array(output.buffer, output.byteOffset, output.byteLength)), ...reader.end()]) {
      if (event.invalid !== undefined) throw new Error(`the ${to} output holds an event that is not JSON: ${event.invalid}`);
    }
    recorder.converted();
  } catch (error) {
    if (isTypedError(error)) recorder.typed();
    else recorder.other(`convertStream ${seed.format} → ${to}: ${describeError(error)}`, note);
  } finally {
    clearTimeout(timer);
  }
}

/** Fixed big inputs: a huge string and 10,000-deep nesting in each format and kind. */
function bigInputs(tally: Tally, material: Material, hugeBytes: number, ping: (number: number) => void): void {
  let number = -1;
  for (const format of material.formats) {
    for (const kind of ['request', 'response', 'error'] as const) {
      const seed = material.seeds.find((candidate) => candidate.format === format && candidate.kind === kind && candidate.text.length > 200);
      if (seed === undefined) continue;
      const huge = 'y'.repeat(hugeBytes);
      const stringBody = JSON.parse(seed.text.replace(/"([^"\\]{8,})"/, () => JSON.stringify(huge))) as unknown;
      const started = Date.now();
      ping(number);
      fuzzBody(new Recorder(tally, number--, 'big'), material, format, kind, stringBody, `${seed.name} with a ${hugeBytes}-byte string`);
      const ms = Date.now() - started;
      if (ms > tally.slowest.ms) tally.slowest = { ms, input: number + 1, phase: `big (${hugeBytes} bytes string, ${format} ${kind})` };
      for (const shape of ['array', 'object', 'mixed'] as const) {
        const body = JSON.parse(seed.text) as Record<string, unknown>;
        // Nest at the top level, inside the first message-like array, and as an unknown key.
        const key = Object.keys(body).find((candidate) => Array.isArray(body[candidate])) ?? 'extra';
        const list = body[key];
        if (Array.isArray(list) && list.length > 0) list[0] = deeplyNested(10_000, shape, list[0]);
        else body[key] = deeplyNested(10_000, shape);
        body['x_deep'] = deeplyNested(10_000, shape);
        ping(number);
        fuzzBody(new Recorder(tally, number--, 'big'), material, format, kind, body, `${seed.name} nested 10,000 deep (${shape}) at /${key}/0 and /x_deep`);
        const text = shape === 'array' ? `${'['.repeat(10_000)}1${']'.repeat(10_000)}` : shape === 'object' ? `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}` : `${'[{"a":'.repeat(5_000)}1${'}]'.repeat(5_000)}`;
        ping(number);
        fuzzBody(new Recorder(tally, number--, 'big'), material, format, kind, `{"messages":${text},"contents":${text},"input":${text}}`, `${format} ${kind} as JSON text nested 10,000 deep`);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Worker

async function loadMaterial(hugeBytes: number): Promise<Material> {
  const formats = implementedFormats();
  const streaming = streamingFormats();
  const seeds = loadSeeds(formats);
  const vocabularies = new Map<string, Vocabulary>();
  for (const format of formats) {
    for (const kind of ['request', 'response', 'error'] as const) {
      const subset = seeds.filter((seed) => seed.format === format && seed.kind === kind);
      if (subset.length > 0) vocabularies.set(`${format} ${kind}`, vocabularyOf(subset));
    }
  }
  return {
    formats,
    streaming,
    seeds,
    vocabulary: vocabularyOf(seeds),
    vocabularies,
    streams: await loadStreamSeeds(streaming),
    mutate: { vocabulary: vocabularyOf(seeds), hugeLength: Math.min(hugeBytes, 1 << 20), nestDepth: 10_000 },
    irRequests: new Map(formats.map((format) => [format, irRequestArbitrary(format)])),
    irResponses: new Map(formats.map((format) => [format, irResponseArbitrary(format)])),
  };
}

interface WorkerJob {
  first: number;
  stride: number;
  end: number;
  offset: number;
  progress: SharedArrayBuffer;
  slot: number;
  hugeBytes: number;
  big: boolean;
  /** Epoch milliseconds after which the worker starts no further input. */
  deadline: number;
}

async function runInput(tally: Tally, material: Material, number: number): Promise<void> {
  const rng = seeded(number * 2654435761);
  const bucket = number % 100;
  const phase: Phase = bucket < 45 ? 'mutation' : bucket < 55 ? 'ir-mutation' : bucket < 70 ? 'random-body' : bucket < 80 ? 'ir-round-trip' : bucket < 97 ? 'stream-events' : 'stream-bytes';
  const recorder = new Recorder(tally, number, phase);
  const started = performance.now();
  try {
    switch (phase) {
      case 'mutation':
        mutationInput(recorder, material, rng);
        break;
      case 'ir-mutation':
        irMutationInput(recorder, material, rng);
        break;
      case 'random-body':
        randomBodyInput(recorder, material, rng);
        break;
      case 'ir-round-trip':
        irInput(recorder, material, rng);
        break;
      case 'stream-events':
        streamEventsInput(recorder, material, rng);
        break;
      default:
        await streamBytesInput(recorder, material, rng);
    }
  } catch (error) {
    // Whatever escaped the phase's own checks (the harness, or an exception thrown outside a classified call).
    recorder.other(`escaped: ${describeError(error)}`, `input #${number}: ${error instanceof Error ? (error.stack ?? '').split('\n').slice(0, 8).join(' | ') : ''}`);
  }
  const ms = performance.now() - started;
  tally.byPhase[phase]!.ms += ms;
  if (ms > tally.slowest.ms) tally.slowest = { ms: Math.round(ms), input: number, phase };
}

async function workerMain(job: WorkerJob): Promise<void> {
  const material = await loadMaterial(job.hugeBytes);
  const tally = emptyTally();
  const progressNumber = () => job.offset + Atomics.load(new Int32Array(job.progress), job.slot);
  process.on('unhandledRejection', (reason) => new Recorder(tally, progressNumber(), 'stream-bytes').other(`unhandled rejection: ${describeError(reason)}`, `near input #${progressNumber()}`));
  process.on('uncaughtException', (error) => new Recorder(tally, progressNumber(), 'stream-bytes').other(`uncaught exception: ${describeError(error)}`, `near input #${progressNumber()}`));
  const progress = new Int32Array(job.progress);
  try {
    if (job.big) bigInputs(tally, material, job.hugeBytes, (number) => Atomics.store(progress, job.slot, number));
  } catch (error) {
    new Recorder(tally, Atomics.load(progress, job.slot), 'big').other(`escaped: ${describeError(error)}`, 'a big input');
  }
  let lastReport = Date.now();
  for (let index = job.first; index < job.end && Date.now() < job.deadline; index += job.stride) {
    Atomics.store(progress, job.slot, index);
    await runInput(tally, material, job.offset + index);
    if (Date.now() - lastReport > 2000) {
      parentPort?.postMessage({ type: 'progress', tally });
      lastReport = Date.now();
    }
  }
  parentPort?.postMessage({ type: 'done', tally });
}

// ---------------------------------------------------------------------------
// Main

function merge(into: Tally, from: Tally): void {
  into.inputs += from.inputs;
  into.attempts += from.attempts;
  into.converted += from.converted;
  into.typed += from.typed;
  into.other += from.other;
  for (const [phase, counts] of Object.entries(from.byPhase)) {
    const target = (into.byPhase[phase] ??= { inputs: 0, attempts: 0, converted: 0, typed: 0, other: 0, ms: 0 });
    target.inputs += counts.inputs;
    target.attempts += counts.attempts;
    target.converted += counts.converted;
    target.typed += counts.typed;
    target.other += counts.other;
    target.ms += counts.ms;
  }
  for (const [key, failure] of Object.entries(from.failures)) {
    const known = into.failures[key];
    if (known === undefined) into.failures[key] = { ...failure };
    else known.count += failure.count;
  }
  if (from.slowest.ms > into.slowest.ms) into.slowest = { ...from.slowest };
}

function report(tally: Tally, seconds: number, hangs: string[]): void {
  const number = (value: number) => value.toLocaleString('en-US');
  console.log(`\ninterlingua fuzz: ${number(tally.inputs)} inputs, ${number(tally.attempts)} attempts in ${seconds.toFixed(0)} s (${(tally.inputs / Math.max(1, seconds)).toFixed(0)} inputs/s)`);
  console.log(`  conversions:    ${number(tally.converted)}`);
  console.log(`  typed errors:   ${number(tally.typed)}`);
  console.log(`  anything else:  ${number(tally.other + hangs.length)}${tally.other + hangs.length === 0 ? '' : '   <- must be zero'}`);
  console.log('\n  by phase (inputs / conversions / typed errors / anything else / ms per input, wall clock):');
  for (const phase of PHASES) {
    const counts = tally.byPhase[phase];
    if (counts !== undefined) console.log(`    ${phase.padEnd(14)} ${number(counts.inputs).padStart(10)} ${number(counts.converted).padStart(10)} ${number(counts.typed).padStart(10)} ${number(counts.other).padStart(6)} ${(counts.ms / Math.max(1, counts.inputs)).toFixed(2).padStart(8)}`);
  }
  console.log(`  slowest input: ${tally.slowest.ms} ms (#${tally.slowest.input}, ${tally.slowest.phase})`);
  for (const hang of hangs) console.log(`\n  HANG: ${hang}`);
  const failures = Object.entries(tally.failures).sort((a, b) => b[1].count - a[1].count);
  for (const [signature, failure] of failures.slice(0, 40)) {
    console.log(`\n  ${failure.count} × ${signature}\n    e.g. input #${failure.input}: ${failure.note.slice(0, 400)}`);
  }
  if (failures.length > 40) console.log(`\n  … and ${failures.length - 40} more distinct failures`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      inputs: { type: 'string', default: '1000000' },
      workers: { type: 'string', default: String(Math.max(1, Math.min(8, availableParallelism()))) },
      seed: { type: 'string', default: '0' },
      only: { type: 'string' },
      'huge-mb': { type: 'string', default: '50' },
      'no-big': { type: 'boolean', default: false },
      seconds: { type: 'string' },
    },
  });
  const hugeBytes = Math.round(Number(values['huge-mb']) * 1024 * 1024);
  const offset = Number(values.seed);
  if (values.only !== undefined) {
    const material = await loadMaterial(hugeBytes);
    const tally = emptyTally();
    // --only N runs input N; --only N-M runs that range in this thread, printing inputs slower than 200 ms.
    const [first, last] = values.only.split('-').map(Number) as [number, number | undefined];
    for (let number = first; number <= (last ?? first); number++) {
      const started = performance.now();
      await runInput(tally, material, number);
      const ms = performance.now() - started;
      if (last !== undefined && ms > 200) console.log(`  input #${number}: ${ms.toFixed(0)} ms`);
    }
    report(tally, 0, []);
    for (const failure of Object.values(tally.failures)) console.log(`\n  full note: ${failure.note}`);
    process.exitCode = tally.other === 0 ? 0 : 1;
    return;
  }
  const inputs = Number(values.inputs);
  const workers = Number(values.workers);
  const started = Date.now();
  const deadline = values.seconds === undefined ? Number.POSITIVE_INFINITY : started + Number(values.seconds) * 1000;
  const progress = new SharedArrayBuffer(4 * workers);
  const progressView = new Int32Array(progress);
  const total = emptyTally();
  const latest = new Map<number, Tally>();
  const hangs: string[] = [];
  const HANG_MS = 60_000;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;

  const runWorker = (slot: number, first: number, big: boolean): Promise<void> =>
    new Promise((resolve) => {
      const job: WorkerJob = { first, stride: workers, end: inputs, offset, progress, slot, hugeBytes, big, deadline };
      const worker = new Worker(bootstrap, { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: 4096 } });
      let lastIndex = -1;
      let lastChange = Date.now();
      const watchdog = setInterval(() => {
        const index = Atomics.load(progressView, slot);
        if (index !== lastIndex) {
          lastIndex = index;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > HANG_MS) {
          clearInterval(watchdog);
          hangs.push(`input #${offset + index} made no progress for ${HANG_MS / 1000} s (reproduce: npm run fuzz -- --only ${offset + index})`);
          void worker.terminate();
          const partial = latest.get(slot);
          if (partial !== undefined) merge(total, partial);
          latest.delete(slot);
          // Carry on after the stuck input with a fresh worker.
          void runWorker(slot, index + workers, false).then(resolve);
        }
      }, 5000);
      worker.on('message', (message: { type: string; tally: Tally }) => {
        if (message.type === 'progress') latest.set(slot, message.tally);
        if (message.type === 'done') {
          clearInterval(watchdog);
          latest.delete(slot);
          merge(total, message.tally);
          resolve();
        }
      });
      worker.on('error', (error) => {
        clearInterval(watchdog);
        hangs.push(`worker ${slot} crashed at input #${offset + Atomics.load(progressView, slot)}: ${describeError(error)}`);
        const partial = latest.get(slot);
        if (partial !== undefined) merge(total, partial);
        latest.delete(slot);
        resolve();
      });
    });

  const ticker = setInterval(() => {
    const sum = emptyTally();
    merge(sum, total);
    for (const tally of latest.values()) merge(sum, tally);
    process.stderr.write(`\r  ${sum.inputs.toLocaleString('en-US')} / ${inputs.toLocaleString('en-US')} inputs, ${sum.other} anything else, ${((Date.now() - started) / 1000).toFixed(0)} s   `);
  }, 5000);
  await Promise.all(Array.from({ length: workers }, (_, slot) => runWorker(slot, slot, slot === 0 && !values['no-big'])));
  clearInterval(ticker);
  report(total, (Date.now() - started) / 1000, hangs);
  process.exitCode = total.other === 0 && hangs.length === 0 ? 0 : 1;
}

if (isMainThread) await main();
else await workerMain(workerData as WorkerJob);
