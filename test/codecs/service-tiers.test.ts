/**
 * Service tiers across formats: each vendor takes its own list (OpenAI
 * `auto default flex scale priority fast`, Responses also `ultrafast`;
 * Converse `default flex priority reserved`; Gemini `flex standard
 * priority`; Anthropic `auto standard_only`), so a tier is mapped to the
 * target's spelling or dropped with a loss, never sent as a value the
 * target refuses. A tier of the format's own that interlingua does not list
 * goes back to that format unchanged. The tier an answer names (the one that
 * served it) rides with its usage, whole and streamed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { convertStream } from '../../src/formats/stream.ts';
import type { FormatId } from '../../src/core/ir.ts';

const test = suite('service tiers');

type TierFormat = Exclude<FormatId, 'ollama'>;

function requestWith(format: TierFormat, tier: string): Record<string, unknown> {
  switch (format) {
    case 'anthropic':
      return { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], service_tier: tier };
    case 'openai-chat':
      return { model: 'gpt-5.1', messages: [{ role: 'user', content: 'hi' }], service_tier: tier };
    case 'openai-responses':
      return { model: 'gpt-5.1', input: 'hi', service_tier: tier };
    case 'gemini':
      return { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], serviceTier: tier };
    case 'bedrock-converse':
      return { messages: [{ role: 'user', content: [{ text: 'hi' }] }], serviceTier: { type: tier } };
  }
}

function tierOf(format: TierFormat, body: Record<string, unknown>): unknown {
  switch (format) {
    case 'anthropic':
    case 'openai-chat':
    case 'openai-responses':
      return body['service_tier'];
    case 'gemini':
      return body['serviceTier'];
    case 'bedrock-converse':
      return (body['serviceTier'] as { type?: unknown } | undefined)?.type;
  }
}

/** [from, tier, to, the tier sent, the loss about it] */
const CASES: [TierFormat, string, TierFormat, string | undefined, string | undefined][] = [
  ['openai-chat', 'auto', 'openai-responses', 'auto', undefined],
  ['openai-chat', 'fast', 'openai-responses', 'fast', undefined],
  ['openai-chat', 'auto', 'bedrock-converse', undefined, 'dropped_field'],
  ['openai-chat', 'scale', 'gemini', undefined, 'dropped_field'],
  ['openai-chat', 'priority', 'bedrock-converse', 'priority', undefined],
  ['openai-chat', 'default', 'gemini', 'standard', undefined],
  ['openai-responses', 'ultrafast', 'openai-chat', 'fast', 'approximated'],
  ['openai-responses', 'flex', 'bedrock-converse', 'flex', undefined],
  ['gemini', 'standard', 'openai-chat', 'default', undefined],
  ['gemini', 'standard', 'bedrock-converse', 'default', undefined],
  ['anthropic', 'standard_only', 'openai-responses', 'default', 'approximated'],
  ['anthropic', 'auto', 'bedrock-converse', undefined, 'dropped_field'],
  ['bedrock-converse', 'reserved', 'openai-chat', undefined, 'dropped_field'],
  ['bedrock-converse', 'reserved', 'gemini', undefined, 'dropped_field'],
  ['bedrock-converse', 'default', 'anthropic', undefined, 'dropped_field'],
  // Tiers of a format's own that interlingua does not list: back to that format as they came, elsewhere dropped.
  ['openai-chat', 'turbo', 'openai-chat', 'turbo', undefined],
  ['openai-chat', 'turbo', 'openai-responses', undefined, 'dropped_field'],
  ['openai-responses', 'turbo', 'openai-responses', 'turbo', undefined],
  ['bedrock-converse', 'turbo', 'bedrock-converse', 'turbo', undefined],
  ['bedrock-converse', 'turbo', 'openai-chat', undefined, 'dropped_field'],
];

for (const [from, tier, to, sent, loss] of CASES) {
  test(`${from} "${tier}" → ${to}: ${sent === undefined ? 'dropped' : `"${sent}"`}${loss === undefined ? '' : ` (${loss})`}`, () => {
    const source = requestWith(from, tier);
    const { body, losses } = convertRequest(source, { from, to, model: 'model-under-test' });
    assert.is(tierOf(to, body as Record<string, unknown>), sent);
    const about = losses.filter((entry) => entry.message.includes('service tier'));
    assert.equal(about.map((entry) => entry.code), loss === undefined ? [] : [loss]);
    // The loss points at the tier in the body that was passed in.
    for (const entry of about) assert.is(entry.path, from === 'gemini' || from === 'bedrock-converse' ? '/serviceTier' : '/service_tier');
    if (from === to) assert.equal(body, source);
  });
}

test.run();

const answers = suite('service tiers of answers: the tier that served the answer rides with its usage');

function answerWith(format: TierFormat | 'ollama', tier: string): Record<string, unknown> {
  switch (format) {
    case 'anthropic':
      return { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1, service_tier: tier } };
    case 'openai-chat':
      return { id: 'chatcmpl-1', object: 'chat.completion', created: 1764547200, model: 'gpt-5.1', choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }, service_tier: tier };
    case 'openai-responses':
      return { id: 'resp_1', object: 'response', created_at: 1764547200, status: 'completed', model: 'gpt-5.1', output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }], usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }, service_tier: tier };
    case 'gemini':
      return { candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4, serviceTier: tier }, modelVersion: 'gemini-2.5-flash', responseId: 'r1' };
    case 'bedrock-converse':
      return { output: { message: { role: 'assistant', content: [{ text: 'hi' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 }, metrics: { latencyMs: 5 }, serviceTier: { type: tier } };
    case 'ollama':
      return { model: 'llama3', created_at: '2025-01-01T00:00:00Z', message: { role: 'assistant', content: 'hi' }, done: true, done_reason: 'stop', prompt_eval_count: 3, eval_count: 1 };
  }
}

function answerTierOf(format: TierFormat | 'ollama', body: Record<string, unknown>): unknown {
  switch (format) {
    case 'anthropic':
      return (body['usage'] as Record<string, unknown>)['service_tier'];
    case 'gemini':
      return (body['usageMetadata'] as Record<string, unknown>)['serviceTier'];
    case 'ollama':
      return undefined;
    default:
      return tierOf(format, body);
  }
}

/** [from, tier, to, the tier written, the loss about it] */
const ANSWER_CASES: [TierFormat, string, TierFormat | 'ollama', string | undefined, string | undefined][] = [
  ['anthropic', 'standard', 'openai-chat', 'default', undefined],
  ['anthropic', 'standard', 'openai-responses', 'default', undefined],
  ['anthropic', 'standard', 'gemini', 'standard', undefined],
  ['anthropic', 'standard', 'bedrock-converse', 'default', undefined],
  ['anthropic', 'priority', 'openai-chat', 'priority', undefined],
  ['anthropic', 'batch', 'openai-chat', undefined, 'dropped_field'],
  ['anthropic', 'standard', 'ollama', undefined, 'dropped_field'],
  ['anthropic', 'priority', 'ollama', undefined, 'dropped_field'],
  ['openai-chat', 'default', 'anthropic', 'standard', undefined],
  ['openai-chat', 'flex', 'anthropic', undefined, 'dropped_field'],
  ['openai-chat', 'scale', 'bedrock-converse', 'reserved', 'approximated'],
  ['openai-responses', 'auto', 'anthropic', undefined, 'dropped_field'],
  ['openai-responses', 'priority', 'gemini', 'priority', undefined],
  ['gemini', 'standard', 'anthropic', 'standard', undefined],
  ['gemini', 'flex', 'bedrock-converse', 'flex', undefined],
  ['bedrock-converse', 'default', 'openai-chat', 'default', undefined],
  ['bedrock-converse', 'reserved', 'openai-responses', 'scale', 'approximated'],
  // A tier of the format's own that interlingua does not list: back to that format as it came, elsewhere dropped.
  ['anthropic', 'turbo', 'anthropic', 'turbo', undefined],
  ['anthropic', 'turbo', 'openai-chat', undefined, 'dropped_field'],
  ['openai-chat', 'turbo', 'openai-chat', 'turbo', undefined],
  ['openai-responses', 'default', 'openai-responses', 'default', undefined],
  ['gemini', 'turbo', 'gemini', 'turbo', undefined],
  ['bedrock-converse', 'turbo', 'bedrock-converse', 'turbo', undefined],
];

for (const [from, tier, to, written, loss] of ANSWER_CASES) {
  answers(`${from} answer "${tier}" → ${to}: ${written === undefined ? 'dropped' : `"${written}"`}${loss === undefined ? '' : ` (${loss})`}`, () => {
    const source = answerWith(from, tier);
    const { body, losses } = convertResponse(source, { from, to, model: 'model-under-test' });
    assert.is(answerTierOf(to, body as Record<string, unknown>), written);
    const about = losses.filter((entry) => entry.message.includes('service tier'));
    assert.equal(about.map((entry) => entry.code), loss === undefined ? [] : [loss]);
    // No other loss names the tier's own field (it was read, not left as the source's own).
    assert.not.ok(losses.some((entry) => /field "(service_tier|serviceTier)"/.test(entry.message)), JSON.stringify(losses));
    if (from === to) assert.equal(body, source);
  });
}

answers('Ollama drops every tier: the standard one as info (an answer without a tier says as much), another as a warning', () => {
  const severity = (from: TierFormat, tier: string) =>
    convertResponse(answerWith(from, tier), { from, to: 'ollama', model: 'm' }).losses.find((entry) => entry.message.includes('service tier'))?.severity;
  assert.is(severity('anthropic', 'standard'), 'info');
  assert.is(severity('openai-chat', 'default'), 'info');
  assert.is(severity('anthropic', 'priority'), 'warning');
  assert.is(severity('openai-chat', 'flex'), 'warning');
});

answers('streams: a Chat stream\'s tier reaches an Anthropic stream\'s usage, and an Anthropic stream\'s tier a Chat stream\'s usage chunk; without a usage chunk, the tier is reported', async () => {
  const chat = [
    { id: 'c1', object: 'chat.completion.chunk', created: 1764547200, model: 'gpt-5.1', service_tier: 'default', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] },
    { id: 'c1', object: 'chat.completion.chunk', created: 1764547200, model: 'gpt-5.1', service_tier: 'default', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  ];
  const usageChunk = { id: 'c1', object: 'chat.completion.chunk', created: 1764547200, model: 'gpt-5.1', service_tier: 'default', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
  const sse = (chunks: object[]): string => `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
  const run = async (text: string, from: FormatId, to: FormatId) => {
    const out = convertStream(new Response(text).body as ReadableStream<Uint8Array>, { from, to });
    return { text: await new Response(out).text(), losses: await out.losses };
  };
  const anthropic = await run(sse([...chat, usageChunk]), 'openai-chat', 'anthropic');
  assert.match(anthropic.text, '"service_tier":"standard"');
  assert.not.ok(anthropic.losses.some((entry) => entry.message.includes('service')), JSON.stringify(anthropic.losses));
  const bare = await run(sse(chat), 'openai-chat', 'anthropic');
  assert.equal(bare.losses.filter((entry) => entry.message.includes('service tier')).map((entry) => entry.code), ['dropped_field']);
  const back = await run(anthropic.text, 'anthropic', 'openai-chat');
  const chunks = back.text.split('\n\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  assert.equal(chunks.filter((chunk) => chunk['usage'] !== undefined).map((chunk) => chunk['service_tier']), ['default']);
});

answers.run();
