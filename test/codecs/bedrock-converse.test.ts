/**
 * The Bedrock Converse codec: bad input, the event-stream framing (CRCs,
 * byte-exact re-encoding of every recorded stream), errors named by the
 * x-amzn-ErrorType header, and encodes of IR from other formats.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { WebSha256 } from '../../src/proxy/web-sha256.ts';
import { join } from 'node:path';
import { detectFormat } from '../../src/core/detect.ts';
import { normalizeFiles } from '../../src/normalize/run.ts';
import type { NormalizedRecord } from '../../src/normalize/types.ts';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bedrockConverseCodec, bedrockErrorFromHeaders, bedrockErrorHeaders, bedrockErrorStatus, eventStreamFraming } from '../../src/providers/bedrock-converse/index.ts';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { convertStream } from '../../src/formats/stream.ts';
import { accumulate } from '../../src/core/accumulate.ts';
import { LossCollector } from '../../src/core/losses.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { Request } from '../../src/core/ir.ts';
import { CORPUS_DIR, REPO_ROOT } from '../support/fixtures.ts';
import { startFakeBedrock } from '../support/strict/index.ts';
import { chunked, collect, decodeEvents, wireEvents, wireEventsFromBytes, type StreamFixture } from '../support/streams.ts';
import { lossKeys } from '../support/compare.ts';

const test = suite('bedrock-converse');
const STREAMS = join(CORPUS_DIR, 'bedrock-converse', 'stream');
const context = () => ({ losses: new LossCollector(), model: 'us.anthropic.claude-test-v1:0' });

function decodeFails(body: unknown, code: string, path: string): void {
  try {
    bedrockConverseCodec.decodeRequest(body, context());
  } catch (error) {
    assert.ok(isInterlinguaError(error), `expected an InterlinguaError, got ${String(error)}`);
    assert.is(error.code, code);
    assert.is(error.path, path);
    return;
  }
  assert.unreachable(`decoding ${JSON.stringify(body)} should fail`);
}

test('loss paths point into the Converse body a conversion came from', () => {
  const body = { messages: [{ role: 'user', content: [{ text: 'hi' }, { guardContent: { text: { text: 'guarded' } } }] }], inferenceConfig: { maxTokens: 10, stopSequences: ['x'] } };
  const result = convertRequest(body, { from: 'bedrock-converse', to: 'openai-responses', model: 'gpt-test' });
  const paths = result.losses.map((loss) => loss.path);
  assert.ok(paths.includes('/messages/0/content/1'), JSON.stringify(result.losses));
  assert.ok(paths.includes('/inferenceConfig/stopSequences'), JSON.stringify(result.losses));
});

test('bad input names the offending value', () => {
  decodeFails([], 'invalid_type', '');
  decodeFails({}, 'missing_field', '/messages');
  decodeFails({ messages: [{ role: 'system', content: [] }] }, 'invalid_value', '/messages/0/role');
  decodeFails({ messages: [{ role: 'user', content: [{ toolUse: { toolUseId: 'a', name: 'f' } }] }] }, 'missing_field', '/messages/0/content/0/toolUse/input');
  decodeFails({ messages: [{ role: 'user', content: [{ text: 1 }] }] }, 'invalid_type', '/messages/0/content/0/text');
  decodeFails({ messages: [], outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{nope' } } } } }, 'invalid_value', '/outputConfig/textFormat/structure/jsonSchema/schema');
});

test('the model comes from the URL; tool results split out of the user turn and merge back', () => {
  const body = {
    messages: [
      { role: 'user', content: [{ text: 'weather?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ json: { c: 21 } }], status: 'error' } }, { text: 'and tomorrow?' }] },
    ],
    toolConfig: { tools: [{ toolSpec: { name: 'weather', inputSchema: { json: { type: 'object' } } } }] },
  };
  const ir = bedrockConverseCodec.decodeRequest(body, context()) as Request;
  assert.is(ir.model, 'us.anthropic.claude-test-v1:0');
  assert.equal(ir.messages.map((message) => message.role), ['user', 'assistant', 'tool', 'user']);
  const result = ir.messages[2]?.parts[0];
  assert.is(result?.type === 'tool_result' && result.isError, true);
  const back = convertRequest(body, { from: 'bedrock-converse', to: 'bedrock-converse', model: 'x' });
  assert.equal(back.body, body);
  const anthropic = convertRequest(body, { from: 'bedrock-converse', to: 'anthropic', model: 'claude-test' }).body as { messages: unknown[] };
  assert.is(anthropic.messages.length, 3);
});

test('Converse refuses tool blocks without a toolConfig: a conversation that offers no tools declares those its calls name, reported', () => {
  const chat = {
    model: 'gpt-5',
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '21' },
      { role: 'user', content: 'Summarise the conversation.' },
    ],
  };
  const { body, losses } = convertRequest(chat, { from: 'openai-chat', to: 'bedrock-converse', model: 'm' });
  assert.equal((body as Record<string, unknown>)['toolConfig'], { tools: [{ toolSpec: { name: 'weather', inputSchema: { json: { type: 'object' } } } }] });
  assert.ok(losses.some((loss) => loss.code === 'approximated' && loss.message.includes('weather')), JSON.stringify(losses));
  // Tools none of which Converse takes: no toolConfig of an empty list, and the choice reported with them.
  const anthropic = {
    model: 'claude',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'search' }],
    tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    tool_choice: { type: 'any' },
  };
  const converse = convertRequest(anthropic, { from: 'anthropic', to: 'bedrock-converse', model: 'm' });
  assert.is((converse.body as Record<string, unknown>)['toolConfig'], undefined);
  assert.equal(converse.losses.filter((loss) => loss.path.startsWith('/tool')).map((loss) => [loss.code, loss.path, loss.severity]), [
    ['unsupported_part', '/tools/0', 'warning'],
    ['dropped_field', '/tool_choice', 'warning'],
  ]);
});

test('another vendor\'s reasoning state never reaches Bedrock; unsigned reasoning is dropped from requests', () => {
  const body = {
    model: 'claude-test',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'anthropic-sig' }, { type: 'text', text: 'hello' }] },
      { role: 'user', content: 'again' },
    ],
  };
  const result = convertRequest(body, { from: 'anthropic', to: 'bedrock-converse' });
  const messages = (result.body as { messages: { content: unknown[] }[] }).messages;
  assert.equal(messages[1]?.content, [{ text: 'hello' }]);
  assert.equal(lossKeys(result.losses), [
    { code: 'reasoning_state_dropped', path: '/messages/1/content/0', irPath: '/messages/1/parts/0', severity: 'warning' },
    { code: 'unsupported_part', path: '/messages/1/content/0', irPath: '/messages/1/parts/0', severity: 'warning' },
  ]);
});

test('a foreign message whose every part is dropped is left out, not sent with empty content', () => {
  const body = {
    model: 'gpt-5.1',
    input: [
      { role: 'user', content: 'Search the news.' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'news' } },
      { role: 'user', content: 'Anything?' },
    ],
  };
  const { body: out, losses } = convertRequest(body, { from: 'openai-responses', to: 'bedrock-converse' });
  assert.equal((out as { messages: unknown }).messages, [{ role: 'user', content: [{ text: 'Search the news.' }, { text: 'Anything?' }] }]);
  assert.equal(lossKeys(losses), [{ code: 'unsupported_part', path: '/input/1', irPath: '/messages/1/parts/0', severity: 'warning' }]);
});

test('foreign requests: system, tools, choice, thinking budget, JSON schema as text', () => {
  const body = {
    model: 'gpt-test',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    tool_choice: 'required',
    reasoning_effort: 'low',
    max_completion_tokens: 50,
    response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' } } },
  };
  const out = convertRequest(body, { from: 'openai-chat', to: 'bedrock-converse' }).body as Record<string, unknown>;
  assert.equal(out['system'], [{ text: 'Be brief.' }]);
  assert.equal(out['messages'], [{ role: 'user', content: [{ text: 'hi' }, { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } }] }]);
  assert.equal(out['toolConfig'], { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }], toolChoice: { any: {} } });
  assert.equal(out['inferenceConfig'], { maxTokens: 50 });
  // A forced tool choice (any) leaves Claude's manual thinking off (reported in the test of Claude's thinking rules).
  assert.is(out['additionalModelRequestFields'], undefined);
  assert.equal(out['outputConfig'], { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{"type":"object"}', name: 'out' } } } });
});

test('reasoning and top-k in every spelling models take on Bedrock: Anthropic thinking (with display), Claude 3.7 reasoning_config, Nova reasoningConfig and inferenceConfig.topK', () => {
  const request = (fields: Record<string, unknown>) => ({ messages: [{ role: 'user', content: [{ text: 'hi' }] }], additionalModelRequestFields: fields });
  const cases: [Record<string, unknown>, unknown, unknown][] = [
    [{ thinking: { type: 'adaptive', display: 'summarized' } }, { mode: 'adaptive', includeThoughts: true }, undefined],
    [{ reasoning_config: { type: 'enabled', budget_tokens: 1024 } }, { mode: 'enabled', budgetTokens: 1024 }, undefined],
    [{ reasoningConfig: { type: 'enabled', maxReasoningEffort: 'low' } }, { mode: 'enabled', effort: 'low' }, undefined],
    [{ inferenceConfig: { topK: 5 } }, undefined, 5],
  ];
  for (const [fields, reasoning, topK] of cases) {
    const body = request(fields);
    const ir = bedrockConverseCodec.decodeRequest(body, context());
    assert.equal(ir.reasoning, reasoning, JSON.stringify(fields));
    assert.is(ir.generation?.topK, topK);
    assert.equal(convertRequest(body, { from: 'bedrock-converse', to: 'bedrock-converse', model: 'm' }).body, body, 'back as it came');
    const losses = convertRequest(body, { from: 'bedrock-converse', to: 'anthropic', model: 'claude' }).losses;
    assert.not.ok(losses.some((loss) => loss.message.includes('additionalModelRequestFields')), JSON.stringify(losses));
  }
  // Every corpus request in these spellings reads the same way: nothing reported as the model's own fields.
  const dir = join(CORPUS_DIR, 'bedrock-converse', 'request');
  let read = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const body = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
    if (body['additionalModelRequestFields'] === undefined) continue;
    const losses = convertRequest(body, { from: 'bedrock-converse', to: 'openai-responses', model: 'm' }).losses;
    assert.not.ok(losses.some((loss) => loss.message.includes('additionalModelRequestFields')), `${file}: ${JSON.stringify(losses)}`);
    read++;
  }
  assert.ok(read >= 9, `corpus requests with additionalModelRequestFields: ${read}`);
  // To a Nova model from another format: Nova's spelling, the budget as the nearest effort (reported).
  const anthropic = { model: 'claude', max_tokens: 100, top_k: 20, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: 'hi' }] };
  const nova = convertRequest(anthropic, { from: 'anthropic', to: 'bedrock-converse', model: 'us.amazon.nova-2-lite-v1:0' });
  assert.equal((nova.body as Record<string, unknown>)['additionalModelRequestFields'], { reasoningConfig: { type: 'enabled', maxReasoningEffort: 'low' }, inferenceConfig: { topK: 20 } });
  assert.ok(nova.losses.some((loss) => loss.code === 'approximated' && loss.message.includes('Amazon Nova')), JSON.stringify(nova.losses));
  const claude = convertRequest(anthropic, { from: 'anthropic', to: 'bedrock-converse', model: 'us.anthropic.claude-sonnet-4-5-v1:0' }).body as Record<string, unknown>;
  // Claude's thinking rules: no top_k beside thinking, and maxTokens above the budget.
  assert.equal(claude['additionalModelRequestFields'], { thinking: { type: 'enabled', budget_tokens: 2000 } });
  assert.equal(claude['inferenceConfig'], { maxTokens: 2100 });
  // Nova's thinking at an effort, to Anthropic's manual thinking: the budget of that effort's band, reported at the Nova field.
  const atEffort = convertRequest(request({ reasoningConfig: { type: 'enabled', maxReasoningEffort: 'high' } }), { from: 'bedrock-converse', to: 'anthropic', model: 'claude' });
  assert.equal((atEffort.body as Record<string, unknown>)['thinking'], { type: 'enabled', budget_tokens: 16384 });
  assert.equal(atEffort.losses.filter((loss) => loss.irPath === '/reasoning/effort').map((loss) => [loss.code, loss.path]), [['approximated', '/additionalModelRequestFields/reasoningConfig']]);
});

test('usage: Bedrock input excludes cache, the IR counts it', () => {
  const body = { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 4, totalTokens: 5429, cacheReadInputTokens: 0, cacheWriteInputTokens: 5422 }, metrics: { latencyMs: 9 } };
  const ir = bedrockConverseCodec.decodeResponse(body, context());
  assert.is(ir.usage?.inputTokens, 5425);
  const anthropic = convertResponse(body, { from: 'bedrock-converse', to: 'anthropic', model: 'claude' }).body as { usage: Record<string, number> };
  assert.is(anthropic.usage['input_tokens'], 3);
  assert.is(anthropic.usage['cache_creation_input_tokens'], 5422);
});

test('usage: the repeated *TokenCount counts and an empty serverToolUsage are carried (no loss), back to Converse as they came; a differing one is its own', () => {
  let checked = 0;
  const dir = join(CORPUS_DIR, 'bedrock-converse', 'response');
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (!text.includes('InputTokenCount')) continue;
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const to of ['anthropic', 'openai-chat'] as const) {
      const losses = convertResponse(body, { from: 'bedrock-converse', to, model: 'm' }).losses.filter((loss) => /TokenCount|serverToolUsage/.test(loss.message));
      assert.equal(losses, [], `${file} → ${to}`);
    }
    assert.equal((convertResponse(body, { from: 'bedrock-converse', to: 'bedrock-converse', model: 'm' }).body as Record<string, unknown>)['usage'], body['usage'], file);
    checked++;
  }
  assert.ok(checked >= 100, `corpus answers with the repeated counts: ${checked}`);
  const differing = { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7, cacheReadInputTokens: 0, cacheReadInputTokenCount: 2, serverToolUsage: { webSearch: 1 } } };
  const reported = convertResponse(differing, { from: 'bedrock-converse', to: 'anthropic', model: 'm' }).losses.filter((loss) => loss.path.startsWith('/usage'));
  assert.equal(reported.map((loss) => loss.message.match(/"(\w+)"/)?.[1]), ['cacheReadInputTokenCount', 'serverToolUsage']);
});

test('usage: cache writes by lifetime, Converse cacheDetails ⇄ Anthropic cache_creation; formats without a breakdown report one with writes in it', () => {
  const body = { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 4, totalTokens: 9429, cacheReadInputTokens: 0, cacheWriteInputTokens: 9422, cacheDetails: [{ inputTokens: 5422, ttl: '5m' }, { inputTokens: 4000, ttl: '1h' }] } };
  assert.equal(bedrockConverseCodec.decodeResponse(body, context()).usage?.cacheWriteByTtl, { '5m': 5422, '1h': 4000 });
  const anthropic = convertResponse(body, { from: 'bedrock-converse', to: 'anthropic', model: 'claude' });
  const usage = (anthropic.body as { usage: Record<string, unknown> }).usage;
  assert.equal(usage['cache_creation'], { ephemeral_5m_input_tokens: 5422, ephemeral_1h_input_tokens: 4000 });
  assert.equal(anthropic.losses.filter((loss) => loss.path.startsWith('/usage')), []);
  const back = convertResponse(anthropic.body, { from: 'anthropic', to: 'bedrock-converse', model: 'claude' }).body as { usage: Record<string, unknown> };
  assert.equal(back.usage['cacheDetails'], body.usage.cacheDetails);
  const chat = convertResponse(body, { from: 'bedrock-converse', to: 'openai-chat', model: 'm' }).losses.filter((loss) => loss.path.startsWith('/usage'));
  assert.equal(chat.map((loss) => [loss.code, loss.severity, loss.message]), [['dropped_field', 'info', 'Chat Completions usage has no cache writes by lifetime (5m: 5422, 1h: 4000 tokens); dropped']]);
  // Anthropic answers always carry a breakdown, mostly of zeros: that says nothing, and nothing is reported.
  const dir = join(CORPUS_DIR, 'anthropic', 'response');
  let zeros = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const answer = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { usage?: { cache_creation?: Record<string, number> } };
    const creation = answer.usage?.cache_creation;
    if (creation === undefined || creation === null || Object.values(creation).some((tokens) => tokens !== 0)) continue;
    for (const to of ['openai-chat', 'openai-responses', 'gemini', 'bedrock-converse'] as const) {
      const losses = convertResponse(answer, { from: 'anthropic', to, model: 'm' }).losses;
      assert.not.ok(losses.some((loss) => /cache_creation|by lifetime/.test(loss.message)), `${file} → ${to}`);
    }
    zeros++;
  }
  assert.ok(zeros >= 100, `corpus Anthropic answers with a breakdown of zeros: ${zeros}`);
});

test('errors: the exception name travels in x-amzn-ErrorType, with the SDK\'s statuses', () => {
  const headers = new Headers({ 'x-amzn-ErrorType': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' });
  const error = bedrockErrorFromHeaders(bedrockConverseCodec.decodeError({ message: 'slow down' }, context()), headers, 429);
  assert.equal({ type: error.type, code: error.code }, { type: 'rate_limit', code: 'ThrottlingException' });
  assert.equal(bedrockErrorHeaders({ type: 'permission', message: 'no' }), { 'x-amzn-ErrorType': 'AccessDeniedException' });
  assert.equal(bedrockErrorHeaders({ type: 'other', message: 'x', code: 'ModelTimeoutException' }), { 'x-amzn-ErrorType': 'ModelTimeoutException' });
  assert.is(bedrockErrorStatus({ type: 'other', message: 'x', code: 'ModelErrorException' }), 424);
  assert.is(bedrockErrorStatus({ type: 'rate_limit', message: 'x' }), 429);
  assert.is(bedrockErrorStatus({ type: 'invalid_request', message: 'x' }), 400);
  const unknown = bedrockConverseCodec.decodeError({ Output: { __type: 'com.amazon.coral.service#UnknownOperationException' }, Version: '1.0' }, context());
  assert.equal({ type: unknown.type, code: unknown.code }, { type: 'not_found', code: 'UnknownOperationException' });
  const typed = bedrockConverseCodec.decodeError({ __type: 'ValidationException', message: 'bad' }, context());
  assert.equal({ type: typed.type, code: typed.code }, { type: 'invalid_request', code: 'ValidationException' });
});

// ---------------------------------------------------------------------------
// The event stream

const raw = existsSync(STREAMS) ? readdirSync(STREAMS).filter((file) => file.endsWith('.eventstream')).sort() : [];
test('the corpus has raw event streams', () => assert.ok(raw.length >= 33, `${raw.length} .eventstream files`));

for (const file of raw) {
  test(`event stream ${file}: frames match the recorded events, re-encode byte for byte, convert to SSE and back`, async () => {
    const bytes = new Uint8Array(readFileSync(join(STREAMS, file)));
    const fixture = (framing: 'eventstream' | 'jsonl'): StreamFixture => ({ format: 'bedrock-converse', name: file, file: join(STREAMS, framing === 'jsonl' ? file.replace(/\.eventstream$/, '.jsonl') : file), framing });
    const events = await wireEvents(fixture('eventstream'));
    if (existsSync(fixture('jsonl').file)) assert.equal(events, await wireEvents(fixture('jsonl')), 'the frames are the recorded events');
    const rewritten = eventStreamFraming.write(events.map((event) => ({ event: event.event ?? '', data: JSON.stringify(event.data) })));
    assert.ok(Buffer.from(rewritten).equals(Buffer.from(bytes)), 'written back byte for byte');
    const same = Buffer.concat(await collect(convertStream(chunked(bytes, [7, 100, 333]), { from: 'bedrock-converse', to: 'bedrock-converse' })));
    assert.equal(await wireEventsFromBytes(new Uint8Array(same), [], 'bedrock-converse'), events, 'a same-format conversion through the IR gives the same events');
    const sse = Buffer.concat(await collect(convertStream(chunked(bytes, []), { from: 'bedrock-converse', to: 'anthropic', model: 'claude-test' })));
    const back = convertStream(chunked(new Uint8Array(sse), []), { from: 'anthropic', to: 'bedrock-converse', model: 'claude-test' });
    const again = accumulate(decodeEvents('bedrock-converse', await wireEventsFromBytes(new Uint8Array(Buffer.concat(await collect(back))), [], 'bedrock-converse')).events);
    const original = accumulate(decodeEvents('bedrock-converse', events).events);
    assert.ok(again.complete || again.error !== undefined, 'the trip through Anthropic ends');
    const texts = (response: typeof original.response) => response.candidates[0]?.message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    assert.is(texts(again.response), texts(original.response), 'the text survives Anthropic SSE and back');
  });
}

test('a frame with a broken CRC is a framing error, reported in the target\'s own error event', async () => {
  const file = raw[0];
  if (file === undefined) return;
  const bytes = new Uint8Array(readFileSync(join(STREAMS, file)));
  const broken = bytes.slice();
  broken[40] = (broken[40] ?? 0) ^ 0xff;
  const reader = eventStreamFraming.createReader();
  assert.throws(() => reader.push(broken), /checksum/);
  const sse = Buffer.concat(await collect(convertStream(chunked(broken, []), { from: 'bedrock-converse', to: 'openai-chat', model: 'gpt' }))).toString('utf8');
  assert.match(sse, /not well framed/);
});

test('the event-stream writer and reader agree with @smithy/eventstream-codec (the AWS SDK\'s) on frames of every size', () => {
  const smithy = new EventStreamCodec((bytes) => new TextDecoder().decode(bytes), (text) => new TextEncoder().encode(text));
  const string = (value: string) => ({ type: 'string' as const, value });
  // One reader for all frames too: a header block it has read before enters the checksum in one step.
  const shared = eventStreamFraming.createReader();
  for (let n = 0; n < 200; n++) {
    const data = JSON.stringify({ text: `${'é🙂'.repeat(n % 7)}${'a'.repeat(n * 3)}`, n });
    const name = n % 5 === 0 ? 'throttlingException' : ['contentBlockDelta', 'messageStart', 'metadata'][n % 3]!;
    const headers: MessageHeaders = name.endsWith('Exception')
      ? { ':message-type': string('exception'), ':exception-type': string(name), ':content-type': string('application/json') }
      : { ':event-type': string(name), ':content-type': string('application/json'), ':message-type': string('event') };
    const theirs = smithy.encode({ headers, body: new TextEncoder().encode(data) });
    assert.ok(Buffer.from(eventStreamFraming.write([{ event: name, data }])).equals(Buffer.from(theirs)), `frame ${n} is written as the SDK writes it`);
    assert.equal(eventStreamFraming.createReader().push(theirs), [{ event: name, data: JSON.parse(data) }], `frame ${n} reads back`);
    assert.equal(shared.push(theirs), [{ event: name, data: JSON.parse(data) }], `frame ${n} reads back after the others`);
    if (n % 3 === 1) {
      // A broken byte in the headers, the payload or the prelude's checksum of a frame whose header block is known.
      for (const at of [20, theirs.length - 6, 9]) {
        const broken = theirs.slice();
        broken[at] = broken[at]! ^ 0x20;
        const reader = eventStreamFraming.createReader();
        reader.push(theirs);
        assert.throws(() => reader.push(broken), /checksum/, `frame ${n} broken at ${at}`);
      }
    }
  }
  // Headers of other types (the SDK sends none today) are skipped, not misread.
  const typed = smithy.encode({ headers: { ':event-type': string('messageStop'), flag: { type: 'boolean', value: true }, count: { type: 'integer', value: 7 }, id: { type: 'uuid', value: '0123456789abcdef0123456789abcdef'.replace(/(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-') } }, body: new TextEncoder().encode('{"stopReason":"end_turn"}') });
  assert.equal(eventStreamFraming.createReader().push(typed), [{ event: 'messageStop', data: { stopReason: 'end_turn' } }]);
});

test('a stream cut inside a frame ends with an error, not silently', () => {
  const file = raw[0];
  if (file === undefined) return;
  const bytes = new Uint8Array(readFileSync(join(STREAMS, file)));
  const reader = eventStreamFraming.createReader();
  reader.push(bytes.subarray(0, bytes.length - 5));
  assert.throws(() => reader.end(), /inside a frame/);
  assert.throws(() => eventStreamFraming.createReader().push(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])), /frames are/);
});

test('an IR error becomes an exception frame the AWS SDK knows', () => {
  const encoder = bedrockConverseCodec.createStreamEncoder!({ losses: new LossCollector() });
  const messages = [...encoder.encode({ type: 'start' }), ...encoder.encode({ type: 'error', error: { type: 'rate_limit', message: 'slow down' } })];
  const bytes = eventStreamFraming.write(messages);
  const events = eventStreamFraming.createReader().push(bytes);
  assert.equal(events, [{ event: 'messageStart', data: { role: 'assistant' } }, { event: 'throttlingException', data: { message: 'slow down' } }]);
  const decoded = decodeEvents('bedrock-converse', events).events;
  assert.equal(decoded.at(-1), { type: 'error', error: { type: 'rate_limit', status: 429, message: 'slow down', code: 'ThrottlingException', extensions: { 'bedrock-converse': { $event: 'throttlingException' } } } });
});

// ---------------------------------------------------------------------------
// Detection and the normalizer

test('detection: Bedrock paths, request, response and error shapes', () => {
  assert.equal(detectFormat({ messages: [] }, { path: `/model/${encodeURIComponent('arn:aws:bedrock:us-east-1:1:inference-profile/x')}/converse-stream` }), { format: 'bedrock-converse', kind: 'request', certain: true });
  assert.equal(detectFormat({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }), { format: 'bedrock-converse', kind: 'request', certain: true });
  assert.equal(detectFormat({ messages: [{ role: 'user', content: 'hi' }], inferenceConfig: { maxTokens: 5 } }), { format: 'bedrock-converse', kind: 'request', certain: true });
  assert.equal(detectFormat({ output: { message: { role: 'assistant', content: [] } }, stopReason: 'end_turn' }), { format: 'bedrock-converse', kind: 'response', certain: true });
  assert.equal(detectFormat({ message: 'The security token included in the request is invalid.' }), { format: 'bedrock-converse', kind: 'error', certain: true });
  assert.equal(detectFormat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], max_tokens: 5 })?.format, 'anthropic');
});

test('normalizer: HAR entries of Bedrock calls, JSON and binary event stream, model from the URL', async () => {
  const streamFile = raw.find((file) => file.startsWith('dd-trace-py--bedrock_converse_stream.'));
  assert.ok(streamFile !== undefined);
  const request = { messages: [{ role: 'user', content: [{ text: 'hi' }] }], inferenceConfig: { maxTokens: 20 } };
  const answer = { output: { message: { role: 'assistant', content: [{ text: 'Hello!' }] } }, stopReason: 'end_turn', usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 }, metrics: { latencyMs: 100 } };
  const modelId = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
  const entry = (path: string, response: Record<string, unknown>) => ({
    startedDateTime: '2025-11-21T09:00:00.000Z',
    time: 120,
    request: { method: 'POST', url: `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(modelId)}/${path}`, headers: [], postData: { mimeType: 'application/json', text: JSON.stringify(request) } },
    response: { status: 200, headers: [], content: response },
  });
  const har = {
    log: {
      entries: [
        entry('converse', { mimeType: 'application/json', text: JSON.stringify(answer) }),
        entry('converse-stream', { mimeType: 'application/vnd.amazon.eventstream', encoding: 'base64', text: readFileSync(join(STREAMS, streamFile)).toString('base64') }),
      ],
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-bedrock-'));
  writeFileSync(join(dir, 'bedrock.har'), JSON.stringify(har));
  const summary = await normalizeFiles({ inputs: [join(dir, 'bedrock.har')], outDir: join(dir, 'out') });
  const records = readFileSync(join(dir, 'out', 'records.jsonl'), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as NormalizedRecord);
  assert.is(summary.written, 2, readFileSync(join(dir, 'out', 'errors.jsonl'), 'utf8'));
  for (const record of records) {
    assert.is(record.format, 'bedrock-converse');
    assert.is(record.formatEvidence, 'url');
    assert.is(record.model, modelId);
  }
  assert.is(records[1]?.stream, true);
  const streamed = records[1]?.response as { candidates: { message: { parts: { text?: string }[] } }[] };
  assert.ok((streamed.candidates[0]?.message.parts[0]?.text ?? '').startsWith('Okay'), 'the stream is reassembled');
});

test('the Web Crypto SHA-256 the signer uses agrees with node:crypto', async () => {
  for (const [secret, parts] of [[undefined, ['']], [undefined, ['abc', 'déf']], ['key', ['AWS4-HMAC-SHA256\n20251121T090000Z']], [new Uint8Array([1, 2, 3]), [new Uint8Array(70_000).fill(7)]]] as const) {
    const hash = new WebSha256(secret);
    for (const part of parts) hash.update(part);
    const expected = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
    for (const part of parts) expected.update(part);
    assert.is(Buffer.from(await hash.digest()).toString('hex'), expected.digest('hex'));
  }
});

// ---------------------------------------------------------------------------
// The CLI

const BIN = join(REPO_ROOT, 'bin', 'interlingua.js');

test('CLI: convert --kind stream reads and writes the binary event stream', () => {
  const file = join(STREAMS, raw.find((name) => name.startsWith('dd-trace-py--bedrock_converse_stream.')) ?? '');
  const toSse = spawnSync(process.execPath, [BIN, 'convert', '--kind', 'stream', '--from', 'bedrock-converse', '--to', 'anthropic', '--model', 'claude-test', file], { cwd: REPO_ROOT });
  assert.is(toSse.status, 0, toSse.stderr.toString());
  assert.match(toSse.stdout.toString(), 'event: message_start');
  const back = spawnSync(process.execPath, [BIN, 'convert', '--kind', 'stream', '--from', 'anthropic', '--to', 'bedrock-converse', '-'], { cwd: REPO_ROOT, input: toSse.stdout });
  assert.is(back.status, 0, back.stderr.toString());
  const events = eventStreamFraming.createReader().push(new Uint8Array(back.stdout));
  assert.equal(events[0]?.event, 'messageStart');
  assert.equal(events.at(-1)?.event, 'metadata');
});

test('CLI: serve --upstream bedrock-converse without credentials is a usage mistake', () => {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env['AWS_ACCESS_KEY_ID'];
  delete env['AWS_SECRET_ACCESS_KEY'];
  const result = spawnSync(process.execPath, [BIN, 'serve', '--upstream', 'bedrock-converse', '--region', 'eu-west-1'], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  assert.is(result.status, 2);
  assert.match(result.stderr, 'AWS_ACCESS_KEY_ID');
});

test('CLI: serve --upstream bedrock-converse --region signs for the region', async () => {
  const credentials = { accessKeyId: 'AKIDCLI', secretAccessKey: 'cli-secret-key-0000' };
  const bedrock = await startFakeBedrock(credentials, 'eu-west-1', { output: { message: { role: 'assistant', content: [{ text: 'Hi there' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 5 } });
  const child = spawn(process.execPath, [BIN, 'serve', '--upstream', 'bedrock-converse', '--region', 'eu-west-1', '--upstream-url', bedrock.url, '--port', '0'], {
    cwd: REPO_ROOT,
    env: { ...process.env, AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey },
  });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
        if (match !== null) resolve(match[1] ?? '');
      });
      child.on('exit', () => reject(new Error(`serve exited: ${text}`)));
    });
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'us.amazon.nova-lite-v1:0', messages: [{ role: 'user', content: 'hi' }] }) });
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    assert.is(response.status, 200);
    assert.is(body.choices[0]?.message.content, 'Hi there');
    assert.ok(bedrock.received[0]?.signed, 'signed for eu-west-1');
    assert.is(bedrock.received[0]?.path, `/model/${encodeURIComponent('us.amazon.nova-lite-v1:0')}/converse`);
  } finally {
    child.kill();
    await bedrock.close();
  }
});

test('a $schemaText hint that is not JSON is ignored, not thrown (found by npm run fuzz, input #534151)', () => {
  const file = join(CORPUS_DIR, 'bedrock-converse/request/ruby_llm--chat_with_schema_with_bedrock_claude-haiku-4-5_accepts_schematist_schema_class_instances_and_returns_structured_output.json');
  const losses = new LossCollector();
  const ir = bedrockConverseCodec.decodeRequest(JSON.parse(readFileSync(file, 'utf8')), { losses, model: 'm' });
  const own = ir.extensions?.['bedrock-converse'] as Record<string, unknown> | undefined;
  assert.type(own?.['$schemaText'], 'string');
  own!['$schemaText'] = '{"type": "object", \ud800';
  const body = bedrockConverseCodec.encodeRequest(ir, { losses, model: 'm' }) as { outputConfig: { textFormat: { structure: { jsonSchema: { schema: string } } } } };
  assert.is(body.outputConfig.textFormat.structure.jsonSchema.schema, JSON.stringify(ir.output?.type === 'json_schema' ? ir.output.schema : undefined));
});

test.run();
