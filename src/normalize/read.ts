/**
 * Reading input files into items: line by line with `node:readline` over a
 * read stream (memory stays bounded: readline pauses the stream when lines
 * pile up), or, for a HAR or a JSON array, the whole document parsed once and
 * its entries handed out one at a time.
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { detectLayout, isHar } from './input-kind.ts';
import type { Item } from './process.ts';

/** How far reading a file has got, for the progress bar. */
export interface ReadProgress {
  bytesRead: number;
}

/** The first bytes of a file, as text. */
async function head(file: string, length = 65_536): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function* lineItems(file: string, progress: ReadProgress): AsyncGenerator<Item> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let number = 0;
  for await (const text of lines) {
    number++;
    progress.bytesRead = stream.bytesRead;
    if (text.trim() === '') continue;
    yield { kind: 'line', line: number, text: number === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  }
  progress.bytesRead = stream.bytesRead;
}

async function* documentItems(file: string, progress: ReadProgress): AsyncGenerator<Item> {
  const text = await readFile(file, 'utf8');
  progress.bytesRead = Buffer.byteLength(text);
  let document: unknown;
  try {
    document = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    yield { kind: 'unreadable', message: `the file is not JSON and not JSON lines (${(error as Error).message})` };
    return;
  }
  if (isHar(document)) {
    for (const [entry, value] of document.log.entries.entries()) yield { kind: 'entry', entry, value, har: true };
    return;
  }
  if (Array.isArray(document)) {
    for (const [entry, value] of document.entries()) yield { kind: 'entry', entry, value, har: false };
    return;
  }
  yield { kind: 'unreadable', message: 'the file is one JSON document but neither a HAR (log.entries) nor an array of exchanges' };
}

/** The items of one input file, in order. */
export async function* readItems(file: string, progress: ReadProgress): AsyncGenerator<Item> {
  const layout = detectLayout(file, await head(file));
  if (layout === 'lines') yield* lineItems(file, progress);
  else yield* documentItems(file, progress);
}
