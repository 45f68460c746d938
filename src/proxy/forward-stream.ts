/**
 * A streamed answer's bytes: the upstream's stream transcoded chunk by chunk
 * into the caller's format, or a whole answer replayed as a stream.
 */
import { framingFor, irToSseMessages, messagesToFramedBytes, streamEncoderFor, type Transcoder } from '../formats/stream.ts';
import type { CodecContext } from '../core/codec.ts';
import type { FormatId } from '../core/ir.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import type { Answer, ByteSource } from './exchange.ts';
import type { Route } from './routes.ts';
import type { ForwardOptions } from './forward-options.ts';

/** A streamed answer in `format`'s framing, with the count of the request's losses. */
export function streamAnswer(format: FormatId, losses: string, body: ReadableStream<Uint8Array> | ByteSource): Answer {
  return { status: 200, headers: { 'content-type': framingFor(format).contentType, 'cache-control': 'no-cache', 'x-interlingua-losses': losses }, body };
}

/** The slices a stream's first bytes are transcoded in, until the first output (see {@link transcodedSource}). */
export const FIRST_SLICE_BYTES = 256;

/**
 * A streamed upstream body converted chunk by chunk through `transcoder`, as
 * a {@link ByteSource}: each upstream chunk is transcoded synchronously and
 * handed on, with no Web stream in between. A source that breaks off (reset,
 * silence, cancellation) is ended like one that stopped, so the transcoder
 * reports the truncated stream as the caller's error event, as
 * `convertStream` over the guarded body does.
 */
export function transcodedSource(source: ByteSource, transcoder: Transcoder): ByteSource {
  return {
    start(sink) {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        let tail: Uint8Array | undefined;
        try {
          tail = transcoder.end();
        } catch (error) {
          sink.fail(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (tail !== undefined) sink.data(tail);
        sink.end();
      };
      let started = false;
      const push = (chunk: Uint8Array): boolean => {
        let bytes: Uint8Array | undefined;
        try {
          bytes = transcoder.push(chunk);
        } catch (error) {
          done = true;
          source.cancel();
          sink.fail(error instanceof Error ? error : new Error(String(error)));
          return false;
        }
        if (bytes === undefined) return true;
        started = true;
        sink.data(bytes);
        return true;
      };
      source.start({
        data(chunk) {
          if (done) return;
          if (started) {
            push(chunk);
            return;
          }
          // Until the caller has its first bytes, transcode in slices and hand on each output at once: the first event is not held back while the rest of a large first chunk converts.
          let offset = 0;
          while (!started && offset < chunk.byteLength) {
            const end = Math.min(chunk.byteLength, offset + FIRST_SLICE_BYTES);
            if (!push(chunk.subarray(offset, end))) return;
            offset = end;
          }
          if (offset < chunk.byteLength) push(chunk.subarray(offset));
        },
        end: finish,
        fail: finish,
      });
    },
    pause: () => source.pause(),
    resume: () => source.resume(),
    cancel: () => source.cancel(),
  };
}

export function syntheticStream(events: StreamEvent[], format: FormatId, options: ForwardOptions, prepared: SyntheticSettings): ReadableStream<Uint8Array> {
  const context: CodecContext = { losses: options.losses, streamUsage: prepared.streamUsage };
  // The response objects a Responses stream carries echo the caller's request, as a whole answer does.
  if (prepared.model !== undefined) context.model = prepared.model;
  if (prepared.request !== undefined) context.request = prepared.request;
  const encoder = streamEncoderFor(format, context);
  return new ReadableStream<StreamEvent>({
    start(controller) {
      for (const event of events) controller.enqueue(event);
      controller.close();
    },
  })
    .pipeThrough(irToSseMessages(encoder, format))
    .pipeThrough(messagesToFramedBytes(framingFor(format)));
}

/** What a whole answer replayed as a stream takes from the prepared request. */
export interface SyntheticSettings {
  /** Whether the caller asked for the stream's usage (Chat `stream_options.include_usage`). */
  streamUsage: boolean;
  /** The model sent upstream. */
  model?: string | undefined;
  /** The caller's request body, whose settings the stream's response objects echo. */
  request?: unknown;
}

/** An Ollama `/api/generate` caller gets `response` lines: the stream's start says so to the Ollama encoder. */
export function generateShape(event: StreamEvent, route: Route): StreamEvent {
  if (route.generate !== true || event.type !== 'start') return event;
  return { ...event, extensions: { ...event.extensions, ollama: { ...event.extensions?.ollama, $generate: true } } };
}
