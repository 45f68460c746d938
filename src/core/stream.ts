/**
 * Web-standard stream stages, piped together:
 * bytes → SSE messages → wire events (JSON) → IR events → SSE messages → bytes.
 * Each stage is a `TransformStream`; `flush` closes what is open. Memory is
 * constant per stream apart from the part being built.
 */
import { createParser } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { codecFor } from './registry.ts';
import { InterlinguaError, isInterlinguaError } from './errors.ts';
import { LossCollector, type Loss } from './losses.ts';
import { MAX_DEPTH, tooDeep } from './wire.ts';
import type { CodecContext } from './codec.ts';
import type { ApiError, FormatId } from './ir.ts';
import { checkStreamIndex, type SseMessage, type StreamDecoder, type StreamEncoder, type StreamEvent, type WireEvent } from './stream-events.ts';

/** The `data:` text OpenAI Chat sends last. */
export const DONE = '[DONE]';

/** One parsed SSE message as a wire event: `data` parsed as JSON (`[DONE]` kept as the string; unparsable text marked `invalid`). */
function wireEventOf(message: { event?: string | undefined; data: string }): WireEvent {
  if (message.data === DONE) return message.event === undefined ? { data: DONE } : { event: message.event, data: DONE };
  let event: WireEvent;
  try {
    event = { data: JSON.parse(message.data) };
  } catch (error) {
    event = { data: message.data, invalid: (error as Error).message };
  }
  if (event.invalid === undefined && tooDeep(event.data) !== undefined) event = { data: message.data, invalid: `the data nests deeper than ${MAX_DEPTH} levels` };
  if (message.event !== undefined) event.event = message.event;
  return event;
}

/** bytes → wire events: SSE framing parsed, each `data:` parsed as JSON (`[DONE]` kept as the string). */
export function sseToWireEvents(): TransformStream<Uint8Array, WireEvent> {
  const decoder = new TextDecoderStream();
  const parser = new EventSourceParserStream();
  const json = new TransformStream<{ event?: string | undefined; data: string }, WireEvent>({
    transform(message, controller) {
      controller.enqueue(wireEventOf(message));
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

/** The error event for a `data:` line of `format`'s stream that is not JSON. */
function notJsonError(format: FormatId | undefined, invalid: string): ApiError {
  return { type: 'server', status: 502, message: `${format === undefined ? 'the stream' : `the ${format} stream`} sent an SSE data line that is not JSON (${invalid})` };
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
        controller.enqueue({ type: 'error', error: notJsonError(format, event.invalid) });
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
function guardedEncoder(encoder: StreamEncoder, format?: FormatId): { encode(event: StreamEvent): SseMessage[]; flush(): SseMessage[]; failed(): boolean } {
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

/** The stream decoder of `format`, or an error if its streaming is not implemented yet. */
export function streamDecoderFor(format: FormatId, context: CodecContext): StreamDecoder {
  const codec = codecFor(format);
  if (codec.createStreamDecoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming decode is not implemented for ${format} yet`, { format });
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

/** The stream encoder of `format`, or an error if its streaming is not implemented yet. */
export function streamEncoderFor(format: FormatId, context: CodecContext): StreamEncoder {
  const codec = codecFor(format);
  if (codec.createStreamEncoder === undefined) {
    throw new InterlinguaError('not_implemented', `streaming encode is not implemented for ${format} yet`, { format });
  }
  return codec.createStreamEncoder(context);
}

/**
 * Where the parts of a stream came from: the source event (0-based position
 * among the stream's SSE messages, so `/3` is the fourth event's data) that
 * opened each candidate and part. Encoders report stream losses against IR
 * pointers (`/candidates/0/message/parts/2`); this turns them into `/<event>`.
 */
class StreamOrigins {
  #event = -1;
  readonly #parts = new Map<string, number>();
  readonly #candidates = new Map<number, number>();

  /** A new source event is being decoded. */
  next(): void {
    this.#event++;
  }

  /** The source has ended: what flush emits belongs to no event. */
  end(): void {
    this.#event = -1;
  }

  see(event: StreamEvent): void {
    if (this.#event < 0 || !('candidate' in event) || typeof event.candidate !== 'number') return;
    if (!this.#candidates.has(event.candidate)) this.#candidates.set(event.candidate, this.#event);
    if (event.type === 'part_start') this.#parts.set(`${event.candidate}/${event.index}`, this.#event);
  }

  sourceOf(irPath: string): string {
    const match = /^\/candidates\/(\d+)(?:\/message\/parts\/(\d+))?/.exec(irPath);
    if (match === null) return '';
    const event = match[2] === undefined ? undefined : this.#parts.get(`${match[1]}/${match[2]}`);
    const found = event ?? this.#candidates.get(Number(match[1]));
    return found === undefined ? '' : `/${found}`;
  }
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
  const output = readable.pipeThrough(transcodeSse(decoder, encoder, options, collector, () => resolveLosses(collector.losses)));
  return Object.assign(output, { losses });
}

/**
 * The stages of `convertStream` (bytes → SSE → wire events → IR events → SSE
 * → bytes) fused into one `TransformStream`, with the same semantics: each
 * input chunk is transcoded synchronously and written as one output chunk, so
 * the cost of Web streams is paid per network chunk, not per event.
 */
function transcodeSse(
  decoder: StreamDecoder,
  target: StreamEncoder,
  formats: { from: FormatId; to: FormatId },
  losses: LossCollector,
  done: () => void,
): TransformStream<Uint8Array, Uint8Array> {
  const encoder = guardedEncoder(target, formats.to);
  const origins = new StreamOrigins();
  const translate = (irPath: string) => origins.sourceOf(irPath);
  const what = `the ${formats.from} stream`;
  const text = new TextDecoder();
  const bytes = new TextEncoder();
  let out = '';
  let failed = false;
  let overflow: Error | undefined;
  const write = (messages: SseMessage[]) => {
    for (const message of messages) out += `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`;
  };
  // Decoders report source pointers themselves; encoders report IR pointers, translated to the source event that opened the part.
  const encode = (events: StreamEvent[]) => {
    losses.translateThrough(translate);
    try {
      for (const event of events) {
        origins.see(event);
        write(encoder.encode(event));
      }
    } finally {
      losses.translateThrough(undefined);
    }
  };
  const parser = createParser({
    onEvent(message) {
      if (failed || encoder.failed()) return;
      origins.next();
      const event = wireEventOf(message);
      if (event.invalid !== undefined) {
        failed = true;
        encode([{ type: 'error', error: notJsonError(formats.from, event.invalid) }]);
        return;
      }
      let irEvents: StreamEvent[];
      try {
        irEvents = decoder.decode(event);
      } catch (error) {
        failed = true;
        irEvents = [{ type: 'error', error: errorFromException(error, what) }];
      }
      encode(irEvents);
    },
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') overflow = error;
    },
  });
  const emit = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (overflow !== undefined) throw overflow;
    if (out === '') return;
    controller.enqueue(bytes.encode(out));
    out = '';
  };
  return new TransformStream({
    transform(chunk, controller) {
      parser.feed(text.decode(chunk, { stream: true }));
      emit(controller);
    },
    flush(controller) {
      const rest = text.decode();
      if (rest !== '') parser.feed(rest);
      origins.end();
      if (!failed && !encoder.failed()) {
        let events: StreamEvent[];
        try {
          events = decoder.flush();
        } catch (error) {
          events = [{ type: 'error', error: errorFromException(error, what) }];
        }
        encode(events);
      }
      losses.translateThrough(translate);
      write(encoder.flush());
      losses.translateThrough(undefined);
      emit(controller);
      done();
    },
  });
}
