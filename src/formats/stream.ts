/**
 * Stream conversion by format id or codec object: the registry's codecs
 * around the stages in `transcode.ts`.
 */
import { resolveCodec, type FormatRef } from './convert.ts';
import { createDecoder, createEncoder, createTranscoder as createCodecTranscoder, framingOf, transcodeStream, type CodecStreamOptions, type ConvertedStream, type Transcoder } from '../core/transcode.ts';
import type { CodecContext } from '../core/codec.ts';
import type { StreamFraming } from '../core/framing.ts';
import type { StreamDecoder, StreamEncoder } from '../core/stream-events.ts';

export {
  DONE,
  sseToWireEvents,
  framedToWireEvents,
  sseMessagesToBytes,
  messagesToFramedBytes,
  errorFromException,
  wireToIrEvents,
  irToSseMessages,
  framingOf,
  transcodeStream,
  transcodedStream,
  type CodecStreamOptions,
  type ConvertedStream,
  type Transcoder,
} from '../core/transcode.ts';

/** Options of {@link convertStream}: the codec stream options, with the formats named by id or codec. */
export interface ConvertStreamOptions extends Omit<CodecStreamOptions, 'from' | 'to'> {
  from: FormatRef;
  to: FormatRef;
}

/** The stream decoder of `format` (bounded indexes), or an error if its streaming is not implemented yet. */
export function streamDecoderFor(format: FormatRef, context: CodecContext): StreamDecoder {
  return createDecoder(resolveCodec(format), context);
}

/** The stream encoder of `format`, or an error if its streaming is not implemented yet. */
export function streamEncoderFor(format: FormatRef, context: CodecContext): StreamEncoder {
  return createEncoder(resolveCodec(format), context);
}

/** The stream framing of `format`: its codec's, else SSE. */
export function framingFor(format: FormatRef): StreamFraming {
  return framingOf(resolveCodec(format));
}

/**
 * Convert a byte stream of one format into a byte stream of another, each in
 * its format's framing (SSE for most). A small output chunk is a view of a
 * shared buffer (as Node's pooled `Buffer`s are): read its bytes through the
 * view, not through `chunk.buffer`.
 */
export function convertStream(readable: ReadableStream<Uint8Array>, options: ConvertStreamOptions): ConvertedStream {
  return transcodeStream(readable, { ...options, from: resolveCodec(options.from), to: resolveCodec(options.to) });
}

/** A synchronous converter of stream bytes (see {@link Transcoder}): for code that reads its source through callbacks rather than a `ReadableStream`. */
export function createTranscoder(options: ConvertStreamOptions): Transcoder {
  return createCodecTranscoder({ ...options, from: resolveCodec(options.from), to: resolveCodec(options.to) });
}
