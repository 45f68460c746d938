/**
 * Recorded bodies → values: JSON text parsed, SSE text split into wire
 * events, and a recorded stream reassembled into the whole response with the
 * format's stream decoder and `Accumulator`.
 */
import { createParser } from 'eventsource-parser';
import { Accumulator } from '../core/accumulate.ts';
import { DONE, framingFor, streamDecoderFor } from '../formats/stream.ts';
import { wireEventOf } from '../core/framing.ts';
import type { CodecContext } from '../core/codec.ts';
import type { FormatId, Response } from '../core/ir.ts';
import type { WireEvent } from '../core/stream-events.ts';
import { NormalizeFailure } from './failure.ts';
import type { RecordedBody } from './types.ts';

/** A body ready to decode: one JSON value, or the wire events of a recorded stream. */
export type ParsedBody = { kind: 'json'; value: unknown } | { kind: 'events'; events: WireEvent[] };

/** True for the content type of AWS's binary event stream (Bedrock `/converse-stream`). */
export function isBinaryEventStream(contentType: string): boolean {
  return /application\/vnd\.amazon\.eventstream/i.test(contentType);
}

/** Bedrock event-stream bytes → wire events; a broken frame or CRC is a `stream_error`. */
function parseEventStreamBytes(bytes: Uint8Array): WireEvent[] {
  const reader = framingFor('bedrock-converse').createReader();
  try {
    return [...reader.push(bytes), ...reader.end()];
  } catch (error) {
    throw new NormalizeFailure('stream_error', `the event stream is not well framed (${(error as Error).message})`);
  }
}

/** True when a body is SSE: by its content type, or by its first line. */
export function isEventStream(text: string, contentType: string | undefined): boolean {
  if (contentType !== undefined && /text\/event-stream/i.test(contentType)) return true;
  return /^\s*(event|data|id|retry)\s*:/.test(text.slice(0, 64)) || text.startsWith(':');
}

/**
 * SSE text → wire events, as `sseToWireEvents` parses bytes: `[DONE]` kept
 * as text, data that is not JSON marked `invalid`. A last event with no
 * blank line after it still counts (recorders often trim the body); a cut-off
 * JSON line then shows up as `invalid`.
 */
export function parseSseText(text: string): WireEvent[] {
  const events: WireEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      let event: WireEvent;
      if (message.data === DONE) {
        event = { data: DONE };
      } else {
        try {
          event = { data: JSON.parse(message.data) };
        } catch (error) {
          event = { data: message.data, invalid: (error as Error).message };
        }
      }
      if (message.event !== undefined) event.event = message.event;
      events.push(event);
    },
  });
  parser.feed(text);
  // Blank lines end an event; after a complete stream they dispatch nothing.
  parser.feed('\n\n');
  return events;
}

/** True when a body is NDJSON (Ollama streams): by its content type, or by two lines that each start a JSON object. */
export function isNdjson(text: string, contentType: string | undefined): boolean {
  if (contentType !== undefined && /application\/(x-)?ndjson/i.test(contentType)) return true;
  return /^\s*\{[^\n]*\}\s*\r?\n\s*\{/.test(text.slice(0, 1 << 16));
}

/** NDJSON text → wire events, one per non-blank line; a line that is not JSON is marked `invalid`. */
export function parseNdjsonText(text: string): WireEvent[] {
  const events: WireEvent[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed !== '') events.push(wireEventOf(trimmed));
  }
  return events;
}

/** A recorded body as a JSON value or as stream events. `side` names the body in messages. */
export function parseRecordedBody(body: RecordedBody, side: 'request' | 'response'): ParsedBody {
  const value = body.value;
  if (body.events === true) return { kind: 'events', events: value as WireEvent[] };
  if (value instanceof Uint8Array) return { kind: 'events', events: parseEventStreamBytes(value) };
  if (typeof value !== 'string') return { kind: 'json', value };
  if (side === 'response' && isEventStream(value, body.contentType)) return { kind: 'events', events: parseSseText(value) };
  try {
    return { kind: 'json', value: JSON.parse(value) };
  } catch (error) {
    if (side === 'response' && isNdjson(value, body.contentType)) return { kind: 'events', events: parseNdjsonText(value) };
    const start = JSON.stringify(value.slice(0, 40));
    throw new NormalizeFailure('invalid_json', `the ${side} body is not JSON (${(error as Error).message}); it starts ${start}`);
  }
}

/**
 * Reassemble a recorded stream of `format` into the whole response. A stream
 * that is cut off, has a line that is not JSON, or reports an error is a
 * `stream_error`; a format whose stream decoder is not written yet is
 * `not_implemented`.
 */
export function accumulateStream(format: FormatId, events: readonly WireEvent[], context: CodecContext): Response {
  const decoder = streamDecoderFor(format, context);
  const accumulator = new Accumulator();
  for (const [index, event] of events.entries()) {
    if (event.invalid !== undefined) {
      throw new NormalizeFailure('stream_error', `stream event ${index} is not JSON (${event.invalid}); the stream is truncated or corrupt`);
    }
    for (const irEvent of decoder.decode(event)) accumulator.push(irEvent);
  }
  for (const irEvent of decoder.flush()) accumulator.push(irEvent);
  const result = accumulator.result();
  if (result.error !== undefined) throw new NormalizeFailure('stream_error', `the stream reports an error: ${result.error.message}`);
  if (!result.complete) throw new NormalizeFailure('stream_error', `the stream ended after ${events.length} events without its end event (truncated)`);
  return result.response;
}
