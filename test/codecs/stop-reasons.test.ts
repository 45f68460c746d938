/**
 * One stop-reason table per format (issue 16, item 4): for every neutral stop
 * reason of another format, a target's whole-response encoder and its stream
 * encoder say the same thing (the same wire value, decoded back to the same
 * stop reason) and report the same approximation. Refusals and content
 * filters never reach a caller as a normal stop.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accumulate, responseToEvents } from '../../src/core/accumulate.ts';
import { decodeResponse, encodeResponse } from '../../src/formats/convert.ts';
import type { FormatId, Response, UnifiedStopReason } from '../../src/core/ir.ts';
import { decodeEvents, encodeEvents, messagesAsWireEvents, streamingFormats } from '../support/streams.ts';

const test = suite('stop reasons');

const REASONS: readonly UnifiedStopReason[] = [
  'end_turn', 'max_tokens', 'stop_sequence', 'tool_calls', 'content_filter', 'refusal', 'pause', 'context_overflow', 'error', 'other',
];

/** Reasons that mean the answer was withheld: no target may present them as a normal stop. */
const FILTERED: ReadonlySet<UnifiedStopReason> = new Set(['content_filter', 'refusal']);

function response(unified: UnifiedStopReason, source: FormatId): Response {
  const parts: Response['candidates'][number]['message']['parts'] = [{ type: 'text', text: 'Partial answer.' }];
  if (unified === 'tool_calls') parts.push({ type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'x' } });
  return {
    id: 'resp_stop',
    model: 'model-x',
    created: 1700000000,
    candidates: [{ index: 0, message: { role: 'assistant', parts }, stopReason: { unified, raw: `${source}-raw-${unified}`, format: source } }],
    usage: { inputTokens: 3, outputTokens: 2 },
  };
}

const approximations = (losses: readonly { code: string; path: string }[]): string[] =>
  losses.filter((loss) => loss.path.endsWith('/stopReason')).map((loss) => `${loss.code} ${loss.path}`);

for (const target of streamingFormats()) {
  const source: FormatId = target === 'anthropic' ? 'openai-chat' : 'anthropic';
  for (const unified of REASONS) {
    test(`${unified} from ${source} → ${target}: whole and streamed agree`, () => {
      const ir = response(unified, source);
      const whole = encodeResponse(target, ir);
      const wholeStop = decodeResponse(target, whole.body, { model: 'model-x' }).ir.candidates[0]?.stopReason;
      const streamed = encodeEvents(target, responseToEvents(ir), 'model-x');
      const redecoded = accumulate(decodeEvents(target, messagesAsWireEvents(streamed.messages), 'model-x').events).response;
      const streamStop = redecoded.candidates[0]?.stopReason;
      assert.equal(streamStop?.raw, wholeStop?.raw, 'the stream ends with the wire value the whole response has');
      if (unified === 'refusal' && target === 'openai-responses') {
        // The whole body turns the refused text into refusal parts (a refusal, exactly); the stream has sent it as text (a filter, approximated).
        assert.equal([wholeStop?.unified, streamStop?.unified], ['refusal', 'content_filter']);
      } else {
        assert.equal(streamStop, wholeStop, 'the stream ends with the stop reason the whole response has');
        assert.equal(approximations(streamed.losses.losses), approximations(whole.losses), 'the same approximation is reported');
      }
      if (FILTERED.has(unified)) {
        // Where the target has no way to say it (Ollama), a loss says so.
        const said = wholeStop !== undefined && FILTERED.has(wholeStop.unified);
        assert.ok(said || approximations(whole.losses).length > 0, `a ${unified} reaches ${target} as ${JSON.stringify(wholeStop)}, a normal stop, without a loss`);
      }
    });
  }
}

test('Anthropic refusal reaches a Responses caller as incomplete/content_filter, with a loss when streamed', () => {
  const ir = response('refusal', 'anthropic');
  const { body } = encodeResponse('openai-responses', ir);
  const wire = body as { status: string; incomplete_details: unknown };
  assert.is(wire.status, 'incomplete');
  assert.equal(wire.incomplete_details, { reason: 'content_filter' });
  const streamed = encodeEvents('openai-responses', responseToEvents(ir));
  const terminal = messagesAsWireEvents(streamed.messages).at(-1);
  assert.is(terminal?.event, 'response.incomplete');
  assert.ok(streamed.losses.losses.some((loss) => loss.code === 'approximated' && loss.path === '/candidates/0/stopReason'));
});

test('Anthropic pause_turn: whole and streamed Responses both say completed', () => {
  const ir = response('pause', 'anthropic');
  assert.is((encodeResponse('openai-responses', ir).body as { status: string }).status, 'completed');
  const events = messagesAsWireEvents(encodeEvents('openai-responses', responseToEvents(ir)).messages);
  assert.is(events.at(-1)?.event, 'response.completed');
});

test.run();
