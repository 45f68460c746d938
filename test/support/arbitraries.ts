/**
 * Generators and oracles for the reliability tests (test/codecs/property.test.ts,
 * test/proxy/faults.test.ts) and scripts (scripts/fuzz.ts, scripts/soak.ts):
 *
 * - outcome classification: a call either converts, raises an
 *   `InterlinguaError` with a JSON pointer, or does "anything else" (a bug);
 * - mutations of real payloads (fields dropped, wrong types, values swapped,
 *   deep nesting, lone surrogates, huge strings) driven by a seeded PRNG, so
 *   one seed reproduces one input;
 * - random wire bodies built from the corpus's own key and value vocabulary;
 * - SSE byte streams re-chunked, truncated and sprinkled with garbage lines;
 * - random IR conversations limited to what each format can carry, and the
 *   normalised view under which a same-format trip must be the identity.
 * (The fault-injecting fake upstream is in fault-upstream.ts.)
 *
 * Everything random here takes a `Rng` (a `() => number` in [0, 1)), so the
 * test run (fast-check seeds) and the fuzz script (a plain counter) share it.
 */
import fc from 'fast-check';
import { readFileSync, statSync } from 'node:fs';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type {
  Base64Source,
  CacheBreakpoint,
  Candidate,
  FormatId,
  Generation,
  MediaSource,
  Message,
  Part,
  ReasoningState,
  Request as IrRequest,
  Response as IrResponse,
  StopReason,
  Tool,
  ToolCallPart,
  UnifiedStopReason,
} from '../../src/core/ir.ts';
import type { SseMessage, WireEvent } from '../../src/core/stream-events.ts';
import { corpusFixtures, fixtureBody, goldenFixtures, type Fixture, type FixtureKind } from './fixtures.ts';
import { random, streamFixtures, wireEvents, type StreamFixture } from './streams.ts';

// ---------------------------------------------------------------------------
// Outcomes

/** How one call ended: a value, a typed error, or anything else (a bug). */
export type Outcome = 'converted' | 'typed' | 'other';

/** Is `text` a syntactically valid JSON pointer (RFC 6901)? */
export function isJsonPointer(text: unknown): boolean {
  return typeof text === 'string' && (text === '' || (text.startsWith('/') && !/~[^01]|~$/.test(text)));
}

/** An `InterlinguaError` whose `path` is a JSON pointer: the only acceptable failure. */
export function isTypedError(error: unknown): boolean {
  return isInterlinguaError(error) && isJsonPointer(error.path);
}

/** Run `call`; a returned value must also serialise (the proxy and the CLI stringify every body). */
export function classify(call: () => unknown): { outcome: Outcome; error?: unknown } {
  try {
    const value = call();
    JSON.stringify(value);
    return { outcome: 'converted' };
  } catch (error) {
    return isTypedError(error) ? { outcome: 'typed', error } : { outcome: 'other', error };
  }
}

/** The value a JSON pointer names inside `root`, or `undefined`. */
export function resolvePointer(root: unknown, path: string): unknown {
  if (path === '') return root;
  let node: unknown = root;
  for (const raw of path.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Does the pointer name a value in `root`, or a key missing from an object that is there (a `missing_field`)? */
export function pointerLandsIn(root: unknown, path: string): boolean {
  if (resolvePointer(root, path) !== undefined) return true;
  const parent = path.slice(0, Math.max(0, path.lastIndexOf('/')));
  const node = resolvePointer(root, parent);
  return typeof node === 'object' && node !== null;
}

/** A short, single-line description of an unexpected error, for reports. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const frame = (error.stack ?? '').split('\n').find((line) => line.includes('/src/')) ?? '';
    return `${error.name}: ${error.message.slice(0, 200)} ${frame.trim()}`;
  }
  return `non-Error thrown: ${String(error).slice(0, 200)}`;
}

// ---------------------------------------------------------------------------
// Random helpers

/** A random source in [0, 1). */
export type Rng = () => number;

/** A seeded PRNG (mulberry32, shared with the stream tests). */
export const seeded = (seed: number): Rng => random(seed);

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)] as T;
}

export function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

/** Strings that break naive text handling: empty, NUL, BOM, RTL, combining marks, astral, lone surrogates. */
export const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  '\uFEFFbom',
  'line\r\nbreak\n',
  'data: [DONE]\n\n',
  'event: error\ndata: {}\n\n',
  '\u202Eright-to-left\u202C',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  '\uD83D\uDE00',
  '\uD800',
  '\uDFFF',
  'lone \uDC00 low',
  'pair then lone \uD83D\uDE00\uD83D',
  '\u2028\u2029',
  '"}]\\',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '$ref',
  '#/$defs/x',
  '%PDF-1.7',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:;base64,',
  'https://example.com/a.png?x=1#y',
  'gs://bucket/file.pdf',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '[]',
  '{}',
  '{"a":',
  'iVBORw0KGgo=',
  '////',
  '=',
];

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** JSON values of every type, including numbers at the edges (frozen: use copies). */
export const EDGE_VALUES: readonly unknown[] = deepFreeze([
  null,
  true,
  false,
  0,
  -0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  4096,
  '',
  'x',
  '\uD800',
  [],
  [null],
  [''],
  [[]],
  {},
  { type: 'text' },
  { type: 'text', text: '' },
  { type: null },
  { '': '' },
  100_000_000,
  4_294_967_294,
]);

/** A string with lone surrogates, built from `text`. */
export function withLoneSurrogates(rng: Rng, text: string): string {
  const at = int(rng, 0, text.length);
  return `${text.slice(0, at)}${pick(rng, ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D'])}${text.slice(at)}`;
}

/** `depth` levels of arrays or objects around `inner`, built without recursion. */
export function deeplyNested(depth: number, kind: 'array' | 'object' | 'mixed', inner: unknown = 1): unknown {
  let value: unknown = inner;
  for (let level = 0; level < depth; level++) {
    const asArray = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    // One reference per level: a shared subtree would make the JSON text exponentially long.
    value = asArray ? [value] : { type: 'object', properties: { a: value } };
  }
  return value;
}

// ---------------------------------------------------------------------------
// Payloads: the corpus and golden bodies, and the vocabulary they use

/** One real body to mutate: its format and kind, and its JSON text (parsed afresh for every input). */
export interface Seed {
  format: FormatId;
  kind: FixtureKind;
  name: string;
  text: string;
}

/** Every golden and corpus body of the given formats, smallest first, at most `maxBytes` each. */
export function loadSeeds(formats: readonly FormatId[], maxBytes = 256 * 1024): Seed[] {
  const wanted = new Set(formats);
  const seeds: Seed[] = [];
  const all: Fixture[] = [...goldenFixtures(), ...corpusFixtures()];
  for (const fixture of all) {
    if (!wanted.has(fixture.format)) continue;
    if (statSync(fixture.file).size > maxBytes) continue;
    seeds.push({ format: fixture.format, kind: fixture.kind, name: fixture.name, text: JSON.stringify(fixtureBody(fixture).body) });
  }
  return seeds.sort((a, b) => a.text.length - b.text.length);
}

/** Keys and short string values seen in real bodies: what random bodies and mutations are made of. */
export interface Vocabulary {
  keys: string[];
  /** Short strings seen under each key (`type`, `role`, `finish_reason`, …). */
  values: Map<string, string[]>;
  strings: string[];
}

/** Collect the vocabulary of `seeds` (walks iteratively). */
export function vocabularyOf(seeds: readonly Seed[]): Vocabulary {
  const keys = new Set<string>();
  const values = new Map<string, Set<string>>();
  const strings = new Set<string>();
  for (const seed of seeds) {
    const stack: unknown[] = [JSON.parse(seed.text)];
    while (stack.length > 0) {
      const node = stack.pop();
      if (Array.isArray(node)) {
        stack.push(...node);
      } else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          keys.add(key);
          if (typeof value === 'string' && value.length <= 40) {
            strings.add(value);
            let set = values.get(key);
            if (set === undefined) values.set(key, (set = new Set()));
            if (set.size < 64) set.add(value);
          }
          stack.push(value);
        }
      }
    }
  }
  return {
    keys: [...keys].sort(),
    values: new Map([...values].map(([key, set]) => [key, [...set].sort()])),
    strings: [...strings].sort().slice(0, 4000),
  };
}

// ---------------------------------------------------------------------------
// Mutations

/** The kinds of mutation applied to a real payload. */
export const MUTATIONS = [
  'drop',
  'retype',
  'swap',
  'copy',
  'add_key',
  'enum_swap',
  'edge_string',
  'lone_surrogate',
  'deep_nest',
  'huge_string',
  'empty_container',
  'json_text',
  'null_slot',
  'insert_entry',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** The mutations of one crash class: `null` or a value of the wrong type in any array slot or object field, or inserted into any array. */
export const SLOT_MUTATIONS = ['null_slot', 'retype', 'insert_entry'] as const satisfies readonly Mutation[];

/** Every array in `root` (breadth-first, at most `limit`). */
function arraysOf(root: unknown, limit = 20_000): unknown[][] {
  const arrays: unknown[][] = [];
  const queue: unknown[] = [root];
  for (let head = 0; head < queue.length && arrays.length < limit; head++) {
    const node = queue[head];
    if (Array.isArray(node)) {
      arrays.push(node);
      queue.push(...node);
    } else if (typeof node === 'object' && node !== null) {
      queue.push(...Object.values(node));
    }
  }
  return arrays;
}

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  path: string;
}

function slotsOf(root: unknown, limit = 20_000): Slot[] {
  const slots: Slot[] = [];
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0 && slots.length < limit) {
    const [node, path] = stack.pop() as [unknown, string];
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        slots.push({ parent: node, key: index, path: `${path}/${index}` });
        stack.push([node[index], `${path}/${index}`]);
      }
    } else if (typeof node === 'object' && node !== null) {
      for (const key of Object.keys(node)) {
        const record = node as Record<string, unknown>;
        slots.push({ parent: record, key, path: `${path}/${key}` });
        stack.push([record[key], `${path}/${key}`]);
      }
    }
  }
  return slots;
}

/** A deep copy through JSON; values too deep to serialise are replaced by an edge value. */
function jsonCopy(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null');
  } catch {
    return null;
  }
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[[[';
  }
}

function get(slot: Slot): unknown {
  return (slot.parent as Record<string | number, unknown>)[slot.key];
}

function set(slot: Slot, value: unknown): void {
  (slot.parent as Record<string | number, unknown>)[slot.key] = value;
}

/** Options of {@link mutate}. */
export interface MutateOptions {
  vocabulary: Vocabulary;
  /** Length of `huge_string` values (1 MB in the test run, up to 50 MB in the fuzz script). */
  hugeLength: number;
  /** Levels of `deep_nest` (10,000). */
  nestDepth: number;
}

/**
 * Apply one mutation of `kind` to `root` in place (the root itself can be
 * replaced: the result is returned). Returns a description for reports.
 */
export function mutate(root: unknown, kind: Mutation, rng: Rng, options: MutateOptions): { value: unknown; note: string } {
  const slots = slotsOf(root);
  if (slots.length === 0) {
    return { value: structuredClone(pick(rng, EDGE_VALUES)), note: `${kind}: root replaced` };
  }
  const slot = pick(rng, slots);
  const current = get(slot);
  const note = `${kind} at ${slot.path.length > 120 ? `${slot.path.slice(0, 60)}…${slot.path.slice(-40)}` : slot.path}`;
  switch (kind) {
    case 'drop':
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key as string];
      break;
    case 'retype': {
      const candidates = EDGE_VALUES.filter((value) => typeof value !== typeof current || Array.isArray(value) !== Array.isArray(current));
      set(slot, structuredClone(pick(rng, candidates)));
      break;
    }
    case 'swap': {
      const other = pick(rng, slots);
      // Swapping a node with one of its ancestors would make a cycle: copy instead.
      if (other.path.startsWith(`${slot.path}/`) || slot.path.startsWith(`${other.path}/`)) set(slot, jsonCopy(get(other)));
      else {
        const value = get(other);
        set(other, current);
        set(slot, value);
      }
      break;
    }
    case 'copy': {
      const other = pick(rng, slots);
      set(slot, jsonCopy(get(other)));
      break;
    }
    case 'add_key': {
      const target = typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
      const key = rng() < 0.1 ? pick(rng, ['__proto__', 'constructor', 'toString', '$ref', '']) : pick(rng, options.vocabulary.keys);
      const value = rng() < 0.5 ? pick(rng, EDGE_VALUES) : pick(rng, options.vocabulary.strings);
      // JSON.parse makes an own "__proto__" key, as a wire body would.
      const entry = JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Record<string, unknown>;
      if (target !== undefined) Object.assign(target, entry);
      else if (!Array.isArray(slot.parent)) Object.defineProperty(slot.parent, key, { value: structuredClone(value), enumerable: true, writable: true, configurable: true });
      break;
    }
    case 'enum_swap': {
      const known = typeof slot.key === 'string' ? options.vocabulary.values.get(slot.key) : undefined;
      set(slot, known !== undefined && rng() < 0.8 ? pick(rng, known) : pick(rng, options.vocabulary.strings));
      break;
    }
    case 'edge_string':
      set(slot, pick(rng, EDGE_STRINGS));
      break;
    case 'lone_surrogate':
      set(slot, withLoneSurrogates(rng, typeof current === 'string' ? current : pick(rng, options.vocabulary.strings)));
      break;
    case 'deep_nest':
      set(slot, deeplyNested(options.nestDepth, pick(rng, ['array', 'object', 'mixed'] as const), current));
      break;
    case 'huge_string':
      set(slot, typeof current === 'string' && current.length > 0 && rng() < 0.5 ? current.repeat(Math.ceil(options.hugeLength / current.length)).slice(0, options.hugeLength) : 'x'.repeat(options.hugeLength));
      break;
    case 'empty_container':
      set(slot, Array.isArray(current) ? [] : typeof current === 'object' && current !== null ? {} : rng() < 0.5 ? [] : {});
      break;
    case 'json_text':
      // A value replaced by its own JSON text (arguments, schemas and tool outputs travel both ways).
      set(slot, jsonText(current));
      break;
    case 'null_slot':
      set(slot, null);
      break;
    case 'insert_entry': {
      // A null (or a value of another type) as a new entry of some array: `tools: [null, …]`.
      const arrays = arraysOf(root);
      const target = arrays.length > 0 ? pick(rng, arrays) : undefined;
      const value = rng() < 0.5 ? null : structuredClone(pick(rng, EDGE_VALUES));
      if (target !== undefined) {
        const at = int(rng, 0, target.length);
        target.splice(at, 0, value);
        return { value: root, note: `insert_entry ${JSON.stringify(value)} into an array of ${target.length - 1}, at ${at}` };
      }
      set(slot, [value]);
      break;
    }
  }
  return { value: root, note };
}

/** A sequence of mutations: what one fuzz input is, beside its seed body. */
export interface MutationPlan {
  seed: number;
  kinds: Mutation[];
}

/** Apply a plan to a fresh copy of `text`. */
export function applyPlan(text: string, plan: MutationPlan, options: MutateOptions): { body: unknown; notes: string[] } {
  const rng = seeded(plan.seed);
  let body: unknown = JSON.parse(text);
  const notes: string[] = [];
  for (const kind of plan.kinds) {
    const result = mutate(body, kind, rng, options);
    body = result.value;
    notes.push(result.note);
  }
  return { body, notes };
}

/** Mutation kinds weighted for the cheap, high-yield ones; the costly ones are rare. */
export function randomKinds(rng: Rng, count: number): Mutation[] {
  const kinds: Mutation[] = [];
  for (let index = 0; index < count; index++) {
    const roll = rng();
    if (roll < 0.01) kinds.push('huge_string');
    else if (roll < 0.02) kinds.push('deep_nest');
    else kinds.push(pick(rng, MUTATIONS.filter((kind) => kind !== 'huge_string' && kind !== 'deep_nest')));
  }
  return kinds;
}

/** fast-check arbitrary of plans of {@link SLOT_MUTATIONS} only. */
export function slotMutationPlanArbitrary(): fc.Arbitrary<MutationPlan> {
  return fc.record({
    seed: fc.integer({ min: 0, max: 0x7fffffff }),
    kinds: fc.array(fc.constantFrom(...SLOT_MUTATIONS), { minLength: 1, maxLength: 3 }),
  });
}

/** Apply `kinds` to a value in place (an IR tree, say), from `seed`; returns the (maybe replaced) root. */
export function mutateValue(root: unknown, seed: number, kinds: readonly Mutation[], options: MutateOptions): { value: unknown; notes: string[] } {
  const rng = seeded(seed);
  let value = root;
  const notes: string[] = [];
  for (const kind of kinds) {
    const result = mutate(value, kind, rng, options);
    value = result.value;
    notes.push(result.note);
  }
  return { value, notes };
}

/** fast-check arbitrary of mutation plans (shrinks towards fewer mutations). */
export function mutationPlanArbitrary(): fc.Arbitrary<MutationPlan> {
  return fc.record({
    seed: fc.integer({ min: 0, max: 0x7fffffff }),
    kinds: fc.array(fc.constantFrom(...MUTATIONS.filter((kind) => kind !== 'huge_string' && kind !== 'deep_nest')), { minLength: 1, maxLength: 4 }),
  });
}

// ---------------------------------------------------------------------------
// Random wire bodies

/** A random JSON value made of the vocabulary's keys and strings (and edge values), at most `depth` deep. */
export function randomWireValue(rng: Rng, vocabulary: Vocabulary, depth: number): unknown {
  const roll = rng();
  if (depth <= 0 || roll < 0.3) {
    const leaf = rng();
    if (leaf < 0.4) return pick(rng, vocabulary.strings);
    if (leaf < 0.6) return pick(rng, EDGE_STRINGS);
    return structuredClone(pick(rng, EDGE_VALUES));
  }
  if (roll < 0.5) return Array.from({ length: int(rng, 0, 3) }, () => randomWireValue(rng, vocabulary, depth - 1));
  const object: Record<string, unknown> = {};
  const count = int(rng, 0, 5);
  for (let index = 0; index < count; index++) {
    const key = pick(rng, vocabulary.keys);
    const known = vocabulary.values.get(key);
    object[key] = known !== undefined && rng() < 0.5 ? pick(rng, known) : randomWireValue(rng, vocabulary, depth - 1);
  }
  return object;
}

/** A random top-level body: an object whose keys a decoder of that format knows, most of the time. */
export function randomWireBody(rng: Rng, vocabulary: Vocabulary): unknown {
  if (rng() < 0.05) return structuredClone(pick(rng, EDGE_VALUES));
  const body: Record<string, unknown> = {};
  const count = int(rng, 1, 6);
  for (let index = 0; index < count; index++) body[pick(rng, vocabulary.keys)] = randomWireValue(rng, vocabulary, 5);
  return body;
}

// ---------------------------------------------------------------------------
// Streams

/** A recorded stream as SSE bytes, whatever its framing on disk. */
export interface StreamSeed {
  format: FormatId;
  name: string;
  events: WireEvent[];
  bytes: Uint8Array;
}

/** SSE text of wire events. */
export function wireEventsAsBytes(events: readonly WireEvent[]): Uint8Array {
  const text = events
    .map((event) => {
      const data = typeof event.data === 'string' ? event.data : jsonText(event.data);
      return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
    })
    .join('');
  return new TextEncoder().encode(text);
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
    const events: WireEvent[] = seed.events.map((event) => ({ ...event, data: typeof event.data === 'string' ? event.data : jsonCopy(event.data) }));
    for (let index = 0; index < options.mutations && events.length > 0; index++) {
      const at = int(rng, 0, events.length - 1);
      const event = events[at] as WireEvent;
      const kind = (randomKinds(rng, 1)[0] as Mutation);
      const result = mutate(event.data, kind, rng, mutateOptions);
      event.data = result.value;
      notes.push(`event ${at}: ${result.note}`);
    }
    const blocks = events.map((event) => new TextDecoder().decode(wireEventsAsBytes([event])));
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

// ---------------------------------------------------------------------------
// Random IR, limited to what each format can carry

/** What one format carries, as far as the IR generators use it. */
interface Capability {
  /** Media part types a user message may hold. */
  userMedia: readonly ('image' | 'audio' | 'video' | 'document')[];
  /** Reasoning parts the format round-trips (with its own opaque state kind). */
  reasoning: ReasoningState['kind'] | undefined;
  refusal: boolean;
  /** `isError` on tool results travels as a flag (Chat and Responses approximate it with an `Error: ` prefix). */
  toolResultError: boolean;
  /** Candidates a response may hold. */
  candidates: number;
  /** Stop reasons the format has a value of its own for. */
  stopReasons: readonly UnifiedStopReason[];
  /** Empty text parts travel (Anthropic drops them unless they came from Anthropic). */
  emptyText: boolean;
  /** Usage has a total (Anthropic has none). */
  usageTotal: boolean;
  /** Responses carry a creation time (Gemini has none). */
  created: boolean;
  /** Requests say `stream` in the body (Gemini says it in the URL). */
  streamField: boolean;
  /** Requests carry the model in the body (Gemini carries it in the URL: decoders take the context's model). */
  modelInBody: boolean;
  /** Documents need a filename (OpenAI `file_data`); elsewhere a filename is not carried. */
  documentFilename: boolean;
  /** Image detail the wire always spells (Responses requires `detail`). */
  imageDetail: string | undefined;
  /** Function tools spell `strict` (Responses requires it). */
  toolStrict: boolean;
  /** Tool-call ids the client chose travel (Gemini echoes only ids Gemini made). */
  callIds: boolean;
  /** Parts of a leading system message that stay apart (Responses `instructions` is one string). */
  systemParts: number;
  /** Info-level losses a first encode of neutral IR reports by design (Responses makes up output message item ids). */
  infoLosses: readonly string[];
  /** The stop reason is derived from the content: a refusal part means `refusal` (Responses has no stop reason of its own for a completed response). */
  refusalStops: boolean;
  /** Messages hold one content string (Ollama): a user turn is at most one text, then its images. */
  oneText?: boolean;
  /** Images only as base64 (Ollama has no image URLs). */
  base64Images?: boolean;
  /** Responses have no id (Ollama). */
  noResponseId?: boolean;
  /** A request without `stream` streams (Ollama): the generator always says which. */
  streamDefault?: boolean;
  /** Request parts carry prompt-cache breakpoints (Anthropic `cache_control`, Bedrock `cachePoint`, Chat `prompt_cache_breakpoint`), with these lifetimes. */
  cacheLifetimes?: readonly string[];
  /** Requests carry an automatic breakpoint of their own (Anthropic's top-level `cache_control`); the others put it on a part. */
  automaticCache?: boolean;
  /** Requests carry OpenAI's `store`, prompt-cache key and retention, verbosity and stream obfuscation; `streamUsage` too (Chat's `include_usage`). */
  openaiSettings?: 'chat' | 'responses';
  /** Requests carry the vendor's web search as a tool, with these of its settings (Chat's is a search-model setting, Converse's Nova's). */
  webSearch?: readonly ('allowedDomains' | 'blockedDomains' | 'userLocation' | 'maxUses' | 'contextSize')[];
}

const CAPABILITIES: Record<FormatId, Capability> = {
  anthropic: {
    webSearch: ['allowedDomains', 'userLocation', 'maxUses'],
    cacheLifetimes: ['5m', '1h'],
    automaticCache: true,
    userMedia: ['image', 'document'],
    reasoning: 'signature',
    refusal: false,
    toolResultError: true,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens', 'stop_sequence', 'refusal', 'pause'],
    emptyText: false,
    usageTotal: false,
    created: false,
    streamField: true,
    modelInBody: true,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: true,
    systemParts: 2,
    infoLosses: [],
    refusalStops: false,
  },
  'openai-chat': {
    openaiSettings: 'chat',
    cacheLifetimes: ['30m', '12h'],
    userMedia: ['image', 'audio', 'document'],
    reasoning: undefined,
    refusal: true,
    toolResultError: false,
    candidates: 3,
    stopReasons: ['end_turn', 'max_tokens', 'content_filter'],
    emptyText: true,
    usageTotal: true,
    created: true,
    streamField: true,
    modelInBody: true,
    documentFilename: true,
    imageDetail: undefined,
    toolStrict: false,
    callIds: true,
    systemParts: 2,
    infoLosses: [],
    refusalStops: true,
  },
  'openai-responses': {
    webSearch: ['allowedDomains', 'userLocation', 'contextSize'],
    openaiSettings: 'responses',
    cacheLifetimes: ['30m', '12h'],
    userMedia: ['image', 'document'],
    reasoning: 'encrypted',
    refusal: true,
    toolResultError: false,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens', 'content_filter'],
    emptyText: true,
    usageTotal: true,
    created: true,
    streamField: true,
    modelInBody: true,
    documentFilename: true,
    imageDetail: 'auto',
    toolStrict: true,
    callIds: true,
    systemParts: 1,
    infoLosses: ['synthesised_id'],
    refusalStops: true,
  },
  gemini: {
    webSearch: [],
    userMedia: ['image', 'audio', 'video', 'document'],
    reasoning: 'thought_signature',
    refusal: false,
    toolResultError: true,
    candidates: 3,
    stopReasons: ['end_turn', 'max_tokens', 'content_filter'],
    emptyText: true,
    usageTotal: true,
    created: false,
    streamField: false,
    modelInBody: false,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: false,
    systemParts: 2,
    infoLosses: [],
    refusalStops: false,
  },
  'bedrock-converse': {
    cacheLifetimes: ['5m', '1h'],
    userMedia: ['image'],
    reasoning: 'signature',
    refusal: false,
    toolResultError: true,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens', 'stop_sequence', 'content_filter', 'context_overflow'],
    emptyText: true,
    usageTotal: true,
    created: false,
    streamField: false,
    modelInBody: false,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: true,
    systemParts: 2,
    infoLosses: ['defaulted'],
    refusalStops: false,
    base64Images: true,
    noResponseId: true,
  },
  ollama: {
    userMedia: ['image'],
    reasoning: undefined,
    refusal: false,
    toolResultError: false,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens'],
    emptyText: false,
    usageTotal: false,
    created: true,
    streamField: true,
    modelInBody: true,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: false,
    systemParts: 1,
    infoLosses: [],
    refusalStops: false,
    oneText: true,
    base64Images: true,
    noResponseId: true,
    streamDefault: true,
  },
};

/** The capability table the IR generators use (exported for the DESIGN notes and the tests). */
export function capabilityOf(format: FormatId): Capability {
  return CAPABILITIES[format];
}

/** Text with the edge cases: empty (where allowed), unicode of every plane, lone surrogates, control characters, occasionally 1 MB. */
export function textArbitrary(options: { empty: boolean; huge?: boolean }): fc.Arbitrary<string> {
  const weighted: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.string({ minLength: 1, maxLength: 30 }), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), weight: 3 },
    { arbitrary: fc.string({ unit: fc.constantFrom('\uD800', '\uDFFF', '\uD83D', 'a', '\u0000', '\n', '\r', '"', '\\', '\u2028', '𝄞', '\uFEFF'), minLength: 1, maxLength: 12 }), weight: 2 },
    { arbitrary: fc.constantFrom(...EDGE_STRINGS.filter((text) => text !== '')), weight: 2 },
  ];
  if (options.empty) weighted.push({ arbitrary: fc.constant(''), weight: 1 });
  if (options.huge === true) weighted.push({ arbitrary: fc.constant('h'.repeat(1 << 20)), weight: 1 });
  return fc.oneof(...weighted);
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const JPEG = '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDA=';
const PDF = 'JVBERi0xLjcKJeLjz9MKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0Y=';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const MP3 = 'SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4LjI5LjEwMAAAAAAAAAAAAAAA';
const MP4 = 'AAAAIGZ0eXBpc29tAAACAGlzb21pc28yYXZjMW1wNDEAAAAIZnJlZQ==';

function mediaArbitrary(format: FormatId, kind: 'image' | 'audio' | 'video' | 'document'): fc.Arbitrary<Part> {
  const capability = CAPABILITIES[format];
  switch (kind) {
    case 'image': {
      const base64 = fc.constantFrom<Base64Source>({ kind: 'base64', data: PNG, mediaType: 'image/png' }, { kind: 'base64', data: JPEG, mediaType: 'image/jpeg' });
      const url = fc.constantFrom('https://example.com/cat.png', 'https://example.com/a%20b.jpg?x=1&y=%F0%9F%98%80');
      // Gemini keeps a URL's media type (fileData.mimeType); the others guess nothing from a URL.
      const urls = url.map((value): MediaSource => (format === 'gemini' ? { kind: 'url', url: value, mediaType: value.includes('.png') ? 'image/png' : 'image/jpeg' } : { kind: 'url', url: value }));
      const source: fc.Arbitrary<MediaSource> = capability.base64Images === true ? base64 : fc.oneof(base64, urls);
      return source.map((value): Part => (capability.imageDetail === undefined ? { type: 'image', source: value } : { type: 'image', source: value, detail: capability.imageDetail }));
    }
    case 'audio':
      return fc.constantFrom<Base64Source>({ kind: 'base64', data: WAV, mediaType: 'audio/wav' }, { kind: 'base64', data: MP3, mediaType: 'audio/mpeg' }).map((source): Part => ({ type: 'audio', source }));
    case 'video':
      return fc.constant<Part>({ type: 'video', source: { kind: 'base64', data: MP4, mediaType: 'video/mp4' } });
    case 'document':
      return fc.constant<Part>(
        capability.documentFilename
          ? { type: 'document', source: { kind: 'base64', data: PDF, mediaType: 'application/pdf' }, filename: 'report.pdf' }
          : { type: 'document', source: { kind: 'base64', data: PDF, mediaType: 'application/pdf' } },
      );
  }
}

const jsonLeaf: fc.Arbitrary<unknown> = fc.oneof(
  textArbitrary({ empty: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).filter((value) => !Object.is(value, -0)),
  fc.boolean(),
  fc.constant(null),
);

/** Tool-call arguments: a JSON object with unicode keys and values, a few levels deep. */
export const argumentsArbitrary: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonLeaf, fc.array(tie('value'), { maxLength: 3 }), tie('object')),
  object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }).filter((key) => key !== '__proto__'), tie('value'), { maxKeys: 4 }),
})).object;

const toolName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_-]{0,24}$/);

interface Draft {
  format: FormatId;
  capability: Capability;
  calls: number;
  /** Building a request's history: OpenAI Responses sends another turn's refusal there as text (an input message has no refusal part). */
  request?: boolean;
}

/** Text for a message of `draft`: Converse refuses blank text blocks in requests (its encoder leaves them out, reported), though its answers may hold them. */
function messageText(draft: Draft, options: { empty: boolean; huge?: boolean }): fc.Arbitrary<string> {
  const any = textArbitrary(options);
  return draft.format === 'bedrock-converse' && draft.request === true ? any.filter((value) => value.trim() !== '') : any;
}

function textPart(draft: Draft): fc.Arbitrary<Part> {
  const text = messageText(draft, { empty: draft.capability.emptyText, huge: true });
  const lifetimes = draft.capability.cacheLifetimes;
  if (lifetimes === undefined || draft.request !== true) return text.map((value): Part => ({ type: 'text', text: value }));
  // Now and then a prompt-cache breakpoint after the text, with or without a lifetime.
  const cache = fc.option(fc.constantFrom<CacheBreakpoint>({}, ...lifetimes.map((ttl) => ({ ttl }))), { nil: undefined, freq: 3 });
  return fc.tuple(text, cache).map(([value, breakpoint]): Part => (breakpoint === undefined ? { type: 'text', text: value } : { type: 'text', text: value, cache: breakpoint }));
}

function userMessage(draft: Draft): fc.Arbitrary<Message> {
  const media = draft.capability.userMedia.map((kind) => mediaArbitrary(draft.format, kind));
  if (draft.capability.oneText === true) {
    // One content string, then the images, as the wire spells them.
    const images = media.length === 0 ? fc.constant([]) : fc.array(fc.oneof(...media), { maxLength: 2 });
    return fc.tuple(textPart(draft), images).map(([text, rest]): Message => ({ role: 'user', parts: [text, ...rest] }));
  }
  const part = media.length === 0 ? textPart(draft) : fc.oneof({ arbitrary: textPart(draft), weight: 3 }, ...media.map((arbitrary) => ({ arbitrary, weight: 1 })));
  return fc.array(part, { minLength: 1, maxLength: 3 }).map((parts): Message => ({ role: 'user', parts }));
}

/**
 * Vendor blocks kept whole as opaque parts (built-in tool calls and results):
 * known to their format, so a same-format trip reports no loss. Chat has
 * none it knows (an unknown block is an `unknown_block` loss by design).
 */
function opaquePart(draft: Draft): fc.Arbitrary<Part> | undefined {
  const text = fc.string({ unit: 'binary', maxLength: 20 });
  const opaque = (blockType: string, value: unknown): Part => ({ type: 'opaque', format: draft.format, blockType, value });
  switch (draft.format) {
    case 'anthropic':
      return fc.record({ suffix: fc.stringMatching(/^[A-Za-z0-9]{6,12}$/), query: text, url: fc.constantFrom('https://example.com/', 'https://example.org/a?b=1') }).chain(({ suffix, query, url }) =>
        fc.constantFrom(
          opaque('server_tool_use', { type: 'server_tool_use', id: `srvtoolu_${suffix}`, name: 'web_search', input: { query } }),
          opaque('web_search_tool_result', { type: 'web_search_tool_result', tool_use_id: `srvtoolu_${suffix}`, content: [{ type: 'web_search_result', title: query, url, encrypted_content: 'Ev4BCkYIBRgCKkA', page_age: null }] }),
        ),
      );
    case 'openai-responses':
      return fc.record({ suffix: fc.stringMatching(/^[a-f0-9]{8,16}$/), query: text }).map(({ suffix, query }) =>
        opaque('web_search_call', { type: 'web_search_call', id: `ws_${suffix}`, status: 'completed', action: { type: 'search', query } }),
      );
    case 'gemini':
      return fc.record({ code: text, output: text }).chain(({ code, output }) =>
        fc.constantFrom(opaque('executableCode', { executableCode: { language: 'PYTHON', code } }), opaque('codeExecutionResult', { codeExecutionResult: { outcome: 'OUTCOME_OK', output } })),
      );
    case 'bedrock-converse':
      return text.map((value) => opaque('guardContent', { guardContent: { text: { text: value } } }));
    case 'openai-chat':
    case 'ollama':
      return undefined;
  }
}

function reasoningPart(draft: Draft): fc.Arbitrary<Part> | undefined {
  const kind = draft.capability.reasoning;
  if (kind === undefined) return undefined;
  const state = fc.stringMatching(/^[A-Za-z0-9+/]{8,40}$/).map((value): ReasoningState => ({ format: draft.format, kind, value }));
  const text = textArbitrary({ empty: false });
  if (draft.format === 'openai-responses') {
    // Responses reasoning items: an id, summaries, and encrypted content; no visible text.
    return fc.record({ id: fc.stringMatching(/^rs_[a-z0-9]{6}$/), summary: fc.array(text, { minLength: 1, maxLength: 2 }), state }).map(({ id, summary, state: value }): Part => ({ type: 'reasoning', text: '', summary, state: value, id }));
  }
  return fc.record({ text, state }).map(({ text: value, state: signature }): Part => ({ type: 'reasoning', text: value, state: signature }));
}

interface AssistantTurn {
  message: Message;
  calls: ToolCallPart[];
}

function assistantTurn(draft: Draft, allowCalls: boolean): fc.Arbitrary<AssistantTurn> {
  const reasoning = reasoningPart(draft);
  const builtIn = opaquePart(draft);
  const call = fc.record({ name: toolName, args: argumentsArbitrary, suffix: fc.stringMatching(/^[A-Za-z0-9]{4,12}$/) });
  return fc
    .record({
      reasoning: reasoning === undefined ? fc.constant(undefined) : fc.option(reasoning, { nil: undefined }),
      builtIn: builtIn === undefined ? fc.constant([]) : fc.array(builtIn, { maxLength: 2 }),
      text: fc.option(messageText(draft, { empty: false, huge: true }), { nil: undefined }),
      refusal: draft.capability.refusal && !(draft.request === true && draft.format === 'openai-responses') ? fc.option(textArbitrary({ empty: false }), { nil: undefined, freq: 8 }) : fc.constant(undefined),
      calls: fc.array(call, { maxLength: allowCalls ? 2 : 0 }),
    })
    .map(({ reasoning: thought, builtIn: blocks, text, refusal, calls }) => {
      const parts: Part[] = [];
      if (thought !== undefined) parts.push(thought);
      parts.push(...blocks);
      // Where a refusal decides the stop reason (Responses), a refusing answer is all refusal: its text would be sent as refusal too.
      if (text !== undefined && !(refusal !== undefined && draft.capability.refusalStops)) parts.push({ type: 'text', text });
      if (refusal !== undefined) parts.push({ type: 'refusal', text: refusal });
      const toolCalls = calls.map(({ name, args, suffix }): ToolCallPart => ({ type: 'tool_call', id: `call_${draft.calls++}_${suffix}`, name, arguments: args }));
      parts.push(...toolCalls);
      if (parts.length === 0) parts.push({ type: 'text', text: 'ok' });
      return { message: { role: 'assistant', parts }, calls: toolCalls };
    });
}

function toolResults(draft: Draft, calls: readonly ToolCallPart[]): fc.Arbitrary<Message> {
  return fc
    .tuple(...calls.map(() => fc.record({ text: textArbitrary({ empty: false, huge: true }), isError: draft.capability.toolResultError ? fc.boolean() : fc.constant(false) })))
    .map((results): Message => ({
      role: 'tool',
      parts: results.map(({ text, isError }, index): Part => {
        const call = calls[index] as ToolCallPart;
        const part: Part = { type: 'tool_result', callId: call.id, name: call.name, content: [{ type: 'text', text }] };
        if (isError) part.isError = true;
        return part;
      }),
    }));
}

/** A conversation: an optional system prompt, then user → assistant (→ tool results → assistant) turns, ending with a user turn. */
function conversation(draft: Draft): fc.Arbitrary<Message[]> {
  const system = fc.option(
    fc.array(messageText(draft, { empty: false }), { minLength: 1, maxLength: draft.capability.systemParts }).map((texts): Message => ({ role: 'system', parts: texts.map((text): Part => ({ type: 'text', text })) })),
    { nil: undefined },
  );
  const exchange: fc.Arbitrary<Message[]> = fc.tuple(userMessage(draft), assistantTurn(draft, true)).chain(([user, assistant]) =>
    assistant.calls.length === 0
      ? fc.constant([user, assistant.message])
      : fc.tuple(toolResults(draft, assistant.calls), assistantTurn(draft, false)).map(([results, answer]): Message[] => [user, assistant.message, results, answer.message]),
  );
  return fc.tuple(system, fc.array(exchange, { maxLength: 3 }), userMessage(draft)).map(([prompt, exchanges, last]): Message[] => [...(prompt === undefined ? [] : [prompt]), ...exchanges.flat(), last]);
}

function toolsFor(messages: readonly Message[], capability: Capability): Tool[] | undefined {
  const names = new Set<string>();
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool_call') names.add(part.name);
  if (names.size === 0) return undefined;
  return [...names].map((name): Tool => {
    const tool: Tool = { type: 'function', name, description: `the ${name} tool`, parameters: { type: 'object', properties: { q: { type: 'string' } } } };
    if (capability.toolStrict) tool.strict = false;
    return tool;
  });
}

/** A random IR request that `format` can carry whole. */
export function irRequestArbitrary(format: FormatId): fc.Arbitrary<IrRequest> {
  const draft: Draft = { format, capability: CAPABILITIES[format], calls: 0, request: true };
  return fc
    .record({
      model: draft.capability.modelInBody ? fc.constantFrom('model-a', 'gpt-test', 'claude-test', 'gemini-test') : fc.constant('model-a'),
      messages: fc.constant(null).chain(() => {
        draft.calls = 0;
        return conversation(draft);
      }),
      // OpenAI Responses takes at least 16 output tokens; its encoder raises a smaller limit (with a loss).
      maxTokens: fc.integer({ min: format === 'openai-responses' ? 16 : 1, max: 100_000 }),
      temperature: fc.option(fc.constantFrom(0, 0.5, 1), { nil: undefined }),
      topP: fc.option(fc.constantFrom(0.1, 0.9, 1), { nil: undefined }),
      stream: draft.capability.streamDefault === true ? fc.boolean() : draft.capability.streamField ? fc.option(fc.boolean(), { nil: undefined }) : fc.constant(undefined),
      cache:
        draft.capability.automaticCache === true
          ? fc.option(fc.constantFrom<CacheBreakpoint>({}, ...(draft.capability.cacheLifetimes ?? []).map((ttl) => ({ ttl }))), { nil: undefined, freq: 3 })
          : fc.constant(undefined),
      settings: draft.capability.openaiSettings === undefined ? fc.constant(undefined) : fc.option(openaiSettings(draft.capability.openaiSettings), { nil: undefined }),
      custom: draft.capability.openaiSettings === undefined ? fc.constant(undefined) : fc.option(customTool, { nil: undefined }),
      search: draft.capability.webSearch === undefined ? fc.constant(undefined) : fc.option(webSearchTool(draft.capability.webSearch), { nil: undefined }),
    })
    .map(({ model, messages, maxTokens, temperature, topP, stream, cache, settings, custom, search }) => {
      const request: IrRequest = { model, messages };
      if (cache !== undefined) request.cache = cache;
      if (settings !== undefined) Object.assign(request, settings);
      const tools = toolsFor(messages, draft.capability);
      const extra = [...(custom === undefined ? [] : [custom]), ...(search === undefined ? [] : [search])];
      if (tools !== undefined || extra.length > 0) request.tools = [...(tools ?? []), ...extra];
      const generation: Generation = { maxTokens };
      if (temperature !== undefined) generation.temperature = temperature;
      if (topP !== undefined) generation.topP = topP;
      request.generation = generation;
      if (stream !== undefined) request.stream = stream;
      return request;
    });
}

/** An OpenAI custom (free-text) tool: no format, free text, or a grammar. */
const customTool: fc.Arbitrary<Tool> = fc.constantFrom<Tool>(
  { type: 'custom', name: 'note' },
  { type: 'custom', name: 'note', description: 'Take a note.', format: { type: 'text' } },
  { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" LINE+\nLINE: /.+/' } },
  { type: 'custom', name: 'digits', format: { type: 'grammar', syntax: 'regex', definition: '^\\d+$' } },
);

/** The vendor's web search with some of the settings `carried` lists. */
function webSearchTool(carried: NonNullable<Capability['webSearch']>): fc.Arbitrary<Tool> {
  const has = (setting: (typeof carried)[number]) => carried.includes(setting);
  return fc
    .record(
      {
        allowedDomains: has('allowedDomains') ? fc.constantFrom(['example.com'], ['a.org', 'b.net']) : fc.constant(undefined),
        userLocation: has('userLocation') ? fc.constantFrom({ country: 'US' }, { city: 'Paris', region: 'Île-de-France', country: 'FR', timezone: 'Europe/Paris' }) : fc.constant(undefined),
        maxUses: has('maxUses') ? fc.integer({ min: 1, max: 10 }) : fc.constant(undefined),
        contextSize: has('contextSize') ? fc.constantFrom('low', 'medium', 'high') : fc.constant(undefined),
      },
      { requiredKeys: [] },
    )
    .map((settings): Tool => {
      const tool: Tool = { type: 'web_search' };
      for (const [key, value] of Object.entries(settings)) if (value !== undefined) Object.assign(tool, { [key]: value });
      return tool;
    });
}

/** Some of the settings OpenAI Chat and Responses share (`streamUsage`, Chat's `include_usage`, for Chat only). */
function openaiSettings(api: 'chat' | 'responses'): fc.Arbitrary<Partial<IrRequest>> {
  return fc.record(
    {
      store: fc.boolean(),
      promptCacheKey: fc.constantFrom('policy-v1', 'user-42'),
      promptCacheRetention: fc.constantFrom('in-memory', '24h'),
      verbosity: fc.constantFrom('low', 'medium', 'high'),
      streamObfuscation: fc.boolean(),
      ...(api === 'chat' ? { streamUsage: fc.boolean() } : {}),
    },
    { requiredKeys: [] },
  );
}

/** A random IR response that `format` can carry whole. */
export function irResponseArbitrary(format: FormatId): fc.Arbitrary<IrResponse> {
  const capability = CAPABILITIES[format];
  const draft: Draft = { format, capability, calls: 0 };
  const candidate = fc.constant(null).chain(() => assistantTurn(draft, true));
  return fc
    .record({
      id: fc.stringMatching(/^[a-z]{3}_[A-Za-z0-9]{4,16}$/),
      // Bedrock responses carry no model: decoders take the URL's (the context's).
      model: format === 'bedrock-converse' ? fc.constant('model-a') : fc.constantFrom('model-a', 'gpt-test', 'claude-test', 'gemini-test'),
      created: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
      turns: fc.array(candidate, { minLength: 1, maxLength: capability.candidates }),
      stops: fc.array(fc.constantFrom(...capability.stopReasons), { minLength: capability.candidates, maxLength: capability.candidates }),
      input: fc.integer({ min: 0, max: 1_000_000 }),
      output: fc.integer({ min: 0, max: 1_000_000 }),
    })
    .map(({ id, model, created, turns, stops, input, output }) => {
      const response: IrResponse = {
        ...(capability.noResponseId === true ? {} : { id }),
        model,
        candidates: turns.map(({ message, calls }, index): Candidate => ({
          index,
          message,
          stopReason: {
            unified: calls.length > 0 ? 'tool_calls' : capability.refusalStops && message.parts.some((part) => part.type === 'refusal') ? 'refusal' : (stops[index] ?? 'end_turn'),
          },
        })),
        usage: capability.usageTotal ? { inputTokens: input, outputTokens: output, totalTokens: input + output } : { inputTokens: input, outputTokens: output },
      };
      if (capability.created) response.created = created;
      return response;
    });
}

/**
 * The normalised view of an IR value under which a same-format trip must be
 * the identity (docs/DESIGN.md "Reliability" lists these):
 * - `extensions` dropped everywhere (shape hints and wire-only fields);
 * - `rawArguments` dropped (string formats add the argument text; the parsed `arguments` are compared);
 * - `usage.raw` dropped, and `totalTokens` where the format reports none;
 * - stop reasons reduced to `unified` (decoders add the wire's `raw` value and its `format`);
 * - a tool result's `name` dropped (some formats carry it, others take it from the matching call);
 * - `syntheticId` dropped (Gemini marks ids it made up).
 */
export function normaliseIr(value: unknown, format?: FormatId): unknown {
  const normalised = normaliseNode(value);
  if (typeof normalised !== 'object' || normalised === null) return normalised;
  const record = normalised as Record<string, unknown>;
  if (Array.isArray(record['messages'])) record['messages'] = mergeToolMessages(record['messages'] as Message[]);
  if (format !== undefined && !CAPABILITIES[format].callIds) renameCallIds(record);
  // Chat asks a stream's usage for a request that does not say (every other format's stream reports it unasked).
  if (format === 'openai-chat' && record['stream'] === true && record['streamUsage'] === true) delete record['streamUsage'];
  return record;
}

/** Consecutive `tool` messages as one (Chat sends one tool message per result). */
function mergeToolMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (message.role === 'tool' && last?.role === 'tool') last.parts = [...last.parts, ...message.parts];
    else out.push({ ...message });
  }
  return out;
}

/** Tool-call ids renamed `#1`, `#2`, … in order of appearance, results following their calls (for formats whose ids are made up on decode). */
function renameCallIds(root: Record<string, unknown>): void {
  const names = new Map<string, string>();
  const stack: unknown[] = [root];
  const visit: Record<string, unknown>[] = [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) for (let index = node.length - 1; index >= 0; index--) stack.push(node[index]);
    else if (typeof node === 'object' && node !== null) {
      visit.push(node as Record<string, unknown>);
      const values = Object.values(node);
      for (let index = values.length - 1; index >= 0; index--) stack.push(values[index]);
    }
  }
  for (const node of visit) {
    const key = node['type'] === 'tool_call' ? 'id' : node['type'] === 'tool_result' ? 'callId' : undefined;
    if (key === undefined || typeof node[key] !== 'string') continue;
    const id = node[key] as string;
    if (!names.has(id)) names.set(id, `#${names.size + 1}`);
    node[key] = names.get(id);
  }
}

const USAGE_BREAKDOWNS: ReadonlySet<string> = new Set(['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens']);

function normaliseNode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseNode);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === undefined || key === 'extensions' || key === 'rawArguments' || key === 'syntheticId') continue;
    if (key === 'raw' && typeof item === 'object' && item !== null && 'format' in item) continue;
    if (key === 'stopReason' && typeof item === 'object' && item !== null) {
      out[key] = { unified: (item as StopReason).unified };
      continue;
    }
    if (key === 'name' && record['type'] === 'tool_result') continue;
    if (USAGE_BREAKDOWNS.has(key) && item === 0) continue;
    out[key] = normaliseNode(item);
  }
  return out;
}

/** Outcome of one same-format IR trip. */
export interface TripResult {
  ok: boolean;
  /** The trip ended in an `InterlinguaError` (a typed error: reported, not a crash). */
  typed: boolean;
  problem: string;
  detail: string;
}

function firstDifference(left: unknown, right: unknown, path = ''): string | undefined {
  if (Object.is(left, right) || (left === 0 && right === 0)) return undefined;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null || Array.isArray(left) !== Array.isArray(right)) {
    return `${path || '/'}: ${jsonText(left).slice(0, 80)} ≠ ${jsonText(right).slice(0, 80)}`;
  }
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) {
    const difference = firstDifference((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key], `${path}/${key}`);
    if (difference !== undefined) return difference;
  }
  return undefined;
}

/**
 * encode → decode → encode through one format. Holds when: no step throws
 * anything but an `InterlinguaError`; neither encode nor decode reports a
 * loss; the decoded IR equals the source under {@link normaliseIr}; and the
 * second encode gives the same wire body as the first.
 */
export function irRoundTrip(format: FormatId, kind: 'request' | 'response', ir: IrRequest | IrResponse): TripResult {
  const encode = kind === 'request' ? (value: unknown) => encodeRequest(format, value as IrRequest) : (value: unknown) => encodeResponse(format, value as IrResponse);
  const decode = kind === 'request' ? (body: unknown) => decodeRequest(format, body, { model: 'model-a' }) : (body: unknown) => decodeResponse(format, body, { model: 'model-a' });
  const fail = (problem: string, detail: string): TripResult => ({ ok: false, typed: false, problem, detail });
  try {
    const first = encode(ir);
    const allowed = CAPABILITIES[format].infoLosses;
    const unexpected = first.losses.filter((loss) => !(loss.severity === 'info' && allowed.includes(loss.code)));
    if (unexpected.length > 0) return fail('encode reported losses', lossList(unexpected));
    const decoded = decode(first.body);
    if (decoded.losses.length > 0) return fail('decode reported losses', lossList(decoded.losses));
    const difference = firstDifference(normaliseIr(decoded.ir, format), normaliseIr(ir, format));
    if (difference !== undefined) return fail('decode(encode(ir)) differs from ir', difference);
    const second = encode(decoded.ir);
    const wireDifference = firstDifference(second.body, first.body);
    if (wireDifference !== undefined) return fail('the second encode differs from the first', wireDifference);
    if (second.losses.length > 0) return fail('the second encode reported losses', lossList(second.losses));
    JSON.stringify(second.body);
    return { ok: true, typed: false, problem: '', detail: '' };
  } catch (error) {
    if (isTypedError(error)) return { ok: false, typed: true, problem: 'typed error', detail: (error as Error).message.slice(0, 200) };
    return fail(describeError(error), '');
  }
}

function lossList(losses: readonly { code: string; path: string; message: string }[]): string {
  return losses.map((loss) => `${loss.code} at ${loss.path}: ${loss.message}`).join('; ').slice(0, 300);
}

/** Sample one value of an arbitrary from a seed (the fuzz script's way in). */
export function sampleOne<T>(arbitrary: fc.Arbitrary<T>, seed: number): T {
  return fc.sample(arbitrary, { seed, numRuns: 1 })[0] as T;
}
