/**
 * How a format frames its stream on the wire. Most vendors send Server-Sent
 * Events; Bedrock sends AWS event-stream binary frames and Ollama one JSON
 * object per line. A codec names its framing (`Codec.streamFraming`); SSE
 * when it names none. The framing turns bytes into wire events and wire
 * messages back into bytes; everything between (decoders, encoders) is the
 * same for every framing.
 */
import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { MAX_DEPTH, mayNestTooDeep, tooDeep } from './wire.ts';
import type { SseMessage, WireEvent } from './stream-events.ts';

/** Reads one stream's bytes into wire events, in order. */
export interface FrameReader {
  /** The wire events completed by `chunk` (maybe none). Throws an `Error` on bytes that break the framing. */
  push(chunk: Uint8Array): WireEvent[];
  /** The wire events completed by the end of the stream; throws when the stream ends inside a frame. */
  end(): WireEvent[];
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

const utf8 = new TextEncoder();

/** Server-Sent Events: `event:` and `data:` lines, a blank line after each message. */
export const sseFraming: StreamFraming = {
  contentType: 'text/event-stream; charset=utf-8',
  createReader(): FrameReader {
    const text = new TextDecoder();
    let events: WireEvent[] = [];
    let overflow: ParseError | undefined;
    const parser: EventSourceParser = createParser({
      onEvent(message) {
        events.push(wireEventOf(message.data, message.event));
      },
      onError(error) {
        if (error.type === 'max-buffer-size-exceeded') overflow = error;
      },
    });
    const take = (): WireEvent[] => {
      if (overflow !== undefined) throw overflow;
      const out = events;
      events = [];
      return out;
    };
    return {
      push(chunk) {
        parser.feed(text.decode(chunk, { stream: true }));
        return take();
      },
      end() {
        const rest = text.decode();
        if (rest !== '') parser.feed(rest);
        return take();
      },
    };
  },
  write(messages) {
    let out = '';
    for (const message of messages) out += `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`;
    return utf8.encode(out);
  },
};

/**
 * Newline-delimited JSON: one JSON value per line (Ollama). Blank lines are
 * skipped; a last line without its newline still counts. An encoder's
 * `SseMessage.event` has no place here and is not written.
 */
export const ndjsonFraming: StreamFraming = {
  contentType: 'application/x-ndjson',
  createReader(): FrameReader {
    const text = new TextDecoder();
    let pending = '';
    const lines = (input: string, final: boolean): WireEvent[] => {
      pending += input;
      const events: WireEvent[] = [];
      let start = 0;
      for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n', start)) {
        const line = pending.slice(start, newline).trim();
        if (line !== '') events.push(wireEventOf(line));
        start = newline + 1;
      }
      pending = pending.slice(start);
      if (final && pending.trim() !== '') {
        events.push(wireEventOf(pending.trim()));
        pending = '';
      }
      return events;
    };
    return {
      push: (chunk) => lines(text.decode(chunk, { stream: true }), false),
      end: () => lines(text.decode(), true),
    };
  },
  write(messages) {
    let out = '';
    for (const message of messages) out += `${message.data}\n`;
    return utf8.encode(out);
  },
};
