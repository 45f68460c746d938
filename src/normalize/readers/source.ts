/**
 * An input file as a stream of bytes, decompressed when its first bytes say
 * so: gzip (`1f 8b`) through `node:zlib`'s gunzip, zstd (`28 b5 2f fd`)
 * through `node:zlib`'s zstd decompressor where the runtime has one (Node
 * 22.15 and later). The name of the file plays no part: a `.jsonl` that is
 * gzip inside is read as gzip, and a `.gz` that is plain text as text.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import type { Readable } from 'node:stream';

/** How a file is compressed, from its magic bytes. */
export type Compression = 'none' | 'gzip' | 'zstd';

/** A file that cannot be read as it is: its compression has no decompressor here. */
export class UnreadableFile extends Error {
  override readonly name = 'UnreadableFile';
}

/** The compression that the first bytes of a file announce. */
export function compressionOf(magic: Uint8Array): Compression {
  if (magic[0] === 0x1f && magic[1] === 0x8b) return 'gzip';
  if (magic[0] === 0x28 && magic[1] === 0xb5 && magic[2] === 0x2f && magic[3] === 0xfd) return 'zstd';
  return 'none';
}

async function magicOf(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(4);
    const { bytesRead } = await handle.read(buffer, 0, 4, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

type ZstdFactory = () => NodeJS.ReadWriteStream;

/** `zlib.createZstdDecompress` where this Node has it (it is not in the types of Node 20). */
function zstdDecompressor(): ZstdFactory | undefined {
  const factory = (zlib as unknown as { createZstdDecompress?: ZstdFactory }).createZstdDecompress;
  return typeof factory === 'function' ? factory : undefined;
}

/** An open input: its decompressed bytes, and how many bytes of the file itself have been read (for progress). */
export interface ByteSource {
  compression: Compression;
  chunks: AsyncIterable<Buffer>;
  /** Bytes of the file read so far (compressed bytes for a compressed file). */
  fileBytesRead(): number;
}

/** Open `file` for reading, decompressing by its magic bytes. Throws {@link UnreadableFile} for zstd on a runtime without it. */
export async function openSource(file: string): Promise<ByteSource> {
  const compression = compressionOf(await magicOf(file));
  let factory: (() => NodeJS.ReadWriteStream) | undefined;
  if (compression === 'gzip') factory = () => zlib.createGunzip();
  if (compression === 'zstd') {
    factory = zstdDecompressor();
    if (factory === undefined) {
      throw new UnreadableFile(
        `${file} is zstd-compressed and this runtime (Node ${process.versions.node}) has no zstd decompressor (node:zlib createZstdDecompress, Node 22.15 and later); decompress it first (zstd -d) or give it as gzip`,
      );
    }
  }
  const stream: ReadStream = createReadStream(file, { highWaterMark: 256 * 1024 });
  const chunks: Readable = factory === undefined ? stream : (stream.pipe(factory()) as unknown as Readable);
  if (factory !== undefined) stream.on('error', (error) => chunks.destroy(error));
  return { compression, chunks, fileBytesRead: () => stream.bytesRead };
}

/** Every byte of a source, as one buffer (for whole documents). */
export async function allBytes(source: ByteSource): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source.chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
