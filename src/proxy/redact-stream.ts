/**
 * Redaction of what comes back from the upstream: an error (whole, or an
 * event inside a converted stream) is redacted field by field, and a
 * same-format stream, whose bytes pass through as they came, is scanned
 * chunk by chunk for the secrets. A secret cut in two by a chunk boundary is
 * still found: the end of a chunk that could begin a secret waits for the
 * next chunk (the end of an event, `\n\n`, never does, so events are not
 * held back). Web APIs only.
 */
import type { ApiError } from '../core/ir.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import type { ByteSource } from './exchange.ts';

/** Every string in an API error (message, code, param, extensions) with the secrets replaced. */
export function redactedError(error: ApiError, redact: (text: string) => string): ApiError {
  return JSON.parse(redact(JSON.stringify(error))) as ApiError;
}

/** A stream event with the secrets taken out of an error it carries. */
export function redactedEvent(event: StreamEvent, redact: (text: string) => string): StreamEvent {
  if (event.type !== 'error') return event;
  return { ...event, error: redactedError(event.error, redact) };
}

const MARK = new TextEncoder().encode('[redacted]');

/** Replaces the secrets in a byte stream, chunk by chunk. */
export class ByteRedactor {
  readonly #secrets: Uint8Array[];
  #held: Uint8Array | undefined;

  constructor(secrets: readonly (string | undefined)[]) {
    const encoder = new TextEncoder();
    this.#secrets = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 4).map((secret) => encoder.encode(secret));
  }

  /** Are there any secrets to look for? */
  get active(): boolean {
    return this.#secrets.length > 0;
  }

  /** The bytes of `chunk` that can go on now (the tail that may begin a secret is held). */
  push(chunk: Uint8Array): Uint8Array {
    let bytes = chunk;
    if (this.#held !== undefined) {
      bytes = new Uint8Array(this.#held.length + chunk.length);
      bytes.set(this.#held);
      bytes.set(chunk, this.#held.length);
      this.#held = undefined;
    }
    bytes = this.#replace(bytes);
    const keep = this.#heldLength(bytes);
    if (keep === 0) return bytes;
    this.#held = bytes.slice(bytes.length - keep);
    return bytes.subarray(0, bytes.length - keep);
  }

  /** What was held at the end of the stream. */
  end(): Uint8Array | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held;
  }

  #replace(bytes: Uint8Array): Uint8Array {
    let result = bytes;
    for (const secret of this.#secrets) {
      let at = indexOf(result, secret, 0);
      if (at === -1) continue;
      const pieces: Uint8Array[] = [];
      let from = 0;
      while (at !== -1) {
        pieces.push(result.subarray(from, at), MARK);
        from = at + secret.length;
        at = indexOf(result, secret, from);
      }
      pieces.push(result.subarray(from));
      const joined = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
      let offset = 0;
      for (const piece of pieces) {
        joined.set(piece, offset);
        offset += piece.length;
      }
      result = joined;
    }
    return result;
  }

  /** The length of the longest end of `bytes` that is the start of a secret (and not the whole of one). */
  #heldLength(bytes: Uint8Array): number {
    let longest = 0;
    for (const secret of this.#secrets) {
      const first = secret[0];
      const from = Math.max(0, bytes.length - secret.length + 1);
      for (let at = bytes.indexOf(first as number, from); at !== -1; at = bytes.indexOf(first as number, at + 1)) {
        const length = bytes.length - at;
        if (length <= longest) break;
        let matches = true;
        for (let index = 1; index < length; index++) {
          if (bytes[at + index] !== secret[index]) {
            matches = false;
            break;
          }
        }
        if (matches) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0] as number;
  for (let at = haystack.indexOf(first, from); at !== -1 && at + needle.length <= haystack.length; at = haystack.indexOf(first, at + 1)) {
    let index = 1;
    while (index < needle.length && haystack[at + index] === needle[index]) index++;
    if (index === needle.length) return at;
  }
  return -1;
}

/** A {@link ByteSource} with the secrets replaced (a same-format stream on Node). */
export function redactedSource(source: ByteSource, redactor: ByteRedactor): ByteSource {
  return {
    start(sink) {
      source.start({
        data(chunk) {
          const bytes = redactor.push(chunk);
          if (bytes.length > 0) sink.data(bytes);
        },
        end() {
          const tail = redactor.end();
          if (tail !== undefined) sink.data(tail);
          sink.end();
        },
        fail(error) {
          const tail = redactor.end();
          if (tail !== undefined) sink.data(tail);
          sink.fail(error);
        },
      });
    },
    pause: () => source.pause(),
    resume: () => source.resume(),
    cancel: () => source.cancel(),
  };
}

/** A Web byte stream with the secrets replaced (a same-format stream over the global fetch). */
export function redactedStream(body: ReadableStream<Uint8Array>, redactor: ByteRedactor): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const bytes = redactor.push(chunk);
        if (bytes.length > 0) controller.enqueue(bytes);
      },
      flush(controller) {
        const tail = redactor.end();
        if (tail !== undefined) controller.enqueue(tail);
      },
    }),
  );
}
