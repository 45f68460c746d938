/**
 * Holding a streamed answer's head before anything reaches the caller, so
 * that a stream whose first event is an error is retried like an error
 * status. Anthropic documents that a stream answered 200 can carry an
 * `error` event (`overloaded_error`) as its first event; OpenAI Responses,
 * Gemini, Ollama and Bedrock streams have error events of their own that can
 * come first too. The answer's bytes (already in the caller's format) are
 * read through that format's decoder (`eventTap`, nothing encoded) until
 * its first event that is neither the stream's `start` nor an error (then
 * the stream goes to the caller, the held bytes first), an `error` event
 * (then the stream is cancelled and the attempt failed), the stream's end,
 * or {@link HEAD_LIMIT_BYTES} held. The gateway holds the stream of every
 * attempt of a route it may retry (the last one too, so a caller whose every
 * target failed so gets an error status with the attempts listed, not a 200
 * whose stream says it failed); once released, the caller's sink takes the
 * upstream's chunks directly, with no wrapper per chunk. Web APIs only.
 */
import type { ApiError, FormatId } from '../core/ir.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import { eventTap } from '../proxy/answer-watch.ts';
import { isByteSource, type ByteSink, type ByteSource } from '../proxy/exchange.ts';

/** The most bytes of a stream's head held back while no content event has come. */
export const HEAD_LIMIT_BYTES = 16 * 1024;

/** What the head said: the stream to answer with (its held bytes first), or the error its first event was. */
export type HeldHead<T> = { body: T } | { error: ApiError };

/** Reads events until the head is decided: `undefined` while it is not. */
class Verdict {
  decided: 'content' | ApiError | undefined;
  readonly onEvent = (event: StreamEvent): void => {
    if (this.decided !== undefined || event.type === 'start') return;
    this.decided = event.type === 'error' ? event.error : 'content';
  };
}

/** Hold the head of `body`, a stream in `format`'s framing. */
export function holdStreamHead<T extends ByteSource | ReadableStream<Uint8Array>>(body: T, format: FormatId): Promise<HeldHead<T>> {
  return isByteSource(body) ? (holdSource(body, format) as Promise<HeldHead<T>>) : (holdReadable(body as ReadableStream<Uint8Array>, format) as Promise<HeldHead<T>>);
}

function holdSource(source: ByteSource, format: FormatId): Promise<HeldHead<ByteSource>> {
  return new Promise((resolve) => {
    const verdict = new Verdict();
    const tap = eventTap(format, undefined, verdict.onEvent);
    const held: Uint8Array[] = [];
    let bytes = 0;
    let ended: true | Error | undefined;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      resolve({ body: replayed });
    };
    // The sink the source writes to: reading the head, then holding what comes until the caller's sink starts, then that sink's own methods.
    const relay: ByteSink = {
      data(chunk) {
        held.push(chunk);
        if (released) return;
        bytes += chunk.byteLength;
        tap.push(chunk);
        const decided = verdict.decided;
        if (decided !== undefined && decided !== 'content') {
          released = true;
          source.cancel();
          resolve({ error: decided });
        } else if (decided === 'content' || bytes >= HEAD_LIMIT_BYTES) release();
      },
      end() {
        ended = true;
        release();
      },
      fail(error) {
        ended = error;
        release();
      },
    };
    const replayed: ByteSource = {
      start(sink) {
        for (const chunk of held) sink.data(chunk);
        held.length = 0;
        if (ended === true) sink.end();
        else if (ended !== undefined) sink.fail(ended);
        else {
          relay.data = sink.data.bind(sink);
          relay.end = sink.end.bind(sink);
          relay.fail = sink.fail.bind(sink);
        }
      },
      pause: () => source.pause(),
      resume: () => source.resume(),
      cancel: () => source.cancel(),
    };
    source.start(relay);
  });
}

async function holdReadable(body: ReadableStream<Uint8Array>, format: FormatId): Promise<HeldHead<ReadableStream<Uint8Array>>> {
  const verdict = new Verdict();
  const tap = eventTap(format, undefined, verdict.onEvent);
  const reader = body.getReader();
  const held: Uint8Array[] = [];
  let bytes = 0;
  let done = false;
  let failure: unknown;
  try {
    while (verdict.decided === undefined && bytes < HEAD_LIMIT_BYTES) {
      const result = await reader.read();
      if (result.done) {
        done = true;
        break;
      }
      held.push(result.value);
      bytes += result.value.byteLength;
      tap.push(result.value);
    }
  } catch (error) {
    failure = error;
  }
  const decided = verdict.decided;
  if (decided !== undefined && decided !== 'content') {
    await reader.cancel().catch(() => {});
    return { error: decided };
  }
  return {
    body: new ReadableStream<Uint8Array>(
      {
        start(controller) {
          for (const chunk of held) controller.enqueue(chunk);
          if (failure !== undefined) controller.error(failure);
          else if (done) controller.close();
        },
        async pull(controller) {
          if (done || failure !== undefined) return;
          try {
            const result = await reader.read();
            if (result.done) controller.close();
            else controller.enqueue(result.value);
          } catch (error) {
            controller.error(error);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    ),
  };
}
