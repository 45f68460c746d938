/**
 * The AWS event stream, Bedrock's stream framing
 * (`application/vnd.amazon.eventstream`): binary frames of a length prelude,
 * typed headers (`:message-type`, `:event-type` or `:exception-type`,
 * `:content-type`), a JSON payload and CRC32 checks over prelude and
 * message. The reader checks both checksums and reads the string headers
 * straight from the bytes; the writer keeps each event name's header block
 * ready made and writes a whole chunk of frames into one buffer. A header
 * block written or read before enters the message checksum in one step
 * (`CrcBlock`), not eight bytes at a time. A frame
 * becomes a wire event (`{ event: <type>, data: <payload> }`), an exception
 * frame one named by its `:exception-type` (`modelStreamErrorException`);
 * the writer turns such a name back into an exception frame. The reader also
 * gives each frame's payload as text, unparsed (`pushData`), after the same
 * checks; an `error` frame's text is then the JSON of the `message` its
 * headers give.
 *
 * @see https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream
 */
import { wireEventOf, type DataEvent, type FrameReader, type StreamFraming } from '../../core/framing.ts';
import { claim, reserve } from '../../core/output-bytes.ts';
import type { SseMessage, WireEvent } from '../../core/stream-events.ts';

const text = new TextDecoder();
const utf8 = new TextEncoder();

/** The smallest frame: prelude (8), prelude CRC (4), message CRC (4). */
const MIN_FRAME = 16;
/** Bedrock's frames carry one event each; a length past this is a broken or hostile stream, not an event. */
const MAX_FRAME = 24 * 1024 * 1024;

/** The CRC-32 (IEEE 802.3) tables for slicing by 8: `CRC_TABLE[k * 256 + b]` is byte `b`'s CRC followed by `k` zero bytes. */
const CRC_TABLE = (() => {
  const table = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = table[n]!;
    for (let k = 1; k < 8; k++) {
      c = table[c & 0xff]! ^ (c >>> 8);
      table[k * 256 + n] = c;
    }
  }
  return table;
})();

/** The CRC-32 of `bytes[start, end)`, eight bytes a step. */
function crc32(bytes: Uint8Array, start: number, end: number): number {
  return (crcRegister(bytes, start, end, -1) ^ -1) >>> 0;
}

/** The CRC-32 register after `bytes[start, end)` from `register` (`-1` at the start of a checksum), eight bytes a step (then four, then one). */
function crcRegister(bytes: Uint8Array, start: number, end: number, register: number): number {
  let c = register;
  let i = start;
  for (const last = end - 7; i < last; i += 8) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    const d = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    c = CRC_TABLE[1792 + (c & 0xff)]! ^ CRC_TABLE[1536 + ((c >>> 8) & 0xff)]! ^ CRC_TABLE[1280 + ((c >>> 16) & 0xff)]! ^ CRC_TABLE[1024 + (c >>> 24)]!
      ^ CRC_TABLE[768 + (d & 0xff)]! ^ CRC_TABLE[512 + ((d >>> 8) & 0xff)]! ^ CRC_TABLE[256 + ((d >>> 16) & 0xff)]! ^ CRC_TABLE[d >>> 24]!;
  }
  for (const last = end - 3; i < last; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    c = CRC_TABLE[768 + (c & 0xff)]! ^ CRC_TABLE[512 + ((c >>> 8) & 0xff)]! ^ CRC_TABLE[256 + ((c >>> 16) & 0xff)]! ^ CRC_TABLE[c >>> 24]!;
  }
  for (; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return c;
}

/**
 * What a block of bytes a stream repeats (a frame's header block) does to
 * the CRC-32 register, so that it is applied in one step instead of a step
 * per eight bytes. The register update is linear over GF(2) in the register
 * and the bytes together, so the register after the block from `r` is
 * `zeros(r) ^ constant`: `constant` the register after the block from 0,
 * `zeros` the register advanced through as many zero bytes, linear in `r`
 * and read from four tables of its bytes' images.
 */
interface CrcBlock {
  constant: number;
  /** `zeros` of each byte value at each of the register's four byte places: `zeros[k * 256 + b]` for `b << 8k`. */
  zeros: Int32Array;
}

/** The zero-byte tables by block length (a stream's header blocks have a handful of lengths). */
const zeroTables = new Map<number, Int32Array>();

/** Blocks longer than this get no {@link CrcBlock} (its tables take 1,024 register updates per byte of the block to make). */
const CRC_BLOCK_MAX = 256;

/** The {@link CrcBlock} of `block`; `undefined` for a block longer than {@link CRC_BLOCK_MAX}. */
function crcBlock(block: Uint8Array): CrcBlock | undefined {
  const length = block.length;
  if (length > CRC_BLOCK_MAX) return undefined;
  let zeros = zeroTables.get(length);
  if (zeros === undefined) {
    zeros = new Int32Array(4 * 256);
    for (let place = 0; place < 4; place++) {
      for (let byte = 0; byte < 256; byte++) {
        let c = byte << (8 * place);
        for (let i = 0; i < length; i++) c = CRC_TABLE[c & 0xff]! ^ (c >>> 8);
        zeros[place * 256 + byte] = c;
      }
    }
    if (zeroTables.size < 64) zeroTables.set(length, zeros);
  }
  return { constant: crcRegister(block, 0, length, 0), zeros };
}

/** The CRC-32 register after the block of `step` from `register` (as {@link crcRegister} over the block's bytes). */
function crcAfterBlock(step: CrcBlock, register: number): number {
  const zeros = step.zeros;
  return step.constant ^ zeros[register & 0xff]! ^ zeros[256 + ((register >>> 8) & 0xff)]! ^ zeros[512 + ((register >>> 16) & 0xff)]! ^ zeros[768 + (register >>> 24)]!;
}

function uint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function putUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = (value >>> 16) & 0xff;
  bytes[at + 2] = (value >>> 8) & 0xff;
  bytes[at + 3] = value & 0xff;
}

/** UTF-8 text of `bytes[start, end)`; short ASCII (every header name and event type) without a decoder call. */
function utf8Text(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 64) return text.decode(bytes.subarray(start, end));
  let out = '';
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte > 0x7f) return text.decode(bytes.subarray(start, end));
    out += String.fromCharCode(byte);
  }
  return out;
}

/** Bytes a header value of each type takes after its type byte (`-1`: a 2-byte length, then that many bytes). */
const HEADER_VALUE_SIZE = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];

/** The string headers of a frame Bedrock reads (`:message-type` and the names it points to). */
interface FrameHeaders {
  ':message-type'?: string;
  ':event-type'?: string;
  ':exception-type'?: string;
  ':error-code'?: string;
  ':error-message'?: string;
}

/** The string headers in `bytes[start, end)`; headers of other types are skipped. Throws on a header that runs past the block. */
function readHeaders(bytes: Uint8Array, start: number, end: number): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = start;
  while (at < end) {
    const nameLength = bytes[at]!;
    const name = utf8Text(bytes, at + 1, at + 1 + nameLength);
    at += 1 + nameLength;
    const type = bytes[at++];
    const size = type === undefined ? undefined : HEADER_VALUE_SIZE[type];
    if (size === undefined) throw new Error(`an event-stream header "${name}" has the unknown value type ${String(type)}`);
    if (size >= 0) at += size;
    else {
      const length = (bytes[at]! << 8) | bytes[at + 1]!;
      at += 2;
      if (type === 7) headers[name] = utf8Text(bytes, at, at + length);
      at += length;
    }
    if (at > end) throw new Error(`an event-stream header "${name}" runs past the header block`);
  }
  return headers;
}

/** Header blocks read before, with what they say: a stream repeats a handful of blocks (one per event type). */
interface HeaderCache {
  blocks: CachedHeaders[];
}

/** A header block read before: its bytes, what it says, and its step of the checksum. */
interface CachedHeaders {
  bytes: Uint8Array;
  headers: FrameHeaders;
  crc: CrcBlock | undefined;
}

const HEADER_CACHE_SIZE = 16;

/** The cached block that `bytes[start, end)` is, if any. */
function knownHeaders(cache: HeaderCache, bytes: Uint8Array, start: number, end: number): CachedHeaders | undefined {
  const length = end - start;
  search: for (const block of cache.blocks) {
    const known = block.bytes;
    if (known.length !== length) continue;
    for (let i = 0; i < length; i++) if (known[i] !== bytes[start + i]) continue search;
    return block;
  }
  return undefined;
}

/** The headers in `bytes[start, end)` (a block not in the cache), read and cached. */
function newHeaders(cache: HeaderCache, bytes: Uint8Array, start: number, end: number): FrameHeaders {
  const headers = readHeaders(bytes, start, end) as FrameHeaders;
  if (cache.blocks.length < HEADER_CACHE_SIZE) {
    const block = bytes.slice(start, end);
    cache.blocks.push({ bytes: block, headers, crc: crcBlock(block) });
  }
  return headers;
}

/**
 * The frame at `bytes[offset, offset + total)` as a data event (its payload
 * text, unparsed, and its event name); both checksums checked. An `error`
 * frame carries no payload: its data is the JSON text of a `message` taken
 * from its headers.
 */
function dataEventOfFrame(bytes: Uint8Array, offset: number, total: number, cache: HeaderCache): DataEvent {
  const headersLength = uint32(bytes, offset + 4);
  const preludeCrc = uint32(bytes, offset + 8);
  const preludeActual = crc32(bytes, offset, offset + 8);
  if (preludeCrc !== preludeActual) throw new Error(`the prelude checksum in the frame (${preludeCrc}) does not match the calculated CRC32 checksum (${preludeActual})`);
  const messageCrc = uint32(bytes, offset + total - 4);
  const headersStart = offset + 12;
  const bodyStart = headersStart + headersLength;
  const bodyEnd = offset + total - 4;
  // A header block read before (compared byte for byte) enters the checksum in one step.
  const known = bodyStart <= bodyEnd ? knownHeaders(cache, bytes, headersStart, bodyStart) : undefined;
  const messageActual =
    known?.crc === undefined
      ? crc32(bytes, offset, bodyEnd)
      : (crcRegister(bytes, bodyStart, bodyEnd, crcAfterBlock(known.crc, crcRegister(bytes, offset, headersStart, -1))) ^ -1) >>> 0;
  if (messageCrc !== messageActual) throw new Error(`the message checksum in the frame (${messageCrc}) does not match the calculated CRC32 checksum (${messageActual})`);
  if (bodyStart > bodyEnd) throw new Error(`an event-stream frame of ${total} bytes says its headers take ${headersLength}`);
  const headers = known === undefined ? newHeaders(cache, bytes, headersStart, bodyStart) : known.headers;
  const type = headers[':message-type'];
  if (type === 'error') {
    const code = headers[':error-code'] ?? 'InternalFailure';
    return { data: JSON.stringify({ message: headers[':error-message'] ?? code }), event: `${code.charAt(0).toLowerCase()}${code.slice(1)}${code.endsWith('Exception') ? '' : 'Exception'}` };
  }
  const data = bodyStart === bodyEnd ? '{}' : text.decode(bytes.subarray(bodyStart, bodyEnd));
  return { data, event: type === 'exception' ? (headers[':exception-type'] ?? 'unknownException') : (headers[':event-type'] ?? 'unknown') };
}

/** True for a wire event name that is an exception (`throttlingException`), written as an exception frame. */
export function isExceptionEvent(name: string | undefined): boolean {
  return name !== undefined && name.endsWith('Exception');
}

/** One string header's bytes: name length, name, type 7, value length, value. */
function stringHeader(name: string, value: string): number[] {
  const nameBytes = utf8.encode(name);
  const valueBytes = utf8.encode(value);
  return [nameBytes.length, ...nameBytes, 7, valueBytes.length >>> 8, valueBytes.length & 0xff, ...valueBytes];
}

/** A header block the writer writes, with its step of the checksum. */
interface WrittenHeaders {
  bytes: Uint8Array;
  crc: CrcBlock | undefined;
}

/** The header block of each event name written so far. */
const headerBlocks = new Map<string, WrittenHeaders>();

/** The header block of a frame named `name`, in Bedrock's own header order (so a same-format stream comes out byte for byte as it went in). */
function headerBlock(name: string): WrittenHeaders {
  let block = headerBlocks.get(name);
  if (block === undefined) {
    const bytes = new Uint8Array(
      isExceptionEvent(name)
        ? [...stringHeader(':message-type', 'exception'), ...stringHeader(':exception-type', name), ...stringHeader(':content-type', 'application/json')]
        : [...stringHeader(':event-type', name), ...stringHeader(':content-type', 'application/json'), ...stringHeader(':message-type', 'event')],
    );
    block = { bytes, crc: crcBlock(bytes) };
    if (headerBlocks.size < 256) headerBlocks.set(name, block);
  }
  return block;
}

/** `messages` as event-stream frames, in one buffer. */
function writeFrames(messages: readonly SseMessage[]): Uint8Array {
  let bound = 0;
  for (const message of messages) bound += MIN_FRAME + headerBlock(message.event ?? 'unknown').bytes.length + message.data.length * 3;
  const out = reserve(bound);
  let at = 0;
  for (const message of messages) {
    const block = headerBlock(message.event ?? 'unknown');
    const headers = block.bytes;
    const start = at;
    out.set(headers, start + 12);
    const bodyStart = start + 12 + headers.length;
    const { written } = utf8.encodeInto(message.data, out.subarray(bodyStart));
    const total = 12 + headers.length + written + 4;
    putUint32(out, start, total);
    putUint32(out, start + 4, headers.length);
    const prelude = crcRegister(out, start, start + 8, -1);
    putUint32(out, start + 8, (prelude ^ -1) >>> 0);
    // The message checksum runs on over the prelude's checksum, the header block (one step) and the payload.
    const afterPrelude = crcRegister(out, start + 8, start + 12, prelude);
    const afterHeaders = block.crc === undefined ? crcRegister(out, start + 12, bodyStart, afterPrelude) : crcAfterBlock(block.crc, afterPrelude);
    const register = crcRegister(out, bodyStart, bodyStart + written, afterHeaders);
    putUint32(out, start + total - 4, (register ^ -1) >>> 0);
    at += total;
  }
  return claim(out, at);
}

/** Bedrock's event-stream framing. */
export const eventStreamFraming: StreamFraming = {
  contentType: 'application/vnd.amazon.eventstream',
  createReader(): FrameReader {
    // Bytes of a frame not complete yet; frames wholly inside a chunk are read from the chunk itself.
    let buffer = new Uint8Array(0);
    let length = 0;
    const cache: HeaderCache = { blocks: [] };
    const append = (chunk: Uint8Array) => {
      if (length + chunk.byteLength > buffer.byteLength) {
        const grown = new Uint8Array(Math.max(buffer.byteLength * 2, length + chunk.byteLength, 4096));
        grown.set(buffer.subarray(0, length));
        buffer = grown;
      }
      buffer.set(chunk, length);
      length += chunk.byteLength;
    };
    /**
     * The whole frames at the start of `bytes[0, end)` as wire events (parsed)
     * or, when `raw`, as data events, and where the first incomplete one starts.
     */
    const frames = (bytes: Uint8Array, end: number, events: (WireEvent | DataEvent)[], raw: boolean): number => {
      let offset = 0;
      while (end - offset >= 4) {
        const total = uint32(bytes, offset);
        if (total < MIN_FRAME || total > MAX_FRAME) throw new Error(`an event-stream frame says it is ${total} bytes long (frames are ${MIN_FRAME} to ${MAX_FRAME})`);
        if (end - offset < total) break;
        const event = dataEventOfFrame(bytes, offset, total, cache);
        events.push(raw ? event : wireEventOf(event.data, event.event));
        offset += total;
      }
      return offset;
    };
    const read = (chunk: Uint8Array, raw: boolean): (WireEvent | DataEvent)[] => {
      const events: (WireEvent | DataEvent)[] = [];
      if (length === 0) {
        const offset = frames(chunk, chunk.byteLength, events, raw);
        if (offset < chunk.byteLength) append(chunk.subarray(offset));
        return events;
      }
      append(chunk);
      const offset = frames(buffer, length, events, raw);
      if (offset > 0) {
        buffer.copyWithin(0, offset, length);
        length -= offset;
      }
      return events;
    };
    const end = (): [] => {
      if (length > 0) throw new Error(`the event stream ended inside a frame (${length} bytes left over)`);
      return [];
    };
    return {
      push: (chunk) => read(chunk, false) as WireEvent[],
      end,
      pushData: (chunk) => read(chunk, true) as DataEvent[],
      endData: end,
    };
  },
  write: writeFrames,
};
