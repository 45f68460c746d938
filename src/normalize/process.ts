/**
 * The work of a batch of input items, the same in the main thread and in a
 * worker: each item (a JSONL line, a HAR entry, an array element) becomes
 * one serialised line of `records.jsonl` or `errors.jsonl`, or a skip, with
 * its media moved to the blob store. Never throws for one item.
 */
import { createHash } from 'node:crypto';
import { InterlinguaError } from '../core/errors.ts';
import { isObject, MAX_DEPTH, tooDeep } from '../core/wire.ts';
import { BlobExtractor } from './blob-refs.ts';
import { BlobStore } from './blob-store.ts';
import { exchangeFromItem } from './exchange.ts';
import { reasonOf, NormalizeFailure } from './failure.ts';
import { exchangeFromHarEntry } from './har.ts';
import { classifyItem } from './input-kind.ts';
import { rowOf, type ExchangeRow } from './columns.ts';
import { buildOutcome } from './record.ts';
import { replayOf } from './replay.ts';
import { emptyTally, tallyOutcome, type Tally } from './summary.ts';
import type { Exchange, InputKind, NormalizeErrorCode, Outcome, RecordSource, Target } from './types.ts';

/** What a run writes per exchange: JSONL records, Parquet rows, or request bodies to replay. */
export type OutFormat = 'jsonl' | 'parquet' | 'requests';

/** What every item of a run is processed with. */
export interface ProcessOptions {
  to: Target;
  /** Base64 strings longer than this many characters go to the blob store. */
  blobThreshold: number;
  /** The output directory (blobs go under `blobs/sha256/`). */
  outDir: string;
  /** Default `jsonl`. */
  outFormat?: OutFormat;
  /** Keep the IR's `$` shape hints in `extensions` (dropped by default). */
  keepHints?: boolean;
}

/**
 * One input item: a raw JSONL line, an already parsed HAR entry, array
 * element, cassette interaction or span (with the kind when the reader
 * knows it, and the line of an OTLP line's span), or a whole file or one
 * line that cannot be read (with the code of its error).
 */
export type Item =
  /** A line: its 1-based number where the reader counted from the start of the file, its byte offset where it read a byte range. */
  | { kind: 'line'; line?: number; offset?: number; text: string }
  | { kind: 'entry'; entry: number; value: unknown; har: boolean; inputKind?: InputKind; line?: number }
  | { kind: 'unreadable'; message: string; code?: NormalizeErrorCode; line?: number }
  /** An entry that cannot travel (to a worker) or be walked: nested deeper than `MAX_DEPTH`; `path` points at the level too deep. */
  | { kind: 'too-deep'; entry: number; har: boolean; inputKind?: InputKind; line?: number; path: string };

/**
 * The item as it can be handed on: an entry nested deeper than `MAX_DEPTH`
 * (a hostile or broken HAR) becomes a `too-deep` item here, in the reading
 * thread, because copying it to a worker or serialising it overflows the stack.
 */
export function guardItem(item: Item): Item {
  if (item.kind !== 'entry') return item;
  const path = tooDeep(item.value);
  if (path === undefined) return item;
  const { entry, har, inputKind, line } = item;
  return { kind: 'too-deep', entry, har, path, ...(inputKind === undefined ? {} : { inputKind }), ...(line === undefined ? {} : { line }) };
}

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
  /** Lines for `records.jsonl` (or `requests.jsonl`), each ending in a newline. */
  records: string;
  /** The rows, for Parquet. */
  rows: ExchangeRow[];
  /** Lines for `errors.jsonl`. */
  errors: string;
  tally: Tally;
  blobs: { written: number; referenced: number; bytesWritten: number; escaped: number };
}

/**
 * The first 32 hex digits of the sha256 of an item's content (a JSONL line's
 * text, a HAR entry as JSON): the same recorded exchange gets the same id in
 * every run, shard and file, so outputs of overlapping inputs deduplicate.
 */
export function stableId(content: string): string {
  return createHash('sha256').update('interlingua.exchange\n').update(content).digest('hex').slice(0, 32);
}

interface Prepared {
  id: string;
  source: RecordSource;
  exchange?: Exchange;
  failure?: unknown;
}

function lineSource(task: Task, item: { line?: number; offset?: number }, kind: InputKind): RecordSource {
  const source: RecordSource = { file: task.file, kind };
  if (item.line !== undefined) source.line = item.line;
  if (item.offset !== undefined) source.offset = item.offset;
  return source;
}

function prepareLine(task: Task, item: { line?: number; offset?: number; text: string }): Prepared {
  const id = stableId(item.text);
  let value: unknown;
  try {
    value = JSON.parse(item.text);
  } catch (error) {
    const failure = new NormalizeFailure('invalid_line', `the line is not JSON (${(error as Error).message})`);
    return { id, source: lineSource(task, item, 'jsonl'), failure };
  }
  return prepareValue(id, lineSource(task, item, classifyItem(value)), value);
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
    const id = stableId(`file:${task.baseName}\n${item.line ?? ''}\n${item.message}`);
    return { id, source, failure: new NormalizeFailure(item.code ?? 'invalid_json', item.message) };
  }
  const at = item.line === undefined ? {} : { line: item.line };
  if (item.kind === 'too-deep') {
    const failure = new InterlinguaError('invalid_value', `the entry nests deeper than ${MAX_DEPTH} levels; it is not read`, { path: item.path });
    const source: RecordSource = { file: task.file, kind: item.inputKind ?? (item.har ? 'har' : 'jsonl'), entry: item.entry, ...at };
    return { id: stableId(`too-deep:${task.baseName}\n${item.line ?? ''}\nentry:${item.entry}`), source, failure };
  }
  const id = stableId(JSON.stringify(item.value) ?? '');
  const kind: InputKind = item.inputKind ?? (item.har ? 'har' : classifyItem(item.value));
  return prepareValue(id, { file: task.file, kind, entry: item.entry, ...at }, item.value);
}

/** Processes tasks; holds the blob store of one thread. */
export class TaskProcessor {
  private readonly store: BlobStore;
  private readonly extractor: BlobExtractor;

  constructor(private readonly options: ProcessOptions) {
    this.store = new BlobStore(options.outDir);
    this.extractor = new BlobExtractor(options.blobThreshold, (hash, bytes) => this.store.put(hash, bytes), options.to === 'ir' && options.keepHints !== true);
  }

  /** The outcome of one item. */
  outcome(task: Task, item: Item): Outcome {
    const prepared = prepare(task, item);
    if (prepared.exchange === undefined) {
      return { kind: 'error', error: { id: prepared.id, source: prepared.source, reason: reasonOf(prepared.failure) } };
    }
    return buildOutcome(prepared.exchange, { id: prepared.id, source: prepared.source }, this.options.to);
  }

  /** A record as its output takes it: a JSONL line, a row, or (`undefined`) nothing, for a record without a request to replay. */
  private write(outcome: Extract<Outcome, { kind: 'record' }>): string | ExchangeRow | undefined {
    const { record, to } = { record: outcome.record, to: this.options.to };
    switch (this.options.outFormat ?? 'jsonl') {
      case 'requests': {
        if (to === 'ir') throw new Error('--out-format requests needs --to FORMAT');
        const line = replayOf(record, to, outcome.ir?.request);
        return line === undefined ? undefined : JSON.stringify(line);
      }
      case 'parquet':
        return rowOf(this.extractor.extract(record), outcome.ir ?? {}, outcome.requested);
      case 'jsonl':
        return JSON.stringify(this.extractor.extract(record));
    }
  }

  /** Process every item of a task. */
  run(task: Task): TaskResult {
    const before = { written: this.store.written, referenced: this.extractor.referenced, bytesWritten: this.store.bytesWritten, escaped: this.extractor.escaped };
    const tally = emptyTally();
    let records = '';
    let errors = '';
    const rows: ExchangeRow[] = [];
    for (const item of task.items) {
      let outcome = this.outcome(task, item);
      if (outcome.kind === 'record') {
        const { record } = outcome;
        try {
          const written = this.write(outcome);
          if (written === undefined) outcome = { kind: 'skipped', reason: 'no request to replay' };
          else if (typeof written === 'string') records += `${written}\n`;
          else rows.push(written);
        } catch (error) {
          outcome = { kind: 'error', error: { id: record.id, source: record.source, reason: reasonOf(error) } };
        }
      }
      tallyOutcome(tally, outcome);
      if (outcome.kind === 'error') errors += `${JSON.stringify(outcome.error)}\n`;
    }
    return {
      sequence: task.sequence,
      records,
      rows,
      errors,
      tally,
      blobs: {
        written: this.store.written - before.written,
        referenced: this.extractor.referenced - before.referenced,
        bytesWritten: this.store.bytesWritten - before.bytesWritten,
        escaped: this.extractor.escaped - before.escaped,
      },
    };
  }
}
