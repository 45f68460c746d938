/**
 * Web-standard stream stages, piped together:
 * bytes → SSE messages → wire events (JSON) → IR events → SSE messages → bytes.
 * Each stage is a `TransformStream`; `flush` closes what is open. Memory is
 * constant per stream apart from the part being built.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { codecFor } from './registry.ts';
import { InterlinguaError, isInterlinguaError } from './errors.ts';
import { LossCollector, type Loss } from './losses.ts';
import type { CodecContext } from './codec.ts';
import type { ApiError, FormatId } from './ir.ts';
import type { SseMessage, StreamDecoder, StreamEncoder, StreamEvent, WireEvent } from './stream-events.ts';

/** The `data:` text OpenAI Chat sends last. */
export const DONE = '[DONE]';

/** bytes → wire events: SSE framing parsed, each `data:` parsed as JSON (`[DONE]` kept as the string). */
export function sseToWireEvents(): TransformStream<Uint8Array, WireEvent> {
  const decoder = new TextDecoderStream();
  const parser = new EventSourceParserStream();
  const json = new TransformStream<{ event?: string | undefined; data: string }, WireEvent>({
    transform(message, controller) {
      if (message.data === DONE) {
        controller.enqueue(message.event === undefined ? { data: DONE } : { event: message.event, data: DONE });
        return;
      }
      let event: WireEvent;
      try {
        event = { data: JSON.parse(message.data) };
      } catch (error) {
        event = { data: message.data, invalid: (error as Error).message };
      }
      if (message.event !== undefined) event.event = message.event;
      controller.enqueue(event);
    },
  });
  decoder.readable.pipeTo(parser.writable).catch(() => {});
  parser.readable.pipeTo(json.writable).catch(() => {});
  return { writable: decoder.writable, readable: json.readable } as TransformStream<Uint8Array, WireEvent>;
}

/** SSE messages → bytes, with the blank-line framing every vendor uses. */
export function sseMessagesToBytes(): TransformStream<SseMessage, Uint8Array> {
  const encoder = new TextEncoder();
  return new TransformStream({
    transform(message, controller) {
      const head = message.event === undefined ? '' : `event: ${message.event}\n`;
      controller.enqueue(encoder.encode(`${head}data: ${message.data}\n\n`));
    },
  });
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
        controller.enqueue({ type: 'error', error: { type: 'server', message: `an SSE data line is not JSON (${event.invalid})` } });
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

/** IR events → SSE messages through one format's encoder. */
export function irToSseMessages(encoder: StreamEncoder): TransformStream<StreamEvent, SseMessage> {
  return new TransformStream({
    transform(event, controller) {
      for (const message of encoder.encode(event)) controller.enqueue(message);
    },
    flush(controller) {
      for (const message of encoder.flush()) controller.enqueue(message);
    },
  });
}

/** The stream decoder of `format`, or an error if its streaming is not implemented yet. */
export function streamDecoderFor(format: FormatId, context: CodecContext): StreamDecoder {
  const codec = codecFor(format);
  if (codec.createStreamDecoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming decode is not implemented for ${format} yet`, { format });
  }
  return codec.createStreamDecoder(context);
}

/** The stream encoder of `format`, or an error if its streaming is not implemented yet. */
export function streamEncoderFor(format: FormatId, context: CodecContext): StreamEncoder {
  const codec = codecFor(format);
  if (codec.createStreamEncoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming encode is not implemented for ${format} yet`, { format });
  }
  return codec.createStreamEncoder(context);
}

/** Options of {@link convertStream}. */
export interface ConvertStreamOptions {
  from: FormatId;
  to: FormatId;
  /** The model, for formats that carry it in the URL (Gemini). */
  model?: string;
}

/** A converted SSE byte stream; `losses` resolves when the stream has been read to its end. */
export type ConvertedStream = ReadableStream<Uint8Array> & { readonly losses: Promise<Loss[]> };

/** Convert an SSE byte stream of one format into an SSE byte stream of another. */
export function convertStream(readable: ReadableStream<Uint8Array>, options: ConvertStreamOptions): ConvertedStream {
  const collector = new LossCollector();
  const context: CodecContext = options.model === undefined ? { losses: collector } : { losses: collector, model: options.model };
  const decoder = streamDecoderFor(options.from, context);
  const encoder = streamEncoderFor(options.to, context);
  let resolveLosses: (losses: Loss[]) => void = () => {};
  const losses = new Promise<Loss[]>((resolve) => (resolveLosses = resolve));
  const done = new TransformStream<Uint8Array, Uint8Array>({ flush: () => resolveLosses(collector.losses) });
  const output = readable
    .pipeThrough(sseToWireEvents())
    .pipeThrough(wireToIrEvents(decoder))
    .pipeThrough(irToSseMessages(encoder))
    .pipeThrough(sseMessagesToBytes())
    .pipeThrough(done);
  return Object.assign(output, { losses });
}
