/**
 * Streams, for every format whose codec streams: every recorded stream
 * decodes; the same-format round trip reproduces the source events; decoding
 * does not depend on how the bytes are chunked; golden streams accumulate to
 * their whole responses; and every ordered pair converts a synthetic stream
 * to the same meaning as converting the whole response.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import { convertResponse, decodeResponse } from '../../src/formats/convert.ts';
import { convertStream } from '../../src/formats/stream.ts';
import { ndjsonFraming, sseFraming, utf8Chunks } from '../../src/core/framing.ts';
import { DATA_PIECES, type EncodedOnce, type SseMessage } from '../../src/core/stream-events.ts';
import {
  chunked,
  collect,
  decodeEvents,
  encodeEvents,
  messagesAsBytes,
  messagesAsWireEvents,
  neutral,
  random,
  rawFraming,
  streamExceptions,
  streamFixtures,
  streamingFormats,
  wireEvents,
  wireEventsFromBytes,
} from '../support/streams.ts';
import { crossCases, crossSource, readJson } from '../support/fixtures.ts';

const formats = streamingFormats();
const fixtures = streamFixtures().filter((fixture) => formats.includes(fixture.format));

const decode = suite('stream decode and round trip');
const counts = new Map<string, number>();
for (const fixture of fixtures) {
  counts.set(fixture.format, (counts.get(fixture.format) ?? 0) + 1);
  decode(fixture.name, async () => {
    const source = await wireEvents(fixture);
    const decoded = decodeEvents(fixture.format, source);
    const result = accumulate(decoded.events);
    const isErrorStream = decoded.events.some((event) => event.type === 'error');
    assert.ok(result.complete || isErrorStream, 'the stream ends, or reports why not');
    const reason = streamExceptions(fixture.format)[fixture.name.split('/').at(-1) ?? ''];
    if (reason !== undefined) return;
    const encoded = encodeEvents(fixture.format, decoded.events);
    assert.equal(decoded.losses.losses.concat(encoded.losses.losses), [], 'a same-format stream trip has no losses');
    // Event names count where the source has them (SSE, event streams, Bedrock's JSONL); other JSONL is data only.
    const named = fixture.framing !== 'jsonl' || source.some((event) => event.event !== undefined);
    const expected = named ? source : source.map((event) => ({ data: event.data }));
    const actual = messagesAsWireEvents(encoded.messages).map((event) => (named ? event : { data: event.data }));
    assert.equal(actual, expected, 'the same-format round trip reproduces the source events');
  });
  const golden = join(dirname(fixture.file), 'response.json');
  if (fixture.name.startsWith('golden/') && existsSync(golden)) {
    decode(`${fixture.name} accumulates to response.json`, async () => {
      const decoded = decodeEvents(fixture.format, await wireEvents(fixture), 'test-model');
      const whole = decodeResponse(fixture.format, readJson(golden), { model: 'test-model' }).ir;
      assert.equal(neutral(accumulate(decoded.events).response), neutral(whole));
    });
  }
}
decode.after(() => console.log(`\n  streams: ${[...counts].map(([format, count]) => `${count} ${format}`).join(', ') || 'no streaming codec yet'}`));
decode.run();

const chunking = suite('stream chunking');
for (const fixture of fixtures.filter(rawFraming)) {
  chunking(fixture.name, async () => {
    const bytes = new Uint8Array(readFileSync(fixture.file));
    const framing = fixture.framing === 'sse' ? undefined : fixture.format;
    const whole = decodeEvents(fixture.format, await wireEventsFromBytes(bytes, [], framing)).events;
    const everyByte = Array.from({ length: bytes.length }, (_, index) => index);
    assert.equal(decodeEvents(fixture.format, await wireEventsFromBytes(bytes, everyByte, framing)).events, whole, 'one byte at a time');
    const next = random(bytes.length);
    for (let round = 0; round < 3; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(next() * 20) }, () => Math.floor(next() * bytes.length));
      assert.equal(decodeEvents(fixture.format, await wireEventsFromBytes(bytes, cuts, framing)).events, whole, `random cuts ${cuts.join(',')}`);
    }
  });
}
chunking('UTF-8 text of a chunked stream is what one stream-mode TextDecoder gives, for every cut', () => {
  // A byte-order mark at the start (dropped), one in the middle at a cut (kept), characters of 2, 3 and 4 bytes, a broken sequence.
  const bytes = new Uint8Array([...new TextEncoder().encode('\uFEFFdata: é€🙂\n\n'), 0xef, 0xbb, 0xbf, ...new TextEncoder().encode('x 数据 🙂\n'), 0xc3, 0x0a, 0xf0, 0x9f]);
  const expected = new TextDecoder().decode(bytes);
  const next = random(7);
  for (let round = 0; round < 300; round++) {
    const cuts = [...new Set(Array.from({ length: Math.floor(next() * 8) }, () => Math.floor(next() * bytes.length)))].sort((a, b) => a - b);
    const text = utf8Chunks();
    let out = '';
    let start = 0;
    for (const cut of [...cuts, bytes.length]) {
      out += text.decode(bytes.subarray(start, cut));
      start = cut;
    }
    assert.is(out + text.end(), expected, `cuts ${cuts.join(',')}`);
  }
});
chunking('NDJSON lines cut anywhere, a line longer than many chunks among them, read as the whole text reads', () => {
  const long = JSON.stringify({ message: { role: 'assistant', content: `é€🙂 ${'x'.repeat(100_000)}` }, done: false });
  const text = `{"a":1}\n\n  {"b":"é"}\r\n${long}\n${long}\n{"c":[1,2]}\n \n{"d":"last, no newline"}`;
  const bytes = new TextEncoder().encode(text);
  const read = (chunks: Uint8Array[]): string[] => {
    const reader = ndjsonFraming.createReader();
    const out: string[] = [];
    for (const chunk of chunks) for (const event of reader.pushData!(chunk)) out.push(event.data);
    for (const event of reader.endData!()) out.push(event.data);
    return out;
  };
  const expected = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  assert.is(expected.length, 6);
  assert.equal(read([bytes]), expected);
  for (const size of [1, 7, 1000, 16_384]) {
    const chunks: Uint8Array[] = [];
    for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
    assert.equal(read(chunks), expected, `${size}-byte chunks`);
  }
  const next = random(11);
  for (let round = 0; round < 50; round++) {
    const cuts = [...new Set(Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * bytes.length)))].sort((a, b) => a - b);
    const chunks: Uint8Array[] = [];
    let start = 0;
    for (const cut of [...cuts, bytes.length]) {
      chunks.push(bytes.subarray(start, cut));
      start = cut;
    }
    assert.equal(read(chunks), expected, `cuts ${cuts.join(',')}`);
  }
});
chunking('a message written from its pieces gives the bytes of its data', () => {
  // Long texts with characters of 1 to 4 bytes and escapes, each repeated (its bytes made once and copied), next to plain messages.
  const long: EncodedOnce = { text: JSON.stringify(`é€🙂 数据 "x"\n${'a'.repeat(2000)}`) };
  const other: EncodedOnce = { text: JSON.stringify('plain '.repeat(300)) };
  const pieced = (parts: (string | EncodedOnce)[]): SseMessage => ({
    event: 'response.output_text.done',
    data: parts.map((part) => (typeof part === 'string' ? part : part.text)).join(''),
    [DATA_PIECES]: parts,
  });
  const messages: SseMessage[] = [
    { event: 'response.output_text.delta', data: '{"delta":"é"}' },
    pieced(['{"text":', long, ',"again":', long, ',"other":', other, '}']),
    { data: '{"delta":"数"}' },
    pieced([long, '']),
  ];
  const plain = messages.map((message) => (message.event === undefined ? { data: message.data } : { event: message.event, data: message.data }));
  for (let round = 0; round < 2; round++) assert.equal([...sseFraming.write(messages)], [...sseFraming.write(plain)]);
});
chunking.run();

/** The meaning two formats can agree on: part kinds and contents, stop reasons, token counts. */
function meaning(response: ReturnType<typeof accumulate>['response'], to: string) {
  return response.candidates.map((candidate) => ({
    // A whole Responses body turns refused text into refusal parts (a refusal); a stream has sent it as text
    // before the stop reason arrived, and ends incomplete/content_filter (a filter). Both say "withheld".
    stop: to === 'openai-responses' && candidate.stopReason?.unified === 'refusal' ? 'content_filter' : candidate.stopReason?.unified,
    parts: candidate.message.parts.map((part) => {
      switch (part.type) {
        case 'text':
        case 'refusal':
          // A whole Responses body may turn refused text into a refusal part; a stream cannot, since the
          // stop reason arrives after the text. Both carry the same words.
          return { type: 'text', text: part.text };
        case 'reasoning':
          return { type: part.type, text: part.text };
        case 'tool_call':
          return { type: part.type, name: part.name, arguments: part.arguments };
        default:
          return { type: part.type };
      }
    }),
  }));
}

const cross = suite('stream cross-format');
let pairs = 0;
for (const crossCase of crossCases()) {
  for (const from of formats) {
    const source = crossSource(crossCase, from, 'response');
    if (source === undefined) continue;
    for (const to of formats) {
      pairs++;
      cross(`${crossCase.name} ${from} → ${to}`, async () => {
        const model = crossCase.model ?? 'test-model';
        const whole = decodeResponse(from, readJson(source), { model }).ir;
        const sourceBytes = messagesAsBytes(encodeEvents(from, responseToEvents(whole), model).messages, from);
        const converted = convertStream(chunked(sourceBytes, []), { from, to, model });
        const bytes = Buffer.concat(await collect(converted));
        await converted.losses;
        const streamed = accumulate(decodeEvents(to, await wireEventsFromBytes(new Uint8Array(bytes), [], to), model).events);
        assert.ok(streamed.complete, 'the converted stream ends');
        const expected = decodeResponse(to, convertResponse(readJson(source), { from, to, model }).body, { model }).ir;
        assert.equal(meaning(streamed.response, to), meaning(expected, to));
      });
    }
  }
}
cross.after(() => console.log(`\n  stream cross: ${pairs} conversions`));
cross.run();
