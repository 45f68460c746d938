/**
 * Reading input files into items. A file is opened as bytes (decompressed by
 * its magic bytes, see `readers/source.ts`), its layout found from its first
 * 64 KiB (`detectLayout`), and then read line by line with a cap on a
 * line's length (memory stays bounded: the stream is pulled one chunk at a
 * time), or, for a document (HAR, JSON array, cassette, OTLP export), parsed
 * once and its entries handed out one at a time. OTLP lines are opened here
 * into their spans, one item each.
 */
import { detectLayout } from './input-kind.ts';
import type { Item } from './process.ts';
import { documentItems, parseDocument } from './readers/documents.ts';
import { DEFAULT_MAX_LINE_BYTES, splitLines } from './readers/lines.ts';
import { otlpSpans } from './readers/otlp-spans.ts';
import { allBytes, openSource, UnreadableFile, type ByteSource } from './readers/source.ts';

/** How far reading a file has got, for the progress bar. */
export interface ReadProgress {
  bytesRead: number;
}

/** Options of {@link readItems}. */
export interface ReadOptions {
  /** A line longer than this many bytes is one error, skipped without being held. Default 256 MiB. */
  maxLineBytes?: number;
}

const HEAD_BYTES = 65_536;

/** The first `bytes` bytes of a stream, and the whole stream again (those bytes first). */
async function peek(chunks: AsyncIterable<Buffer>, bytes: number): Promise<{ head: Buffer; rest: AsyncIterable<Buffer> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const taken: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done === true) {
      done = true;
      break;
    }
    taken.push(next.value);
    length += next.value.length;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    yield* taken;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  return { head: Buffer.concat(taken).subarray(0, bytes), rest: rest() };
}

async function* lineItems(source: ByteSource, chunks: AsyncIterable<Buffer>, progress: ReadProgress, maxLineBytes: number, otlp: boolean): AsyncGenerator<Item> {
  for await (const line of splitLines(chunks, maxLineBytes)) {
    progress.bytesRead = source.fileBytesRead();
    if ('oversized' in line) {
      const message = `the line is ${line.oversized} bytes long, over the limit of ${maxLineBytes} (maxLineBytes); it was skipped unread`;
      yield { kind: 'unreadable', code: 'invalid_line', line: line.number, message };
      continue;
    }
    if (line.text.trim() === '') continue;
    if (otlp) {
      const opened = otlpSpans(line.text);
      if (opened !== undefined) {
        for (const [entry, span] of opened.entries()) yield { kind: 'entry', entry, line: line.number, value: span, har: false, inputKind: 'otlp' };
        continue;
      }
    }
    yield { kind: 'line', line: line.number, text: line.text };
  }
  progress.bytesRead = source.fileBytesRead();
}

/** What went wrong reading a file, as one item (a broken gzip stream, a file that vanished). */
function failedRead(source: ByteSource | undefined, error: unknown): Item {
  const how = source === undefined || source.compression === 'none' ? 'the file could not be read' : `the file's ${source.compression} stream is corrupt or cut off`;
  return { kind: 'unreadable', code: 'invalid_json', message: `${how} (${(error as Error).message})` };
}

/** The items of one input file, in order. */
export async function* readItems(file: string, progress: ReadProgress, options: ReadOptions = {}): AsyncGenerator<Item> {
  let source: ByteSource | undefined;
  try {
    source = await openSource(file);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    yield { kind: 'unreadable', code: 'not_implemented', message: error.message };
    return;
  }
  try {
    const { head, rest } = await peek(source.chunks, HEAD_BYTES);
    const layout = detectLayout(file, head.toString('utf8'));
    if (layout === 'lines' || layout === 'otlp-lines') {
      yield* lineItems(source, rest, progress, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, layout === 'otlp-lines');
      return;
    }
    const bytes = await allBytes({ ...source, chunks: rest });
    progress.bytesRead = source.fileBytesRead();
    const parsed = await parseDocument(bytes, layout);
    yield* parsed.ok ? documentItems(parsed.value) : [{ kind: 'unreadable', message: parsed.message } satisfies Item];
  } catch (error) {
    yield failedRead(source, error);
  }
}
