/**
 * `--shard K/N`: this run's deterministic share of the inputs. A file is a
 * unit, except a large uncompressed JSON-lines file, which is cut into byte
 * ranges (each line belongs to the range its first byte is in); each unit
 * goes to the shard its name and offset hash to, so every machine given the
 * same files computes the same split, and adding a file moves no other.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { detectLayout } from './input-kind.ts';
import type { Shard } from './out-dir.ts';
import type { Item } from './process.ts';
import type { ReadProgress } from './read.ts';

/** A file, or a byte range `[start, end)` of one. */
export interface InputUnit {
  /** Index of the file in the inputs. */
  input: number;
  file: string;
  range?: { start: number; end: number };
}

/** Files over this many bytes are cut into ranges of this size when sharded. Default 64 MiB. */
export const DEFAULT_RANGE_BYTES = 64 * 1024 * 1024;

async function head(file: string, length: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** gzip (1f 8b) or zstd (28 b5 2f fd): read whole, never cut. */
function compressed(bytes: Buffer): boolean {
  return (bytes[0] === 0x1f && bytes[1] === 0x8b) || (bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd);
}

function shardOf(key: string, count: number): number {
  return (createHash('sha256').update(key).digest().readUInt32BE(0) % count) + 1;
}

/** The units of `inputs` (with their sizes) that belong to `shard`; every file whole when there is no shard. */
export async function unitsOf(inputs: readonly string[], sizes: readonly number[], shard: Shard | undefined, rangeBytes = DEFAULT_RANGE_BYTES): Promise<InputUnit[]> {
  const units: InputUnit[] = [];
  for (const [input, file] of inputs.entries()) {
    if (shard === undefined) {
      units.push({ input, file });
      continue;
    }
    const size = sizes[input] ?? 0;
    const name = basename(file);
    const first = size > rangeBytes ? await head(file, 65_536) : undefined;
    if (first === undefined || compressed(first) || detectLayout(file, first.toString('utf8')) !== 'lines') {
      if (shardOf(name, shard.count) === shard.index) units.push({ input, file });
      continue;
    }
    for (let start = 0; start < size; start += rangeBytes) {
      if (shardOf(`${name}\n${start}`, shard.count) === shard.index) units.push({ input, file, range: { start, end: Math.min(size, start + rangeBytes) } });
    }
  }
  return units;
}

const CHUNK = 1024 * 1024;

/**
 * The lines whose first byte is in `[start, end)`, each with its byte
 * offset. A range after the first skips the line it starts inside (the
 * range before it reads that line to its end).
 */
export async function* rangeItems(file: string, start: number, end: number, progress: ReadProgress): AsyncGenerator<Item> {
  const handle = await open(file, 'r');
  try {
    // Read from the byte before `start`: if it ends a line, the first line of the range starts at `start`.
    let position = start > 0 ? start - 1 : 0;
    let skipping = start > 0;
    let carry = Buffer.alloc(0);
    let carryOffset = position;
    const chunk = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, position);
      position += bytesRead;
      progress.bytesRead = Math.min(position, end) - start;
      const data = bytesRead === 0 ? carry : carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      let from = 0;
      for (let newline = data.indexOf(0x0a, from); newline >= 0 || bytesRead === 0; newline = data.indexOf(0x0a, from)) {
        const last = newline < 0;
        const stop = last ? data.length : newline;
        const offset = carryOffset + from;
        if (skipping) skipping = false;
        else if (offset >= end) return;
        else if (stop > from) {
          let text = data.toString('utf8', from, data[stop - 1] === 0x0d ? stop - 1 : stop);
          if (offset === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
          if (text.trim() !== '') yield { kind: 'line', offset, text };
        }
        from = stop + 1;
        if (last) return;
      }
      // Copy the partial line: `chunk` is reused by the next read.
      carry = Buffer.from(data.subarray(from));
      carryOffset += from;
    }
  } finally {
    await handle.close();
  }
}
