/**
 * Tokens by modality: Gemini's `promptTokensDetails` and
 * `candidatesTokensDetails` and OpenAI Chat's `*_tokens_details` text, audio
 * and image counts, through the IR's `inputTokensByModality` and
 * `outputTokensByModality`, on the recorded audio answers of both vendors,
 * whole and streamed; formats without such counts report what they drop
 * unless it says nothing beyond the totals.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { convertResponse, decodeResponse } from '../../src/formats/convert.ts';
import { CORPUS_DIR, readJson } from '../support/fixtures.ts';
import { convertedStream } from '../support/streams.ts';

const test = suite('usage by modality');

const GEMINI_AUDIO = join(CORPUS_DIR, 'gemini', 'response', 'lingua--responseModalitiesAudioParam--response.json');
const CHAT_AUDIO = join(CORPUS_DIR, 'openai-chat', 'response', 'envoy-ai-gateway--chat-text-to-audio.json');

test('a recorded Gemini audio answer: its counts by modality decode into the IR and go back as they were', () => {
  const body = readJson(GEMINI_AUDIO) as { usageMetadata: Record<string, unknown> };
  const { ir } = decodeResponse('gemini', body);
  assert.equal(ir.usage?.inputTokensByModality, { text: 10 });
  assert.equal(ir.usage?.outputTokensByModality, { audio: 23 });
  const back = convertResponse(body, { from: 'gemini', to: 'gemini' }).body as { usageMetadata: Record<string, unknown> };
  assert.equal(back.usageMetadata['promptTokensDetails'], body.usageMetadata['promptTokensDetails']);
  assert.equal(back.usageMetadata['candidatesTokensDetails'], body.usageMetadata['candidatesTokensDetails']);
});

test('Gemini → Chat: the audio tokens of the answer become completion_tokens_details.audio_tokens, the text-only prompt says nothing more', () => {
  const { body, losses } = convertResponse(readJson(GEMINI_AUDIO), { from: 'gemini', to: 'openai-chat' });
  const usage = (body as { usage: Record<string, unknown> }).usage;
  assert.equal(usage['completion_tokens_details'], { audio_tokens: 23 });
  assert.not.ok('prompt_tokens_details' in usage, JSON.stringify(usage));
  assert.equal(losses.filter((loss) => /modality|TokensDetails/.test(loss.message)), [], JSON.stringify(losses));
});

test('Chat → Gemini: a recorded Chat audio answer\'s text and audio counts become Gemini details lists (zero counts left out)', () => {
  const source = readJson(CHAT_AUDIO) as { usage: Record<string, unknown> };
  const { ir } = decodeResponse('openai-chat', source);
  assert.equal(ir.usage?.inputTokensByModality, { audio: 0, image: 0, text: 22 });
  assert.equal(ir.usage?.outputTokensByModality, { audio: 12, text: 6 });
  const { body, losses } = convertResponse(source, { from: 'openai-chat', to: 'gemini' });
  const usage = (body as { usageMetadata: Record<string, unknown> }).usageMetadata;
  assert.equal(usage['promptTokensDetails'], [{ modality: 'TEXT', tokenCount: 22 }]);
  assert.equal(usage['candidatesTokensDetails'], [
    { modality: 'AUDIO', tokenCount: 12 },
    { modality: 'TEXT', tokenCount: 6 },
  ]);
  assert.equal(losses.filter((loss) => loss.path.includes('usage')), [], JSON.stringify(losses));
  // Back to Chat: the same details, text and image counts included.
  const back = convertResponse(source, { from: 'openai-chat', to: 'openai-chat' }).body as { usage: Record<string, unknown> };
  assert.equal(back.usage, source.usage);
});

test('formats without counts by modality report the audio they drop, and nothing for an all-text breakdown', () => {
  for (const to of ['anthropic', 'openai-responses', 'bedrock-converse', 'ollama'] as const) {
    const fromChat = convertResponse(readJson(CHAT_AUDIO), { from: 'openai-chat', to }).losses.filter((loss) => loss.message.includes('by modality'));
    assert.equal(
      fromChat.map((loss) => [loss.code, loss.severity, loss.path]),
      [['dropped_field', 'info', '/usage/completion_tokens_details']],
      `${to}: ${JSON.stringify(fromChat)}`,
    );
    assert.ok(fromChat[0]?.message.includes('audio: 12, text: 6') === true || fromChat[0]?.message.includes('text: 6, audio: 12') === true, fromChat[0]?.message);
    const fromGemini = convertResponse(readJson(GEMINI_AUDIO), { from: 'gemini', to }).losses.filter((loss) => loss.message.includes('by modality'));
    assert.equal(fromGemini.map((loss) => loss.path), ['/usageMetadata/candidatesTokensDetails'], `${to}: ${JSON.stringify(fromGemini)}`);
  }
  // An all-text prompt breakdown equal to the prompt count: nothing lost, nothing reported.
  const text = { candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }] } };
  assert.equal(convertResponse(text, { from: 'gemini', to: 'anthropic', model: 'g' }).losses.filter((loss) => loss.path.includes('usage')), []);
  // An image in the prompt is not.
  const image = { ...text, usageMetadata: { ...text.usageMetadata, promptTokenCount: 263, totalTokenCount: 264, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }, { modality: 'IMAGE', tokenCount: 258 }] } };
  const lost = convertResponse(image, { from: 'gemini', to: 'openai-chat', model: 'g' }).losses.filter((loss) => loss.message.includes('by modality'));
  assert.equal(lost.map((loss) => [loss.path, loss.message]), [['/usageMetadata/promptTokensDetails', 'Chat Completions usage has no input tokens by modality (text: 5, image: 258); dropped']]);
});

test('a details list that is not plain modality counts stays a field of its own, reported as before', () => {
  const odd = { candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5, note: 'x' }] } };
  const { ir } = decodeResponse('gemini', odd, { model: 'g' });
  assert.is(ir.usage?.inputTokensByModality, undefined);
  const back = convertResponse(odd, { from: 'gemini', to: 'gemini', model: 'g' }).body as { usageMetadata: Record<string, unknown> };
  assert.equal(back.usageMetadata['promptTokensDetails'], odd.usageMetadata.promptTokensDetails);
  const lost = convertResponse(odd, { from: 'gemini', to: 'anthropic', model: 'g' }).losses;
  assert.ok(lost.some((loss) => loss.message.includes('"promptTokensDetails"')), JSON.stringify(lost));
});

test('streams: the recorded Gemini audio stream\'s counts by modality reach a Chat stream\'s usage chunk', async () => {
  const lines = readFileSync(join(CORPUS_DIR, 'gemini', 'stream', 'lingua--responseModalitiesAudioParam--response-streaming.jsonl'), 'utf8').split('\n').filter((line) => line.trim() !== '');
  const sse = new TextEncoder().encode(lines.map((line) => `data: ${line}\n\n`).join(''));
  const { events, losses } = await convertedStream(sse, 'gemini', 'openai-chat', 'gemini-tts');
  const usages = events.map((event) => (event.data as { usage?: Record<string, unknown> | null } | undefined)?.usage).filter((usage) => usage !== undefined && usage !== null);
  assert.ok(usages.length > 0, JSON.stringify(events.slice(-2)));
  const last = usages.at(-1) as Record<string, unknown>;
  const recorded = (JSON.parse(lines.at(-1) ?? '{}') as { usageMetadata: { candidatesTokensDetails: { tokenCount: number }[] } }).usageMetadata;
  assert.equal(last['completion_tokens_details'], { audio_tokens: recorded.candidatesTokensDetails[0]?.tokenCount });
  assert.equal(losses.filter((loss) => loss.message.includes('by modality')), []);
});

test.run();
