/**
 * The work of a batch of input items, the same in the main thread and in a
 * worker: each item (a JSONL line, a HAR entry, an array element) becomes
 * one serialised line of `records.jsonl` or `errors.jsonl`, or a skip, with
 * its media moved to the blob store. Never throws for one item.
 */
import { createHash } from 'node:crypto';
import { isObject } from '../core/wire.ts';
import { BlobExtractor } from './blob-refs.ts';
import { BlobStore } from './blob-store.ts';
import { exchangeFromItem } from './exchange.ts';
import { reasonOf, NormalizeFailure } from './failure.ts';
import { exchangeFromHarEntry } from './har.ts';
import { classifyItem } from './input-kind.ts';
import { buildOutcome } from './record.ts';
import { emptyTally, tallyOutcome, type Tally } from './summary.ts';
import type { Exchange, InputKind, NormalizeErrorCode, Outcome, RecordSource, Target } from './types.ts';

/** What every item of a run is processed with. */
export interface ProcessOptions {
  to: Target;
  /** Base64 strings longer than this many characters go to the blob store. */
  blobThreshold: number;
  /** The output directory (blobs go under `blobs/sha256/`). */
  outDir: string;
}

/**
 * One input item: a raw JSONL line, an already parsed HAR entry, array
 * element, cassette interaction or span (with the kind when the reader
 * knows it, and the line of an OTLP line's span), or a whole file or one
 * line that cannot be read (with the code of its error).
 */
export type Item =
  | { kind: 'line'; line: number; text: string }
  | { kind: 'entry'; entry: number; value: unknown; har: boolean; inputKind?: InputKind; line?: number }
  | { kind: 'unreadable'; message: string; code?: NormalizeErrorCode; line?: number };

/** A batch of items of one file, numbered so results can be written in order. */
export interface Task {
  sequence: number;
  /** The file as named on the command line. */
  file: string;
  /** Its base name, which goes into ids. */
  baseName: string;
  items: Item[];
}

/** The serialised outcomes of a task. */
export interface TaskResult {
  sequence: number;
  /** Lines for `records.jsonl`, each ending in a newline. */
  records: string;
  /** Lines for `errors.jsonl`. */
  errors: string;
  tally: Tally;
  blobs: { written: number; referenced: number; bytesWritten: number };
}

/** sha256 of the file's base name, the item's locator and its raw text: the same item always gets the same id. */
export function stableId(baseName: string, locator: string, raw: string): string {
  return createHash('sha256').update(`${baseName}\n${locator}\n`).update(raw).digest('hex').slice(0, 32);
}

interface Prepared {
  id: string;
  source: RecordSource;
  exchange?: Exchange;
  failure?: unknown;
}

function prepareLine(task: Task, item: { line: number; text: string }): Prepared {
  const id = stableId(task.baseName, `line:${item.line}`, item.text);
  let value: unknown;
  try {
    value = JSON.parse(item.text);
  } catch (error) {
    const failure = new NormalizeFailure('invalid_line', `the line is not JSON (${(error as Error).message})`);
    return { id, source: { file: task.file, kind: 'jsonl', line: item.line }, failure };
  }
  return prepareValue(id, { file: task.file, kind: classifyItem(value), line: item.line }, value);
}

function prepareValue(id: string, source: RecordSource, value: unknown): Prepared {
  if (isObject(value)) {
    const itemId = value['custom_id'] ?? (source.kind === 'bedrock-batch' ? value['recordId'] : source.kind.startsWith('gemini-batch') ? value['key'] : undefined);
    if (typeof itemId === 'string') source.customId = itemId;
  }
  try {
    const exchange = source.kind === 'har' ? exchangeFromHarEntry(value) : exchangeFromItem(value, source.kind);
    return { id, source, exchange };
  } catch (failure) {
    return { id, source, failure };
  }
}

function prepare(task: Task, item: Item): Prepared {
  if (item.kind === 'line') return prepareLine(task, item);
  if (item.kind === 'unreadable') {
    const source: RecordSource = { file: task.file, kind: /\.har$/i.test(task.file) ? 'har' : 'jsonl', ...(item.line === undefined ? {} : { line: item.line }) };
    const id = stableId(task.baseName, item.line === undefined ? 'file' : `line:${item.line}`, '');
    return { id, source, failure: new NormalizeFailure(item.code ?? 'invalid_json', item.message) };
  }
  const locator = item.line === undefined ? `entry:${item.entry}` : `line:${item.line}:entry:${item.entry}`;
  const id = stableId(task.baseName, locator, JSON.stringify(item.value) ?? '');
  const kind: InputKind = item.inputKind ?? (item.har ? 'har' : classifyItem(item.value));
  return prepareValue(id, { file: task.file, kind, entry: item.entry, ...(item.line === undefined ? {} : { line: item.line }) }, item.value);
}

/** Processes tasks; holds the blob store of one thread. */
export class TaskProcessor {
  private readonly store: BlobStore;
  private readonly extractor: BlobExtractor;

  constructor(private readonly options: ProcessOptions) {
    this.store = new BlobStore(options.outDir);
    this.extractor = new BlobExtractor(options.blobThreshold, (hash, bytes) => this.store.put(hash, bytes));
  }

  /** The outcome of one item. */
  outcome(task: Task, item: Item): Outcome {
    const prepared = prepare(task, item);
    if (prepared.exchange === undefined) {
      return { kind: 'error', error: { id: prepared.id, source: prepared.source, reason: reasonOf(prepared.failure) } };
    }
    return buildOutcome(prepared.exchange, { id: prepared.id, source: prepared.source }, this.options.to);
  }

  /** Process every item of a task. */
  run(task: Task): TaskResult {
    const before = { written: this.store.written, referenced: this.extractor.referenced, bytesWritten: this.store.bytesWritten };
    const tally = emptyTally();
    let records = '';
    let errors = '';
    for (const item of task.items) {
      let outcome = this.outcome(task, item);
      let line: string | undefined;
      if (outcome.kind === 'record') {
        try {
          line = JSON.stringify(this.extractor.extract(outcome.record));
        } catch (error) {
          outcome = { kind: 'error', error: { id: outcome.record.id, source: outcome.record.source, reason: reasonOf(error) } };
        }
      }
      tallyOutcome(tally, outcome);
      if (line !== undefined) records += `${line}\n`;
      else if (outcome.kind === 'error') errors += `${JSON.stringify(outcome.error)}\n`;
    }
    return {
      sequence: task.sequence,
      records,
      errors,
      tally,
      blobs: {
        written: this.store.written - before.written,
        referenced: this.extractor.referenced - before.referenced,
        bytesWritten: this.store.bytesWritten - before.bytesWritten,
      },
    };
  }
}
