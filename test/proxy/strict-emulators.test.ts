/**
 * The strict vendor emulators themselves (test/support/strict): each rule
 * refuses what breaks it with the vendor's status and text, and a request
 * that keeps every rule (a tool loop replaying what the emulator issued)
 * is answered, whole and in the vendor's stream framing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FormatId } from '../../src/core/ir.ts';
import { startStrictUpstream, type ScriptedAnswer, type StrictUpstream } from '../support/strict/index.ts';

const test = suite('strict vendor emulators');
type Json = Record<string, unknown>;

const PATH: Record<FormatId, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/chat/completions',
  'openai-responses': '/responses',
  gemini: '/v1beta/models/gemini-3-pro-preview:generateContent',
  'bedrock-converse': '/model/m/converse',
  ollama: '/api/chat',
};

async function withEmulator(format: FormatId, script: ScriptedAnswer[], run: (post: (body: unknown, path?: string) => Promise<{ status: number; json: Json; text: string }>, upstream: StrictUpstream) => Promise<void>): Promise<void> {
  const upstream = await startStrictUpstream({ format, script });
  const post = async (body: unknown, path = PATH[format]) => {
    const response = await fetch(`${upstream.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
    const text = await response.text();
    let json: Json = {};
    try {
      json = JSON.parse(text) as Json;
    } catch {
      // a stream
    }
    return { status: response.status, json, text };
  };
  try {
    await run(post, upstream);
  } finally {
    await upstream.close();
  }
}

const CALL: ScriptedAnswer = { kind: 'tool_calls', calls: [{ name: 'lookup', arguments: { id: 'A' } }], reasoning: 'Look it up.' };
const message = (json: Json): string => {
  const error = json['error'];
  return typeof error === 'string' ? error : String((error as Json | undefined)?.['message'] ?? json['message']);
};

test('Anthropic: thinking continuity, signatures it issued, tool_result pairing, anthropic-version', () =>
  withEmulator('anthropic', [CALL, { kind: 'text', text: 'Done.' }], async (post) => {
    const question = { role: 'user', content: 'Find A.' };
    const thinking = { type: 'enabled', budget_tokens: 1024 };
    const first = await post({ model: 'm', max_tokens: 2048, thinking, messages: [question] });
    assert.is(first.status, 200);
    const content = first.json['content'] as Json[];
    assert.is(content[0]?.['type'], 'thinking');
    const use = content.find((block) => block['type'] === 'tool_use') as Json;
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: use['id'], content: 'found' }] };
    const withoutThinking = await post({ model: 'm', max_tokens: 2048, thinking, messages: [question, { role: 'assistant', content: [use] }, result] });
    assert.is(withoutThinking.status, 400);
    assert.is(message(withoutThinking.json).split('. When')[0], 'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`');
    assert.is((withoutThinking.json['error'] as Json)['type'], 'invalid_request_error');
    const forged = await post({ model: 'm', max_tokens: 2048, thinking, messages: [question, { role: 'assistant', content: [{ ...content[0], signature: 'Zm9yZ2Vk' }, use] }, result] });
    assert.is(message(forged.json), 'messages.1.content.0: Invalid `signature` in `thinking` block');
    const stray = await post({ model: 'm', max_tokens: 2048, thinking, messages: [question, { role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_other', content: 'x' }] }] });
    assert.match(message(stray.json), 'unexpected `tool_use_id` found in `tool_result` blocks: toolu_other.');
    const good = await post({ model: 'm', max_tokens: 2048, thinking, messages: [question, { role: 'assistant', content }, result] });
    assert.is(good.status, 200, good.text);
  }),
);

test('Anthropic: the anthropic-version header is required', () =>
  withEmulator('anthropic', [{ kind: 'text', text: 'ok' }], async (_post, upstream) => {
    const response = await fetch(`${upstream.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) });
    assert.is(response.status, 400);
    assert.equal(((await response.json()) as Json)['error'], { type: 'invalid_request_error', message: 'anthropic-version: header is required' });
  }),
);

test('OpenAI Chat: metadata, safety_identifier and prompt_cache_key bounds; tool messages answer the calls before them', () =>
  withEmulator('openai-chat', [{ kind: 'text', text: 'ok' }], async (post) => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    const many = await post({ ...base, metadata });
    assert.equal([many.status, (many.json['error'] as Json)['code'], message(many.json)], [400, 'object_above_max_properties', "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead."]);
    const long = await post({ ...base, safety_identifier: 'x'.repeat(150) });
    assert.equal([long.status, (long.json['error'] as Json)['code'], message(long.json)], [400, 'string_above_max_length', "Invalid 'safety_identifier': string too long. Expected a string with maximum length 64, but got a string with length 150 instead."]);
    assert.is((await post({ ...base, prompt_cache_key: 'x'.repeat(65) })).status, 400);
    const orphan = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_1', content: 'x' }] });
    assert.is(message(orphan.json), "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const unanswered = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'user', content: 'next' }] });
    assert.match(message(unanswered.json), 'The following tool_call_ids did not have response messages: call_1');
    assert.is((await post({ ...base, metadata: { user: 'a' } })).status, 200);
  }),
);

test('OpenAI Responses: reasoning items and encrypted content it issued, call outputs matched, streamed in its framing', () =>
  withEmulator('openai-responses', [CALL, { kind: 'text', text: 'Done.' }, { kind: 'text', text: 'Streamed.' }], async (post) => {
    const request = { model: 'm', reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'], store: false, input: [{ role: 'user', content: 'Find A.' }] };
    const first = await post(request);
    const output = first.json['output'] as Json[];
    const reasoning = output.find((item) => item['type'] === 'reasoning') as Json;
    const call = output.find((item) => item['type'] === 'function_call') as Json;
    assert.ok(typeof reasoning['encrypted_content'] === 'string');
    const answer = { type: 'function_call_output', call_id: call['call_id'], output: 'found' };
    const forged = await post({ ...request, input: [...request.input, { ...reasoning, encrypted_content: 'gAAAAAforged' }, call, answer] });
    assert.equal([forged.status, (forged.json['error'] as Json)['code']], [400, 'invalid_encrypted_content']);
    const unknown = await post({ ...request, input: [...request.input, { ...reasoning, id: 'rs_unknown' }, call, answer] });
    assert.is(unknown.status, 404);
    const alone = await post({ ...request, input: [...request.input, call, answer] });
    assert.match(message(alone.json), "of type 'function_call' was provided without its required 'reasoning' item");
    const stray = await post({ ...request, input: [...request.input, { type: 'function_call_output', call_id: 'call_x', output: 'x' }] });
    assert.is(message(stray.json), 'No tool call found for function call output with call_id call_x.');
    const good = await post({ ...request, input: [...request.input, reasoning, call, answer] });
    assert.is(good.status, 200, good.text);
    const streamed = await post({ model: 'm', stream: true, input: 'hi' });
    assert.match(streamed.text, 'event: response.completed');
  }),
);

test('Gemini 3: the thoughtSignature it issued on the first call, by position pairing, the closed Schema subset', () =>
  withEmulator('gemini', [{ kind: 'tool_calls', calls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }] }, { kind: 'text', text: 'Done.' }], async (post) => {
    const question = { role: 'user', parts: [{ text: 'Go.' }] };
    const first = await post({ contents: [question] });
    const parts = ((first.json['candidates'] as Json[])[0]?.['content'] as Json)['parts'] as Json[];
    assert.ok(typeof parts[0]?.['thoughtSignature'] === 'string' && parts[1]?.['thoughtSignature'] === undefined, 'the first call is signed');
    const responses = { role: 'user', parts: [{ functionResponse: { name: 'a', response: {} } }, { functionResponse: { name: 'b', response: {} } }] };
    const unsigned = await post({ contents: [question, { role: 'model', parts: parts.map(({ thoughtSignature: _, ...part }) => part) }, responses] });
    assert.is(message(unsigned.json).split(' Additional data')[0], 'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance.');
    assert.is((unsigned.json['error'] as Json)['status'], 'INVALID_ARGUMENT');
    const forged = await post({ contents: [question, { role: 'model', parts: [{ ...parts[0], thoughtSignature: 'Zm9yZ2Vk' }, parts[1]] }, responses] });
    assert.is(message(forged.json), 'Corrupted thought signature.');
    const short = await post({ contents: [question, { role: 'model', parts }, { role: 'user', parts: [responses.parts[0]] }] });
    assert.is(message(short.json), 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    const swapped = await post({ contents: [question, { role: 'model', parts }, { role: 'user', parts: [...responses.parts].reverse() }] });
    assert.match(message(swapped.json), '[strict emulator]');
    const schema = await post({ contents: [question], tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }] }] });
    assert.is(message(schema.json), `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`);
    const good = await post({ contents: [question, { role: 'model', parts }, responses] });
    assert.is(good.status, 200, good.text);
  }),
);

test('Bedrock Converse: alternation, toolResult ids, toolConfig', () =>
  withEmulator('bedrock-converse', [{ kind: 'text', text: 'ok' }], async (post) => {
    const user = { role: 'user', content: [{ text: 'hi' }] };
    assert.match(message((await post({ messages: [user, user] })).json), 'A conversation must alternate between user and assistant roles.');
    const use = { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'f', input: {} } }] };
    const toolConfig = { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }] };
    const wrong = await post({ toolConfig, messages: [user, use, { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_2', content: [{ text: 'x' }] } }] }] });
    assert.is(message(wrong.json), 'Expected toolResult blocks at messages.2.content for the following Ids: tooluse_1');
    const result = { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'x' }] } }] };
    assert.is(message((await post({ messages: [user, use, result] })).json), 'The toolConfig field must be defined when using toolUse and toolResult content blocks.');
    assert.is((await post({ toolConfig, messages: [user, use, result] })).status, 200);
  }),
);

test('Ollama: a model is required; tool results are read in the order of the calls', () =>
  withEmulator('ollama', [{ kind: 'text', text: 'ok' }], async (post) => {
    assert.equal([(await post({ messages: [] })).status, message((await post({ messages: [] })).json)], [400, 'model is required']);
    const calls = { role: 'assistant', content: '', tool_calls: [{ function: { name: 'a', arguments: {} } }, { function: { name: 'b', arguments: {} } }] };
    const swapped = await post({ model: 'm', stream: false, messages: [{ role: 'user', content: 'go' }, calls, { role: 'tool', tool_name: 'b', content: '2' }, { role: 'tool', tool_name: 'a', content: '1' }] });
    assert.match(message(swapped.json), '[strict emulator]');
    const ordered = await post({ model: 'm', stream: false, messages: [{ role: 'user', content: 'go' }, calls, { role: 'tool', tool_name: 'a', content: '1' }, { role: 'tool', tool_name: 'b', content: '2' }] });
    assert.is(ordered.status, 200);
    const streamed = await post({ model: 'm', messages: [{ role: 'user', content: 'go' }] });
    assert.ok(streamed.text.trim().split('\n').every((line) => JSON.parse(line) !== undefined), 'NDJSON');
  }),
);

test.run();
