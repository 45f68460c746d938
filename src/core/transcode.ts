/**
 * Web-standard stream stages on codec objects (`stream.ts` adds format ids), piped together:
 * bytes → SSE messages → wire events (JSON) → IR events → SSE messages → bytes.
 * Each stage is a `TransformStream`; `flush` closes what is open. Memory is
 * constant per stream apart from the part being built.
 */
import { InterlinguaError, isInterlinguaError } from './errors.ts';
import { checkDialect } from './dialect.ts';
import { LossCollector, type Loss } from './losses.ts';
import { sseFraming, wireEventOf, type DataEvent, type StreamFraming } from './framing.ts';
import type { Codec, CodecContext } from './codec.ts';
import type { FrameReader } from './framing.ts';
import type { ApiError, FormatId } from './ir.ts';
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
function brokenStream(format: FormatId | undefined, problem: string): ApiError {
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

/**
 * Where the parts of a stream came from: the source event (0-based position
 * among the stream's events, so `/3` is the fourth event's data) that opened
 * each candidate and part. Encoders report stream losses against IR
 * pointers (`/candidates/0/message/parts/2`); this turns them into `/<event>`.
 * A loss on anything else (usage, the response's id, a chunk's fields)
 * points at the source event being converted when the encoder reported it.
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
    // A field of the stream's own (usage, its id, a chunk's metadata): the event being converted, if any (none once the source has ended).
    if (match === null) return this.#event < 0 ? '' : `/${this.#event}`;
    const event = match[2] === undefined ? undefined : this.#parts.get(`${match[1]}/${match[2]}`);
    const found = event ?? this.#candidates.get(Number(match[1]));
    return found === undefined ? '' : `/${found}`;
  }
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

/**
 * A synchronous stream converter: bytes of the source format in, bytes of
 * the target format out, chunk by chunk. `convertStream` wraps one in a
 * `ReadableStream` that pulls its source; a server that reads its upstream through callbacks
 * (the Node adapter) calls it directly, with no Web stream in between.
 */
export interface Transcoder {
  /** Transcode one chunk of source bytes; `undefined` when it completed no output. */
  push(chunk: Uint8Array): Uint8Array | undefined;
  /** The source has ended: flush what is open (the target's closing events). */
  end(): Uint8Array | undefined;
  /** What the conversion could not carry so far (complete after `end`). */
  readonly losses: Loss[];
}

/** A {@link Transcoder} from `options.from` to `options.to`. */
export function createTranscoder(options: CodecStreamOptions): Transcoder {
  const collector = new LossCollector();
  const context: CodecContext = options.model === undefined ? { losses: collector } : { losses: collector, model: options.model };
  const decoder = createDecoder(options.from, { ...context, target: options.to.format });
  const dialect = checkDialect(options.to, options.dialect);
  const encoder = createEncoder(options.to, dialect === undefined ? context : { ...context, dialect });
  return new FusedTranscoder(
    framingOf(options.from).createReader(),
    decoder,
    encoder,
    framingOf(options.to),
    { from: options.from.format, to: options.to.format, losses: collector },
    options.mapEvent,
    // Back to the same format as it came (no dialect, no rewriting): a recognised event may keep its text.
    options.from === options.to && dialect === undefined && options.mapEvent === undefined,
  );
}

/**
 * Convert a byte stream of one format into a byte stream of another, each in
 * its format's framing (SSE for most). The output is a `ReadableStream` that
 * pulls the source itself (no `TransformStream` and `pipeThrough` between
 * them): a read of the output reads source chunks until one completes some
 * output. A source error errors the output; cancelling the output cancels
 * the source.
 */
export function transcodeStream(readable: ReadableStream<Uint8Array>, options: CodecStreamOptions): ConvertedStream {
  let resolveLosses: (losses: Loss[]) => void = () => {};
  const losses = new Promise<Loss[]>((resolve) => (resolveLosses = resolve));
  return Object.assign(transcodedStream(readable, createTranscoder(options), resolveLosses), { losses });
}

/**
 * `readable` through `transcoder`, as a byte stream that pulls its source
 * (what {@link transcodeStream} returns, for a caller that made the
 * transcoder itself); `done` gets the losses once the source has ended.
 */
export function transcodedStream(readable: ReadableStream<Uint8Array>, transcoder: Transcoder, done?: (losses: Loss[]) => void): ReadableStream<Uint8Array> {
  const reader = readable.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const { done: ended, value } = await reader.read();
          if (ended) {
            const bytes = transcoder.end();
            if (bytes !== undefined) controller.enqueue(bytes);
            controller.close();
            done?.(transcoder.losses);
            return;
          }
          const bytes = transcoder.push(value);
          if (bytes !== undefined) {
            controller.enqueue(bytes);
            return;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The stages of `convertStream` (bytes → wire events → IR events → wire
 * messages → bytes) fused into one synchronous step: each input chunk is
 * transcoded at once and written as one output chunk, so whatever carries
 * the bytes (a `TransformStream`, a socket) is paid per network chunk, not
 * per event. A framing fault (a broken frame, an oversized line) becomes the
 * target's error event and ends the stream.
 */
class FusedTranscoder implements Transcoder {
  readonly #reader: FrameReader;
  readonly #decoder: StreamDecoder;
  readonly #encoder: ReturnType<typeof guardedEncoder>;
  readonly #framing: StreamFraming;
  readonly #side: { from: FormatId; to: FormatId; losses: LossCollector };
  readonly #mapEvent: ((event: StreamEvent) => StreamEvent) | undefined;
  readonly #what: string;
  readonly #origins = new StreamOrigins();
  /** The reader gives each event's text and the decoder may recognise it (see {@link #takeText}). */
  readonly #byText: boolean;
  /** A trip back to the same format whose encoder may write a recognised event's text as it came (see {@link #takeText}). */
  readonly #encodeText: ((event: StreamEvent, data: string, check: unknown) => SseMessage | undefined) | undefined;
  readonly #translate = (irPath: string) => this.#origins.sourceOf(irPath);
  #out: SseMessage[] = [];
  #failed = false;

  constructor(
    reader: FrameReader,
    decoder: StreamDecoder,
    target: StreamEncoder,
    framing: StreamFraming,
    side: { from: FormatId; to: FormatId; losses: LossCollector },
    mapEvent?: (event: StreamEvent) => StreamEvent,
    sameFormat = false,
  ) {
    this.#reader = reader;
    this.#decoder = decoder;
    this.#encoder = guardedEncoder(target, side.to);
    this.#framing = framing;
    this.#side = side;
    this.#mapEvent = mapEvent;
    this.#what = `the ${side.from} stream`;
    this.#byText = reader.pushData !== undefined && reader.endData !== undefined && decoder.decodeText !== undefined && decoder.learn !== undefined;
    this.#encodeText = sameFormat && this.#byText && decoder.textCheck !== undefined ? target.encodeText?.bind(target) : undefined;
  }

  get losses(): Loss[] {
    return this.#side.losses.losses;
  }

  push(chunk: Uint8Array): Uint8Array | undefined {
    if (!this.#stopped()) this.#take(chunk);
    return this.#emit();
  }

  end(): Uint8Array | undefined {
    if (!this.#stopped()) this.#take(undefined);
    this.#origins.end();
    if (!this.#stopped()) {
      let events: StreamEvent[];
      try {
        events = this.#decoder.flush();
      } catch (error) {
        events = [{ type: 'error', error: errorFromException(error, this.#what) }];
      }
      this.#encode(events);
    }
    const losses = this.#side.losses;
    losses.translateThrough(this.#translate);
    for (const message of this.#encoder.flush()) this.#out.push(message);
    losses.translateThrough(undefined);
    return this.#emit();
  }

  #stopped(): boolean {
    return this.#failed || this.#encoder.failed();
  }

  #emit(): Uint8Array | undefined {
    if (this.#out.length === 0) return undefined;
    const bytes = this.#framing.write(this.#out);
    this.#out = [];
    return bytes;
  }

  // Decoders report source pointers themselves; encoders report IR pointers, translated to the source event that opened the part.
  #encode(events: StreamEvent[]): void {
    const losses = this.#side.losses;
    const mapEvent = this.#mapEvent;
    losses.translateThrough(this.#translate);
    try {
      for (const event of events) {
        this.#origins.see(event);
        for (const message of this.#encoder.encode(mapEvent === undefined ? event : mapEvent(event))) this.#out.push(message);
      }
    } finally {
      losses.translateThrough(undefined);
    }
  }

  #fail(problem: string): void {
    this.#failed = true;
    this.#encode([{ type: 'error', error: brokenStream(this.#side.from, problem) }]);
  }

  /** Decode and encode the events `chunk` completes (`undefined`: the source ended). */
  #take(chunk: Uint8Array | undefined): void {
    if (this.#byText) {
      this.#takeText(chunk);
      return;
    }
    const events = this.#framed(chunk) as WireEvent[] | undefined;
    if (events === undefined) return;
    for (const event of events) {
      if (this.#stopped()) return;
      this.#origins.next();
      if (event.invalid !== undefined) {
        this.#fail(`sent an event that is not JSON (${event.invalid})`);
        return;
      }
      this.#encode(this.#decoded(event));
    }
  }

  /**
   * {@link #take} for a reader that gives each event's text and a decoder
   * that may recognise it: an event the decoder recognises by its text is
   * not parsed; any other is parsed (as the reader would) and decoded, and
   * the decoder learns from it.
   */
  #takeText(chunk: Uint8Array | undefined): void {
    const decoder = this.#decoder;
    const events = this.#framed(chunk) as DataEvent[] | undefined;
    if (events === undefined) return;
    for (const event of events) {
      if (this.#stopped()) return;
      this.#origins.next();
      let irEvents: StreamEvent[] | undefined;
      try {
        irEvents = decoder.decodeText!(event.data, event.event);
      } catch (error) {
        irEvents = this.#decodeFault(error);
      }
      if (this.#encodeText !== undefined && irEvents?.length === 1 && this.#textKept(irEvents[0]!, event.data)) continue;
      if (irEvents === undefined) {
        const wire = wireEventOf(event.data, event.event);
        if (wire.invalid !== undefined) {
          this.#fail(`sent an event that is not JSON (${wire.invalid})`);
          return;
        }
        irEvents = this.#decoded(wire);
        if (!this.#failed) decoder.learn!(event.data, wire);
      }
      this.#encode(irEvents);
    }
  }

  /**
   * A trip back to the same format: the one event the decoder recognised
   * by its text written as that text, when the decoder checked it and the
   * encoder, in its own state, would write the same (a usual delta: no
   * serialising it again); false when it is to be encoded as usual.
   */
  #textKept(irEvent: StreamEvent, data: string): boolean {
    const check = this.#decoder.textCheck!();
    if (check === undefined) return false;
    const message = this.#encodeText!(irEvent, data, check);
    if (message === undefined) return false;
    this.#origins.see(irEvent);
    this.#out.push(message);
    return true;
  }

  /**
   * The events `chunk` completes (as texts when {@link #byText}), or
   * `undefined` when the bytes are not well framed (the stream then fails).
   */
  #framed(chunk: Uint8Array | undefined): WireEvent[] | DataEvent[] | undefined {
    const reader = this.#reader;
    try {
      if (this.#byText) return chunk === undefined ? reader.endData!() : reader.pushData!(chunk);
      return chunk === undefined ? reader.end() : reader.push(chunk);
    } catch (error) {
      if (!this.#stopped()) this.#fail(`is not well framed (${error instanceof Error ? error.message : String(error)})`);
      return undefined;
    }
  }

  /** The IR events of `event`; a decoder's throw becomes the stream's error event. */
  #decoded(event: WireEvent): StreamEvent[] {
    try {
      return this.#decoder.decode(event);
    } catch (error) {
      return this.#decodeFault(error);
    }
  }

  #decodeFault(error: unknown): StreamEvent[] {
    this.#failed = true;
    return [{ type: 'error', error: errorFromException(error, this.#what) }];
  }
}
