/**
 * The OpenAI Responses codec: bad input (typed errors with code and path),
 * unknown items and content parts, and encodes of hand-made IR as if it came
 * from another format.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openaiResponsesCodec } from '../../src/providers/openai-responses/index.ts';
import { InterlinguaError } from '../../src/core/errors.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { ApiError, Message, Part, Request, Response } from '../../src/core/ir.ts';
import { lossKeys, type LossKey } from '../support/compare.ts';

type Body = Record<string, unknown>;

function context() {
  return { losses: new LossCollector() };
}

function decodeRequest(body: unknown) {
  const ctx = context();
  return { ir: openaiResponsesCodec.decodeRequest(body, ctx), losses: lossKeys(ctx.losses.losses) };
}

function decodeResponse(body: unknown) {
  const ctx = context();
  return { ir: openaiResponsesCodec.decodeResponse(body, ctx), losses: lossKeys(ctx.losses.losses) };
}

function encodeRequest(request: Request) {
  const ctx = context();
  return { body: openaiResponsesCodec.encodeRequest(request, ctx) as Body, losses: lossKeys(ctx.losses.losses) };
}

function encodeResponse(response: Response) {
  const ctx = context();
  return { body: openaiResponsesCodec.encodeResponse(response, ctx) as Body, losses: lossKeys(ctx.losses.losses) };
}

function expectError(run: () => unknown, code: string, path: string): void {
  try {
    run();
  } catch (error) {
    assert.instance(error, InterlinguaError, `expected an InterlinguaError, got ${String(error)}`);
    const typed = error as InterlinguaError;
    assert.is(typed.code, code, typed.message);
    assert.is(typed.path, path, typed.message);
    assert.is(typed.format, 'openai-responses');
    return;
  }
  assert.unreachable(`expected ${code} at ${path}`);
}

const loss = (code: string, path: string, severity = 'warning'): LossKey => ({ code, path, severity });
const request = (input: unknown, extra: Body = {}): Body => ({ model: 'gpt-5.1', input, ...extra });
const response = (output: unknown[], extra: Body = {}): Body => ({ id: 'resp_1', object: 'response', created_at: 1, status: 'completed', error: null, incomplete_details: null, model: 'gpt-5.1', output, ...extra });
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (...parts: Part[]): Message => ({ role: 'assistant', parts });

// ---------------------------------------------------------------------------
const bad = suite('openai-responses: bad input');

bad('a request that is not an object', () => {
  expectError(() => decodeRequest('hello'), 'invalid_type', '');
  expectError(() => decodeRequest([request('hi')]), 'invalid_type', '');
});

bad('input of the wrong type, and items that are not objects', () => {
  expectError(() => decodeRequest(request(42)), 'invalid_type', '/input');
  expectError(() => decodeRequest(request(['hi'])), 'invalid_type', '/input/0');
});

bad('a message with an unknown role, and an item with neither type nor role', () => {
  expectError(() => decodeRequest(request([{ role: 'robot', content: 'hi' }])), 'invalid_value', '/input/0/role');
  expectError(() => decodeRequest(request([{ content: 'hi' }])), 'missing_field', '/input/0/type');
});

bad('a message without content, and a text part whose text is not a string', () => {
  expectError(() => decodeRequest(request([{ role: 'user' }])), 'missing_field', '/input/0/content');
  expectError(() => decodeRequest(request([{ role: 'user', content: [{ type: 'input_text', text: 7 }] }])), 'invalid_type', '/input/0/content/0/text');
});

bad('an image with no source, and a file with no source', () => {
  expectError(() => decodeRequest(request([{ role: 'user', content: [{ type: 'input_image', detail: 'auto' }] }])), 'missing_field', '/input/0/content/0/image_url');
  expectError(() => decodeRequest(request([{ role: 'user', content: [{ type: 'input_file', filename: 'a.pdf' }] }])), 'missing_field', '/input/0/content/0/file_data');
});

bad('function calls without call_id or with non-string arguments', () => {
  expectError(() => decodeRequest(request([{ type: 'function_call', name: 'f', arguments: '{}' }])), 'missing_field', '/input/0/call_id');
  expectError(() => decodeRequest(request([{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }])), 'invalid_type', '/input/0/arguments');
  expectError(() => decodeRequest(request([{ type: 'function_call_output', call_id: 'c', output: 3 }])), 'invalid_type', '/input/0/output');
});

bad('reasoning items with a bad encrypted_content or summary', () => {
  expectError(() => decodeRequest(request([{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 5 }])), 'invalid_type', '/input/0/encrypted_content');
  expectError(() => decodeRequest(request([{ type: 'reasoning', id: 'rs_1', summary: 'x' }])), 'invalid_type', '/input/0/summary');
});

bad('tools that are not an array or lack a name; a number field of the wrong type', () => {
  expectError(() => decodeRequest(request('hi', { tools: {} })), 'invalid_type', '/tools');
  expectError(() => decodeRequest(request('hi', { tools: [{ type: 'function', parameters: {} }] })), 'missing_field', '/tools/0/name');
  expectError(() => decodeRequest(request('hi', { max_output_tokens: '100' })), 'invalid_type', '/max_output_tokens');
});

bad('responses without output, with a user message in output, with bad usage', () => {
  expectError(() => decodeResponse({ id: 'resp_1', status: 'completed' }), 'missing_field', '/output');
  expectError(() => decodeResponse(response([{ type: 'message', id: 'm', role: 'user', content: [] }])), 'invalid_value', '/output/0/role');
  expectError(() => decodeResponse(response([], { usage: { input_tokens: 'ten', output_tokens: 1 } })), 'invalid_type', '/usage/input_tokens');
  expectError(() => decodeResponse(response([], { status: 3 })), 'invalid_type', '/status');
});

bad.run();

// ---------------------------------------------------------------------------
const unknown = suite('openai-responses: unknown and built-in items');

unknown('an unknown item type is kept opaque with an unknown_block loss, and round-trips', () => {
  const body = request([{ role: 'user', content: 'hi' }, { type: 'hologram_call', id: 'hc_1', payload: { x: 1 } }]);
  const { ir, losses } = decodeRequest(body);
  assert.equal(losses, [loss('unknown_block', '/input/1')]);
  const part = ir.messages[1]?.parts[0];
  assert.is(part?.type, 'opaque');
  assert.equal(encodeRequest(ir).body, body);
});

unknown('an unknown content part is kept opaque in its message', () => {
  const body = request([{ role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_video', video_url: 'https://v' }] }]);
  const { ir, losses } = decodeRequest(body);
  assert.equal(losses, [loss('unknown_block', '/input/0/content/1')]);
  assert.is(ir.messages[0]?.parts.length, 2);
  assert.equal(encodeRequest(ir).body, body);
});

unknown('an unknown part inside an assistant output message stays inside that message', () => {
  const item = { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'a', annotations: [] }, { type: 'output_audio', data: 'AAA' }] };
  const { ir, losses } = decodeResponse(response([item]));
  assert.equal(losses, [loss('unknown_block', '/output/0/content/1')]);
  assert.equal((encodeResponse(ir).body['output'] as unknown[])[0], item);
});

unknown('built-in tool items are opaque without a loss; consecutive assistant items form one message', () => {
  const body = request([
    { role: 'user', content: 'search' },
    { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
    { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'found', annotations: [] }] },
    { type: 'message', id: 'msg_2', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'more', annotations: [] }] },
  ]);
  const { ir, losses } = decodeRequest(body);
  assert.equal(losses, []);
  assert.is(ir.messages.length, 2);
  assert.equal(ir.messages[1]?.parts.map((part) => part.type), ['opaque', 'text', 'text']);
  assert.equal(encodeRequest(ir).body, body);
});

unknown('openai 7 items: configuration updates, compaction triggers and tool outputs of no call are opaque without a loss', () => {
  const body = request([
    { role: 'user', content: 'run it' },
    { type: 'configuration_update', id: 'cu_1', reasoning: { effort: 'high' } },
    { type: 'compaction_trigger', id: null },
    { type: 'function_call_output', output: 'ok', name: 'lookup', caller: { type: 'program', caller_id: 'prog_1' } },
    { type: 'function_call_output', call_id: null, output: '42' },
  ]);
  const { ir, losses } = decodeRequest(body);
  assert.equal(losses, []);
  assert.equal(ir.messages.map((message) => message.parts.map((part) => (part.type === 'opaque' ? part.blockType : part.type))), [
    ['text'],
    ['configuration_update', 'compaction_trigger', 'function_call_output', 'function_call_output'],
  ]);
  assert.equal(encodeRequest(ir).body, body);
  // A tool output that names its call is still that call's result, and a call id of the wrong type still an error.
  const answered = decodeRequest(request([{ type: 'function_call_output', call_id: 'call_1', output: 'ok', name: 'lookup' }])).ir;
  assert.equal(answered.messages[0]?.parts.map((part) => part.type), ['tool_result']);
  expectError(() => decodeRequest(request([{ type: 'function_call_output', call_id: 7, output: 'ok' }])), 'invalid_type', '/input/0/call_id');
  // A tool output in a response's output (the server ran the tool) is kept the same way.
  const item = { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: 'ok', status: 'completed' };
  const answer = decodeResponse(response([item]));
  assert.equal(answer.losses, []);
  assert.equal((encodeResponse(answer.ir).body['output'] as unknown[])[0], item);
});

unknown('a reasoning summary entry of an unknown kind keeps the item opaque', () => {
  const item = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_image', url: 'x' }] };
  const { ir, losses } = decodeRequest(request([item]));
  assert.equal(losses, [loss('unknown_block', '/input/0')]);
  assert.is(ir.messages[0]?.parts[0]?.type, 'opaque');
});

unknown.run();

// ---------------------------------------------------------------------------
const cross = suite('openai-responses: encoding IR from other formats');

cross('foreign reasoning is dropped from requests with its state reported; native reasoning is kept', () => {
  const { body, losses } = encodeRequest({
    messages: [
      user('Is 221 prime?'),
      assistant(
        { type: 'reasoning', text: '13 × 17', state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
        { type: 'text', text: 'No.' },
      ),
      assistant({ type: 'reasoning', text: '', id: 'rs_9', summary: ['s'], state: { format: 'openai-responses', kind: 'encrypted', value: 'gAAA' } }),
    ],
  });
  assert.equal(losses, [loss('reasoning_state_dropped', '/messages/1/parts/0/state'), loss('unsupported_part', '/messages/1/parts/0')]);
  const input = body['input'] as Body[];
  assert.equal(input[1], { role: 'assistant', content: 'No.' });
  assert.equal(input[2], { type: 'reasoning', id: 'rs_9', summary: [{ type: 'summary_text', text: 's' }], encrypted_content: 'gAAA' });
});

cross('foreign reasoning in a response becomes a summary with a made-up id', () => {
  const { body, losses } = encodeResponse({
    id: 'msg_abc',
    created: 10,
    candidates: [{ index: 0, message: assistant({ type: 'reasoning', text: 'think', state: { format: 'gemini', kind: 'thought_signature', value: 'x' } }, { type: 'text', text: 'Hi' }), stopReason: { unified: 'end_turn', raw: 'STOP', format: 'gemini' } }],
  });
  const output = body['output'] as Body[];
  assert.equal(output[0], { type: 'reasoning', id: 'rs_interlingua_0', summary: [{ type: 'summary_text', text: 'think' }] });
  assert.equal(output[1], { id: 'msg_interlingua_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }] });
  assert.is(body['status'], 'completed');
  assert.equal(losses, [
    loss('synthesised_id', '/candidates/0/message/parts/0/id', 'info'),
    loss('reasoning_state_dropped', '/candidates/0/message/parts/0/state'),
    loss('synthesised_id', '/candidates/0/message/parts/1', 'info'),
  ]);
});

cross('opaque parts and tools of other formats are reported and dropped', () => {
  const { body, losses } = encodeRequest({
    messages: [user('go'), assistant({ type: 'opaque', format: 'anthropic', blockType: 'server_tool_use', value: {} })],
    tools: [{ type: 'opaque', format: 'gemini', toolType: 'googleSearch', value: { googleSearch: {} } }],
  });
  assert.equal(losses, [loss('unsupported_part', '/messages/1/parts/0'), loss('dropped_field', '/tools/0')]);
  // None of the tools could be sent: no empty list.
  assert.is(body['tools'], undefined);
  assert.equal(body['input'], [{ role: 'user', content: 'go' }]);
});

cross('synthetic call ids are used and reported; tool results with images become a content list', () => {
  const { body, losses } = encodeRequest({
    messages: [
      user('weather?'),
      assistant({ type: 'tool_call', id: 'call_gemini_1', syntheticId: true, name: 'get_weather', arguments: { city: 'Paris' } }),
      {
        role: 'tool',
        parts: [{
          type: 'tool_result', callId: 'call_gemini_1', syntheticId: true, name: 'get_weather', isError: true,
          content: [{ type: 'text', text: 'radar:' }, { type: 'image', source: { kind: 'base64', data: 'iVBORw0KGgo=', mediaType: 'image/png' } }],
        }],
      },
    ],
  });
  const input = body['input'] as Body[];
  assert.equal(input[1], { type: 'function_call', call_id: 'call_gemini_1', name: 'get_weather', arguments: '{"city":"Paris"}' });
  assert.equal(input[2], {
    type: 'function_call_output',
    call_id: 'call_gemini_1',
    output: [{ type: 'input_text', text: 'Error: radar:' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' }],
  });
  assert.equal(losses, [
    loss('synthesised_id', '/messages/1/parts/0/id', 'info'),
    loss('synthesised_id', '/messages/2/parts/0/callId', 'info'),
    loss('approximated', '/messages/2/parts/0'),
  ]);
});

cross('leading system messages join into instructions; later ones stay developer/system items', () => {
  const { body, losses } = encodeRequest({
    messages: [
      { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'system', developer: true, parts: [{ type: 'text', text: 'Use French.' }] },
      user('Bonjour'),
      { role: 'system', developer: true, parts: [{ type: 'text', text: 'Now English.' }] },
    ],
  });
  assert.is(body['instructions'], 'Be brief.\n\nUse French.');
  assert.equal(body['input'], [{ role: 'user', content: 'Bonjour' }, { role: 'developer', content: 'Now English.' }]);
  assert.equal(losses, [loss('approximated', '/messages/0', 'info')]);
});

cross('function tools: strict kept, strict false when absent; tool choice and output format', () => {
  const { body, losses } = encodeRequest({
    messages: [user('x')],
    tools: [
      { type: 'function', name: 'a', parameters: { type: 'object' }, strict: true },
      { type: 'function', name: 'b', description: 'B', parameters: { type: 'object' } },
    ],
    toolChoice: { type: 'allowed', names: ['a'], mode: 'required' },
    output: { type: 'json_schema', schema: { type: 'object' }, strict: true },
    generation: { maxTokens: 100, stop: ['END'], seed: 1 },
    reasoning: { mode: 'enabled', budgetTokens: 4000, includeThoughts: true },
  });
  assert.equal(body['tools'], [
    { type: 'function', name: 'a', parameters: { type: 'object' }, strict: true },
    { type: 'function', name: 'b', description: 'B', parameters: { type: 'object' }, strict: false },
  ]);
  assert.equal(body['tool_choice'], { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }] });
  assert.equal(body['text'], { format: { type: 'json_schema', schema: { type: 'object' }, strict: true, name: 'response' } });
  assert.equal(body['reasoning'], { effort: 'medium', summary: 'auto' });
  assert.is(body['max_output_tokens'], 100);
  assert.equal(losses, [
    loss('defaulted', '/output/name', 'info'),
    loss('approximated', '/reasoning/budgetTokens'),
    loss('dropped_field', '/generation/stop'),
    loss('dropped_field', '/generation/seed'),
  ]);
});

cross('foreign extensions, foreign file ids and message names are reported', () => {
  const { body, losses } = encodeRequest({
    messages: [{
      role: 'user',
      name: 'alice',
      parts: [
        { type: 'document', source: { kind: 'file', id: 'file_011', format: 'anthropic' } },
        { type: 'image', source: { kind: 'file', id: 'file-abc', format: 'openai-chat' } },
      ],
    }],
    extensions: { anthropic: { top_k: 5, $hint: true } },
  });
  assert.equal(body['input'], [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-abc', detail: 'auto' }] }]);
  assert.equal(losses, [
    loss('dropped_field', ''),
    loss('dropped_field', '/messages/0/name'),
    loss('unsupported_part', '/messages/0/parts/0'),
  ]);
});

cross('usage arithmetic and stop reasons of other formats', () => {
  const { body, losses } = encodeResponse({
    id: 'x',
    created: 5,
    candidates: [{ index: 0, message: assistant({ type: 'text', text: 'cut' }), stopReason: { unified: 'max_tokens', raw: 'max_tokens', format: 'anthropic' } }],
    usage: { inputTokens: 100, cacheReadTokens: 40, outputTokens: 50, reasoningTokens: 20 },
  });
  assert.equal(body['usage'], { input_tokens: 100, input_tokens_details: { cached_tokens: 40, cache_write_tokens: 0 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 150 });
  assert.is(body['status'], 'incomplete');
  assert.equal(body['incomplete_details'], { reason: 'max_output_tokens' });
  assert.is((body['output'] as Body[])[0]?.['status'], 'incomplete');
  assert.equal(losses, [loss('synthesised_id', '/candidates/0/message/parts/0', 'info')]);
});

cross('decoded stop reasons: function calls, incomplete, refusal', () => {
  const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' };
  assert.equal(decodeResponse(response([call])).ir.candidates[0]?.stopReason, { unified: 'tool_calls', raw: 'completed', format: 'openai-responses' });
  const incomplete = decodeResponse(response([], { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }));
  assert.equal(incomplete.ir.candidates[0]?.stopReason, { unified: 'content_filter', raw: 'content_filter', format: 'openai-responses' });
  const refusal = { type: 'message', id: 'm', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] };
  assert.is(decodeResponse(response([refusal])).ir.candidates[0]?.stopReason?.unified, 'refusal');
});

cross('stateful references travel as extensions that other formats report', () => {
  const { ir } = decodeRequest(request('hi', { previous_response_id: 'resp_1', store: false, conversation: 'conv_1' }));
  assert.equal(ir.extensions?.['openai-responses']?.['previous_response_id'], 'resp_1');
  assert.equal(ir.extensions?.['openai-responses']?.['conversation'], 'conv_1');
  // `store` is a setting Chat has too: the IR's, not the body's own.
  assert.is(ir.store, false);
  const collector = new LossCollector();
  collector.foreignExtensions(ir.extensions, 'anthropic', '');
  assert.equal(lossKeys(collector.losses).map((entry) => entry.code), ['dropped_field', 'dropped_field']);
});

cross('error bodies: lenient decode, exact re-encode, neutral encode for other formats', () => {
  const ctx = context();
  const captured = { error: 'Error: 429 Rate limit reached' };
  const decoded = openaiResponsesCodec.decodeError(captured, ctx);
  assert.is(decoded.type, 'rate_limit');
  assert.is(decoded.status, 429);
  assert.equal(openaiResponsesCodec.encodeError(decoded, ctx), captured);
  const foreign: ApiError = { type: 'overloaded', message: 'Overloaded', status: 529, code: 'overloaded_error' };
  assert.equal(openaiResponsesCodec.encodeError(foreign, ctx), { error: { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded_error' } });
  assert.equal(ctx.losses.losses, []);
});

cross.run();

const exact = suite('openai-responses: exact same-format trips');

exact('a response with output_text but no echoed settings gains no default echo fields', () => {
  const body = response([{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] }], { output_text: 'Hi' });
  assert.equal(encodeResponse(decodeResponse(body).ir).body, body);
});

exact('nulls, string content, generate_summary and user spellings survive', () => {
  const body = request([{ role: 'assistant', content: 'plain' }, { role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png', file_id: null }] }], {
    instructions: null,
    reasoning: { generate_summary: 'concise', effort: null },
    user: 'u-1',
    temperature: null,
    tools: [{ type: 'function', name: 'f', description: null, parameters: null, strict: null }],
  });
  const { ir, losses } = decodeRequest(body);
  assert.equal(losses, []);
  assert.is(ir.user, 'u-1');
  assert.is(ir.reasoning?.summary, 'concise');
  assert.equal(encodeRequest(ir), { body, losses: [] });
});

exact.run();
