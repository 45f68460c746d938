/**
 * A whole normalize run: read every input in order, cut its items into
 * tasks, run them (here or on worker threads) with a bounded number in
 * flight, and write results in submission order to `records.jsonl` and
 * `errors.jsonl`, then `summary.json`.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import { InlineRunner, WorkerPool, type TaskRunner } from './pool.ts';
import { guardItem, type Item, type ProcessOptions, type Task, type TaskResult } from './process.ts';
import { ProgressBar, type ProgressOutput } from './progress.ts';
import { readItems, type ReadProgress } from './read.ts';
import { emptyTally, mergeTally, summarize, type Tally } from './summary.ts';
import type { InputKind, InputSummary, NormalizeSummary, Target } from './types.ts';

/** Options of {@link normalizeFiles}. */
export interface NormalizeOptions {
  inputs: string[];
  /** Output directory; created if missing. Default `./normalized`. */
  outDir?: string;
  /** `ir` (default) or a format to convert every body into. */
  to?: Target;
  /** Worker threads; 1 (default) runs in this thread. */
  jobs?: number;
  /** Inputs smaller than this many bytes in total run in this thread whatever `jobs` says (starting workers costs about a second). Default 1 MiB. */
  workerMinBytes?: number;
  /** Base64 strings longer than this many characters go to the blob store. Default 4096. */
  blobThreshold?: number;
  /** Items per task. Default 256. */
  batchSize?: number;
  /** Where the progress bar goes (drawn only on a terminal). Default: nowhere. */
  progress?: ProgressOutput;
}

/** The output file names inside the output directory. */
export const OUTPUT_FILES = { records: 'records.jsonl', errors: 'errors.jsonl', summary: 'summary.json' } as const;

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

/** The items of a file in tasks of at most `batchSize` items (and about 4 MB of text). */
async function* tasksOf(file: string, batchSize: number, progress: ReadProgress, next: () => number): AsyncGenerator<Task> {
  const baseName = basename(file);
  let items: Item[] = [];
  let size = 0;
  for await (const read of readItems(file, progress)) {
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

/** Normalize recorded traffic; resolves with the summary once every output file is closed. */
export async function normalizeFiles(options: NormalizeOptions): Promise<NormalizeSummary> {
  const started = performance.now();
  const outDir = options.outDir ?? 'normalized';
  const jobs = Math.max(1, options.jobs ?? 1);
  const processOptions: ProcessOptions = { to: options.to ?? 'ir', blobThreshold: options.blobThreshold ?? 4096, outDir };
  mkdirSync(outDir, { recursive: true });
  const records = createWriteStream(join(outDir, OUTPUT_FILES.records));
  const errors = createWriteStream(join(outDir, OUTPUT_FILES.errors));
  const totalBytes = options.inputs.reduce((sum, file) => sum + statSync(file).size, 0);
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
    await write(records, result.records);
    await write(errors, result.errors);
    mergeTally(total, result.tally);
    mergeTally(perFile[head.file] ?? emptyTally(), result.tally);
    blobs.written += result.blobs.written;
    blobs.referenced += result.blobs.referenced;
    blobs.bytesWritten += result.blobs.bytesWritten;
    blobs.escaped += result.blobs.escaped;
    bar.update({ bytesRead: bytesBefore + progress.bytesRead, records: total.read, errors: total.errored });
  };

  try {
    for (const [index, file] of options.inputs.entries()) {
      progress.bytesRead = 0;
      for await (const task of tasksOf(file, options.batchSize ?? 256, progress, () => sequence++)) {
        pending.push({ file: index, result: runner.run(task) });
        if (pending.length >= inFlight) await settle();
      }
      bytesBefore += statSync(file).size;
    }
    while (pending.length > 0) await settle();
  } finally {
    // Rejections of tasks never awaited must not go unhandled.
    for (const { result } of pending.splice(0)) result.catch(() => {});
    bar.done();
    await runner.close();
    await Promise.all([finish(records), finish(errors)]);
  }
  const inputs: InputSummary[] = options.inputs.map((file, index) => {
    const tally = perFile[index] ?? emptyTally();
    return { file, kind: mostCommonKind(tally, file), read: tally.read, written: tally.written, errored: tally.errored, skipped: tally.skipped };
  });
  const summary = summarize(total, inputs, blobs, (performance.now() - started) / 1000);
  writeFileSync(join(outDir, OUTPUT_FILES.summary), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
