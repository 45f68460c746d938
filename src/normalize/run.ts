/**
 * A whole normalize run: claim the output directory, read this run's share
 * of the inputs in order, cut their items into tasks, run them (here or on
 * worker threads) with a bounded number in flight, and write results in
 * submission order to `records.jsonl` (or Parquet, or `requests.jsonl`) and
 * `errors.jsonl`, then `summary.json` last, then release the lock.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import { claimOutputDir, shardSuffix, type ExistingOutputs, type Shard } from './out-dir.ts';
import type { RowSink } from './parquet.ts';
import { InlineRunner, WorkerPool, type TaskRunner } from './pool.ts';
import { guardItem, type Item, type OutFormat, type ProcessOptions, type Task, type TaskResult } from './process.ts';
import { ProgressBar, type ProgressOutput } from './progress.ts';
import { readItems, type ReadOptions, type ReadProgress } from './read.ts';
import { rangeItems, unitsOf, type InputUnit } from './shard.ts';
import { emptyTally, mergeSummaries, mergeTally, summarize, type Tally } from './summary.ts';
import type { InputKind, InputSummary, NormalizeSummary, Target } from './types.ts';

/** Options of {@link normalizeFiles}. */
export interface NormalizeOptions {
  inputs: string[];
  /** Output directory; created if missing. Default `./normalized`. */
  outDir?: string;
  /** `ir` (default) or a format to convert every body into. */
  to?: Target;
  /** `jsonl` (default), `parquet`, or `requests` (request bodies in the `to` format, ready to send). */
  outFormat?: OutFormat;
  /** Parquet only: a Hive layout by day and format (`date=…/format=…/part-K-of-N.parquet`). */
  partition?: boolean;
  /** Keep the IR's `$` shape hints in `extensions` (dropped by default). */
  keepHints?: boolean;
  /** This run's share of the inputs, `{ index: K, count: N }`; outputs are named `…-part-K-of-N`. */
  shard?: Shard;
  /** Sharded runs cut uncompressed JSON-lines files larger than this into ranges of this size. Default 64 MiB. */
  shardRangeBytes?: number;
  /** What to do with outputs already in `outDir`: `refuse` (default), `overwrite` or `append`. */
  existing?: ExistingOutputs;
  /** Worker threads; 1 (default) runs in this thread. */
  jobs?: number;
  /** Inputs smaller than this many bytes in total run in this thread whatever `jobs` says (starting workers costs about a second). Default 1 MiB. */
  workerMinBytes?: number;
  /** Base64 strings longer than this many characters go to the blob store. Default 4096. */
  blobThreshold?: number;
  /** Items per task. Default 256. */
  batchSize?: number;
  /** A JSONL line longer than this many bytes is one error, skipped unread. Default 256 MiB. */
  maxLineBytes?: number;
  /** Where the progress bar goes (drawn only on a terminal). Default: nowhere. */
  progress?: ProgressOutput;
}

/** The output file names inside the output directory (a shard's have `-part-K-of-N` before the extension). */
export const OUTPUT_FILES = { records: 'records.jsonl', errors: 'errors.jsonl', summary: 'summary.json', requests: 'requests.jsonl', parquet: 'records.parquet' } as const;

/** The file `name` (`records.jsonl`) of a shard (`records-part-2-of-3.jsonl`). */
export function outputName(name: string, shard: Shard | undefined): string {
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}${shardSuffix(shard)}${name.slice(dot)}`;
}

const TASK_TEXT_LIMIT = 4 * 1024 * 1024;

async function write(stream: WriteStream, text: string): Promise<void> {
  if (text !== '' && !stream.write(text)) await once(stream, 'drain');
}

async function finish(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

function itemSize(item: Item): number {
  return item.kind === 'line' ? item.text.length : 0;
}

/** The items of a unit in tasks of at most `batchSize` items (and about 4 MB of text). */
async function* tasksOf(unit: InputUnit, batchSize: number, progress: ReadProgress, next: () => number, read: ReadOptions): AsyncGenerator<Task> {
  const { file } = unit;
  const baseName = basename(file);
  let items: Item[] = [];
  let size = 0;
  const source = unit.range === undefined ? readItems(file, progress, read) : rangeItems(file, unit.range.start, unit.range.end, progress);
  for await (const read of source) {
    const item = guardItem(read);
    items.push(item);
    size += itemSize(item);
    if (items.length >= batchSize || size >= TASK_TEXT_LIMIT) {
      yield { sequence: next(), file, baseName, items };
      items = [];
      size = 0;
    }
  }
  if (items.length > 0) yield { sequence: next(), file, baseName, items };
}

function mostCommonKind(tally: Tally, file: string): InputKind {
  const entries = Object.entries(tally.byInputKind).sort((a, b) => b[1] - a[1]);
  return (entries[0]?.[0] as InputKind | undefined) ?? (/\.har$/i.test(file) ? 'har' : 'jsonl');
}

function previousSummary(path: string): NormalizeSummary | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as NormalizeSummary;
  } catch {
    return undefined;
  }
}

/** Where the records of a run go: a JSONL stream, or Parquet rows. */
interface Outputs {
  records?: WriteStream;
  rows?: RowSink;
  errors: WriteStream;
}

async function openOutputs(options: NormalizeOptions, outDir: string, appending: boolean): Promise<Outputs> {
  const flags = appending ? 'a' : 'w';
  const errors = createWriteStream(join(outDir, outputName(OUTPUT_FILES.errors, options.shard)), { flags });
  const format = options.outFormat ?? 'jsonl';
  if (format === 'parquet') {
    const { openParquetSink } = await import('./parquet.ts');
    return { rows: await openParquetSink(outDir, options.shard, options.partition === true), errors };
  }
  const name = format === 'requests' ? OUTPUT_FILES.requests : OUTPUT_FILES.records;
  return { records: createWriteStream(join(outDir, outputName(name, options.shard)), { flags }), errors };
}

/** Normalize recorded traffic; resolves with the summary once every output file is closed. */
export async function normalizeFiles(options: NormalizeOptions): Promise<NormalizeSummary> {
  const started = performance.now();
  const outDir = options.outDir ?? 'normalized';
  const jobs = Math.max(1, options.jobs ?? 1);
  const to = options.to ?? 'ir';
  const outFormat = options.outFormat ?? 'jsonl';
  if (outFormat === 'requests' && to === 'ir') throw new TypeError('outFormat "requests" needs a target format in `to`');
  if (outFormat === 'parquet' && options.existing === 'append') throw new TypeError('Parquet files cannot be appended to; write to another directory, or use a shard');
  const processOptions: ProcessOptions = { to, blobThreshold: options.blobThreshold ?? 4096, outDir, outFormat, keepHints: options.keepHints === true };
  const sizes = options.inputs.map((file) => statSync(file).size);
  const claim = claimOutputDir(outDir, options.shard, options.existing ?? 'refuse');
  const summaryPath = join(outDir, outputName(OUTPUT_FILES.summary, options.shard));
  const previous = claim.appending ? previousSummary(summaryPath) : undefined;
  const outputs = await openOutputs(options, outDir, claim.appending);
  const units = await unitsOf(options.inputs, sizes, options.shard, options.shardRangeBytes);
  const totalBytes = units.reduce((sum, unit) => sum + (unit.range === undefined ? (sizes[unit.input] ?? 0) : unit.range.end - unit.range.start), 0);
  const threads = totalBytes >= (options.workerMinBytes ?? 1024 * 1024) ? jobs : 1;
  const runner: TaskRunner = threads > 1 ? new WorkerPool(threads, processOptions) : new InlineRunner(processOptions);
  const inFlight = threads > 1 ? threads * 4 : 1;
  const bar = new ProgressBar(options.progress ?? { write: () => true }, totalBytes);
  const total = emptyTally();
  const blobs = { written: 0, referenced: 0, bytesWritten: 0, escaped: 0 };
  const perFile = options.inputs.map(() => emptyTally());
  let bytesBefore = 0;
  const progress: ReadProgress = { bytesRead: 0 };
  const pending: { file: number; result: Promise<TaskResult> }[] = [];
  let sequence = 0;

  const settle = async (): Promise<void> => {
    const head = pending.shift();
    if (head === undefined) return;
    const result = await head.result;
    if (outputs.records !== undefined) await write(outputs.records, result.records);
    if (outputs.rows !== undefined && result.rows.length > 0) outputs.rows.write(result.rows);
    await write(outputs.errors, result.errors);
    mergeTally(total, result.tally);
    mergeTally(perFile[head.file] ?? emptyTally(), result.tally);
    blobs.written += result.blobs.written;
    blobs.referenced += result.blobs.referenced;
    blobs.bytesWritten += result.blobs.bytesWritten;
    blobs.escaped += result.blobs.escaped;
    bar.update({ bytesRead: bytesBefore + progress.bytesRead, records: total.read, errors: total.errored });
  };

  try {
    for (const unit of units) {
      progress.bytesRead = 0;
      for await (const task of tasksOf(unit, options.batchSize ?? 256, progress, () => sequence++, options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes })) {
        pending.push({ file: unit.input, result: runner.run(task) });
        if (pending.length >= inFlight) await settle();
      }
      bytesBefore += unit.range === undefined ? (sizes[unit.input] ?? 0) : unit.range.end - unit.range.start;
    }
    while (pending.length > 0) await settle();
  } finally {
    // Rejections of tasks never awaited must not go unhandled.
    for (const { result } of pending.splice(0)) result.catch(() => {});
    bar.done();
    await runner.close();
  }
  // Only a run that got here closes its files and writes its summary; one that threw leaves its lock, which marks it interrupted.
  await Promise.all([outputs.records === undefined ? undefined : finish(outputs.records), finish(outputs.errors), outputs.rows?.close()]);
  const inputs: InputSummary[] = [];
  for (const [index, file] of options.inputs.entries()) {
    const tally = perFile[index] ?? emptyTally();
    if (options.shard !== undefined && tally.read + tally.skipped === 0 && !units.some((unit) => unit.input === index)) continue;
    inputs.push({ file, kind: mostCommonKind(tally, file), read: tally.read, written: tally.written, errored: tally.errored, skipped: tally.skipped });
  }
  const own = summarize(total, inputs, blobs, (performance.now() - started) / 1000);
  const summary = previous === undefined ? own : mergeSummaries(previous, own);
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  claim.release();
  return summary;
}
