/**
 * Stream transcoding: for every pair of streaming formats, each in its own
 * framing (SSE; NDJSON for Ollama; the AWS event stream for Bedrock), the full
 * `convertStream` pipeline (bytes → bytes through Web streams), the codecs
 * alone (JSON.parse of each event → decoder → encoder → the target's framing),
 * and llm-bridge's `handleUniversalStreamRequest`; the floor is JSON.parse +
 * JSON.stringify of every event's data. The timed pipeline only collects the
 * output chunks; they are joined and compared outside the timing.
 */
import { handleUniversalStreamRequest } from 'llm-bridge';
import { accumulate } from '../../src/core/accumulate.ts';
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { codecFor, convertStream, DONE, framingFor, LossCollector } from './lib.ts';
import { codecFor as sourceCodecFor } from '../../src/formats/registry.ts';
import { LossCollector as SourceLossCollector } from '../../src/core/losses.ts';
import { framingFor as sourceFramingFor } from '../../src/formats/stream.ts';
import type { FormatId } from '../../src/core/ir.ts';
import type { SseMessage, StreamEvent, WireEvent } from '../../src/core/stream-events.ts';
import { bridgeProvider, type OtherResult } from './conversions.ts';
import { differences, responseFacts, type Facts } from './meaning.ts';
import { measureRounds, pairedRatio, type RoundTiming, type Timing } from './timing.ts';
import { BENCH_MODEL, streamingFormats, type StreamWorkload } from './workloads.ts';

/** One stream cell. */
export interface StreamCell {
  from: FormatId;
  to: FormatId;
  /** Events in the source (SSE messages, NDJSON lines or event-stream frames). */
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
  /** The same per second of the process's CPU time (best round). */
  perEventCpuEventsPerSecond: number;
  /** Codecs alone, synchronously. */
  codecs: Timing;
  /** Source events per second through the full pipeline (best round: the closest to one uncontended core). */
  eventsPerSecond: number;
  /**
   * The same per second of the process's CPU time (user + system of every
   * thread, best round): higher than wall time where the garbage
   * collector's threads work beside the main one.
   */
  cpuEventsPerSecond: number;
  /** Source events per second through the codecs alone (best round). */
  codecEventsPerSecond: number;
  ratio: number;
  losses: number;
  differences: string[];
  others: (OtherResult & { eventsPerSecond?: number })[];
}

/** Bytes cut into chunks of `size`, as a network read would deliver them. */
export function chunksOf(bytes: Uint8Array | string, size = 16 * 1024): Uint8Array[] {
  const all = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < all.length; offset += size) chunks.push(all.subarray(offset, offset + size));
  return chunks;
}

/** A stream's bytes in `format`'s own framing (SSE, NDJSON, AWS event stream), one chunk per event, as a live upstream sends them. */
export function eventChunksOf(format: FormatId, messages: readonly SseMessage[]): Uint8Array[] {
  const framing = framingFor(format);
  return messages.map((message) => framing.write([message]));
}

/** A stream's bytes in `format`'s own framing. */
export function framedBytes(format: FormatId, messages: readonly SseMessage[]): Uint8Array {
  return framingFor(format).write(messages);
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

/** Read a byte stream to its end, keeping the chunks (joined outside the timed code by {@link joined}). */
async function drain(readable: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

function joined(chunks: readonly Uint8Array[]): Buffer {
  return Buffer.concat(chunks);
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

function wireEvent(message: SseMessage): WireEvent {
  const wire: WireEvent = { data: message.data === DONE ? DONE : JSON.parse(message.data) };
  if (message.event !== undefined) wire.event = message.event;
  return wire;
}

/**
 * Transcode a stream's messages with the codecs alone (each data parsed, decoded,
 * encoded, the output written once in the target's framing).
 */
export function transcodeMessages(messages: readonly SseMessage[], from: FormatId, to: FormatId): { bytes: Uint8Array; messages: SseMessage[]; losses: number; events: StreamEvent[] } {
  const losses = new LossCollector();
  const context = { losses, model: BENCH_MODEL };
  const decoder = codecFor(from).createStreamDecoder!({ ...context, target: to });
  const encoder = codecFor(to).createStreamEncoder!(context);
  const irEvents: StreamEvent[] = [];
  const out: SseMessage[] = [];
  const put = (events: StreamEvent[]) => {
    for (const event of events) {
      irEvents.push(event);
      for (const message of encoder.encode(event)) out.push(message);
    }
  };
  for (const message of messages) put(decoder.decode(wireEvent(message)));
  put(decoder.flush());
  for (const message of encoder.flush()) out.push(message);
  return { bytes: framingFor(to).write(out), messages: out, losses: losses.losses.length, events: irEvents };
}

/** The meaning of a stream of `format` (bytes in its framing, or SSE text), accumulated by interlingua's decoder; a string when it does not decode. */
export function streamFacts(format: FormatId, stream: Uint8Array | string): Facts | string {
  try {
    const losses = new SourceLossCollector();
    const decoder = sourceCodecFor(format).createStreamDecoder!({ losses, model: BENCH_MODEL });
    const reader = sourceFramingFor(format).createReader();
    const bytes = typeof stream === 'string' ? new TextEncoder().encode(stream) : stream;
    const events: StreamEvent[] = [];
    for (const wire of [...reader.push(bytes), ...reader.end()]) {
      if (wire.invalid !== undefined) return `output does not decode as a ${format} stream: ${wire.invalid.slice(0, 160)}`;
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

/** Run every pair's `convertStream` pipeline `times` times, in 16 KiB chunks and one event per chunk, unmeasured. */
export async function warmStreams(workload: StreamWorkload, times: number): Promise<void> {
  const formats = streamingFormats();
  for (let time = 0; time < times; time++) {
    for (const from of formats) {
      const messages = workload.messages[from];
      if (messages === undefined) continue;
      const chunks = chunksOf(framedBytes(from, messages));
      const eventChunks = eventChunksOf(from, messages);
      for (const to of formats) {
        await drain(convertStream(readableOf(chunks), { from, to, model: BENCH_MODEL }));
        await drain(convertStream(readableOf(eventChunks), { from, to, model: BENCH_MODEL }));
      }
    }
  }
}

/** Run every stream cell. */
export async function runStreams(workload: StreamWorkload, options: StreamOptions): Promise<StreamCell[]> {
  const formats = streamingFormats();
  const cells: StreamCell[] = [];
  for (const from of formats) {
    const messages = workload.messages[from];
    if (messages === undefined) continue;
    const events = workload.events[from] ?? 0;
    const source = framedBytes(from, messages);
    const chunks = chunksOf(source);
    const eventChunks = eventChunksOf(from, messages);
    const datas = messages.map((message) => message.data);
    const floorFn = () => {
      let length = 0;
      for (const data of datas) length += data === DONE ? 0 : JSON.stringify(JSON.parse(data)).length;
      return length;
    };
    const expected = streamFacts(from, source);
    for (const to of formats) {
      const once = transcodeMessages(messages, from, to);
      const actual = streamFacts(to, once.bytes);
      const pipelineFn = () => drain(convertStream(readableOf(chunks), { from, to, model: BENCH_MODEL }));
      const piped = joined(await pipelineFn());
      const differs: string[] = typeof expected === 'string' ? [`source: ${expected}`] : typeof actual === 'string' ? [actual] : differences(expected, actual);
      if (!piped.equals(once.bytes)) differs.push('convertStream output differs from the codecs run alone');
      const perEventFn = () => drain(convertStream(readableOf(eventChunks), { from, to, model: BENCH_MODEL }));
      if (!joined(await perEventFn()).equals(piped)) differs.push('convertStream output depends on chunking');
      const fns: (() => unknown)[] = [floorFn, () => transcodeMessages(messages, from, to).bytes, pipelineFn, perEventFn];
      const bridgeFn = async () => new TextDecoder().decode(joined(await drain(handleUniversalStreamRequest(readableOf(chunks), bridgeProvider(from), bridgeProvider(to)))));
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
        sourceBytes: source.byteLength,
        outputBytes: once.bytes.byteLength,
        floor,
        pipeline,
        pipelinePerEvent,
        perEventEventsPerSecond: events / (pipelinePerEvent.min / 1e9),
        perEventCpuEventsPerSecond: events / (pipelinePerEvent.cpuMin / 1e9),
        codecs,
        eventsPerSecond: events / (pipeline.min / 1e9),
        cpuEventsPerSecond: events / (pipeline.cpuMin / 1e9),
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

/**
 * {@link runStreams} over `streamWorkload(events)` in a child process
 * (scripts/bench/streams-child.ts), so that the figures are not those of a
 * heap that holds the benchmark's other workloads (as a user's process
 * converting a stream does not). Its progress lines go to this process's
 * stderr.
 */
export function runStreamsApart(root: string, events: number, budgetMs: number): Promise<StreamCell[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/bench/streams-child.ts'), String(events), String(budgetMs)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the stream benchmark's child exited with ${code}`));
      else resolve(JSON.parse(out) as StreamCell[]);
    });
  });
}
