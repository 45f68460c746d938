/**
 * The bytes the stream writers hand out, carved from shared slabs. A live
 * upstream sends one event per network chunk, so a transcoder writes one
 * small output chunk per event; a fresh `ArrayBuffer` for each costs more
 * than encoding its text (on Node 20 `TextEncoder.encode` of a 150-byte
 * event takes about 0.7 µs, almost all of it the buffer's allocation, while
 * `encodeInto` a slab takes 0.13 µs). Small chunks are therefore views of a
 * slab, as Node's own `Buffer.from` pools small strings: a chunk's bytes are
 * `chunk.byteOffset` to `chunk.byteOffset + chunk.byteLength` of
 * `chunk.buffer`, never the whole buffer. A consumer that transfers a
 * chunk's buffer (a byte stream's `enqueue`) detaches the slab; the next
 * chunk then starts a new one. Large chunks (a batch of events from one big
 * input chunk) get a buffer of their own, exactly their size: they are
 * written into a scratch buffer that is never handed out and copied from
 * there. `TextEncoder.encode` would walk the text twice (once to size the
 * buffer), which costs twice as much on a text with any character past
 * U+00FF, where V8 holds the whole text as two-byte characters.
 */

import type { EncodedOnce } from './stream-events.ts';

const utf8 = new TextEncoder();

const SLAB_BYTES = 64 * 1024;
/** Chunks that may take more than this get a buffer of their own (its allocation is small beside writing them). */
const POOLED_MAX = 4 * 1024;

/** Large chunks up to this bound are written into {@link scratch} and copied out (the scratch buffer, kept for reuse, grows to at most this); larger ones get a buffer of their own at once. */
const SCRATCH_MAX = 2 * 1024 * 1024;

/** Where large chunks are written before they are copied out, made at the first one and grown to the bound it needs. */
let scratch: Uint8Array | undefined;

/** The current slab, made at the first small chunk (a program that never streams makes none). */
let slab: ArrayBuffer | undefined;
/** Bytes of {@link slab} handed out so far. */
let used = 0;
/** The last room {@link reserve} gave out of the slab. */
let lastRoom: Uint8Array | undefined;

/**
 * Room for a chunk of at most `bound` bytes: a view of the current slab (a
 * new one when it is full or was detached) or, past {@link POOLED_MAX}, the
 * scratch buffer (at least `bound` bytes) or a buffer of its own. Write the
 * chunk at its start, then {@link claim} it before reserving again.
 */
export function reserve(bound: number): Uint8Array {
  if (bound > POOLED_MAX) {
    if (bound > SCRATCH_MAX) return new Uint8Array(bound);
    if (scratch === undefined || scratch.byteLength < bound) scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(bound)))));
    lastRoom = scratch;
    return scratch;
  }
  // A detached buffer has no bytes left.
  if (slab === undefined || slab.byteLength === 0 || SLAB_BYTES - used < bound) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  // Views are made with the constructor: `subarray` takes twice as long.
  lastRoom = new Uint8Array(slab, used, bound);
  return lastRoom;
}

/** The first `written` bytes of `room` (the last {@link reserve}), as a chunk of their own from now on. */
export function claim(room: Uint8Array, written: number): Uint8Array {
  if (room === lastRoom) {
    lastRoom = undefined;
    if (room === scratch) return scratch.slice(0, written);
    const start = used;
    // The next chunk starts on an 8-byte boundary, as allocations do.
    used += (written + 7) & ~7;
    return new Uint8Array(slab!, start, written);
  }
  return written === room.byteLength ? room : room.subarray(0, written);
}

/** `text` as UTF-8 bytes (see the module comment for where they live). */
export function utf8Bytes(text: string): Uint8Array {
  // A UTF-16 code unit takes at most three bytes.
  const bound = text.length * 3;
  if (bound > SCRATCH_MAX) return utf8.encode(text);
  const room = reserve(bound);
  return claim(room, utf8.encodeInto(text, room).written);
}

/**
 * `pieces` (texts, and long texts whose bytes are made once and kept on
 * them) as UTF-8 bytes of one chunk, in order; `length` is their length in
 * UTF-16 code units. A Responses stream repeats a part's whole text in
 * several closing events: joined into the chunk's text, each copy would be
 * copied again when V8 flattens the text and then encoded, at several
 * nanoseconds a character when the text has any character past U+00FF.
 * A piece encoded once is copied as bytes. The bytes are the same as
 * {@link utf8Bytes} of the joined text: a long text is a JSON string token
 * (well-formed UTF-16, starting and ending with a quote), so no character
 * is cut between pieces.
 */
export function utf8BytesOfPieces(pieces: readonly (string | EncodedOnce)[], length: number): Uint8Array {
  const bound = length * 3;
  const room = bound > SCRATCH_MAX ? new Uint8Array(bound) : reserve(bound);
  let written = 0;
  let run = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      run += piece;
      continue;
    }
    if (run !== '') {
      written += utf8.encodeInto(run, written === 0 ? room : room.subarray(written)).written;
      run = '';
    }
    const bytes = (piece.bytes ??= utf8.encode(piece.text));
    room.set(bytes, written);
    written += bytes.byteLength;
  }
  if (run !== '') written += utf8.encodeInto(run, written === 0 ? room : room.subarray(written)).written;
  return bound > SCRATCH_MAX ? room.slice(0, written) : claim(room, written);
}
