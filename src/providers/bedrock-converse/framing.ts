/**
 * The AWS event stream, Bedrock's stream framing
 * (`application/vnd.amazon.eventstream`): binary frames of a length prelude,
 * typed headers (`:message-type`, `:event-type` or `:exception-type`,
 * `:content-type`), a JSON payload and CRC32 checks over prelude and
 * message. Frames are split and joined by `@smithy/eventstream-codec`,
 * which verifies both checksums; this file only buffers bytes into whole
 * frames and maps frames to wire events (`{ event: <type>, data: <payload> }`)
 * and back. An exception frame becomes a wire event named by its
 * `:exception-type` (`modelStreamErrorException`); the writer turns such a
 * name back into an exception frame.
 *
 * @see https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream
 */
import { EventStreamCodec, type Message, type MessageHeaders } from '@smithy/eventstream-codec';
import { wireEventOf, type FrameReader, type StreamFraming } from '../../core/framing.ts';
import type { WireEvent } from '../../core/stream-events.ts';

const text = new TextDecoder();
const utf8 = new TextEncoder();
const codec = new EventStreamCodec(
  (bytes) => text.decode(bytes),
  (value) => utf8.encode(value),
);

/** The smallest frame: prelude (8), prelude CRC (4), message CRC (4). */
const MIN_FRAME = 16;
/** Bedrock's frames carry one event each; a length past this is a broken or hostile stream, not an event. */
const MAX_FRAME = 24 * 1024 * 1024;

function header(headers: MessageHeaders, name: string): string | undefined {
  const value = headers[name];
  return value !== undefined && value.type === 'string' ? value.value : undefined;
}

/** One decoded frame as a wire event. */
function wireEventOfFrame(message: Message): WireEvent {
  const type = header(message.headers, ':message-type');
  const body = message.body.byteLength === 0 ? '{}' : text.decode(message.body);
  if (type === 'exception') return wireEventOf(body, header(message.headers, ':exception-type') ?? 'unknownException');
  if (type === 'error') {
    const code = header(message.headers, ':error-code') ?? 'InternalFailure';
    return { event: `${code.charAt(0).toLowerCase()}${code.slice(1)}${code.endsWith('Exception') ? '' : 'Exception'}`, data: { message: header(message.headers, ':error-message') ?? code } };
  }
  return wireEventOf(body, header(message.headers, ':event-type') ?? 'unknown');
}

/** True for a wire event name that is an exception (`throttlingException`), written as an exception frame. */
export function isExceptionEvent(name: string | undefined): boolean {
  return name !== undefined && name.endsWith('Exception');
}

/** Bedrock's event-stream framing. */
export const eventStreamFraming: StreamFraming = {
  contentType: 'application/vnd.amazon.eventstream',
  createReader(): FrameReader {
    let buffer = new Uint8Array(0);
    let length = 0;
    const append = (chunk: Uint8Array) => {
      if (length + chunk.byteLength > buffer.byteLength) {
        const grown = new Uint8Array(Math.max(buffer.byteLength * 2, length + chunk.byteLength, 4096));
        grown.set(buffer.subarray(0, length));
        buffer = grown;
      }
      buffer.set(chunk, length);
      length += chunk.byteLength;
    };
    const frames = (): WireEvent[] => {
      const events: WireEvent[] = [];
      let offset = 0;
      while (length - offset >= 4) {
        const total = new DataView(buffer.buffer, buffer.byteOffset + offset, 4).getUint32(0, false);
        if (total < MIN_FRAME || total > MAX_FRAME) throw new Error(`an event-stream frame says it is ${total} bytes long (frames are ${MIN_FRAME} to ${MAX_FRAME})`);
        if (length - offset < total) break;
        // decode() checks both CRCs and throws on a mismatch.
        events.push(wireEventOfFrame(codec.decode(buffer.slice(offset, offset + total))));
        offset += total;
      }
      if (offset > 0) {
        buffer.copyWithin(0, offset, length);
        length -= offset;
      }
      return events;
    };
    return {
      push(chunk) {
        append(chunk);
        return frames();
      },
      end() {
        const events = frames();
        if (length > 0) throw new Error(`the event stream ended inside a frame (${length} bytes left over)`);
        return events;
      },
    };
  },
  write(messages) {
    const frames = messages.map((message) => {
      const name = message.event ?? 'unknown';
      // Bedrock's own header order, so a same-format stream comes out byte for byte as it went in.
      const headers: MessageHeaders = isExceptionEvent(name)
        ? { ':message-type': { type: 'string', value: 'exception' }, ':exception-type': { type: 'string', value: name }, ':content-type': { type: 'string', value: 'application/json' } }
        : { ':event-type': { type: 'string', value: name }, ':content-type': { type: 'string', value: 'application/json' }, ':message-type': { type: 'string', value: 'event' } };
      return codec.encode({ headers, body: utf8.encode(message.data) });
    });
    if (frames.length === 1) return frames[0] as Uint8Array;
    const out = new Uint8Array(frames.reduce((sum, frame) => sum + frame.byteLength, 0));
    let offset = 0;
    for (const frame of frames) {
      out.set(frame, offset);
      offset += frame.byteLength;
    }
    return out;
  },
};
