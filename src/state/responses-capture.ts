/**
 * The Responses answer as the state layer sees it on its way to the caller:
 * stamped with the ids the store keys it by (a `resp_…` id where the
 * upstream's was another vendor's, item ids unique to this response, the
 * `previous_response_id` and `conversation` it continued), and captured
 * whole for the store — a whole body at once, a stream from its
 * `response.completed` (or `response.incomplete`) event, whose bytes are held
 * until the record is written, so a caller that chains at once finds it.
 */
import { isObject, type JsonObject } from '../core/wire.ts';
import { isByteSource, type Answer, type ByteSource } from '../proxy/exchange.ts';

/** What a response is stamped with. */
export interface ResponseStamp {
  /** The id to give a response whose own id is not `resp_`-shaped. */
  readonly id: string;
  /** Replaces `interlingua_` in the encoder's item ids (`msg_interlingua_0`), which repeat in every answer. */
  readonly itemSuffix: string;
  readonly previousResponseId?: string;
  readonly conversation?: string;
}

/** Where a captured response goes; the promise settles when it is stored, with a note when it could not be. */
export type CaptureSink = (response: JsonObject) => Promise<string | undefined>;

const ENCODER_ITEM_ID = /"(msg|fc|rs|ctc)_interlingua_/g;

/** `text` with the encoder's per-answer item ids made unique to this response. */
export function uniqueItemIds(text: string, suffix: string): string {
  return text.includes('_interlingua_') ? text.replace(ENCODER_ITEM_ID, `"$1_${suffix}`) : text;
}

/** Sets the response's id (when the upstream's is not OpenAI's shape), `previous_response_id` and `conversation`; the id used. */
export function stampResponse(response: JsonObject, stamp: ResponseStamp, chosen: string | undefined): string {
  const own = response['id'];
  const id = chosen ?? (typeof own === 'string' && own.startsWith('resp_') ? own : stamp.id);
  response['id'] = id;
  if (stamp.previousResponseId !== undefined) response['previous_response_id'] = stamp.previousResponseId;
  if (stamp.conversation !== undefined) response['conversation'] = { id: stamp.conversation };
  return id;
}

/** A whole answer's body stamped, and the stored record's note (undefined when stored). */
export async function captureWhole(answer: Answer, stamp: ResponseStamp, sink: CaptureSink): Promise<{ text: string; note: string | undefined }> {
  const text = answer.body as string;
  let response: unknown;
  try {
    response = JSON.parse(uniqueItemIds(text, stamp.itemSuffix));
  } catch {
    return { text, note: 'the answer is not JSON' };
  }
  if (!isObject(response)) return { text, note: 'the answer is not a response object' };
  stampResponse(response, stamp, undefined);
  const note = await sink(response);
  return { text: JSON.stringify(response), note };
}

/** The events whose `response` is the response object itself. */
const RESPONSE_EVENTS = new Set(['response.created', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed', 'response.queued']);
/** The events after which the response is whole (and stored). */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete']);

/** Rewrites one SSE stream of Responses events: stamps, captures, and holds the final event until it is stored. */
class StreamStamper {
  readonly #stamp: ResponseStamp;
  readonly #sink: CaptureSink;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();
  #buffer = '';
  #id: string | undefined;
  /** The stored record's promise, once the final event came; its bytes wait for it. */
  #stored: Promise<string | undefined> | undefined;
  #held = '';

  constructor(stamp: ResponseStamp, sink: CaptureSink) {
    this.#stamp = stamp;
    this.#sink = sink;
  }

  /** The bytes to pass on now. */
  push(chunk: Uint8Array): Uint8Array | undefined {
    this.#buffer += this.#decoder.decode(chunk, { stream: true });
    let out = '';
    let end = this.#buffer.indexOf('\n\n');
    while (end !== -1) {
      const event = this.#event(this.#buffer.slice(0, end + 2));
      if (this.#stored === undefined) out += event;
      else this.#held += event;
      this.#buffer = this.#buffer.slice(end + 2);
      end = this.#buffer.indexOf('\n\n');
    }
    return out === '' ? undefined : this.#encoder.encode(out);
  }

  /** The rest, once what was captured is stored (with an SSE comment saying so when it could not be). */
  async end(): Promise<Uint8Array | undefined> {
    const rest = this.#held + this.#buffer + this.#decoder.decode();
    const note = this.#stored === undefined ? undefined : await this.#stored;
    const comment = note === undefined ? '' : `: interlingua: this response was not stored: ${note.replace(/[\r\n]+/g, ' ')}\n\n`;
    const text = comment + rest;
    return text === '' ? undefined : this.#encoder.encode(text);
  }

  #event(text: string): string {
    const stamped = uniqueItemIds(text, this.#stamp.itemSuffix);
    const type = /^event: *(\S+)/m.exec(stamped)?.[1] ?? /"type":"(response\.[a-z_]+)"/.exec(stamped)?.[1];
    if (type === undefined || !RESPONSE_EVENTS.has(type)) return stamped;
    const dataAt = stamped.indexOf('data:');
    if (dataAt === -1) return stamped;
    const lineEnd = stamped.indexOf('\n', dataAt);
    let data: unknown;
    try {
      data = JSON.parse(stamped.slice(dataAt + 5, lineEnd === -1 ? undefined : lineEnd));
    } catch {
      return stamped;
    }
    if (!isObject(data) || !isObject(data['response'])) return stamped;
    const response = data['response'];
    this.#id = stampResponse(response, this.#stamp, this.#id);
    if (FINAL_EVENTS.has(type) && this.#stored === undefined) this.#stored = this.#sink(response);
    return `${stamped.slice(0, dataAt)}data: ${JSON.stringify(data)}${lineEnd === -1 ? '' : stamped.slice(lineEnd)}`;
  }
}

function stampedSource(source: ByteSource, stamper: StreamStamper): ByteSource {
  return {
    start(sink) {
      source.start({
        data(chunk) {
          const bytes = stamper.push(chunk);
          if (bytes !== undefined) sink.data(bytes);
        },
        end() {
          void stamper.end().then((tail) => {
            if (tail !== undefined) sink.data(tail);
            sink.end();
          });
        },
        fail(error) {
          sink.fail(error);
        },
      });
    },
    pause: () => source.pause(),
    resume: () => source.resume(),
    cancel: () => source.cancel(),
  };
}

function stampedStream(body: ReadableStream<Uint8Array>, stamper: StreamStamper): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const bytes = stamper.push(chunk);
        if (bytes !== undefined) controller.enqueue(bytes);
      },
      async flush(controller) {
        const tail = await stamper.end();
        if (tail !== undefined) controller.enqueue(tail);
      },
    }),
  );
}

/** A streamed answer's body, stamped and captured on its way. */
export function captureStream(answer: Answer, stamp: ResponseStamp, sink: CaptureSink): void {
  const body = answer.body;
  if (body === null || typeof body === 'string') return;
  const stamper = new StreamStamper(stamp, sink);
  answer.body = isByteSource(body) ? stampedSource(body, stamper) : stampedStream(body, stamper);
}
