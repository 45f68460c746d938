/**
 * Web-standard stream stages on codec objects (`stream.ts` adds format ids), piped together:
 * bytes → SSE messages → wire events (JSON) → IR events → SSE messages → bytes.
 * Each stage is a `TransformStream`; `flush` closes what is open. Memory is
 * constant per stream apart from the part being built.
 */
import { InterlinguaError, isInterlinguaError } from './errors.ts';
import { checkDialect } from './dialect.ts';
import { LossCollector, type Loss } from './losses.ts';
import { sseFraming, type StreamFraming } from './framing.ts';
import type { Codec, CodecContext } from './codec.ts';
import type { FrameReader } from './framing.ts';
import type { ApiError } from './ir.ts';
import { checkStreamIndex, type SseMessage, type StreamDecoder, type StreamEncoder, type StreamEvent, type WireEvent } from './stream-events.ts';

export { DONE } from './framing.ts';

/** bytes → wire events: SSE framing parsed, each `data:` parsed as JSON (`[DONE]` kept as the string). */
export function sseToWireEvents(): TransformStream<Uint8Array, WireEvent> {
  return framedToWireEvents(sseFraming);
}

/** bytes → wire events in any framing (SSE, AWS event stream, NDJSON); a framing fault errors the stream. */
export function framedToWireEvents(framing: StreamFraming): TransformStream<Uint8Array, WireEvent> {
  const reader = framing.createReader();
  return new TransformStream({
    transform(chunk, controller) {
      for (const event of reader.push(chunk)) controller.enqueue(event);
    },
    flush(controller) {
      for (const event of reader.end()) controller.enqueue(event);
    },
  });
}

/** SSE messages → bytes, with the blank-line framing every vendor uses. */
export function sseMessagesToBytes(): TransformStream<SseMessage, Uint8Array> {
  return messagesToFramedBytes(sseFraming);
}

/** Wire messages → bytes in any framing, one chunk per message. */
export function messagesToFramedBytes(framing: StreamFraming): TransformStream<SseMessage, Uint8Array> {
  return new TransformStream({
    transform(message, controller) {
      controller.enqueue(framing.write([message]));
    },
  });
}

/** The stream framing of `codec`: its own, else SSE. */
export function framingOf(codec: Codec): StreamFraming {
  return codec.streamFraming ?? sseFraming;
}

/** Describe a thrown value as an IR API error. */
export function errorFromException(error: unknown): ApiError {
  const message = error instanceof Error ? error.message : String(error);
  return { type: isInterlinguaError(error) ? 'invalid_request' : 'server', message };
}

/** wire events → IR events through one format's decoder. A decoding failure becomes an `error` event and ends the stream. */
export function wireToIrEvents(decoder: StreamDecoder): TransformStream<WireEvent, StreamEvent> {
  let failed = false;
  return new TransformStream({
    transform(event, controller) {
      if (failed) return;
      if (event.invalid !== undefined) {
        failed = true;
        controller.enqueue({ type: 'error', error: { type: 'server', message: `a stream event is not JSON (${event.invalid})` } });
        return;
      }
      try {
        for (const irEvent of decoder.decode(event)) controller.enqueue(irEvent);
      } catch (error) {
        failed = true;
        controller.enqueue({ type: 'error', error: errorFromException(error) });
      }
    },
    flush(controller) {
      if (failed) return;
      for (const irEvent of decoder.flush()) controller.enqueue(irEvent);
    },
  });
}

/**
 * `encoder.encode(event)`, where an event the encoder refuses (an
 * `InterlinguaError`, say a part index out of range) becomes the target's own
 * error event instead of breaking the stream; `failed()` then stops the
 * stream. Only when even the error event cannot be encoded does it throw.
 */
function guardedEncoder(encoder: StreamEncoder): { encode(event: StreamEvent): SseMessage[]; flush(): SseMessage[]; failed(): boolean } {
  let failed = false;
  const fail = (error: unknown): SseMessage[] => {
    failed = true;
    return encoder.encode({ type: 'error', error: errorFromException(error) });
  };
  return {
    encode(event) {
      if (failed) return [];
      try {
        return encoder.encode(event);
      } catch (error) {
        return fail(error);
      }
    },
    flush() {
      try {
        return encoder.flush();
      } catch (error) {
        return failed ? [] : fail(error);
      }
    },
    failed: () => failed,
  };
}

/** IR events → SSE messages through one format's encoder. */
export function irToSseMessages(encoder: StreamEncoder): TransformStream<StreamEvent, SseMessage> {
  const guarded = guardedEncoder(encoder);
  return new TransformStream({
    transform(event, controller) {
      for (const message of guarded.encode(event)) controller.enqueue(message);
    },
    flush(controller) {
      for (const message of guarded.flush()) controller.enqueue(message);
    },
  });
}

/** The stream decoder of `codec`, or an error if its streaming is not implemented yet. */
export function createDecoder(codec: Codec, context: CodecContext): StreamDecoder {
  if (codec.createStreamDecoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming decode is not implemented for ${codec.format} yet`, { format: codec.format });
  }
  return boundedDecoder(codec.createStreamDecoder(context));
}

/** Every candidate and part index the decoder emits checked against {@link MAX_STREAM_INDEX} (a `stream_error` past it). */
function boundedDecoder(decoder: StreamDecoder): StreamDecoder {
  const check = (events: StreamEvent[]): StreamEvent[] => {
    for (const event of events) {
      if ('candidate' in event && typeof event.candidate === 'number') checkStreamIndex(event.candidate, 'candidate');
      if ('index' in event && typeof event.index === 'number') checkStreamIndex(event.index, 'part');
    }
    return events;
  };
  return { decode: (event) => check(decoder.decode(event)), flush: () => check(decoder.flush()) };
}

/** The stream encoder of `codec`, or an error if its streaming is not implemented yet. */
export function createEncoder(codec: Codec, context: CodecContext): StreamEncoder {
  if (codec.createStreamEncoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming encode is not implemented for ${codec.format} yet`, { format: codec.format });
  }
  return codec.createStreamEncoder(context);
}

/** Options of {@link transcodeStream}. */
export interface CodecStreamOptions {
  from: Codec;
  to: Codec;
  /** The model, for formats that carry it in the URL (Gemini). */
  model?: string;
  /** The dialect of the target format (see `CodecConvertOptions.dialect`). */
  dialect?: string;
  /** Rewrite each IR event before it is encoded (the proxy carries foreign reasoning state through the caller's own slot). */
  mapEvent?: (event: StreamEvent) => StreamEvent;
}

/** A converted SSE byte stream; `losses` resolves when the stream has been read to its end. */
export type ConvertedStream = ReadableStream<Uint8Array> & { readonly losses: Promise<Loss[]> };

/** Convert a byte stream of one format into a byte stream of another, each in its format's framing (SSE for most). */
export function transcodeStream(readable: ReadableStream<Uint8Array>, options: CodecStreamOptions): ConvertedStream {
  const collector = new LossCollector();
  const context: CodecContext = options.model === undefined ? { losses: collector } : { losses: collector, model: options.model };
  const decoder = createDecoder(options.from, { ...context, target: options.to.format });
  const dialect = checkDialect(options.to, options.dialect);
  const encoder = createEncoder(options.to, dialect === undefined ? context : { ...context, dialect });
  let resolveLosses: (losses: Loss[]) => void = () => {};
  const losses = new Promise<Loss[]>((resolve) => (resolveLosses = resolve));
  const output = readable.pipeThrough(
    transcode(framingOf(options.from).createReader(), decoder, encoder, framingOf(options.to), () => resolveLosses(collector.losses), options.mapEvent),
  );
  return Object.assign(output, { losses });
}

/**
 * The stages of `convertStream` (bytes → wire events → IR events → wire
 * messages → bytes) fused into one `TransformStream`, with the same
 * semantics: each input chunk is transcoded synchronously and written as one
 * output chunk, so the cost of Web streams is paid per network chunk, not per
 * event. A framing fault (a broken frame, an oversized line) becomes the
 * target's error event and ends the stream.
 */
function transcode(
  reader: FrameReader,
  decoder: StreamDecoder,
  target: StreamEncoder,
  framing: StreamFraming,
  done: () => void,
  mapEvent?: (event: StreamEvent) => StreamEvent,
): TransformStream<Uint8Array, Uint8Array> {
  const encoder = guardedEncoder(target);
  let out: SseMessage[] = [];
  let failed = false;
  const encode = (events: StreamEvent[]) => {
    for (const event of events) for (const message of encoder.encode(mapEvent === undefined ? event : mapEvent(event))) out.push(message);
  };
  const fail = (message: string) => {
    failed = true;
    encode([{ type: 'error', error: { type: 'server', message } }]);
  };
  const take = (read: () => WireEvent[]) => {
    let events: WireEvent[];
    try {
      events = read();
    } catch (error) {
      if (!failed && !encoder.failed()) fail(`the stream is not well framed (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    for (const event of events) {
      if (failed || encoder.failed()) return;
      if (event.invalid !== undefined) {
        fail(`a stream event is not JSON (${event.invalid})`);
        return;
      }
      let irEvents: StreamEvent[];
      try {
        irEvents = decoder.decode(event);
      } catch (error) {
        failed = true;
        irEvents = [{ type: 'error', error: errorFromException(error) }];
      }
      encode(irEvents);
    }
  };
  const emit = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (out.length === 0) return;
    controller.enqueue(framing.write(out));
    out = [];
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (!failed && !encoder.failed()) take(() => reader.push(chunk));
      emit(controller);
    },
    flush(controller) {
      if (!failed && !encoder.failed()) take(() => reader.end());
      if (!failed && !encoder.failed()) encode(decoder.flush());
      for (const message of encoder.flush()) out.push(message);
      emit(controller);
      done();
    },
  });
}
