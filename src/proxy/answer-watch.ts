/**
 * Watching an answer to its end for the log and the telemetry: a streamed
 * body wrapped so that its first byte, its end and a failure are seen
 * (streams are measured to their last byte, not to their headers), and a
 * decode-only tap that reads the events of a stream passed through
 * unconverted (its usage, stop reasons and error events). Web APIs only.
 */
import { framingFor, streamDecoderFor } from '../formats/stream.ts';
import { LossCollector } from '../core/losses.ts';
import type { FormatId } from '../core/ir.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import { isByteSource, type ByteSource } from './exchange.ts';

/** How a watched body ended: read to its end, broken off (a reset, a silence), or cancelled by its reader (the caller went away). */
export type BodyEnd = 'end' | 'failed' | 'cancelled';

/** What a watched body reports: its first chunk, each chunk (for a tap), and its end, once. */
export interface BodyWatch {
  first(): void;
  chunk?(chunk: Uint8Array): void;
  end(how: BodyEnd): void;
}

/** `source`, reporting to `watch`. */
function watchedSource(source: ByteSource, watch: BodyWatch): ByteSource {
  let ended = false;
  const end = (how: BodyEnd) => {
    if (ended) return;
    ended = true;
    watch.end(how);
  };
  return {
    start(sink) {
      let first = true;
      const chunk = watch.chunk;
      source.start({
        data(bytes) {
          if (first) {
            first = false;
            watch.first();
          }
          if (chunk !== undefined) chunk(bytes);
          sink.data(bytes);
        },
        end() {
          end('end');
          sink.end();
        },
        fail(error) {
          end('failed');
          sink.fail(error);
        },
      });
    },
    pause: () => source.pause(),
    resume: () => source.resume(),
    cancel() {
      end('cancelled');
      source.cancel();
    },
  };
}

/** `body`, reporting to `watch`. */
function watchedReadable(body: ReadableStream<Uint8Array>, watch: BodyWatch): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let first = true;
  let ended = false;
  const end = (how: BodyEnd) => {
    if (ended) return;
    ended = true;
    watch.end(how);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          end('failed');
          controller.error(error);
          return;
        }
        if (result.done) {
          end('end');
          controller.close();
          return;
        }
        if (first) {
          first = false;
          watch.first();
        }
        watch.chunk?.(result.value);
        controller.enqueue(result.value);
      },
      cancel(reason) {
        end('cancelled');
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** A streamed body (callbacks or Web), reporting to `watch`. */
export function watchedBody<T extends ByteSource | ReadableStream<Uint8Array>>(body: T, watch: BodyWatch): T {
  return (isByteSource(body) ? watchedSource(body, watch) : watchedReadable(body as ReadableStream<Uint8Array>, watch)) as T;
}

/**
 * A tap on a stream passed through unconverted: its bytes read by the
 * format's framing and stream decoder (nothing encoded), each event handed
 * to `onEvent`. A stream the tap cannot read is left alone: the caller gets
 * its bytes as they came, and the tap stops.
 */
export function eventTap(format: FormatId, model: string | undefined, onEvent: (event: StreamEvent) => void): { push(chunk: Uint8Array): void; end(): void } {
  const reader = framingFor(format).createReader();
  const losses = new LossCollector();
  const decoder = streamDecoderFor(format, model === undefined ? { losses } : { losses, model });
  let broken = false;
  const take = (events: readonly { data: unknown; invalid?: string }[]) => {
    for (const event of events) {
      if (event.invalid !== undefined) continue;
      for (const decoded of decoder.decode(event as Parameters<typeof decoder.decode>[0])) onEvent(decoded);
    }
  };
  const guarded = (step: () => void) => {
    if (broken) return;
    try {
      step();
    } catch {
      broken = true;
    }
  };
  return {
    push: (chunk) => guarded(() => take(reader.push(chunk))),
    end: () =>
      guarded(() => {
        take(reader.end());
        for (const event of decoder.flush()) onEvent(event);
      }),
  };
}
