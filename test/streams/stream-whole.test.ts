/**
 * Streamed and whole answers say the same thing (issue 16, item 3). For
 * every recorded stream (corpus and golden) of every format and every target
 * format, two paths must agree on the meaning:
 *
 * - streamed: the source stream converted to the target's stream, decoded
 *   back and folded with `accumulate`;
 * - whole: the source stream folded with `accumulate`, converted as a whole
 *   response to the target, decoded back.
 *
 * Meaning is the visible text, the tool calls with their arguments, the stop
 * class and the token counts. Known exceptions are listed with their reasons
 * in `test/stream-whole-exceptions.json`, keyed by fixture (every target) or
 * by `fixture → target`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate } from '../../src/core/accumulate.ts';
import { decodeResponse, encodeResponse } from '../../src/formats/convert.ts';
import type { FormatId, Response, UnifiedStopReason } from '../../src/core/ir.ts';
import { REPO_ROOT } from '../support/fixtures.ts';
import { decodeEvents, encodeEvents, messagesAsWireEvents, streamFixtures, streamingFormats, wireEvents } from '../support/streams.ts';

const MODEL = 'model-under-test';
const EXCEPTIONS = JSON.parse(readFileSync(join(REPO_ROOT, 'test/streams/stream-whole-exceptions.json'), 'utf8')) as Record<string, string>;

/** Stop reasons grouped by what a caller does next. */
const STOP_CLASS: Readonly<Record<UnifiedStopReason, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  other: 'stop',
  pause: 'stop',
  tool_calls: 'tool_calls',
  max_tokens: 'length',
  context_overflow: 'length',
  content_filter: 'filtered',
  refusal: 'filtered',
  error: 'error',
};

interface Meaning {
  text: string;
  calls: { name: string; arguments: unknown }[];
  stop: string | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

/** Arguments as a caller reads them: text that is not a JSON object is the same text whether it arrived bare or under `_raw_arguments`. */
function argumentsOf(parsed: Record<string, unknown> | undefined, raw: string | undefined): unknown {
  if (parsed === undefined) return raw ?? '';
  const keys = Object.keys(parsed);
  return keys.length === 1 && keys[0] === '_raw_arguments' ? parsed['_raw_arguments'] : parsed;
}

/** The caller-visible meaning of candidate 0 of a response. */
function meaning(response: Response): Meaning {
  const candidate = response.candidates[0];
  let text = '';
  const calls: Meaning['calls'] = [];
  for (const part of candidate?.message.parts ?? []) {
    if (part.type === 'text' || part.type === 'refusal') text += part.text;
    if (part.type === 'tool_call') calls.push({ name: part.name, arguments: argumentsOf(part.arguments, part.rawArguments) });
  }
  const stop = candidate?.stopReason === undefined ? undefined : STOP_CLASS[candidate.stopReason.unified];
  return { text, calls, stop, inputTokens: response.usage?.inputTokens, outputTokens: response.usage?.outputTokens };
}

const test = suite('streamed and whole answers');
const formats = streamingFormats();
let compared = 0;
let excepted = 0;

for (const fixture of streamFixtures()) {
  if (!formats.includes(fixture.format)) continue;
  test(fixture.name, async () => {
    const source = decodeEvents(fixture.format, await wireEvents(fixture), MODEL).events;
    const folded = accumulate(source);
    if (folded.error !== undefined || !folded.complete || folded.response.candidates.length === 0) return;
    const failures: string[] = [];
    for (const target of formats) {
      const key = `${fixture.name} → ${target}`;
      if (EXCEPTIONS[key] !== undefined || EXCEPTIONS[fixture.name] !== undefined) {
        excepted++;
        continue;
      }
      const streamed = encodeEvents(target, source, MODEL);
      const back = accumulate(decodeEvents(target, messagesAsWireEvents(streamed.messages), MODEL).events);
      const whole = encodeResponse(target as FormatId, folded.response, { model: MODEL });
      const wholeBack = decodeResponse(target, whole.body, { model: MODEL }).ir;
      try {
        assert.equal(meaning(back.response), meaning(wholeBack));
        compared++;
      } catch (error) {
        failures.push(`${key}: ${(error as Error).message}\nstreamed ${JSON.stringify(meaning(back.response))}\nwhole    ${JSON.stringify(meaning(wholeBack))}`);
      }
    }
    if (failures.length > 0) assert.unreachable(failures.join('\n\n'));
  });
}

test.after(() => console.log(`\n  streamed vs whole: ${compared} conversions compared, ${excepted} listed exceptions`));
test.run();

const custom = suite('a streamed custom tool call');
const CUSTOM_STREAM = 'corpus/openai-responses/stream/lingua--responsesCustomToolCallStreamingParam--response-streaming.jsonl';

custom('reaches Anthropic and Converse as the input of a function (as the whole answer does) and Chat as a custom call', async () => {
  const fixture = streamFixtures().find((candidate) => candidate.name === CUSTOM_STREAM);
  assert.ok(fixture !== undefined, `${CUSTOM_STREAM} is in the corpus`);
  const source = decodeEvents('openai-responses', await wireEvents(fixture)).events;
  const anthropic = messagesAsWireEvents(encodeEvents('anthropic', source).messages);
  const partial = anthropic
    .map((event) => event.data as { type?: string; delta?: { type?: string; partial_json?: string } })
    .filter((data) => data.type === 'content_block_delta' && data.delta?.type === 'input_json_delta')
    .map((data) => data.delta?.partial_json ?? '')
    .join('');
  const input = JSON.parse(partial) as Record<string, unknown>;
  assert.equal(Object.keys(input), ['input'], 'the free-form text travels whole as the input of the function that stands for the tool');
  assert.type(input['input'], 'string');
  const chat = messagesAsWireEvents(encodeEvents('openai-chat', source).messages);
  const calls = chat.flatMap((event) => {
    const data = event.data as { choices?: { delta?: { tool_calls?: { type?: string; custom?: { input?: string } }[] } }[] };
    return data.choices?.[0]?.delta?.tool_calls ?? [];
  });
  assert.is(calls[0]?.type, 'custom');
  assert.is(calls.map((call) => call.custom?.input ?? '').join(''), input['input']);
  // Converse streams the text as it comes, each piece escaped into the same JSON.
  const converse = encodeEvents('bedrock-converse', source).messages.map((message) => JSON.parse(message.data) as { delta?: { toolUse?: { input?: string } } });
  const pieces = converse.map((data) => data.delta?.toolUse?.input).filter((piece) => piece !== undefined);
  assert.ok(pieces.length > 2, `pieces: ${pieces.length}`);
  assert.equal(JSON.parse(pieces.join('')), input);
});

custom.run();
