/**
 * Stream conversion by format id or codec object: the registry's codecs
 * around the stages in `transcode.ts`.
 */
import { resolveCodec, type FormatRef } from './convert.ts';
import { createDecoder, createEncoder, createTranscoder as createCodecTranscoder, framingOf, transcodeStream, type ConvertedStream, type Transcoder } from '../core/transcode.ts';
import type { CodecContext } from '../core/codec.ts';
import type { StreamFraming } from '../core/framing.ts';
import type { StreamDecoder, StreamEncoder, StreamEvent } from '../core/stream-events.ts';
import type { AnswerIds } from '../core/answer-ids.ts';

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

/** Options of {@link convertStream}. */
export interface ConvertStreamOptions {
  from: FormatRef;
  to: FormatRef;
  /** The model, for formats that carry it in the URL (Gemini). */
  model?: string;
  /** The dialect of the target format (see `ConvertOptions.dialect`). */
  dialect?: string;
  /** Rewrite each IR event before it is encoded (see `CodecStreamOptions.mapEvent`). */
  mapEvent?: (event: StreamEvent) => StreamEvent;
  /**
   * Whether an OpenAI Chat target stream ends with its usage chunk (whose
   * `choices` is empty), as OpenAI sends it only for
   * `stream_options.include_usage`. Default true: the usage is written.
   */
  streamUsage?: boolean;
  /** Where made-up ids and times come from (default: fresh random ids and the clock; `fixedAnswerIds` for reproducible output). */
  ids?: AnswerIds;
  /** The request the stream answers, in the target format (see `ConvertOptions.request`). */
  request?: unknown;
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
