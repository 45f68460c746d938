/**
 * Real traffic the decoders must take (issue 16, item 2): optional fields
 * sent as `null`, Gemini enums spelled as proto numbers, an Azure OpenAI
 * content-filter choice without a message, enum values the codec does not
 * know, and Gemini per-part metadata. The bodies live as golden cases (so the
 * same-format round trip is checked by roundtrip.test.ts); here their
 * meaning is checked across formats.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest, convertResponse, decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import { GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { decodeEvents, encodeEvents, messagesAsWireEvents } from '../support/streams.ts';
import { accumulate } from '../../src/core/accumulate.ts';

const test = suite('real traffic');
const golden = (...segments: string[]): unknown => readJson(join(GOLDEN_DIR, ...segments));

test('Responses input items with "id": null and "status": null decode as absent', () => {
  const body = golden('openai-responses', 'agent-replay-nulls', 'request.json');
  const { ir } = decodeRequest('openai-responses', body);
  const roles = ir.messages.map((message) => message.role);
  assert.equal(roles, ['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  const call = ir.messages[2]?.parts.find((part) => part.type === 'tool_call');
  assert.equal(call?.type === 'tool_call' ? [call.id, call.name, call.arguments] : undefined, ['call_Wx1', 'get_weather', { city: 'Paris' }]);
  const anthropic = convertRequest(body, { from: 'openai-responses', to: 'anthropic' }).body as { messages: { content: unknown }[] };
  assert.not.match(JSON.stringify(anthropic), /"status"|null/, 'no null bookkeeping reaches another format');
});

test('Gemini proto enum numbers: finishReason 1 is STOP, mode 2 is ANY (required), schema type 6 is object', () => {
  const response = golden('gemini', 'proto-enum-numbers', 'response.json');
  const { ir } = decodeResponse('gemini', response);
  assert.equal(ir.candidates[0]?.stopReason, { unified: 'end_turn', raw: '1', format: 'gemini' });
  const chat = convertResponse(response, { from: 'gemini', to: 'openai-chat', model: 'gemini-2.0-flash' }).body as { choices: { finish_reason: string }[] };
  assert.is(chat.choices[0]?.finish_reason, 'stop');
  const request = golden('gemini', 'proto-enum-numbers', 'request.json');
  const decoded = decodeRequest('gemini', request).ir;
  assert.equal(decoded.toolChoice, { type: 'required' });
  const tool = decoded.tools?.[0];
  assert.equal(tool?.type === 'function' ? tool.parameters : undefined, { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] });
});

test('Gemini: an unknown finishReason number travels raw and maps to other', () => {
  const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 99, index: 0 }] };
  const { ir } = decodeResponse('gemini', body);
  assert.equal(ir.candidates[0]?.stopReason, { unified: 'other', raw: '99', format: 'gemini' });
  assert.equal(convertResponse(body, { from: 'gemini', to: 'gemini' }).body, body);
});

test('Gemini: numeric block reasons and MODEL_ARMOR are content filters, whole and streamed', () => {
  for (const blockReason of [1, 4, 'MODEL_ARMOR', 'PROHIBITED_CONTENT']) {
    const body = { promptFeedback: { blockReason }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } };
    const chat = convertResponse(body, { from: 'gemini', to: 'openai-chat', model: 'gemini-2.5-flash' }).body as { choices: { finish_reason: string }[] };
    assert.is(chat.choices[0]?.finish_reason, 'content_filter', `blockReason ${blockReason}`);
    const streamed = accumulate(decodeEvents('gemini', [{ data: body }]).events).response;
    assert.is(streamed.candidates[0]?.stopReason?.unified, 'content_filter', `streamed blockReason ${blockReason}`);
  }
  for (const finishReason of ['MODEL_ARMOR', 'SPII', 'BLOCKLIST', 'IMAGE_SAFETY', 8]) {
    const body = { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason, index: 0 }] };
    assert.is(decodeResponse('gemini', body).ir.candidates[0]?.stopReason?.unified, 'content_filter', `finishReason ${finishReason}`);
  }
});

test('Gemini: the finish reasons of @google/genai 3 keep their meaning, whole and streamed', () => {
  const cases: [string, string, string][] = [
    ['MISSING_THOUGHT_SIGNATURE', 'error', 'end_turn'],
    ['MALFORMED_RESPONSE', 'error', 'end_turn'],
    ['ESCALATION', 'content_filter', 'refusal'],
    ['PUP_LIMITED_DISABLED', 'content_filter', 'refusal'],
  ];
  for (const [finishReason, unified, anthropic] of cases) {
    const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason, index: 0 }] };
    assert.equal(decodeResponse('gemini', body).ir.candidates[0]?.stopReason, { unified, raw: finishReason, format: 'gemini' }, finishReason);
    const streamed = accumulate(decodeEvents('gemini', [{ data: body }]).events).response;
    assert.is(streamed.candidates[0]?.stopReason?.unified, unified, `streamed ${finishReason}`);
    const converted = convertResponse(body, { from: 'gemini', to: 'anthropic', model: 'gemini-3-pro' }).body as { stop_reason: string };
    assert.is(converted.stop_reason, anthropic, `${finishReason} to Anthropic`);
    assert.equal(convertResponse(body, { from: 'gemini', to: 'gemini' }).body, body, `${finishReason} back to Gemini`);
  }
});

test('Gemini thinking levels: xhigh is XHIGH, max the nearest (XHIGH) with a loss', () => {
  const request = (effort: string) => ({ model: 'gpt-5', input: 'Prove it.', reasoning: { effort } });
  const levelOf = (body: unknown) => (body as { generationConfig?: { thinkingConfig?: { thinkingLevel?: string } } }).generationConfig?.thinkingConfig?.thinkingLevel;
  const xhigh = convertRequest(request('xhigh'), { from: 'openai-responses', to: 'gemini' });
  assert.is(levelOf(xhigh.body), 'XHIGH');
  assert.equal(xhigh.losses.filter((loss) => loss.path.startsWith('/reasoning')), []);
  assert.is(decodeRequest('gemini', xhigh.body).ir.reasoning?.effort, 'xhigh');
  const max = convertRequest(request('max'), { from: 'openai-responses', to: 'gemini' });
  assert.is(levelOf(max.body), 'XHIGH');
  assert.equal(
    max.losses.map((loss) => [loss.code, loss.path, loss.message]),
    [['approximated', '/reasoning', 'Gemini has no thinking level "max"; sent as XHIGH']],
  );
});

test('Gemini stream with numeric finishReason round-trips as the number', () => {
  const chunk = { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 1, index: 0 }], modelVersion: 'gemini-2.0-flash' };
  const decoded = decodeEvents('gemini', [{ data: chunk }]);
  const encoded = messagesAsWireEvents(encodeEvents('gemini', decoded.events).messages);
  assert.equal(encoded.map((event) => event.data), [chunk]);
});

test('Azure OpenAI: a content-filter choice without a message', () => {
  const body = golden('openai-chat', 'azure-content-filter', 'response.json');
  const { ir } = decodeResponse('openai-chat', body);
  assert.equal(ir.candidates[0]?.message, { role: 'assistant', parts: [] });
  assert.is(ir.candidates[0]?.stopReason?.unified, 'content_filter');
  const anthropic = convertResponse(body, { from: 'openai-chat', to: 'anthropic' }).body as { stop_reason: string; content: unknown[] };
  assert.is(anthropic.stop_reason, 'refusal');
  assert.equal(anthropic.content, []);
});

test('Responses: an unknown status travels raw and round-trips; other formats get "other"', () => {
  const body = golden('openai-responses', 'unknown-status', 'response.json');
  const { ir } = decodeResponse('openai-responses', body);
  assert.equal(ir.candidates[0]?.stopReason, { unified: 'other', raw: 'paused_for_review', format: 'openai-responses' });
  const incomplete = { ...(body as object), status: 'incomplete', incomplete_details: { reason: 'tool_budget_exhausted' } };
  assert.equal(convertResponse(incomplete, { from: 'openai-responses', to: 'openai-responses' }).body, incomplete);
});

test('Gemini part metadata (videoMetadata, mediaResolution, partMetadata) stays on its part', () => {
  const request = golden('gemini', 'part-metadata', 'request.json');
  const { ir } = decodeRequest('gemini', request);
  const parts = ir.messages[0]?.parts ?? [];
  assert.equal(parts[0]?.extensions, { gemini: { videoMetadata: { startOffset: '40s', endOffset: '80s', fps: 0.5 } } });
  assert.equal(parts[1]?.extensions, { gemini: { mediaResolution: { level: 'MEDIA_RESOLUTION_HIGH' } } });
  const losses = convertRequest(request, { from: 'gemini', to: 'anthropic', model: 'claude-sonnet-4-5' }).losses;
  // The loss points at the field of the wire part in the request (and keeps the part's IR pointer).
  assert.ok(losses.some((loss) => loss.path === '/contents/0/parts/1/mediaResolution' && loss.irPath === '/messages/0/parts/1' && loss.message.includes('mediaResolution')), 'other formats report the metadata');
});

test.run();
