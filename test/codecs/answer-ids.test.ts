/**
 * Ids and times interlingua makes up for answers (src/core/answer-ids.ts):
 * unique per answer and in the target's own shape, the clock's time, and
 * fixed where a caller asks for reproducible output.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { convertResponse } from '../../src/formats/convert.ts';
import { convertStream } from '../../src/formats/stream.ts';
import { fixedAnswerIds } from '../../src/core/answer-ids.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { chunked, collect, wireEventsFromBytes } from '../support/streams.ts';

const test = suite('answer ids');
// An Ollama answer has no id; a Gemini answer without its responseId has neither an id nor a time.
const OLLAMA = readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', 'ollama.response.json'));
const { responseId: _id, ...GEMINI } = readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', 'gemini.response.json')) as Record<string, unknown>;
const SHAPE: Record<string, { field: string; prefix: string; created?: string }> = {
  anthropic: { field: 'id', prefix: 'msg_' },
  'openai-chat': { field: 'id', prefix: 'chatcmpl-', created: 'created' },
  'openai-responses': { field: 'id', prefix: 'resp_', created: 'created_at' },
};

for (const [to, shape] of Object.entries(SHAPE) as [FormatId, (typeof SHAPE)[string]][]) {
  test(`${to}: a made-up id is unique per answer and shaped ${shape.prefix}…, its time the clock's; fixedAnswerIds gives ${shape.prefix}interlingua and 0`, () => {
    const before = Math.floor(Date.now() / 1000);
    const first = convertResponse(GEMINI, { from: 'gemini', to }).body as Record<string, unknown>;
    const second = convertResponse(GEMINI, { from: 'gemini', to }).body as Record<string, unknown>;
    assert.match(String(first[shape.field]), new RegExp(`^${shape.prefix}[A-Za-z0-9]{24}$`));
    assert.is.not(first[shape.field], second[shape.field]);
    if (shape.created !== undefined) {
      const created = first[shape.created] as number;
      assert.ok(created >= before && created <= Math.floor(Date.now() / 1000) + 1, `${created}`);
    }
    const fixed = convertResponse(GEMINI, { from: 'gemini', to, ids: fixedAnswerIds }).body as Record<string, unknown>;
    assert.is(fixed[shape.field], `${shape.prefix}interlingua`);
    if (shape.created !== undefined) assert.is(fixed[shape.created], 0);
  });
}

/** The wire events of an Ollama golden answer converted as a stream to `to`. */
async function streamed(to: FormatId, ids?: typeof fixedAnswerIds): Promise<Record<string, unknown>[]> {
  const bytes = new TextEncoder().encode(`${JSON.stringify(OLLAMA)}\n`);
  const out = convertStream(chunked(bytes, []), { from: 'ollama', to, model: 'm', ...(ids === undefined ? {} : { ids }) });
  const events = await wireEventsFromBytes(new Uint8Array(Buffer.concat(await collect(out))), [], to);
  return events.flatMap((event) => (typeof event.data === 'object' && event.data !== null ? [event.data as Record<string, unknown>] : []));
}

test('streams: an Anthropic message_start behind Ollama has an id; every Chat chunk has the same id and a created time; every Responses event the same response id', async () => {
  const anthropic = (await streamed('anthropic')).find((event) => event['type'] === 'message_start')?.['message'] as Record<string, unknown>;
  assert.match(String(anthropic['id']), /^msg_[A-Za-z0-9]{24}$/);
  const other = (await streamed('anthropic')).find((event) => event['type'] === 'message_start')?.['message'] as Record<string, unknown>;
  assert.is.not(other['id'], anthropic['id']);
  const chunks = await streamed('openai-chat');
  const ids = new Set(chunks.map((chunk) => chunk['id']));
  assert.is(ids.size, 1);
  assert.match(String([...ids][0]), /^chatcmpl-[A-Za-z0-9]{24}$/);
  assert.ok(chunks.every((chunk) => typeof chunk['created'] === 'number' && chunk['created'] > 1_700_000_000), 'created on every chunk');
  const responses = (await streamed('openai-responses')).flatMap((event) => (typeof event['response'] === 'object' ? [event['response'] as Record<string, unknown>] : []));
  assert.ok(responses.length >= 2);
  assert.is(new Set(responses.map((response) => response['id'])).size, 1);
  assert.match(String(responses[0]?.['id']), /^resp_/);
  const fixed = (await streamed('anthropic', fixedAnswerIds)).find((event) => event['type'] === 'message_start')?.['message'] as Record<string, unknown>;
  assert.is(fixed['id'], 'msg_interlingua');
});

test.run();
