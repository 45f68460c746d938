/**
 * A stream reports what its whole answer reports (issue 37): an Ollama
 * answer's timings (`total_duration`, `load_duration`,
 * `prompt_eval_duration`, `eval_duration`) have no place in the other
 * formats, and a conversion that drops them says so, streamed as whole. The
 * Responses and Converse stream encoders used to drop them without a word.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate } from '../../src/core/accumulate.ts';
import { encodeResponse } from '../../src/formats/convert.ts';
import type { FormatId } from '../../src/core/ir.ts';
import type { Loss } from '../../src/core/losses.ts';
import { decodeEvents, encodeEvents, streamFixtures, wireEvents } from '../support/streams.ts';

const MODEL = 'model-under-test';
const TARGETS: FormatId[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'bedrock-converse'];
const TIMINGS = ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_duration'];

/** The timing fields a conversion reported as dropped, sorted. */
function droppedTimings(losses: readonly Loss[]): string[] {
  return losses
    .filter((loss) => loss.code === 'dropped_field')
    .map((loss) => TIMINGS.find((name) => loss.message.includes(`"${name}"`)))
    .filter((name): name is string => name !== undefined)
    .sort();
}

const test = suite('stream losses match the whole answer');
const fixtures = streamFixtures().filter((fixture) => fixture.format === 'ollama' && fixture.name.startsWith('golden/'));

test('there are Ollama streams with timings to convert', () => {
  assert.ok(fixtures.length >= 2, `${fixtures.length} golden Ollama streams`);
});

for (const fixture of fixtures) {
  for (const target of TARGETS) {
    test(`${fixture.name} → ${target}: the dropped timings are reported streamed as whole`, async () => {
      const source = decodeEvents('ollama', await wireEvents(fixture), MODEL).events;
      const streamed = encodeEvents(target, source, MODEL).losses.losses;
      const whole = encodeResponse(target, accumulate(source).response, { model: MODEL }).losses;
      assert.equal(droppedTimings(whole), [...TIMINGS].sort(), 'the whole conversion reports the four timings');
      assert.equal(droppedTimings(streamed), droppedTimings(whole));
    });
  }
}

test.run();
