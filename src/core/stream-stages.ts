/**
 * The stream stages on codec objects, each a Web `TransformStream` whose
 * `flush` closes what is open: bytes → wire events (framing, JSON) → IR
 * events → SSE messages → bytes; and the codecs' stream decoders and
 * encoders, bounded and guarded so a fault becomes the stream's error event.
 * `transcode.ts` fuses them into one conversion and re-exports them.
 */
import { InterlinguaError, isInterlinguaError } from './errors.ts';
import { sseFraming, type StreamFraming } from './framing.ts';
import type { Codec, CodecContext } from './codec.ts';
import type { ApiError, FormatId } from './ir.ts';
import { checkStreamIndex, type SseMessage, type StreamDecoder, type StreamEncoder, type StreamEvent, type WireEvent } from './stream-events.ts';

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

/**
 * Describe a failure inside a stream as an IR API error. A stream is always
 * a server's answer, so whatever breaks in it is the sender's fault, never
 * the receiver's: `server` with status 502, and a message naming which
 * stream (`what`, e.g. "the gemini stream") and what went wrong.
 */
export function errorFromException(error: unknown, what = 'the stream'): ApiError {
  const message = error instanceof Error ? error.message : String(error);
  const kind = isInterlinguaError(error) ? 'could not be read' : 'broke interlingua';
  return { type: 'server', status: 502, message: `${what} ${kind}: ${message}` };
}

/** An error event for a stream of `format` that is itself broken (not JSON, badly framed). */
export function brokenStream(format: FormatId | undefined, problem: string): ApiError {
  return { type: 'server', status: 502, message: `${format === undefined ? 'the stream' : `the ${format} stream`} ${problem}` };
}

/** wire events → IR events through one format's decoder. A decoding failure becomes an `error` event and ends the stream. */
export function wireToIrEvents(decoder: StreamDecoder, format?: FormatId): TransformStream<WireEvent, StreamEvent> {
  const what = format === undefined ? 'the stream' : `the ${format} stream`;
  let failed = false;
  return new TransformStream({
    transform(event, controller) {
      if (failed) return;
      if (event.invalid !== undefined) {
        failed = true;
        controller.enqueue({ type: 'error', error: brokenStream(format, `sent an event that is not JSON (${event.invalid})`) });
        return;
      }
      try {
        for (const irEvent of decoder.decode(event)) controller.enqueue(irEvent);
      } catch (error) {
        failed = true;
        controller.enqueue({ type: 'error', error: errorFromException(error, what) });
      }
    },
    flush(controller) {
      if (failed) return;
      let events: StreamEvent[];
      try {
        events = decoder.flush();
      } catch (error) {
        events = [{ type: 'error', error: errorFromException(error, what) }];
      }
      for (const irEvent of events) controller.enqueue(irEvent);
    },
  });
}

/**
 * `encoder.encode(event)`, where an event the encoder refuses (an
 * `InterlinguaError`, say a part index out of range) becomes the target's own
 * error event instead of breaking the stream; `failed()` then stops the
 * stream. Only when even the error event cannot be encoded does it throw.
 */
export function guardedEncoder(encoder: StreamEncoder, format?: FormatId): { encode(event: StreamEvent): SseMessage[]; flush(): SseMessage[]; failed(): boolean } {
  const what = `the stream could not be written${format === undefined ? '' : ` as ${format}`}, because the source stream`;
  let failed = false;
  const fail = (error: unknown): SseMessage[] => {
    failed = true;
    return encoder.encode({ type: 'error', error: errorFromException(error, what) });
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
export function irToSseMessages(encoder: StreamEncoder, format?: FormatId): TransformStream<StreamEvent, SseMessage> {
  const guarded = guardedEncoder(encoder, format);
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
export function boundedDecoder(decoder: StreamDecoder): StreamDecoder {
  const check = (events: StreamEvent[]): StreamEvent[] => {
    for (const event of events) {
      const { candidate, index } = event as { candidate?: unknown; index?: unknown };
      if (typeof candidate === 'number') checkStreamIndex(candidate, 'candidate');
      if (typeof index === 'number') checkStreamIndex(index, 'part');
    }
    return events;
  };
  const bounded: StreamDecoder = { decode: (event) => check(decoder.decode(event)), flush: () => check(decoder.flush()) };
  if (decoder.decodeText !== undefined && decoder.learn !== undefined) {
    const decodeText = decoder.decodeText.bind(decoder);
    const learn = decoder.learn.bind(decoder);
    bounded.decodeText = (data, event) => {
      const events = decodeText(data, event);
      return events === undefined ? undefined : check(events);
    };
    bounded.learn = learn;
    if (decoder.textCheck !== undefined) bounded.textCheck = decoder.textCheck.bind(decoder);
  }
  return bounded;
}

/** The stream encoder of `codec`, or an error if its streaming is not implemented yet. */
export function createEncoder(codec: Codec, context: CodecContext): StreamEncoder {
  if (codec.createStreamEncoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming encode is not implemented for ${codec.format} yet`, { format: codec.format });
  }
  return codec.createStreamEncoder(context);
}
