/**
 * The Anthropic codec: bad input (typed errors with code and path), unknown
 * blocks, and encodes of hand-made IR as if it came from another format.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { anthropicCodec } from '../../src/providers/anthropic/index.ts';
import { convertResponse } from '../../src/formats/convert.ts';
import { convertStream } from '../../src/formats/stream.ts';
import { InterlinguaError } from '../../src/core/errors.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { Message, Request, Response } from '../../src/core/ir.ts';
import { lossKeys, type LossKey } from '../support/compare.ts';

type Body = Record<string, unknown>;

function context() {
  return { losses: new LossCollector() };
}

function decodeRequest(body: unknown) {
  const ctx = context();
  return { ir: anthropicCodec.decodeRequest(body, ctx), losses: ctx.losses.losses };
}

function encodeRequest(request: Request) {
  const ctx = context();
  return { body: anthropicCodec.encodeRequest(request, ctx) as Body, losses: lossKeys(ctx.losses.losses) };
}

function encodeResponse(response: Response) {
  const ctx = context();
  return { body: anthropicCodec.encodeResponse(response, ctx) as Body, losses: lossKeys(ctx.losses.losses) };
}

function expectError(run: () => unknown, code: string, path: string): void {
  try {
    run();
  } catch (error) {
    assert.instance(error, InterlinguaError, `expected an InterlinguaError, got ${String(error)}`);
    const typed = error as InterlinguaError;
    assert.is(typed.code, code, typed.message);
    assert.is(typed.path, path, typed.message);
    assert.is(typed.format, 'anthropic');
    return;
  }
  assert.unreachable(`expected ${code} at ${path}`);
}

const user = (content: unknown): Body => ({ role: 'user', content });
const request = (messages: unknown[], extra: Body = {}): Body => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages, ...extra });
const toolUse = { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } };

// ---------------------------------------------------------------------------
const bad = suite('anthropic: bad input');

bad('a request that is not an object', () => {
  expectError(() => decodeRequest(42), 'invalid_type', '');
  expectError(() => decodeRequest([request([])]), 'invalid_type', '');
});

bad('missing messages', () => {
  expectError(() => decodeRequest({ model: 'claude-sonnet-4-5', max_tokens: 10 }), 'missing_field', '/messages');
});

bad('messages is not an array', () => {
  expectError(() => decodeRequest({ model: 'm', max_tokens: 10, messages: { role: 'user' } }), 'invalid_type', '/messages');
});

bad('a message without role, or with a role Anthropic does not have', () => {
  expectError(() => decodeRequest(request([{ content: 'hi' }])), 'missing_field', '/messages/0/role');
  expectError(() => decodeRequest(request([{ role: 'tool', content: 'hi' }])), 'invalid_value', '/messages/0/role');
  expectError(() => decodeRequest(request([{ role: 7, content: 'hi' }])), 'invalid_type', '/messages/0/role');
});

bad('a message without content, or with content of the wrong type', () => {
  expectError(() => decodeRequest(request([{ role: 'user' }])), 'missing_field', '/messages/0/content');
  expectError(() => decodeRequest(request([user(12)])), 'invalid_type', '/messages/0/content');
});

bad('a block that is not an object, or has no type', () => {
  expectError(() => decodeRequest(request([user(['hello'])])), 'invalid_type', '/messages/0/content/0');
  expectError(() => decodeRequest(request([user([{ text: 'hello' }])])), 'missing_field', '/messages/0/content/0/type');
});

bad('a text block whose text is not a string', () => {
  expectError(() => decodeRequest(request([user([{ type: 'text', text: ['a'] }])])), 'invalid_type', '/messages/0/content/0/text');
});

bad('a tool_use without id, or with input that is not an object', () => {
  const { id: _id, ...withoutId } = toolUse;
  expectError(() => decodeRequest(request([user('q'), { role: 'assistant', content: [withoutId] }])), 'missing_field', '/messages/1/content/0/id');
  expectError(
    () => decodeRequest(request([user('q'), { role: 'assistant', content: [{ ...toolUse, input: '{"city":"Paris"}' }] }])),
    'invalid_type',
    '/messages/1/content/0/input',
  );
});

bad('an image with an invalid base64 media type', () => {
  const image = { type: 'image', source: { type: 'base64', media_type: 'png', data: 'iVBORw0KGgo=' } };
  expectError(() => decodeRequest(request([user([image])])), 'invalid_value', '/messages/0/content/0/source/media_type');
});

bad('an image without media_type, or with an unknown source type', () => {
  const noType = { type: 'image', source: { type: 'base64', data: 'iVBORw0KGgo=' } };
  expectError(() => decodeRequest(request([user([noType])])), 'missing_field', '/messages/0/content/0/source/media_type');
  const unknown = { type: 'image', source: { type: 'ftp', url: 'ftp://example.com/a.png' } };
  expectError(() => decodeRequest(request([user([unknown])])), 'invalid_value', '/messages/0/content/0/source/type');
});

bad('a tool_result that answers no earlier tool_use', () => {
  const result = { type: 'tool_result', tool_use_id: 'toolu_missing', content: 'done' };
  expectError(() => decodeRequest(request([user([result])])), 'invalid_reference', '/messages/0/content/0/tool_use_id');
  // A later tool_use does not count: the call must come first.
  expectError(
    () => decodeRequest(request([user('q'), { role: 'assistant', content: 'ok' }, user([{ ...result, tool_use_id: 'toolu_01A' }]), { role: 'assistant', content: [toolUse] }])),
    'invalid_reference',
    '/messages/2/content/0/tool_use_id',
  );
});

bad('wrong types of top-level fields', () => {
  expectError(() => decodeRequest(request([user('hi')], { max_tokens: '100' })), 'invalid_type', '/max_tokens');
  expectError(() => decodeRequest(request([user('hi')], { stop_sequences: ['a', 1] })), 'invalid_type', '/stop_sequences/1');
  expectError(() => decodeRequest(request([user('hi')], { tool_choice: { type: 'sometimes' } })), 'invalid_value', '/tool_choice/type');
  expectError(() => decodeRequest(request([user('hi')], { tools: [{ name: 'f' }] })), 'missing_field', '/tools/0/input_schema');
  expectError(() => decodeRequest(request([user('hi')], { thinking: { type: 'enabled', budget_tokens: 'lots' } })), 'invalid_type', '/thinking/budget_tokens');
});

bad('a response without content, or with usage of the wrong type', () => {
  const ctx = context();
  expectError(() => anthropicCodec.decodeResponse({ id: 'msg_1', type: 'message', role: 'assistant' }, ctx), 'missing_field', '/content');
  expectError(
    () => anthropicCodec.decodeResponse({ id: 'msg_1', content: [], usage: { input_tokens: '5', output_tokens: 1 } }, ctx),
    'invalid_type',
    '/usage/input_tokens',
  );
  expectError(() => anthropicCodec.decodeResponse('nope', ctx), 'invalid_type', '');
});

bad('an error body that is not an object', () => {
  expectError(() => anthropicCodec.decodeError(null, context()), 'invalid_type', '');
});

bad.run();

// ---------------------------------------------------------------------------
const unknown = suite('anthropic: unknown blocks');

unknown('an unknown block type becomes an opaque part with an unknown_block loss, and goes back as is', () => {
  const block = { type: 'hologram', frames: 24, source: { uri: 'holo://x' } };
  const body = request([user([{ type: 'text', text: 'look' }, block])]);
  const { ir, losses } = decodeRequest(body);
  assert.equal(lossKeys(losses), [{ code: 'unknown_block', path: '/messages/0/content/1', severity: 'warning' }]);
  const part = ir.messages[0]?.parts[1];
  assert.equal(part, { type: 'opaque', format: 'anthropic', blockType: 'hologram', value: block });
  assert.equal(encodeRequest(ir).body, body);
});

unknown('known server-tool blocks are opaque without a loss', () => {
  const ctx = context();
  const response = anthropicCodec.decodeResponse(
    {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: [] },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    ctx,
  );
  assert.equal(ctx.losses.losses, []);
  assert.equal(response.candidates[0]?.message.parts.map((part) => part.type), ['opaque', 'opaque']);
});

unknown.run();

// ---------------------------------------------------------------------------
const decode = suite('anthropic: decoding into neutral fields');

decode('a user turn with tool results and text splits into a tool message and a user message', () => {
  const body = request([
    user('weather?'),
    { role: 'assistant', content: [toolUse] },
    user([{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '18°C' }, { type: 'text', text: 'thanks' }]),
  ]);
  const { ir } = decodeRequest(body);
  assert.equal(ir.messages.map((message) => message.role), ['user', 'assistant', 'tool', 'user']);
  const result = ir.messages[2]?.parts[0];
  assert.equal(result?.type === 'tool_result' && [result.callId, result.name, result.content], ['toolu_01A', 'get_weather', [{ type: 'text', text: '18°C' }]]);
  assert.equal(encodeRequest(ir).body, body);
});

decode('usage cache_creation: the cache writes by lifetime; an object with fewer counts, other keys, or null goes back as it came', () => {
  const answer = (creation: unknown): Body => ({
    id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 30, cache_read_input_tokens: 0, cache_creation: creation },
  });
  const full = anthropicCodec.decodeResponse(answer({ ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 }), context());
  assert.equal(full.usage?.cacheWriteByTtl, { '5m': 10, '1h': 20 });
  for (const creation of [{ ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 }, { ephemeral_1h_input_tokens: 30 }, {}, { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 0, ephemeral_24h_input_tokens: 0 }, null]) {
    const body = answer(creation);
    const { body: again, losses } = encodeResponse(anthropicCodec.decodeResponse(body, context()));
    assert.equal(again, body, JSON.stringify(creation));
    assert.equal(losses, []);
  }
  expectError(() => anthropicCodec.decodeResponse(answer({ ephemeral_5m_input_tokens: 'ten' }), context()), 'invalid_type', '/usage/cache_creation/ephemeral_5m_input_tokens');
});

decode('a null stop_details (any stop but a refusal\'s) is no loss for another format, whole or streamed, and comes back as null; a refusal\'s is reported', async () => {
  const whole = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, stop_details: null, usage: { input_tokens: 3, output_tokens: 1 } };
  assert.equal(convertResponse(whole, { from: 'anthropic', to: 'openai-chat' }).losses.filter((loss) => loss.message.includes('stop_details')), []);
  assert.equal(convertResponse(whole, { from: 'anthropic', to: 'anthropic' }).body, whole);
  const refusal = { ...whole, stop_reason: 'refusal', stop_details: { type: 'refusal', category: 'cyber', explanation: 'blocked' } };
  assert.equal(convertResponse(refusal, { from: 'anthropic', to: 'openai-chat' }).losses.filter((loss) => loss.message.includes('stop_details')).map((loss) => loss.code), ['dropped_field']);
  const events = [
    { type: 'message_start', message: { ...whole, content: [], stop_reason: null } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null }, usage: { output_tokens: 1 } },
    { type: 'message_stop' },
  ];
  const sse = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
  const chat = convertStream(new Response(sse).body as ReadableStream<Uint8Array>, { from: 'anthropic', to: 'openai-chat' });
  await new Response(chat).text();
  assert.equal((await chat.losses).filter((loss) => loss.message.includes('stop_details')), []);
  const same = convertStream(new Response(sse).body as ReadableStream<Uint8Array>, { from: 'anthropic', to: 'anthropic' });
  assert.is(await new Response(same).text(), sse);
});

decode('request settings land in neutral fields', () => {
  const { ir } = decodeRequest(
    request([user('hi')], {
      system: 'Be brief.',
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
      metadata: { user_id: 'u-1' },
      stop_sequences: ['END'],
    }),
  );
  assert.equal(ir.messages[0]?.role, 'system');
  assert.equal(ir.toolChoice, { type: 'required' });
  assert.is(ir.parallelToolCalls, false);
  assert.equal(ir.reasoning, { mode: 'enabled', budgetTokens: 2048, includeThoughts: false, effort: 'high' });
  assert.equal(ir.output, { type: 'json_schema', schema: { type: 'object' } });
  assert.is(ir.user, 'u-1');
  assert.equal(ir.generation, { maxTokens: 100, stop: ['END'] });
});

decode('usage: inputTokens adds cache reads and writes', () => {
  const ctx = context();
  const response = anthropicCodec.decodeResponse(
    {
      id: 'msg_1',
      content: [],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 40, output_tokens_details: { thinking_tokens: 30 } },
    },
    ctx,
  );
  const usage = response.usage;
  assert.equal([usage?.inputTokens, usage?.cacheWriteTokens, usage?.cacheReadTokens, usage?.outputTokens, usage?.reasoningTokens], [115, 5, 100, 40, 30]);
  assert.equal(response.candidates[0]?.stopReason, { unified: 'max_tokens', raw: 'max_tokens', format: 'anthropic' });
});

decode('errors: the wire body and the odd SDK-message capture', () => {
  const ctx = context();
  const error = anthropicCodec.decodeError({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' }, ctx);
  assert.equal([error.type, error.status, error.code, error.message], ['overloaded', 529, 'overloaded_error', 'Overloaded']);
  const captured = anthropicCodec.decodeError({ error: 'Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}' }, ctx);
  assert.equal([captured.type, captured.status, captured.code], ['rate_limit', 429, 'rate_limit_error']);
  assert.equal(anthropicCodec.encodeError(captured, ctx), { error: captured.message });
});

decode.run();

// ---------------------------------------------------------------------------
const foreign = suite('anthropic: encoding IR from other formats');

const text = (value: string) => ({ type: 'text' as const, text: value });

foreign('a missing max_tokens is defaulted and reported', () => {
  const { body, losses } = encodeRequest({ model: 'gpt-4o', messages: [{ role: 'user', parts: [text('hi')] }] });
  assert.is(body['max_tokens'], 4096);
  assert.equal(losses, [{ code: 'defaulted', path: '/generation/maxTokens', severity: 'warning' }]);
  assert.equal(body['messages'], [{ role: 'user', content: 'hi' }]);
});

foreign('foreign reasoning state is dropped, reasoning without a signature is never sent as thinking', () => {
  const messages: Message[] = [
    { role: 'user', parts: [text('Is 221 prime?')] },
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: '13 × 17', state: { format: 'gemini', kind: 'thought_signature', value: 'c2ln' } },
        { type: 'reasoning', text: 'summary only', summary: ['summary only'] },
        text('No.'),
      ],
    },
    { role: 'user', parts: [text('And 223?')] },
  ];
  const { body, losses } = encodeRequest({ messages, generation: { maxTokens: 50 } });
  assert.equal(losses, [
    { code: 'reasoning_state_dropped', path: '/messages/1/parts/0', severity: 'warning' },
    { code: 'unsupported_part', path: '/messages/1/parts/1', severity: 'warning' },
  ]);
  assert.equal((body['messages'] as Body[])[1], { role: 'assistant', content: 'No.' });
});

foreign('tool calls: synthetic ids are reported, invalid ids rewritten, results merged first into one user turn', () => {
  const messages: Message[] = [
    { role: 'user', parts: [text('weather in Paris and Oslo?')] },
    {
      role: 'assistant',
      parts: [
        { type: 'tool_call', id: 'call_gemini_0', syntheticId: true, name: 'get_weather', arguments: { city: 'Paris' } },
        { type: 'tool_call', id: 'call|fc:1', name: 'get_weather', arguments: { city: 'Oslo' } },
      ],
    },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_gemini_0', content: [text('18°C')] }] },
    { role: 'tool', parts: [{ type: 'tool_result', callId: 'call|fc:1', content: [text('4°C')], isError: false }] },
    { role: 'user', parts: [text('Which is warmer?')] },
  ];
  const { body, losses } = encodeRequest({ messages, generation: { maxTokens: 50 } });
  assert.equal(losses, [
    { code: 'synthesised_id', path: '/messages/1/parts/0/id', severity: 'info' },
    { code: 'approximated', path: '/messages/1/parts/1/id', severity: 'info' },
    { code: 'approximated', path: '/messages/3/parts/0/callId', severity: 'info' },
  ]);
  assert.equal((body['messages'] as Body[]).slice(1), [
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'call_gemini_0', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_fc_1', name: 'get_weather', input: { city: 'Oslo' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_gemini_0', content: '18°C' },
        { type: 'tool_result', tool_use_id: 'call_fc_1', content: '4°C', is_error: false },
        { type: 'text', text: 'Which is warmer?' },
      ],
    },
  ]);
});

foreign('system messages: leading ones hoisted, later ones folded into user text (Anthropic roles are user and assistant; some models refuse a system turn even after a user one)', () => {
  const messages: Message[] = [
    { role: 'system', parts: [text('Be brief.')], developer: true },
    { role: 'user', parts: [text('Hi')] },
    { role: 'system', parts: [text('Answer in French.')] },
    { role: 'assistant', parts: [text('Bonjour')] },
    { role: 'system', parts: [text('Now in German.')] },
    { role: 'user', parts: [text('Again')] },
  ];
  const { body, losses } = encodeRequest({ messages, generation: { maxTokens: 50 } });
  assert.is(body['system'], 'Be brief.');
  assert.equal(body['messages'], [
    { role: 'user', content: [text('Hi'), text('System: Answer in French.')] },
    { role: 'assistant', content: 'Bonjour' },
    { role: 'user', content: [text('System: Now in German.'), text('Again')] },
  ]);
  assert.equal(losses, [
    { code: 'moved_content', path: '/messages/2', severity: 'warning' },
    { code: 'moved_content', path: '/messages/4', severity: 'warning' },
  ]);
});

foreign('parts Anthropic cannot carry are dropped and reported; empty text is never sent', () => {
  const messages: Message[] = [
    {
      role: 'user',
      parts: [
        text(''),
        { type: 'audio', source: { kind: 'base64', data: 'UklGRg==', mediaType: 'audio/wav' } },
        { type: 'image', source: { kind: 'file', id: 'file-abc', format: 'openai-chat' } },
        { type: 'opaque', format: 'openai-responses', blockType: 'web_search_call', value: {} },
        { type: 'image', source: { kind: 'url', url: 'data:image/png;base64,iVBORw0KGgo=' }, detail: 'high' },
        { type: 'text', text: 'what is this?', extensions: { 'openai-chat': { annotations: [] } } },
      ],
    },
    { role: 'assistant', parts: [text('')] },
  ];
  const { body, losses } = encodeRequest({ messages, generation: { maxTokens: 50 } });
  assert.equal(losses, [
    { code: 'unsupported_part', path: '/messages/0/parts/1', severity: 'warning' },
    { code: 'unsupported_part', path: '/messages/0/parts/2', severity: 'warning' },
    { code: 'unsupported_part', path: '/messages/0/parts/3', severity: 'warning' },
    { code: 'dropped_field', path: '/messages/0/parts/4/detail', severity: 'info' },
    { code: 'dropped_field', path: '/messages/0/parts/5', severity: 'warning' },
  ]);
  assert.equal(body['messages'], [
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'text', text: 'what is this?' },
      ],
    },
  ]);
});

foreign('settings Anthropic lacks are reported; parallel and allowed tool choices mapped', () => {
  const { body, losses } = encodeRequest({
    messages: [{ role: 'user', parts: [text('hi')] }],
    tools: [{ type: 'function', name: 'a', parameters: { type: 'object' } }, { type: 'function', name: 'b' }],
    toolChoice: { type: 'allowed', names: ['a', 'b'], mode: 'required' },
    parallelToolCalls: false,
    generation: { maxTokens: 10, temperature: 1.5, seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.2, candidateCount: 2, logprobs: true },
    output: { type: 'json' },
    metadata: { team: 'x' },
  });
  assert.equal(body['tool_choice'], { type: 'any', disable_parallel_tool_use: true });
  assert.equal(body['tools'], [
    { name: 'a', input_schema: { type: 'object' } },
    { name: 'b', input_schema: { type: 'object', properties: {} } },
  ]);
  assert.is(body['temperature'], 1);
  assert.equal(body['output_config'], { format: { type: 'json_schema', schema: { type: 'object' } } });
  const codes = (losses as LossKey[]).map((loss) => `${loss.code} ${loss.path}`);
  assert.equal(codes, [
    'approximated /generation/temperature',
    'dropped_field /generation/candidateCount',
    'dropped_field /generation/seed',
    'dropped_field /generation/presencePenalty',
    'dropped_field /generation/frequencyPenalty',
    'dropped_field /generation/logprobs',
    'approximated /toolChoice',
    'approximated /output',
    'dropped_field /metadata',
  ]);
});

foreign('parallelToolCalls false alone becomes tool_choice auto with disable_parallel_tool_use', () => {
  const { body } = encodeRequest({ messages: [{ role: 'user', parts: [text('hi')] }], parallelToolCalls: false, generation: { maxTokens: 5 } });
  assert.equal(body['tool_choice'], { type: 'auto', disable_parallel_tool_use: true });
});

foreign('reasoning settings: effort alone means adaptive thinking; budgets Anthropic cannot take are mapped and reported', () => {
  const base = { messages: [{ role: 'user' as const, parts: [text('hi')] }], generation: { maxTokens: 8000 } };
  const effort = encodeRequest({ ...base, reasoning: { effort: 'high' } });
  assert.equal([effort.body['thinking'], effort.body['output_config'], effort.losses], [{ type: 'adaptive' }, { effort: 'high' }, []]);
  const off = encodeRequest({ ...base, reasoning: { budgetTokens: 0 } });
  assert.equal([off.body['thinking'], off.losses], [{ type: 'disabled' }, [{ code: 'approximated', path: '/reasoning/budgetTokens', severity: 'warning' }]]);
  const unbudgeted = encodeRequest({ ...base, reasoning: { mode: 'enabled', includeThoughts: true } });
  assert.equal(unbudgeted.body['thinking'], { type: 'enabled', budget_tokens: 1024, display: 'summarized' });
  assert.equal(unbudgeted.losses, [{ code: 'defaulted', path: '/reasoning/budgetTokens', severity: 'warning' }]);
});

foreign('responses: usage arithmetic, stop-reason mapping, extra candidates reported', () => {
  const response: Response = {
    id: 'chatcmpl-1',
    model: 'gpt-4o',
    candidates: [
      { index: 0, message: { role: 'assistant', parts: [text('Hello')] }, stopReason: { unified: 'content_filter', raw: 'content_filter', format: 'openai-chat' } },
      { index: 1, message: { role: 'assistant', parts: [text('Hi')] }, stopReason: { unified: 'end_turn' } },
    ],
    usage: { inputTokens: 200, cacheReadTokens: 50, outputTokens: 30, reasoningTokens: 10, totalTokens: 230 },
  };
  const { body, losses } = encodeResponse(response);
  assert.equal(body, {
    id: 'chatcmpl-1',
    type: 'message',
    role: 'assistant',
    model: 'gpt-4o',
    content: [{ type: 'text', text: 'Hello' }],
    stop_reason: 'refusal',
    stop_sequence: null,
    usage: { input_tokens: 150, cache_read_input_tokens: 50, output_tokens: 30, output_tokens_details: { thinking_tokens: 10 } },
  });
  assert.equal(losses, [
    { code: 'dropped_field', path: '/candidates/1', severity: 'warning' },
    { code: 'approximated', path: '/candidates/0/stopReason', severity: 'warning' },
  ]);
});

foreign('errors from other formats map to Anthropic error types', () => {
  const ctx = context();
  const body = anthropicCodec.encodeError({ type: 'rate_limit', message: 'Too many requests', status: 429, code: 'rate_limit_exceeded', param: 'model' }, ctx);
  assert.equal(body, { type: 'error', error: { type: 'rate_limit_error', message: 'Too many requests' } });
  assert.equal(lossKeys(ctx.losses.losses), [{ code: 'dropped_field', path: '/param', severity: 'warning' }]);
});

foreign.run();
