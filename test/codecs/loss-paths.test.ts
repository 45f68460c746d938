/**
 * Loss paths a user can follow: every loss of a conversion carries `path`, a
 * JSON pointer into the body the caller passed in, and following it in that
 * body lands on a value. Checked for every golden cross conversion and every
 * corpus payload converted to every other format. Encode losses also keep
 * the IR pointer (`irPath`); one that names a message, part, tool or
 * candidate must land on that thing's own place in the source, not on the
 * root, so the test also fails when a decoder records no origins.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { implementedFormats } from '../../src/formats/registry.ts';
import { convertError, convertRequest, convertResponse, type ConvertOptions } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { Loss } from '../../src/core/losses.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { readFileSync } from 'node:fs';
import { convertStream } from '../../src/formats/stream.ts';
import { corpusFixtures, crossCases, crossSource, fixtureBody, readJson, type FixtureKind } from '../support/fixtures.ts';
import { streamFixtures, streamingFormats, wireEventsFromBytes } from '../support/streams.ts';
import { resolves } from '../support/pointers.ts';

const CONVERT = { request: convertRequest, response: convertResponse, error: convertError } as const;
const formats = implementedFormats();

/** IR pointers that name a node every decoder records an origin for. */
const RECORDED = /^\/(messages\/\d+|tools\/\d+|candidates\/\d+\/message\/parts\/\d+)(\/|$)/;

interface Tally {
  conversions: number;
  losses: number;
  translated: number;
}

function check(body: unknown, losses: readonly Loss[], what: string, tally: Tally): void {
  tally.conversions++;
  for (const loss of losses) {
    tally.losses++;
    assert.ok(resolves(body, loss.path), `${what}: ${loss.code} at "${loss.path}" (IR "${loss.irPath ?? ''}") is not in the source body`);
    if (loss.irPath === undefined) continue;
    tally.translated++;
    if (RECORDED.test(loss.irPath)) assert.is.not(loss.path, '', `${what}: ${loss.code} at IR "${loss.irPath}" fell back to the root`);
  }
}

function convertOrSkip(kind: FixtureKind, body: unknown, options: ConvertOptions): Loss[] | undefined {
  try {
    return CONVERT[kind](body, options).losses;
  } catch (error) {
    // A body the target cannot take at all is a typed error, tested elsewhere; here only losses count.
    if (isInterlinguaError(error)) return undefined;
    throw error;
  }
}

const test = suite('loss paths');

const goldenTally: Tally = { conversions: 0, losses: 0, translated: 0 };
test('golden cross conversions: every loss path lands in the source body', () => {
  for (const crossCase of crossCases()) {
    for (const kind of ['request', 'response'] as const) {
      for (const from of formats) {
        const source = crossSource(crossCase, from, kind);
        if (source === undefined) continue;
        const body = readJson(source);
        for (const to of formats) {
          const options = crossCase.model === undefined ? { from, to } : { from, to, model: crossCase.model };
          check(body, CONVERT[kind](body, options).losses, `${crossCase.name} ${kind} ${from} → ${to}`, goldenTally);
        }
      }
    }
  }
  assert.ok(goldenTally.translated > 100, `encode losses were checked (${goldenTally.translated})`);
});

const corpusTally: Tally = { conversions: 0, losses: 0, translated: 0 };
test('corpus payloads to every format: every loss path lands in the source body', () => {
  const implemented = new Set<FormatId>(formats);
  for (const fixture of corpusFixtures()) {
    if (!implemented.has(fixture.format)) continue;
    const { body } = fixtureBody(fixture);
    for (const to of formats) {
      const losses = convertOrSkip(fixture.kind, body, { from: fixture.format, to, model: 'corpus-model' });
      if (losses !== undefined) check(body, losses, `${fixture.name} → ${to}`, corpusTally);
    }
  }
  assert.ok(corpusTally.translated > 1000, `encode losses were checked (${corpusTally.translated})`);
});

test('Anthropic system and split tool-result turns: paths name the wire blocks, not IR indexes', () => {
  const body = {
    model: 'claude-test',
    max_tokens: 100,
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          { type: 'text', text: 'and tomorrow?', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
  };
  // DeepSeek's dialect of Chat takes no prompt-cache breakpoint (plain OpenAI does).
  const { losses } = convertRequest(body, { from: 'anthropic', to: 'openai-chat', dialect: 'deepseek' });
  const paths = losses.filter((loss) => loss.irPath !== undefined).map((loss) => [loss.irPath, loss.path]);
  // IR message 0 is the system prompt; the third wire turn is IR messages 3 (tool) and 4 (user). Each dropped breakpoint points at its `cache_control`.
  assert.equal(paths, [
    ['/messages/0/parts/0/cache', '/system/0/cache_control'],
    ['/messages/4/parts/0/cache', '/messages/2/content/1/cache_control'],
  ]);
});

test('Gemini responses: candidate parts and stop reasons point into the candidate', () => {
  const body = {
    candidates: [
      { index: 0, content: { role: 'model', parts: [{ text: 'a' }] }, finishReason: 'STOP' },
      { index: 1, content: { role: 'model', parts: [{ text: 'b' }] }, finishReason: 'STOP' },
    ],
  };
  const { losses } = convertResponse(body, { from: 'gemini', to: 'anthropic', model: 'gemini-test' });
  const dropped = losses.find((loss) => loss.irPath === '/candidates/1');
  assert.is(dropped?.path, '/candidates/1');
});

test('fields of a nested object that the decoder kept at the body level point into that object', () => {
  // Vertex's streamFunctionCallArguments (recorded by js-genai) has no twin anywhere: kept as the rest of toolConfig.functionCallingConfig.
  const body = {
    contents: [{ role: 'user', parts: [{ text: 'what is 100/2' }] }],
    toolConfig: { functionCallingConfig: { streamFunctionCallArguments: true } },
    tools: [{ functionDeclarations: [{ name: 'divide', parameters: { type: 'object' } }] }],
  };
  for (const to of ['openai-chat', 'anthropic', 'bedrock-converse'] as const) {
    const { losses } = convertRequest(body, { from: 'gemini', to, model: 'm' });
    const lost = losses.filter((loss) => loss.message.includes('"functionCallingConfig"'));
    assert.equal(lost.map((loss) => loss.path), ['/toolConfig/functionCallingConfig'], to);
  }
  // A key found in two nested objects is ambiguous: the loss stays at the object that holds both.
  const twice = { ...body, generationConfig: { functionCallingConfig: { x: 1 } } };
  const { losses } = convertRequest(twice, { from: 'gemini', to: 'openai-chat', model: 'm' });
  assert.ok(losses.some((loss) => loss.message.includes('"functionCallingConfig"') && loss.path === ''), JSON.stringify(losses));
});

test('made-up call ids: losses point at the source call and result, alone and beside other losses, on every call', () => {
  // Decoders anchor the calls and results whose ids they made up; a loss on anything else still takes the recording decode.
  const gemini = (extra: object) => ({
    contents: [
      { role: 'user', parts: [{ text: 'weather?' }] },
      { role: 'model', parts: [{ text: 'checking' }, { functionCall: { name: 'weather', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { sky: 'clear' } } }] },
    ],
    ...extra,
  });
  const ollama = (extra: object) => ({
    model: 'llama-test',
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'weather', arguments: { city: 'Oslo' } } }] },
      { role: 'tool', tool_name: 'weather', content: 'clear' },
    ],
    ...extra,
  });
  const cases = [
    { from: 'gemini', body: gemini, other: { generationConfig: { topK: 3 } }, call: '/contents/1/parts/1', result: '/contents/2/parts/0', dropped: '/generationConfig/topK' },
    { from: 'ollama', body: ollama, other: { options: { top_k: 3 } }, call: '/messages/1/tool_calls/0', result: '/messages/2', dropped: '/options/top_k' },
  ] as const;
  for (const { from, body, other, call, result, dropped } of cases) {
    for (let round = 0; round < 2; round++) {
      for (const extra of [{}, other]) {
        const { losses } = convertRequest(body(extra), { from, to: 'openai-responses', model: 'm' });
        const paths = losses.map((loss) => [loss.code, loss.path, loss.irPath]);
        const expected = [
          ['synthesised_id', call, '/messages/1/parts/' + (from === 'gemini' ? '1/id' : '0/id')],
          ['synthesised_id', result, '/messages/2/parts/0/callId'],
        ];
        if (extra === other) expected.push(['dropped_field', dropped, '/generation/topK']);
        assert.equal(paths, expected, `${from}, round ${round}, ${extra === other ? 'with' : 'without'} another loss`);
      }
    }
  }
});

test('loss paths do not depend on what the pair converted before (origins recorded from the start, again, or not at all)', () => {
  // Settings-only losses need no recording; a dropped part does. The engine switches how it records by the pair's recent needs.
  const settingsOnly = { model: 'm', messages: [{ role: 'user', content: 'hi' }], seed: 3 };
  const partLoss = {
    model: 'm',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
    seed: 3,
  };
  const paths = (body: object) => convertRequest(body, { from: 'openai-chat', to: 'anthropic' }).losses.map((loss) => `${loss.code} ${loss.irPath} → ${loss.path}`);
  const first = { settings: paths(settingsOnly), part: paths(partLoss) };
  assert.equal(first.settings, ['defaulted /generation/maxTokens → ', 'dropped_field /generation/seed → /seed']);
  assert.ok(first.part.includes('unsupported_part /messages/0/parts/1 → /messages/0/content/1'), first.part.join('; '));
  for (const run of ['pppppppp', 'ssssssssssssssss', 'psps', 'spppss']) {
    for (const which of run) assert.equal(which === 's' ? paths(settingsOnly) : paths(partLoss), which === 's' ? first.settings : first.part, run);
  }
});

test('a few losses or many, each placed at its own part (a listing second decode scanned per loss, or a map of every origin)', () => {
  for (const count of [1, 8, 9, 40]) {
    const content = Array.from({ length: count }, () => [{ type: 'text', text: 'hi' }, { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]).flat();
    const body = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content }] };
    for (let round = 0; round < 3; round++) {
      const placed = convertRequest(body, { from: 'openai-chat', to: 'anthropic' }).losses.filter((loss) => loss.code === 'unsupported_part');
      assert.equal(
        placed.map((loss) => `${loss.irPath} → ${loss.path}`),
        Array.from({ length: count }, (_, index) => `/messages/0/parts/${2 * index + 1} → /messages/0/content/${2 * index + 1}`),
        `${count} losses, round ${round}`,
      );
    }
  }
});

const streamTally = { conversions: 0, losses: 0, parts: 0, root: 0 };
test('streams to every format: encode losses name the source event that opened the part', async () => {
  const streaming = new Set(streamingFormats());
  for (const fixture of streamFixtures()) {
    if (!streaming.has(fixture.format)) continue;
    const raw = readFileSync(fixture.file);
    const bytes =
      fixture.framing === 'sse'
        ? new Uint8Array(raw)
        : new TextEncoder().encode(raw.toString('utf8').split('\n').filter((line) => line.trim() !== '').map((line) => `data: ${line}\n\n`).join(''));
    const events = (await wireEventsFromBytes(bytes)).length;
    for (const to of streaming) {
      if (to === fixture.format) continue;
      const converted = convertStream(new Blob([bytes]).stream(), { from: fixture.format, to, model: 'corpus-model' });
      await new Response(converted).arrayBuffer();
      streamTally.conversions++;
      for (const loss of await converted.losses) {
        if (loss.irPath === undefined) continue;
        streamTally.losses++;
        const match = /^\/(\d+)$/.exec(loss.path);
        assert.ok(loss.path === '' || (match !== null && Number(match[1]) < events), `${fixture.name} → ${to}: ${loss.code} at "${loss.path}" is no event of the ${events}`);
        if (!/^\/candidates\/\d+\/message\/parts\/\d+/.test(loss.irPath)) continue;
        streamTally.parts++;
        if (loss.path === '') streamTally.root++;
      }
    }
  }
  assert.ok(streamTally.parts > 100, `part losses were checked (${streamTally.parts})`);
  assert.ok(streamTally.root === 0, `${streamTally.root} of ${streamTally.parts} part losses fell back to the root`);
});

test.after(() => {
  console.log(`\n  loss paths: golden ${goldenTally.conversions} conversions, ${goldenTally.losses} losses (${goldenTally.translated} encode); corpus ${corpusTally.conversions} conversions, ${corpusTally.losses} losses (${corpusTally.translated} encode); streams ${streamTally.conversions} conversions, ${streamTally.losses} encode losses (${streamTally.parts} of parts)`);
});
test.run();
