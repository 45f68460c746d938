/**
 * Stream inputs: the corpus's streams as seeds, re-chunked, truncated and
 * sprinkled with garbage lines; and an SSE reader for what comes out.
 */
import { readFileSync, statSync } from 'node:fs';
import type { FormatId } from '../../../src/core/ir.ts';
import type { SseMessage, WireEvent } from '../../../src/core/stream-events.ts';
import { streamFixtures, wireEvents, type StreamFixture } from '../streams.ts';
import { type Rng, pick, int } from './random.ts';
import { type Mutation, jsonCopy, jsonText, type MutateOptions, mutate, randomKinds } from './mutations.ts';

/** A recorded stream as SSE bytes, whatever its framing on disk. */
export interface StreamSeed {
  format: FormatId;
  name: string;
  events: WireEvent[];
  bytes: Uint8Array;
}

/** SSE text of one wire event. */
function wireEventText(event: WireEvent): string {
  const data = typeof event.data === 'string' ? event.data : jsonText(event.data);
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}

/** SSE text of wire events. */
export function wireEventsAsBytes(events: readonly WireEvent[]): Uint8Array {
  return new TextEncoder().encode(events.map(wireEventText).join(''));
}

/** Each seed's events as SSE text blocks, made once: a garbled stream rewrites only the events it mutates. */
const SEED_BLOCKS = new WeakMap<StreamSeed, readonly string[]>();

function seedBlocks(seed: StreamSeed): readonly string[] {
  let blocks = SEED_BLOCKS.get(seed);
  if (blocks === undefined) {
    blocks = seed.events.map(wireEventText);
    SEED_BLOCKS.set(seed, blocks);
  }
  return blocks;
}

/** Every recorded stream of the given formats, at most `maxBytes` each. */
export async function loadStreamSeeds(formats: readonly FormatId[], maxBytes = 128 * 1024): Promise<StreamSeed[]> {
  const wanted = new Set(formats);
  const seeds: StreamSeed[] = [];
  const fixtures: StreamFixture[] = streamFixtures();
  for (const fixture of fixtures) {
    if (!wanted.has(fixture.format) || statSync(fixture.file).size > maxBytes) continue;
    try {
      const events = await wireEvents(fixture);
      const bytes = fixture.framing === 'sse' ? new Uint8Array(readFileSync(fixture.file)) : wireEventsAsBytes(events);
      seeds.push({ format: fixture.format, name: fixture.name, events, bytes });
    } catch {
      // A fixture that is not readable as events is the stream tests' business.
    }
  }
  return seeds;
}

/** Lines that are not what a stream decoder expects. */
export const GARBAGE_LINES: readonly string[] = [
  'data: {not json',
  'data: ',
  'data: null',
  'data: 42',
  'data: "text"',
  'data: []',
  'data: {}',
  'data: {"type":"message_stop"}',
  'data: {"type":"content_block_delta","index":99,"delta":{"type":"text_delta","text":"x"}}',
  'data: {"type":"response.output_text.delta","output_index":99,"content_index":0,"delta":"x"}',
  'data: {"choices":[{"index":7,"delta":{"tool_calls":[{"index":3,"function":{"arguments":"{"}}]}}]}',
  'data: {"candidates":[{"index":-1,"content":{"parts":[{"functionCall":{}}]}}]}',
  'data: {"error":{"message":"boom","type":"server_error"}}',
  'data: [DONE]',
  'event: error',
  'event: ping',
  'event: \uD800',
  ': keep-alive comment',
  'retry: 10',
  'id: 7',
  'data:\uD800',
  'data: \u0000',
  '\uFEFF',
  'garbage without a colon',
];

/** Options of {@link garbleStream}. */
export interface GarbleOptions {
  /** Cut the bytes at random points (the decoded events must not change). */
  rechunk: boolean;
  /** Stop after a random prefix. */
  truncate: boolean;
  /** Insert this many garbage lines at event boundaries. */
  garbage: number;
  /** Mutate this many event payloads (JSON mutations). */
  mutations: number;
}

/** A stream seed's bytes, transformed as `options` say; `cuts` are where to split the bytes into chunks. */
export function garbleStream(seed: StreamSeed, rng: Rng, options: GarbleOptions, mutateOptions: MutateOptions): { bytes: Uint8Array; cuts: number[]; notes: string[] } {
  const notes: string[] = [];
  let bytes = seed.bytes;
  if (options.mutations > 0 || options.garbage > 0) {
    // Copy on write: only the events a mutation touches are copied and written out again.
    const events: WireEvent[] = seed.events.slice();
    const blocks = seedBlocks(seed).slice();
    const copied = new Set<number>();
    for (let index = 0; index < options.mutations && events.length > 0; index++) {
      const at = int(rng, 0, events.length - 1);
      if (!copied.has(at)) {
        const original = events[at] as WireEvent;
        events[at] = { ...original, data: typeof original.data === 'string' ? original.data : jsonCopy(original.data) };
        copied.add(at);
      }
      const event = events[at] as WireEvent;
      const kind = (randomKinds(rng, 1)[0] as Mutation);
      const result = mutate(event.data, kind, rng, mutateOptions);
      event.data = result.value;
      notes.push(`event ${at}: ${result.note}`);
    }
    for (const at of copied) blocks[at] = wireEventText(events[at] as WireEvent);
    for (let index = 0; index < options.garbage; index++) {
      const at = int(rng, 0, blocks.length);
      const line = pick(rng, GARBAGE_LINES);
      blocks.splice(at, 0, `${line}\n${rng() < 0.7 ? '\n' : ''}`);
      notes.push(`garbage before event ${at}: ${JSON.stringify(line)}`);
    }
    bytes = new TextEncoder().encode(blocks.join(''));
  }
  if (options.truncate && bytes.length > 0) {
    const end = int(rng, 0, bytes.length - 1);
    bytes = bytes.subarray(0, end);
    notes.push(`truncated at byte ${end}`);
  }
  const cuts: number[] = [];
  if (options.rechunk) {
    const count = int(rng, 1, 24);
    for (let index = 0; index < count; index++) cuts.push(int(rng, 1, Math.max(1, bytes.length - 1)));
    notes.push(`${count} cuts`);
  }
  return { bytes, cuts, notes };
}

/** Parse SSE text into messages (for checking what a converted stream says). Tolerant: it is the checker, not the thing checked. */
export function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) messages.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') });
  }
  return messages;
}
