/**
 * Stream fixtures and the plumbing tests need around them: read a corpus or
 * golden stream as wire events, run a format's stream decoder and encoder,
 * and feed bytes in arbitrary chunks.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FORMAT_IDS, type FormatId } from '../../src/core/ir.ts';
import { LossCollector, type Loss } from '../../src/core/losses.ts';
import { codecFor, implementedFormats } from '../../src/formats/registry.ts';
import { convertStream, framedToWireEvents, framingFor, sseToWireEvents } from '../../src/formats/stream.ts';
import type { SseMessage, StreamEvent, WireEvent } from '../../src/core/stream-events.ts';
import { CORPUS_DIR, GOLDEN_DIR, corpusDirectory } from './fixtures.ts';

/**
 * One recorded stream: raw bytes in the format's own framing (`.sse`,
 * Ollama's `.ndjson`, Bedrock's binary `.eventstream`), or `.jsonl` (one
 * event per line, no framing: the payload alone, or Bedrock's
 * `{"event", "payload"}`).
 */
export interface StreamFixture {
  format: FormatId;
  name: string;
  file: string;
  framing: 'sse' | 'jsonl' | 'ndjson' | 'eventstream';
}

/** True when the fixture file holds the stream's raw bytes in its format's own framing. */
export function rawFraming(fixture: StreamFixture): boolean {
  return fixture.framing === 'sse' || fixture.framing === 'ndjson' || fixture.framing === 'eventstream';
}

/** Formats whose codec can decode and encode streams. */
export function streamingFormats(): FormatId[] {
  return implementedFormats().filter((format) => {
    const codec = codecFor(format);
    return codec.createStreamDecoder !== undefined && codec.createStreamEncoder !== undefined;
  });
}

function list(directory: string): string[] {
  return existsSync(directory) ? readdirSync(directory).sort() : [];
}

/** Every corpus stream, and every golden `golden/<format>/<case>/stream.sse`. */
export function streamFixtures(): StreamFixture[] {
  const fixtures: StreamFixture[] = [];
  for (const format of FORMAT_IDS) {
    for (const caseName of list(join(GOLDEN_DIR, format))) {
      for (const framing of ['sse', 'ndjson'] as const) {
        const file = join(GOLDEN_DIR, format, caseName, `stream.${framing}`);
        if (existsSync(file)) fixtures.push({ format, name: `golden/${format}/${caseName}/stream.${framing}`, file, framing });
      }
    }
    const directory = join(CORPUS_DIR, format, 'stream');
    for (const file of corpusDirectory(format, 'stream')) {
      const framing = file.endsWith('.sse') ? 'sse' : file.endsWith('.ndjson') ? 'ndjson' : file.endsWith('.jsonl') ? 'jsonl' : file.endsWith('.eventstream') ? 'eventstream' : undefined;
      if (framing !== undefined) fixtures.push({ format, name: `corpus/${format}/stream/${file}`, file: join(directory, file), framing });
    }
  }
  return fixtures;
}

/** Streams whose same-format round trip a codec cannot reproduce, with the reason, from `golden/<format>/stream-exceptions.json`. */
export function streamExceptions(format: FormatId): Record<string, string> {
  const file = join(GOLDEN_DIR, format, 'stream-exceptions.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
}

/** Collect every chunk of a readable stream. */
export async function collect<T>(readable: ReadableStream<T>): Promise<T[]> {
  const items: T[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return items;
    items.push(value);
  }
}

/** A readable of `bytes` cut at the given boundaries. */
export function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [0, ...cuts.filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b), bytes.length];
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index >= points.length - 1) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(points[index], points[index + 1]));
      index++;
    },
  });
}

/** `bytes`, as one chunk, through `convertStream`: the output bytes, their wire events (in `to`'s framing, data parsed) and the losses. */
export async function convertedStream(bytes: Uint8Array, from: FormatId, to: FormatId, model: string): Promise<{ bytes: Uint8Array; events: WireEvent[]; losses: Loss[] }> {
  const out = convertStream(chunked(bytes, []), { from, to, model });
  const converted = new Uint8Array(Buffer.concat(await collect(out)));
  return { bytes: converted, events: await wireEventsFromBytes(converted, [], to), losses: await out.losses };
}

/** A deterministic pseudo-random generator (mulberry32), so random chunking is reproducible. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Parse SSE bytes (or `format`'s own framing, such as Ollama's NDJSON), cut at `cuts`, into wire events with the real stream stage. */
export async function wireEventsFromBytes(bytes: Uint8Array, cuts: number[] = [], format?: FormatId): Promise<WireEvent[]> {
  return collect(chunked(bytes, cuts).pipeThrough(format === undefined ? sseToWireEvents() : framedToWireEvents(framingFor(format))));
}

/** One JSONL line as a wire event: Bedrock's `{"event", "payload"}` keeps its event name; other lines are the data. */
function jsonlEvent(line: string): WireEvent {
  const value = JSON.parse(line) as unknown;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 2 && 'event' in value && 'payload' in value) {
    const { event, payload } = value as { event: unknown; payload: unknown };
    if (typeof event === 'string') return { event, data: payload };
  }
  return { data: value };
}

/** The wire events of a fixture: bytes parsed in their framing, or JSONL lines. */
export async function wireEvents(fixture: StreamFixture): Promise<WireEvent[]> {
  const bytes = readFileSync(fixture.file);
  if (fixture.framing === 'sse') return wireEventsFromBytes(new Uint8Array(bytes));
  if (fixture.framing === 'ndjson' || fixture.framing === 'eventstream') return wireEventsFromBytes(new Uint8Array(bytes), [], fixture.format);
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(jsonlEvent);
}

/** Run a format's stream decoder over wire events. */
export function decodeEvents(format: FormatId, events: WireEvent[], model?: string): { events: StreamEvent[]; losses: LossCollector } {
  const losses = new LossCollector();
  const decoder = codecFor(format).createStreamDecoder!(model === undefined ? { losses } : { losses, model });
  const out: StreamEvent[] = [];
  for (const event of events) out.push(...decoder.decode(event));
  out.push(...decoder.flush());
  return { events: out, losses };
}

/** Run a format's stream encoder over IR events. */
export function encodeEvents(format: FormatId, events: StreamEvent[], model?: string): { messages: SseMessage[]; losses: LossCollector } {
  const losses = new LossCollector();
  const encoder = codecFor(format).createStreamEncoder!(model === undefined ? { losses } : { losses, model });
  const out: SseMessage[] = [];
  for (const event of events) out.push(...encoder.encode(event));
  out.push(...encoder.flush());
  return { messages: out, losses };
}

/** SSE messages as wire events (data parsed), for comparing with a source. */
export function messagesAsWireEvents(messages: SseMessage[]): WireEvent[] {
  return messages.map((message) => {
    const data: unknown = message.data === '[DONE]' ? '[DONE]' : JSON.parse(message.data);
    return message.event === undefined ? { data } : { event: message.event, data };
  });
}

/** SSE messages (or, with `format`, that format's framing) as the bytes an encoder stage writes. */
export function messagesAsBytes(messages: SseMessage[], format?: FormatId): Uint8Array {
  if (format !== undefined) return framingFor(format).write(messages);
  const text = messages.map((message) => `${message.event === undefined ? '' : `event: ${message.event}\n`}data: ${message.data}\n\n`).join('');
  return new TextEncoder().encode(text);
}

/** Drop `extensions` and `usage.raw` recursively: what is left is the neutral meaning two formats can agree on. */
export function neutral(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(neutral);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'extensions') continue;
    if (key === 'raw' && typeof item === 'object' && item !== null && 'format' in item && 'value' in item) continue;
    out[key] = neutral(item);
  }
  return out;
}
