/**
 * How a format frames its stream on the wire. Most vendors send Server-Sent
 * Events; Bedrock sends AWS event-stream binary frames and Ollama one JSON
 * object per line. A codec names its framing (`Codec.streamFraming`); SSE
 * when it names none. The framing turns bytes into wire events and wire
 * messages back into bytes; everything between (decoders, encoders) is the
 * same for every framing.
 */
import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { utf8Bytes, utf8BytesOfPieces } from './output-bytes.ts';
import { MAX_DEPTH, mayNestTooDeep, tooDeep } from './wire.ts';
import { DATA_PIECES, type EncodedOnce, type SseMessage, type WireEvent } from './stream-events.ts';

/** Reads one stream's bytes into wire events, in order. */
export interface FrameReader {
  /** The wire events completed by `chunk` (maybe none). Throws an `Error` on bytes that break the framing. */
  push(chunk: Uint8Array): WireEvent[];
  /** The wire events completed by the end of the stream; throws when the stream ends inside a frame. */
  end(): WireEvent[];
  /**
   * Optional: what `push` does, without parsing: each event's `data:` text
   * (what {@link wireEventOf} would parse) and event name. A reader gives
   * either these or wire events for a stream, not both; the transcoder uses
   * them so that a decoder can recognise an event by its text
   * (`StreamDecoder.decodeText`).
   */
  pushData?(chunk: Uint8Array): DataEvent[];
  /** With `pushData`: what `end` does, without parsing. */
  endData?(): DataEvent[];
}

/** One event's `data:` text (not parsed) and its name, as a text framing reads it. */
export interface DataEvent {
  data: string;
  event?: string | undefined;
}

/** One stream framing: a reader per stream, and a writer of messages. */
export interface StreamFraming {
  /** The media type of a stream body in this framing (`text/event-stream`). */
  readonly contentType: string;
  /** A fresh reader for one stream. */
  createReader(): FrameReader;
  /** The bytes of `messages`, in order, as one chunk. */
  write(messages: readonly SseMessage[]): Uint8Array;
}

/** The `data:` text OpenAI Chat sends last. */
export const DONE = '[DONE]';

/**
 * A JSON text as a wire event: parsed, `[DONE]` kept as the string, text that
 * is not JSON (or nests too deep) kept with `invalid` saying why.
 */
export function wireEventOf(data: string, event?: string): WireEvent {
  let wire: WireEvent;
  if (data === DONE) wire = { data: DONE };
  else {
    try {
      wire = { data: JSON.parse(data) };
    } catch (error) {
      wire = { data, invalid: (error as Error).message };
    }
    if (wire.invalid === undefined && mayNestTooDeep(data) && tooDeep(wire.data) !== undefined) wire = { data, invalid: `the data nests deeper than ${MAX_DEPTH} levels` };
  }
  if (event !== undefined) wire.event = event;
  return wire;
}

/** Decodes a stream's bytes to text chunk by chunk (see {@link utf8Chunks}). */
export interface Utf8Chunks {
  /** The text of `chunk`; bytes of a character it cuts are kept for the next chunk. */
  decode(chunk: Uint8Array): string;
  /** The stream has ended: what is left (a replacement character for a cut character). */
  end(): string;
}

/** Chunks up to this size that end on a character boundary are decoded whole (see {@link utf8Chunks}). */
const WHOLE_DECODE_MAX = 1024;
const STREAM = { stream: true } as const;

/**
 * UTF-8 text of a byte stream, chunk by chunk. A small chunk (one event, as a
 * live upstream sends it) that ends on a character boundary (its last byte is
 * ASCII: SSE and NDJSON chunks end with a newline) while no cut character is
 * pending is decoded whole, which on Node takes half the time of a
 * stream-mode decode; every other chunk goes through one stream-mode
 * decoder. That decoder sees the stream's first bytes, so a byte-order mark
 * is dropped at the start of the stream only, as with a single decoder.
 */
export function utf8Chunks(): Utf8Chunks {
  const whole = new TextDecoder('utf-8', { ignoreBOM: true });
  const streaming = new TextDecoder();
  /** Bytes through the stream-mode decoder so far (the first three settle the byte-order mark). */
  let seen = 0;
  /** The stream-mode decoder may hold part of a character. */
  let pending = false;
  return {
    decode(chunk) {
      const length = chunk.byteLength;
      if (length === 0) return '';
      const boundary = chunk[length - 1]! < 0x80;
      if (seen >= 3 && !pending && boundary && length <= WHOLE_DECODE_MAX) return whole.decode(chunk);
      seen += length;
      pending = !boundary;
      return streaming.decode(chunk, STREAM);
    },
    end: () => streaming.decode(),
  };
}

/**
 * Feed `parser` whole lines: a chunk's text up to its last line feed, the
 * rest kept (as a rope while a long line grows) and fed with the next
 * chunk's first line. eventsource-parser joins a fragment it holds with the
 * whole next chunk (`Array.prototype.join`), a copy of every 16 KiB chunk
 * that does not end on a line: 90% of its time on an OpenAI Responses
 * stream, whose `*.done` events repeat the answer's text in lines of up to
 * 170 KB. Text with a carriage return goes to the parser as it is (a line
 * may end with one alone).
 */
function wholeLines(parser: EventSourceParser): { feed(text: string): void; end(rest: string): void } {
  let pending = '';
  return {
    feed(text) {
      if (text === '') return;
      // Most often (one event per chunk, as a live upstream sends them) the text ends on a line with nothing held: fed as it is.
      if (pending === '' && text.charCodeAt(text.length - 1) === 10) {
        parser.feed(text);
        return;
      }
      if (text.indexOf('\r') !== -1) {
        const all = pending + text;
        pending = '';
        parser.feed(all);
        return;
      }
      const last = text.lastIndexOf('\n');
      if (last === -1) {
        pending += text;
        return;
      }
      let from = 0;
      if (pending !== '') {
        from = text.indexOf('\n') + 1;
        parser.feed(pending + text.slice(0, from));
        pending = '';
      }
      if (from <= last) parser.feed(from === 0 && last === text.length - 1 ? text : text.slice(from, last + 1));
      if (last < text.length - 1) pending = text.slice(last + 1);
    },
    end(rest) {
      const all = pending + rest;
      pending = '';
      if (all !== '') parser.feed(all);
    },
  };
}

/** Server-Sent Events: `event:` and `data:` lines, a blank line after each message. */
export const sseFraming: StreamFraming = {
  contentType: 'text/event-stream; charset=utf-8',
  createReader(): FrameReader {
    const text = utf8Chunks();
    // One stream is read either way: wire events (parsed here) or data events (eventsource-parser's messages, `{ data, event, id }`).
    let raw = false;
    let events: (WireEvent | DataEvent)[] = [];
    let overflow: ParseError | undefined;
    const parser: EventSourceParser = createParser({
      onEvent(message) {
        events.push(raw ? message : wireEventOf(message.data, message.event));
      },
      onError(error) {
        if (error.type === 'max-buffer-size-exceeded') overflow = error;
      },
    });
    const take = (): (WireEvent | DataEvent)[] => {
      if (overflow !== undefined) throw overflow;
      const out = events;
      events = [];
      return out;
    };
    const lines = wholeLines(parser);
    const feed = (chunk: Uint8Array): void => lines.feed(text.decode(chunk));
    const finish = (): void => lines.end(text.end());
    return {
      push(chunk) {
        feed(chunk);
        return take() as WireEvent[];
      },
      end() {
        finish();
        return take() as WireEvent[];
      },
      pushData(chunk) {
        raw = true;
        feed(chunk);
        return take() as DataEvent[];
      },
      endData() {
        raw = true;
        finish();
        return take() as DataEvent[];
      },
    };
  },
  write(messages) {
    let out = '';
    // Messages whose data comes in pieces (see `DATA_PIECES`) are written from them.
    let pieces: (string | EncodedOnce)[] | undefined;
    for (const message of messages) {
      const data = message[DATA_PIECES];
      if (data === undefined) out += `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`;
      else {
        (pieces ??= []).push(`${out}${message.event === undefined ? '' : `event: ${message.event}\n`}data: `, ...data);
        out = '\n\n';
      }
    }
    if (pieces === undefined) return utf8Bytes(out);
    pieces.push(out);
    let length = 0;
    for (const piece of pieces) length += typeof piece === 'string' ? piece.length : piece.text.length;
    return utf8BytesOfPieces(pieces, length);
  },
};

/** Add an NDJSON line to `events` (blank lines are skipped): a wire event, or for `raw` a data event. */
function addLine(events: (WireEvent | DataEvent)[], text: string, raw: boolean): void {
  const line = text.trim();
  if (line !== '') events.push(raw ? { data: line } : wireEventOf(line));
}

/**
 * Newline-delimited JSON: one JSON value per line (Ollama). Blank lines are
 * skipped; a last line without its newline still counts. An encoder's
 * `SseMessage.event` has no place here and is not written.
 */
export const ndjsonFraming: StreamFraming = {
  contentType: 'application/x-ndjson',
  createReader(): FrameReader {
    const text = utf8Chunks();
    /** The text since the last newline, in the pieces it came in: a line longer than a chunk is joined once, at its newline, not rescanned with every chunk. */
    let pending: string[] = [];
    // Each line as a wire event (parsed here) or, for `pushData`, as a data event.
    const lines = (input: string, final: boolean, raw: boolean): (WireEvent | DataEvent)[] => {
      const events: (WireEvent | DataEvent)[] = [];
      let start = 0;
      let newline = input.indexOf('\n');
      if (newline !== -1 && pending.length > 0) {
        pending.push(input.slice(0, newline));
        addLine(events, pending.join(''), raw);
        pending = [];
        start = newline + 1;
        newline = input.indexOf('\n', start);
      }
      for (; newline !== -1; newline = input.indexOf('\n', start)) {
        addLine(events, input.slice(start, newline), raw);
        start = newline + 1;
      }
      if (start < input.length) pending.push(start === 0 ? input : input.slice(start));
      if (final && pending.length > 0) {
        addLine(events, pending.join(''), raw);
        pending = [];
      }
      return events;
    };
    return {
      push: (chunk) => lines(text.decode(chunk), false, false) as WireEvent[],
      end: () => lines(text.end(), true, false) as WireEvent[],
      pushData: (chunk) => lines(text.decode(chunk), false, true) as DataEvent[],
      endData: () => lines(text.end(), true, true) as DataEvent[],
    };
  },
  write(messages) {
    let out = '';
    for (const message of messages) out += `${message.data}\n`;
    return utf8Bytes(out);
  },
};
