/**
 * Property tests (fast-check), kept small enough for the normal run; the
 * same generators run a million times in `npm run fuzz`.
 *
 * - Random IR conversations (every part kind a format carries, unicode edge
 *   cases, empty and 1 MB strings) survive encode → decode → encode in each
 *   format, modulo the normalisations in docs/DESIGN.md "Reliability".
 * - Random wire bodies and mutated real payloads (fields dropped, wrong types,
 *   values swapped, lone surrogates, 1 MB strings) convert or raise an
 *   `InterlinguaError` whose JSON pointer lands in the body; nesting 10,000
 *   deep is an error, never a stack overflow.
 * - The crash class of a `null` (or a value of the wrong type) in any array
 *   slot or object field, or inserted into any array, on both sides: in real
 *   wire payloads before decoding, and in their decoded IR handed to
 *   `encodeRequest`/`encodeResponse`/`encodeError` of every format. Either it
 *   converts, or an `InterlinguaError` names a pointer that lands in the
 *   input (the wire body, or the IR).
 * - Stream decoders under random chunking, truncation and garbage lines: the
 *   same events whatever the chunking, a truncated stream ends with an error
 *   or complete, and the converted stream is well-formed SSE in the target format.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { sseFraming } from '../../src/core/framing.ts';
import { accumulate } from '../../src/core/accumulate.ts';
import { convertError, convertRequest, convertResponse, decodeError, decodeRequest, decodeResponse, encodeError, encodeRequest, encodeResponse } from '../../src/formats/convert.ts';
import { InterlinguaError } from '../../src/core/errors.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import { convertStream } from '../../src/formats/stream.ts';
import { MAX_DEPTH } from '../../src/core/wire.ts';
import { irRequestArbitrary, irResponseArbitrary } from '../support/arbitraries/ir-arbitraries.ts';
import { irRoundTrip } from '../support/arbitraries/ir-trips.ts';
import { applyPlan, mutationPlanArbitrary, mutateValue, slotMutationPlanArbitrary, type MutateOptions } from '../support/arbitraries/mutations.ts';
import { classify, describeError, isTypedError, pointerLandsIn } from '../support/arbitraries/outcomes.ts';
import { loadSeeds, vocabularyOf, type Seed } from '../support/arbitraries/payloads.ts';
import { deeplyNested, seeded, withLoneSurrogates } from '../support/arbitraries/random.ts';
import { garbleStream, loadStreamSeeds, parseSse, type StreamSeed } from '../support/arbitraries/streams.ts';
import { randomWireBody } from '../support/arbitraries/wire-bodies.ts';
import { chunked, collect, decodeEvents, streamingFormats, wireEventsFromBytes } from '../support/streams.ts';
import { GOLDEN_DIR } from '../support/fixtures.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const formats = implementedFormats();
const kinds = ['request', 'response', 'error'] as const;
type Kind = (typeof kinds)[number];
const CONVERT = { request: convertRequest, response: convertResponse, error: convertError } as const;
const DECODE = { request: decodeRequest, response: decodeResponse, error: decodeError } as const;
/** fast-check's seed: fixed unless FC_SEED is set, so a failure in CI reproduces locally. */
const SEED = Number(process.env['FC_SEED'] ?? 20_251_122);

/**
 * Decode `body` as `format`/`kind`, then convert it to every format. Throws
 * (failing the property) on anything but a conversion or a typed error whose
 * pointer lands in the body.
 */
function convertsOrTypedError(format: FormatId, kind: Kind, body: unknown): void {
  const decoded = classify(() => DECODE[kind](format, body, { model: 'test-model' }));
  if (decoded.outcome === 'other') throw new Error(`decode ${format} ${kind}: ${describeError(decoded.error)}`);
  if (decoded.outcome === 'typed') {
    const path = (decoded.error as InterlinguaError).path;
    if (path !== '' && !pointerLandsIn(typeof body === 'string' ? JSON.parse(body) : body, path)) throw new Error(`decode ${format} ${kind}: the error pointer ${path} is not in the body (${(decoded.error as Error).message})`);
    return;
  }
  for (const to of formats) {
    const result = classify(() => CONVERT[kind](body, { from: format, to, model: 'test-model' }));
    if (result.outcome === 'other') throw new Error(`${format} → ${to} ${kind}: ${describeError(result.error)}`);
  }
}

/** `value` with every string value (not key) replaced by `map(string)`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
}

// ---------------------------------------------------------------------------

const roundTrips = suite('property: random IR survives a same-format trip');
for (const format of formats) {
  for (const kind of ['request', 'response'] as const) {
    roundTrips(`${format} ${kind}`, () => {
      const arbitrary = kind === 'request' ? irRequestArbitrary(format) : irResponseArbitrary(format);
      fc.assert(
        fc.property(arbitrary, (ir) => {
          const result = irRoundTrip(format, kind, ir);
          if (!result.ok) throw new Error(`${result.problem}: ${result.detail}`);
        }),
        { numRuns: 40, seed: SEED },
      );
    });
  }
}
roundTrips.run();

// ---------------------------------------------------------------------------

const seeds = loadSeeds(formats, 64 * 1024);
const vocabulary = vocabularyOf(seeds);
const mutateOptions: MutateOptions = { vocabulary, hugeLength: 1 << 20, nestDepth: 10_000 };
const seedsOf = (format: FormatId, kind: Kind): Seed[] => seeds.filter((seed) => seed.format === format && seed.kind === kind);

const badInput = suite('property: bad wire input converts or raises a typed error');
for (const format of formats) {
  for (const kind of kinds) {
    const pool = seedsOf(format, kind);
    if (pool.length === 0) continue;
    badInput(`${format} ${kind}: mutated real payloads`, () => {
      fc.assert(
        fc.property(fc.nat({ max: pool.length - 1 }), mutationPlanArbitrary(), (index, plan) => {
          const seed = pool[index] as Seed;
          const { body, notes } = applyPlan(seed.text, plan, mutateOptions);
          try {
            convertsOrTypedError(format, kind, body);
          } catch (error) {
            throw new Error(`${seed.name} with ${notes.join(', ')}: ${(error as Error).message}`);
          }
        }),
        { numRuns: 60, seed: SEED },
      );
    });
  }
  badInput(`${format}: random bodies of the corpus vocabulary, and arbitrary JSON`, () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom(...kinds), (seed, kind) => convertsOrTypedError(format, kind, randomWireBody(seeded(seed), vocabulary))),
      { numRuns: 60, seed: SEED },
    );
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...kinds), (value, kind) => convertsOrTypedError(format, kind, value)),
      { numRuns: 30, seed: SEED },
    );
  });
}

const ENCODE = { request: encodeRequest, response: encodeResponse, error: encodeError } as const;

/** Encode `ir` into every format: each must convert or raise a typed error whose pointer lands in the IR. */
function encodesOrTypedError(kind: Kind, ir: unknown): void {
  for (const to of formats) {
    const result = classify(() => (ENCODE[kind] as (format: FormatId, value: unknown) => unknown)(to, ir));
    if (result.outcome === 'other') throw new Error(`encode ${kind} → ${to}: ${describeError(result.error)}`);
    if (result.outcome === 'typed') {
      const path = (result.error as InterlinguaError).path;
      if (path !== '' && !pointerLandsIn(ir, path)) throw new Error(`encode ${kind} → ${to}: the error pointer ${path} is not in the IR (${(result.error as Error).message})`);
    }
  }
}

for (const format of formats) {
  for (const kind of kinds) {
    const pool = seedsOf(format, kind);
    if (pool.length === 0) continue;
    badInput(`${format} ${kind}: null or a wrong type in any slot, in the wire body and in the decoded IR`, () => {
      fc.assert(
        fc.property(fc.nat({ max: pool.length - 1 }), slotMutationPlanArbitrary(), (index, plan) => {
          const seed = pool[index] as Seed;
          const { body, notes } = applyPlan(seed.text, plan, mutateOptions);
          try {
            convertsOrTypedError(format, kind, body);
          } catch (error) {
            throw new Error(`${seed.name} with ${notes.join(', ')}: ${(error as Error).message}`);
          }
          const { ir } = DECODE[kind](format, seed.text, { model: 'test-model' });
          const mutated = mutateValue(ir, plan.seed, plan.kinds, mutateOptions);
          try {
            encodesOrTypedError(kind, mutated.value);
          } catch (error) {
            throw new Error(`IR of ${seed.name} with ${mutated.notes.join(', ')}: ${(error as Error).message}`);
          }
        }),
        { numRuns: 60, seed: SEED },
      );
    });
  }
}

badInput('a null entry in tools, messages or parts of IR is a typed error naming it, in every format', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['tools', { messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], tools: [null] }, '/tools/0'],
    ['messages', { messages: [null] }, '/messages/0'],
    ['parts', { messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }, null] }] }, '/messages/0/parts/1'],
    ['text', { messages: [{ role: 'user', parts: [{ type: 'text', text: 7 }] }] }, '/messages/0/parts/0/text'],
    // Found by npm run fuzz (input #179649): a null opaque value reached the Responses encoder.
    ['opaque value', { messages: [{ role: 'user', parts: [{ type: 'opaque', format: 'openai-responses', blockType: 'web_search_call', value: null }] }] }, '/messages/0/parts/0/value'],
  ];
  for (const [what, ir, path] of cases) {
    for (const to of formats) {
      try {
        encodeRequest(to, ir as never);
        assert.unreachable(`${to} encoded IR with a bad ${what} entry`);
      } catch (error) {
        assert.ok(isTypedError(error), `${to} ${what}: ${describeError(error)}`);
        assert.is((error as InterlinguaError).path, path, `${to} ${what}`);
      }
    }
  }
});

badInput('nesting 10,000 deep is an invalid_value error with a pointer, in every format and kind', () => {
  for (const format of formats) {
    for (const kind of kinds) {
      const seed = seedsOf(format, kind)[0];
      if (seed === undefined) continue;
      for (const shape of ['array', 'object', 'mixed'] as const) {
        const body = JSON.parse(seed.text) as Record<string, unknown>;
        body['deep'] = deeplyNested(10_000, shape);
        const text = `{"messages":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
        for (const input of [body, text]) {
          try {
            DECODE[kind](format, input);
            assert.unreachable(`${format} ${kind} accepted a body nested 10,000 deep`);
          } catch (error) {
            assert.ok(isTypedError(error), `${format} ${kind}: ${describeError(error)}`);
            assert.is((error as InterlinguaError).code, 'invalid_value');
            const path = (error as InterlinguaError).path;
            assert.ok(path.startsWith(typeof input === 'string' ? '/messages/0/0/0' : '/deep/'), path);
            assert.is(path.split('/').length - 1, MAX_DEPTH, 'the pointer names the first value too deep');
          }
        }
      }
    }
  }
});

badInput('deep argument text stays text: a tool call whose arguments nest 10,000 deep converts', () => {
  const deepArguments = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  const body = {
    model: 'gpt-test',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: deepArguments } }] },
      { role: 'tool', tool_call_id: 'call_1', content: deepArguments },
    ],
  };
  if (!formats.includes('openai-chat')) return;
  for (const to of formats) {
    const { body: out, losses } = convertRequest(body, { from: 'openai-chat', to, model: 'test-model' });
    assert.ok(JSON.stringify(out).length > 0, `${to}: the output serialises`);
    // Object formats cannot send the text as an object: reported. String formats send the text as it was.
    if (to === 'anthropic' || to === 'gemini') assert.ok(losses.some((loss) => loss.code === 'invalid_arguments'), `${to}: reported as arguments that are not an object`);
  }
});

/** Every JSON pointer of a string value in `value`. */
function stringPointers(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return [path];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => stringPointers(item, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
}

/** A copy of `root` with the string at `path` replaced by `text`. */
function replaceAt(root: unknown, path: string, text: string): unknown {
  const copy = JSON.parse(JSON.stringify(root)) as unknown;
  const keys = path.split('/').slice(1).map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  let node = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1] as string] = text;
  return copy;
}

// Wire strings index lookup tables (block types, reasons, statuses, source kinds): a string that an object
// literal inherits must find nothing there, not Object.prototype's member. Exhaustive over the golden bodies:
// each string value in turn, so a table missed anywhere shows up here and not in a million-input fuzz run.
badInput('every string value of every golden body, in turn, as an inherited property name', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
  let inputs = 0;
  for (const seed of seeds.filter((candidate) => candidate.name.startsWith('golden/'))) {
    const body = JSON.parse(seed.text) as unknown;
    for (const path of stringPointers(body)) {
      for (const name of names) {
        inputs++;
        try {
          convertsOrTypedError(seed.format, seed.kind, replaceAt(body, path, name));
        } catch (error) {
          throw new Error(`${seed.name} with "${name}" at ${path}: ${(error as Error).message}`);
        }
      }
    }
  }
  assert.ok(inputs > 1000, `${inputs} inputs`);
});

badInput('lone surrogates and 1 MB strings anywhere in real payloads convert or fail typed', () => {
  const rng = seeded(7);
  for (const format of formats) {
    for (const kind of kinds) {
      for (const seed of seedsOf(format, kind).slice(0, 3)) {
        convertsOrTypedError(format, kind, mapStrings(JSON.parse(seed.text), (text) => withLoneSurrogates(rng, text)));
        let first = true;
        const huge = mapStrings(JSON.parse(seed.text), (text) => {
          if (!first || text.length < 12) return text;
          first = false;
          return 'z'.repeat(1 << 20);
        });
        convertsOrTypedError(format, kind, huge);
      }
    }
  }
});
badInput.run();

// ---------------------------------------------------------------------------

const streaming = streamingFormats();
let streamSeeds: StreamSeed[] = [];
const streams = suite('property: stream decoders under chunking, truncation and garbage');
streams.before(async () => {
  // Every third recorded stream under 24 KB: enough variety for the normal run.
  streamSeeds = (await loadStreamSeeds(streaming, 24 * 1024)).filter((_, index) => index % 3 === 0);
});

streams('the decoded events do not depend on how the bytes are chunked', async () => {
  if (streamSeeds.length === 0) return;
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: streamSeeds.length - 1 }), fc.array(fc.nat(), { maxLength: 16 }), async (index, cuts) => {
      const seed = streamSeeds[index]!;
      const whole = decodeEvents(seed.format, await wireEventsFromBytes(seed.bytes)).events;
      const split = decodeEvents(seed.format, await wireEventsFromBytes(seed.bytes, cuts.map((cut) => cut % Math.max(1, seed.bytes.length)))).events;
      assert.equal(split, whole, `${seed.name} cut at ${cuts.join(',')}`);
    }),
    { numRuns: 40, seed: SEED },
  );
});

streams('a truncated stream ends complete or with an error, never as a silent partial answer', async () => {
  if (streamSeeds.length === 0) return;
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: streamSeeds.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), async (index, fraction) => {
      const seed = streamSeeds[index]!;
      const bytes = seed.bytes.subarray(0, Math.floor(seed.bytes.length * fraction));
      const events = await wireEventsFromBytes(bytes);
      let decoded;
      try {
        decoded = decodeEvents(seed.format, events);
      } catch (error) {
        // The stream stage turns a decoder's typed error into an error event.
        assert.ok(isTypedError(error), `${seed.name} truncated at ${bytes.length}: ${describeError(error)}`);
        return;
      }
      const result = accumulate(decoded.events);
      assert.ok(result.complete || result.error !== undefined, `${seed.name} truncated at ${bytes.length} of ${seed.bytes.length} bytes ends silently`);
    }),
    { numRuns: 60, seed: SEED },
  );
});

streams('garbled, truncated, re-chunked streams convert to well-formed SSE in every format, and end', async () => {
  if (streamSeeds.length === 0 || streaming.length === 0) return;
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: streamSeeds.length - 1 }),
      fc.constantFrom(...streaming),
      fc.integer(),
      fc.record({ rechunk: fc.boolean(), truncate: fc.boolean(), garbage: fc.nat({ max: 3 }), mutations: fc.nat({ max: 2 }) }),
      async (index, to, seedNumber, options) => {
        const seed = streamSeeds[index]!;
        const { bytes, cuts, notes } = garbleStream(seed, seeded(seedNumber), options, mutateOptions);
        const what = `${seed.name} → ${to}: ${notes.join(', ')}`;
        let text: string;
        try {
          const converted = convertStream(chunked(bytes, cuts), { from: seed.format, to, model: 'test-model' });
          text = Buffer.concat(await collect(converted)).toString('utf8');
          await converted.losses;
        } catch (error) {
          throw new Error(`${what}: the converted stream failed: ${describeError(error)}`);
        }
        for (const message of parseSse(text)) {
          if (message.data === '[DONE]') continue;
          try {
            JSON.parse(message.data);
          } catch {
            throw new Error(`${what}: a data line of the output is not JSON: ${message.data.slice(0, 80)}`);
          }
        }
      },
    ),
    { numRuns: 80, seed: SEED },
  );
});
// An index is the stream's to choose; as an array slot, 100,000,000 would mean walking that many holes.
streams('a part index of 100,000,000 ends each converted stream with an error event', async () => {
  const file = join(GOLDEN_DIR, 'anthropic', 'stream-tools', 'stream.sse');
  if (!existsSync(file) || !streaming.includes('anthropic')) return;
  const text = readFileSync(file, 'utf8').replace(/"index":\d+/g, '"index":100000000');
  for (const to of streaming) {
    const converted = convertStream(chunked(new TextEncoder().encode(text), []), { from: 'anthropic', to, model: 'test-model' });
    const output = Buffer.concat(await collect(converted)).toString('utf8');
    const events = parseSse(output).map((message) => (message.data === '[DONE]' ? { data: '[DONE]' } : { ...(message.event === undefined ? {} : { event: message.event }), data: JSON.parse(message.data) as unknown }));
    const result = accumulate(decodeEvents(to, events).events);
    assert.ok(result.error !== undefined, `anthropic → ${to}: the stream ends with an error event`);
  }
});
streams('SSE framing: text with any line endings, cut anywhere, reads as eventsource-parser reads it whole', () => {
  const line = fc.oneof(
    fc.constant(''),
    fc.string({ maxLength: 12 }).map((text) => `data: ${text.replace(/[\r\n]/g, ' ')}`),
    fc.string({ maxLength: 12 }).map((text) => `event: ${text.replace(/[\r\n]/g, ' ')}`),
    fc.constant(': comment'),
    fc.nat({ max: 5000 }).map((size) => `data: ${'x'.repeat(size)}`),
  );
  const ending = fc.constantFrom('\n', '\r\n', '\r');
  const text = fc.array(fc.tuple(line, ending).map(([body, end]) => body + end), { maxLength: 30 }).map((lines) => lines.join(''));
  fc.assert(
    fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), (sse, cuts) => {
      const whole: unknown[] = [];
      const parser = createParser({ onEvent: (message) => whole.push({ data: message.data, event: message.event }) });
      parser.feed(sse);
      const bytes = new TextEncoder().encode(sse);
      const reader = sseFraming.createReader();
      const read: unknown[] = [];
      let from = 0;
      for (const cut of [...cuts.map((at) => at % (bytes.length + 1))].sort((a, b) => a - b)) {
        read.push(...reader.pushData!(bytes.subarray(from, cut)));
        from = cut;
      }
      read.push(...reader.pushData!(bytes.subarray(from)), ...reader.endData!());
      assert.equal(read.map((message) => ({ data: (message as { data: string }).data, event: (message as { event?: string }).event })), whole);
    }),
    { numRuns: 300 },
  );
});

streams.run();
