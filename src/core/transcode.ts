/**
 * One stream conversion on codec objects (`formats/stream.ts` adds format
 * ids): the stages of `stream-stages.ts` fused into one synchronous
 * transcoder (bytes in, bytes out, no stream between the stages), with the
 * stream's losses pointed at the source events. Memory is constant per
 * stream apart from the part being built.
 */
import { checkDialect } from './dialect.ts';
import { LossCollector, type Loss } from './losses.ts';
import { wireEventOf, type DataEvent, type StreamFraming } from './framing.ts';
import type { Codec, CodecContext } from './codec.ts';
import type { AnswerIds } from './answer-ids.ts';
import type { FrameReader } from './framing.ts';
import type { FormatId } from './ir.ts';
import type { SseMessage, StreamDecoder, StreamEncoder, StreamEvent, WireEvent } from './stream-events.ts';
import { brokenStream, createDecoder, createEncoder, errorFromException, framingOf, guardedEncoder } from './stream-stages.ts';

export { createDecoder, createEncoder, errorFromException, framedToWireEvents, framingOf, irToSseMessages, messagesToFramedBytes, sseMessagesToBytes, sseToWireEvents, wireToIrEvents } from './stream-stages.ts';
export { DONE } from './framing.ts';

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
  /** Write the usage where the target reports it only when asked (see `CodecContext.streamUsage`; default true). */
  streamUsage?: boolean;
  /** Where made-up ids and times come from (see `CodecContext.ids`). */
  ids?: AnswerIds;
  /** The request the stream answers, in the target format, whose settings the answer echoes (see `CodecContext.request`). */
  request?: unknown;
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
  const encodeContext: CodecContext = dialect === undefined ? { ...context } : { ...context, dialect };
  if (options.streamUsage !== undefined) encodeContext.streamUsage = options.streamUsage;
  if (options.ids !== undefined) encodeContext.ids = options.ids;
  if (options.request !== undefined) encodeContext.request = options.request;
  const encoder = createEncoder(options.to, encodeContext);
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
