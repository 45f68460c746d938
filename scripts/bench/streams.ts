/**
 * Stream transcoding: for every pair of streaming formats, the full
 * `convertStream` pipeline (bytes → bytes through Web streams), the codecs
 * alone (SSE split → JSON.parse → decoder → encoder → SSE text), and
 * llm-bridge's `handleUniversalStreamRequest`; the floor is JSON.parse +
 * JSON.stringify of every event's data.
 */
import { handleUniversalStreamRequest } from 'llm-bridge';
import { accumulate } from '../../src/core/accumulate.ts';
import { codecFor, convertStream, DONE, LossCollector } from './lib.ts';
import type { FormatId } from '../../src/core/ir.ts';
import type { StreamEvent, WireEvent } from '../../src/core/stream-events.ts';
import { bridgeProvider, type OtherResult } from './conversions.ts';
import { differences, responseFacts, type Facts } from './meaning.ts';
import { measureRounds, pairedRatio, type RoundTiming, type Timing } from './timing.ts';
import { BENCH_MODEL, streamingFormats, type StreamWorkload } from './workloads.ts';

/** One stream cell. */
export interface StreamCell {
  from: FormatId;
  to: FormatId;
  /** SSE events in the source. */
  events: number;
  sourceBytes: number;
  outputBytes: number;
  floor: Timing;
  /** Full pipeline: `convertStream` over a byte stream in 16 KiB chunks. */
  pipeline: Timing;
  /** The same with one event per chunk. */
  pipelinePerEvent: Timing;
  /** Source events per second with one event per chunk (best round). */
  perEventEventsPerSecond: number;
  /** Codecs alone, synchronously. */
  codecs: Timing;
  /** Source events per second through the full pipeline (best round: the closest to one uncontended core). */
  eventsPerSecond: number;
  /** Source events per second through the codecs alone (best round: the closest to one uncontended core). */
  codecEventsPerSecond: number;
  ratio: number;
  losses: number;
  differences: string[];
  others: (OtherResult & { eventsPerSecond?: number })[];
}

/** Bytes cut into chunks of `size`, as a network read would deliver them. */
export function chunksOf(text: string, size = 16 * 1024): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) chunks.push(bytes.subarray(offset, offset + size));
  return chunks;
}

/** Bytes cut after every event (`\n\n`), as a live upstream delivers them. */
export function eventChunksOf(text: string): Uint8Array[] {
  const encoder = new TextEncoder();
  return text.split(/(?<=\n\n)/).map((part) => encoder.encode(part));
}

function readableOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]!);
      else controller.close();
    },
  });
}

async function drain(readable: ReadableStream<unknown>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += typeof value === 'string' ? value : decoder.decode(value as Uint8Array, { stream: true });
  }
}

/** The `event:` and `data:` of each SSE message in `text` (blank-line framing, as the encoders write it). */
export function splitSse(text: string): { event?: string; data: string }[] {
  const out: { event?: string; data: string }[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trimStart();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    out.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') });
  }
  return out;
}

/** Transcode SSE text with the codecs alone; returns the output SSE text. */
export function transcodeText(text: string, from: FormatId, to: FormatId): { text: string; losses: number; events: StreamEvent[] } {
  const losses = new LossCollector();
  const context = { losses, model: BENCH_MODEL };
  const decoder = codecFor(from).createStreamDecoder!(context);
  const encoder = codecFor(to).createStreamEncoder!(context);
  const irEvents: StreamEvent[] = [];
  let out = '';
  const put = (events: StreamEvent[]) => {
    for (const event of events) {
      irEvents.push(event);
      for (const message of encoder.encode(event)) out += `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`;
    }
  };
  for (const message of splitSse(text)) {
    const wire: WireEvent = { data: message.data === DONE ? DONE : JSON.parse(message.data) };
    if (message.event !== undefined) wire.event = message.event;
    put(decoder.decode(wire));
  }
  put(decoder.flush());
  for (const message of encoder.flush()) out += `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`;
  return { text: out, losses: losses.losses.length, events: irEvents };
}

/** The meaning of an SSE text of `format`, accumulated by interlingua's decoder; a string when it does not decode. */
export function streamFacts(format: FormatId, text: string): Facts | string {
  try {
    const losses = new LossCollector();
    const decoder = codecFor(format).createStreamDecoder!({ losses, model: BENCH_MODEL });
    const events: StreamEvent[] = [];
    for (const message of splitSse(text)) {
      const wire: WireEvent = { data: message.data === DONE ? DONE : JSON.parse(message.data) };
      if (message.event !== undefined) wire.event = message.event;
      events.push(...decoder.decode(wire));
    }
    events.push(...decoder.flush());
    const accumulated = accumulate(events);
    if (accumulated.error !== undefined) return `the ${format} stream carries an error: ${accumulated.error.message.slice(0, 160)}`;
    if (!accumulated.complete) return `the ${format} stream does not end`;
    return responseFacts(accumulated.response);
  } catch (error) {
    return `output does not decode as a ${format} stream: ${(error as Error).message.slice(0, 160)}`;
  }
}

/** Options of {@link runStreams}. */
export interface StreamOptions {
  budgetMs: number;
  progress?: (cell: StreamCell) => void;
}

/** Run every stream cell. */
export async function runStreams(workload: StreamWorkload, options: StreamOptions): Promise<StreamCell[]> {
  const formats = streamingFormats();
  const cells: StreamCell[] = [];
  for (const from of formats) {
    const text = workload.texts[from];
    if (text === undefined) continue;
    const events = workload.events[from] ?? 0;
    const chunks = chunksOf(text);
    const eventChunks = eventChunksOf(text);
    const datas = splitSse(text).map((message) => message.data);
    const floorFn = () => {
      let length = 0;
      for (const data of datas) length += data === DONE ? 0 : JSON.stringify(JSON.parse(data)).length;
      return length;
    };
    const expected = streamFacts(from, text);
    for (const to of formats) {
      const once = transcodeText(text, from, to);
      const actual = streamFacts(to, once.text);
      const pipelineFn = () => drain(convertStream(readableOf(chunks), { from, to, model: BENCH_MODEL }));
      const piped = await pipelineFn();
      const differs: string[] = typeof expected === 'string' ? [`source: ${expected}`] : typeof actual === 'string' ? [actual] : differences(expected, actual);
      if (piped !== once.text) differs.push('convertStream output differs from the codecs run alone');
      const perEventFn = () => drain(convertStream(readableOf(eventChunks), { from, to, model: BENCH_MODEL }));
      if ((await perEventFn()) !== piped) differs.push('convertStream output depends on chunking');
      const fns: (() => unknown)[] = [floorFn, () => transcodeText(text, from, to).text, pipelineFn, perEventFn];
      const bridgeFn = () => drain(handleUniversalStreamRequest(readableOf(chunks), bridgeProvider(from), bridgeProvider(to)));
      let bridged: OtherResult | undefined;
      let bridgeError: string | undefined;
      try {
        const facts = streamFacts(to, await bridgeFn());
        bridged = { name: 'llm-bridge', differences: typeof expected === 'string' ? [] : typeof facts === 'string' ? [facts] : differences(expected, facts) };
        fns.push(bridgeFn);
      } catch (error) {
        bridgeError = (error as Error).message.slice(0, 160);
      }
      const [floor, codecs, pipeline, pipelinePerEvent, other] = (await measureRounds(fns, { budgetMs: options.budgetMs, sampleMs: 1 })) as [
        RoundTiming,
        RoundTiming,
        RoundTiming,
        RoundTiming,
        RoundTiming | undefined,
      ];
      const others: StreamCell['others'] = [];
      if (bridgeError !== undefined) others.push({ name: 'llm-bridge', error: bridgeError, differences: [] });
      if (bridged !== undefined && other !== undefined) {
        others.push({ ...bridged, timing: other, ratio: pairedRatio(other, floor), eventsPerSecond: events / (other.min / 1e9) });
      }
      const cell: StreamCell = {
        from,
        to,
        events,
        sourceBytes: Buffer.byteLength(text),
        outputBytes: Buffer.byteLength(once.text),
        floor,
        pipeline,
        pipelinePerEvent,
        perEventEventsPerSecond: events / (pipelinePerEvent.min / 1e9),
        codecs,
        eventsPerSecond: events / (pipeline.min / 1e9),
        codecEventsPerSecond: events / (codecs.min / 1e9),
        ratio: pairedRatio(pipeline, floor),
        losses: once.losses,
        differences: differs,
        others,
      };
      cells.push(cell);
      options.progress?.(cell);
    }
  }
  return cells;
}
