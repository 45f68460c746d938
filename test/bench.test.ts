/**
 * The benchmark's code, without timing anything: the workload generators are
 * deterministic and give bodies every format decodes, one conversion per
 * workload runs (interlingua and llm-bridge), streams transcode, and the
 * report renders, so `npm run bench` cannot rot unnoticed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { translateBetweenProviders } from 'llm-bridge';
import { convertRequest, convertResponse } from '../src/core/convert.ts';
import { implementedFormats } from '../src/core/registry.ts';
import { bridgeProvider } from '../scripts/bench/conversions.ts';
import { differences, wireFacts } from '../scripts/bench/meaning.ts';
import { markdown, targetRows, type BenchRun } from '../scripts/bench/report.ts';
import { framedBytes, splitSse, streamFacts, transcodeMessages } from '../scripts/bench/streams.ts';
import {
  BENCH_MODEL,
  anthropicStreamMessages,
  bodyWorkloads,
  smallChatBodies,
  streamWorkload,
  streamingFormats,
} from '../scripts/bench/workloads.ts';

const test = suite('bench');
const workloads = bodyWorkloads({ imageSize: 64 * 1024, turns: 4 });

test('workloads are deterministic and exist in every implemented format', () => {
  const again = bodyWorkloads({ imageSize: 64 * 1024, turns: 4 });
  assert.equal(
    workloads.map((workload) => workload.name),
    ['small-chat', 'conversation-50', 'image-10mb', 'thinking-tools-response'],
  );
  for (const [index, workload] of workloads.entries()) {
    assert.equal(workload.texts, again[index]!.texts, workload.name);
    for (const format of implementedFormats()) assert.type(workload.texts[format], 'string', `${workload.name} ${format}`);
  }
  const image = JSON.parse(workloads[2]!.texts.anthropic!) as { messages: { content: { source?: { data: string } }[] }[] };
  assert.is(image.messages[0]!.content[0]!.source!.data.length, 64 * 1024);
});

test('one conversion per workload: interlingua keeps the meaning of the Anthropic source for Anthropic', () => {
  for (const workload of workloads) {
    const text = workload.texts['openai-chat']!;
    const convert = workload.kind === 'request' ? convertRequest : convertResponse;
    const out = convert(text, { from: 'openai-chat', to: 'anthropic', model: BENCH_MODEL });
    const expected = wireFacts(workload.kind, 'openai-chat', JSON.parse(text));
    const actual = wireFacts(workload.kind, 'anthropic', out.body);
    assert.equal(differences(expected, actual), [], workload.name);
  }
});

test('one llm-bridge conversion per request workload runs', () => {
  for (const workload of workloads.filter((item) => item.kind === 'request')) {
    const out = translateBetweenProviders(bridgeProvider('anthropic'), bridgeProvider('openai-chat'), JSON.parse(workload.texts.anthropic!) as never);
    assert.type(JSON.stringify(out), 'string', workload.name);
  }
});

test('the stream workload has the requested number of events and transcodes between streaming formats', () => {
  assert.is(anthropicStreamMessages(300).length, 300);
  const stream = streamWorkload(300);
  const formats = streamingFormats();
  if (!formats.includes('anthropic')) return;
  assert.is(stream.events.anthropic, 300);
  for (const from of formats) {
    const messages = stream.messages[from]!;
    assert.is(messages.length, stream.events[from]);
    const text = stream.texts[from];
    if (text !== undefined) assert.is(splitSse(text).length, stream.events[from]);
    assert.type(streamFacts(from, framedBytes(from, messages)), 'object', `${from} decodes in its own framing`);
    for (const to of formats.filter((format) => format !== from)) {
      const out = transcodeMessages(messages, from, to);
      const facts = streamFacts(to, out.bytes);
      assert.type(facts, 'object', `${from} → ${to}: ${String(facts)}`);
    }
  }
});

test('the proxy bodies exist in every format', () => {
  const bodies = smallChatBodies();
  for (const format of implementedFormats()) {
    assert.type(bodies.requests[format], 'string');
    assert.type(bodies.responses[format], 'string');
  }
});

test('the report renders from a run', () => {
  const timing = { ns: 2000, min: 1000, iterations: 10, samples: 3 };
  const workload = workloads[0]!;
  const run: BenchRun = {
    quick: true,
    machine: { Node: process.version },
    settings: {},
    workloads: [workload],
    conversions: [
      {
        workload: workload.name,
        kind: 'request',
        from: 'anthropic',
        to: 'openai-chat',
        sourceBytes: 100,
        outputBytes: 120,
        floor: timing,
        timing,
        ratio: 1,
        losses: 0,
        differences: [],
        others: [{ name: 'llm-bridge', timing, ratio: 1.5, differences: ['system: "a" → ""'] }],
      },
    ],
    corpus: [{ from: 'gemini', to: 'anthropic', bodies: 3, refused: 1, bytes: 300, floor: timing, timing, ratio: 1.7, losses: 2 }],
    streams: [],
    memory: [{ operation: 'anthropic → gemini', bodyBytes: 100, outputBytes: 100, rssBefore: 1000, peak: 1200, added: 200 }],
    proxy: [],
    otherProxies: ['none'],
    otherTranslators: ['none'],
    seconds: 1,
  };
  const text = markdown(run, 'notes');
  assert.ok(text.includes('| anthropic → openai-chat |'));
  assert.ok(text.includes('system: "a" → ""'));
  assert.ok(targetRows(run).some((row) => row[2] === 'met'));
  assert.ok(text.includes('| gemini → anthropic | 2 (1 refused) |'));
  assert.ok(targetRows(run).some((row) => row[0]?.endsWith('corpus requests') === true && row[2] === '**missed**'));
});

test.run();
