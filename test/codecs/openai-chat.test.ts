/**
 * The openai-chat codec: bad input, unknown blocks, and encodes of IR that
 * came from other formats (what Chat cannot carry is reported, never silent).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions/completions';
import { openaiChatCodec } from '../../src/providers/openai-chat/index.ts';
import { MOVED_MEDIA_TEXT, TOOL_ERROR_PREFIX } from '../../src/providers/openai-chat/messages-encode.ts';
import { InterlinguaError } from '../../src/core/errors.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { ApiError, Message, Request, Response } from '../../src/core/ir.ts';
import { GOLDEN_DIR } from '../support/fixtures.ts';
import { lossKeys } from '../support/compare.ts';

type Body = Record<string, unknown>;

function golden(name: string): unknown {
  return JSON.parse(readFileSync(join(GOLDEN_DIR, 'openai-chat', name), 'utf8'));
}

function decodeRequest(body: unknown): { ir: Request; losses: LossCollector } {
  const losses = new LossCollector();
  return { ir: openaiChatCodec.decodeRequest(body, { losses }), losses };
}

function encodeRequest(request: Request): { body: Body; losses: LossCollector } {
  const losses = new LossCollector();
  return { body: openaiChatCodec.encodeRequest(request, { losses }) as Body, losses };
}

function encodeResponse(response: Response): { body: Body; losses: LossCollector } {
  const losses = new LossCollector();
  return { body: openaiChatCodec.encodeResponse(response, { losses }) as Body, losses };
}

function codes(losses: LossCollector): string[] {
  return losses.losses.map((loss) => `${loss.code} ${loss.path}`);
}

function expectError(run: () => unknown, code: string, path: string): void {
  try {
    run();
  } catch (error) {
    assert.instance(error, InterlinguaError, `expected an InterlinguaError, got ${String(error)}`);
    const typed = error as InterlinguaError;
    assert.is(typed.code, code, typed.message);
    assert.is(typed.path, path, typed.message);
    assert.is(typed.format, 'openai-chat');
    return;
  }
  assert.unreachable(`expected ${code} at ${path}`);
}

// ---------------------------------------------------------------------------

const bad = suite('openai-chat bad input');
const user = (content: unknown): Body => ({ model: 'gpt-4.1', messages: [{ role: 'user', content }] });

bad('a body that is not an object', () => {
  expectError(() => decodeRequest([]), 'invalid_type', '');
});

bad('missing messages', () => {
  expectError(() => decodeRequest({ model: 'gpt-4.1' }), 'missing_field', '/messages');
});

bad('an unknown role', () => {
  expectError(() => decodeRequest({ messages: [{ role: 'robot', content: 'hi' }] }), 'invalid_value', '/messages/0/role');
});

bad('content that is neither string nor array', () => {
  expectError(() => decodeRequest(user(42)), 'invalid_type', '/messages/0/content');
});

bad('an image part without a url', () => {
  const body = user([{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { detail: 'low' } }]);
  expectError(() => decodeRequest(body), 'missing_field', '/messages/0/content/1/image_url/url');
});

bad('a file part with neither file_data nor file_id', () => {
  expectError(() => decodeRequest(user([{ type: 'file', file: { filename: 'a.pdf' } }])), 'missing_field', '/messages/0/content/0/file');
});

bad('a file data URL with a malformed media type', () => {
  const body = user([{ type: 'file', file: { file_data: 'data:pdf;base64,JVBERi0=' } }]);
  expectError(() => decodeRequest(body), 'invalid_value', '/messages/0/content/0/file/file_data');
});

bad('a tool message without tool_call_id', () => {
  const body = { messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'result' }] };
  expectError(() => decodeRequest(body), 'missing_field', '/messages/1/tool_call_id');
});

bad('tool-call arguments that are not a string', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: { a: 1 } } };
  const body = { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }] };
  expectError(() => decodeRequest(body), 'invalid_type', '/messages/1/tool_calls/0/function/arguments');
});

bad('a temperature that is not a number', () => {
  expectError(() => decodeRequest({ ...user('hi'), temperature: 'hot' }), 'invalid_type', '/temperature');
});

bad('a stop list with a non-string', () => {
  expectError(() => decodeRequest({ ...user('hi'), stop: ['END', 7] }), 'invalid_type', '/stop/1');
});

bad('an unknown tool_choice string', () => {
  expectError(() => decodeRequest({ ...user('hi'), tool_choice: 'sometimes' }), 'invalid_value', '/tool_choice');
});

bad('a response without choices, and a choice with a bad message', () => {
  const losses = new LossCollector();
  expectError(() => openaiChatCodec.decodeResponse({ id: 'x', object: 'chat.completion' }, { losses }), 'missing_field', '/choices');
  const body = { choices: [{ index: 0, message: 'hello', finish_reason: 'stop' }] };
  expectError(() => openaiChatCodec.decodeResponse(body, { losses }), 'invalid_type', '/choices/0/message');
});

bad('usage counts that are not numbers', () => {
  const body = { choices: [], usage: { prompt_tokens: '12', completion_tokens: 1, total_tokens: 13 } };
  expectError(() => openaiChatCodec.decodeResponse(body, { losses: new LossCollector() }), 'invalid_type', '/usage/prompt_tokens');
});

bad.run();

// ---------------------------------------------------------------------------

const unknown = suite('openai-chat unknown blocks');

unknown('an unknown content part becomes an opaque part, reported, and comes back as is', () => {
  const part = { type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } };
  const body = user([{ type: 'text', text: 'watch' }, part]);
  const { ir, losses } = decodeRequest(body);
  assert.equal(lossKeys(losses.losses), [{ code: 'unknown_block', path: '/messages/0/content/1', severity: 'warning' }]);
  const opaque = ir.messages[0]?.parts[1];
  assert.is(opaque?.type, 'opaque');
  assert.equal(encodeRequest(ir).body, body);
});

unknown('an unknown tool-call type and tool type are kept for Chat only', () => {
  const call = { id: 'call_9', type: 'mcp', mcp: { server: 's' } };
  const body = {
    messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }],
    tools: [{ type: 'mcp', server_label: 'docs' }],
  };
  const { ir, losses } = decodeRequest(body);
  assert.equal(codes(losses), ['unknown_block /messages/1/tool_calls/0', 'unknown_block /tools/0']);
  const encoded = encodeRequest(ir);
  assert.equal(encoded.body, body);
  assert.equal(codes(encoded.losses), []);
});

unknown.run();

// ---------------------------------------------------------------------------

const neutral = suite('openai-chat decodes into neutral IR fields');

neutral('media, roles and legacy function calls land in neutral slots', () => {
  const { ir, losses } = decodeRequest(golden('audio-in-out/request.json'));
  assert.equal(codes(losses), []);
  assert.equal(ir.messages[1]?.parts[1], {
    type: 'audio',
    source: { kind: 'base64', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=', mediaType: 'audio/wav' },
  });
  assert.equal(ir.messages[2]?.parts, [{ type: 'audio', source: { kind: 'file', id: 'audio_6872b4a9c1e08191b5f0e3a1d2c4b7e9', format: 'openai-chat' } }]);
  const files = decodeRequest(golden('file-pdf/request.json')).ir;
  assert.is(files.messages[0]?.developer, true);
  assert.equal(files.messages[1]?.parts[0], {
    type: 'document',
    source: { kind: 'base64', data: 'JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK', mediaType: 'application/pdf' },
    filename: 'invoice-2025-11.pdf',
  });
  const legacy = decodeRequest(golden('legacy-function-call/request.json')).ir;
  const call = legacy.messages[1]?.parts[0];
  const result = legacy.messages[2]?.parts[0];
  assert.is(call?.type === 'tool_call' && call.syntheticId, true);
  assert.is(result?.type === 'tool_result' && call?.type === 'tool_call' && result.callId === call.id, true, 'the function result answers the call');
  assert.equal(legacy.tools?.map((tool) => tool.type === 'function' && tool.name), ['get_current_weather']);
  assert.equal(legacy.toolChoice, { type: 'auto' });
  const refusal = decodeRequest(golden('refusal/request.json')).ir;
  assert.equal(refusal.generation, { maxTokens: 256 });
  assert.equal(refusal.output, { type: 'json' });
});

neutral('n > 1 responses keep every candidate; logprobs and annotations are kept', () => {
  const losses = new LossCollector();
  const many = openaiChatCodec.decodeResponse(golden('n-candidates/response.json'), { losses });
  assert.equal(
    many.candidates.map((candidate) => [candidate.index, candidate.stopReason?.unified]),
    [[0, 'end_turn'], [1, 'end_turn'], [2, 'max_tokens']],
  );
  const search = openaiChatCodec.decodeResponse(golden('web-search-citations/response.json'), { losses });
  const text = search.candidates[0]?.message.parts[0];
  assert.equal(text?.type === 'text' ? text.citations?.[0] : undefined, {
    kind: 'url_citation',
    url: 'https://www.bbc.co.uk/news/turtle',
    title: 'Turtle returns to the sea',
    start: 72,
    end: 110,
  });
  const usage = openaiChatCodec.decodeResponse(golden('developer-reasoning/response.json'), { losses }).usage;
  assert.equal([usage?.inputTokens, usage?.cacheReadTokens, usage?.outputTokens, usage?.reasoningTokens, usage?.totalTokens], [2140, 1920, 390, 384, 2530]);
  assert.equal(codes(losses), []);
});

neutral('tool results take the name of the latest call with their id, in the message before or earlier', () => {
  const call = (id: string, name: string): Body => ({ id, type: 'function', function: { name, arguments: '{}' } });
  const { ir } = decodeRequest({
    model: 'gpt-4.1',
    messages: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a', 'first'), call('b', 'second')] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'assistant', content: null, tool_calls: [call('c', 'third'), call('b', 'again')] },
      { role: 'tool', tool_call_id: 'c', content: '2' },
      { role: 'tool', tool_call_id: 'b', content: '3' },
      { role: 'tool', tool_call_id: 'a', content: '4' },
      { role: 'tool', tool_call_id: 'unknown', content: '5' },
    ],
  });
  const names = ir.messages.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool_result' ? [part.name ?? null] : [])));
  assert.equal(names, ['first', 'third', 'again', 'first', null]);
});

neutral('a conversion to a text-argument format keeps the argument text unparsed; decoding alone parses it', () => {
  const body = { model: 'gpt-4.1', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] }] };
  const partOf = (target: 'openai-chat' | 'openai-responses' | 'anthropic' | undefined): unknown => {
    const context = target === undefined ? { losses: new LossCollector() } : { losses: new LossCollector(), target };
    const part = openaiChatCodec.decodeRequest(body, context).messages[0]?.parts[0];
    return part?.type === 'tool_call' ? [part.arguments, part.rawArguments] : undefined;
  };
  assert.equal(partOf(undefined), [{ x: 1 }, '{"x":1}']);
  assert.equal(partOf('anthropic'), [{ x: 1 }, '{"x":1}']);
  assert.equal(partOf('openai-chat'), [undefined, '{"x":1}']);
  assert.equal(partOf('openai-responses'), [undefined, '{"x":1}']);
});

neutral.run();

// ---------------------------------------------------------------------------

const cross = suite('openai-chat encoding IR from other formats');

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function conversation(...messages: Message[]): Request {
  return { model: 'gpt-4.1', messages };
}

cross('a foreign assistant turn whose every part is dropped is left out, not sent empty', () => {
  const { body, losses } = encodeRequest(
    conversation(
      { role: 'user', parts: [{ type: 'text', text: 'Search the news.' }] },
      { role: 'assistant', parts: [{ type: 'opaque', format: 'openai-responses', blockType: 'web_search_call', value: { type: 'web_search_call', id: 'ws_1' } }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Nothing new.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Thanks.' }] },
    ),
  );
  assert.equal(body['messages'], [
    { role: 'user', content: 'Search the news.' },
    { role: 'assistant', content: 'Nothing new.' },
    { role: 'user', content: 'Thanks.' },
  ]);
  assert.equal(lossKeys(losses.losses), [{ code: 'unsupported_part', path: '/messages/1/parts/0', severity: 'warning' }]);
});

cross('each tool result is its own tool message; media moves to a user message after them', () => {
  const { body, losses } = encodeRequest(
    conversation(
      { role: 'user', parts: [{ type: 'text', text: 'Screenshot both pages.' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'toolu_1', name: 'shot', arguments: { page: 1 } },
          { type: 'tool_call', id: 'toolu_2', name: 'shot', arguments: { page: 2 } },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_1',
            content: [
              { type: 'text', text: 'page 1' },
              { type: 'image', source: { kind: 'base64', data: PNG, mediaType: 'image/png' } },
            ],
          },
          { type: 'tool_result', callId: 'toolu_2', content: [{ type: 'image', source: { kind: 'url', url: 'https://x.test/2.png' } }] },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'Compare them.' }] },
    ),
  );
  assert.equal(body['messages'], [
    { role: 'user', content: 'Screenshot both pages.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'shot', arguments: '{"page":1}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'shot', arguments: '{"page":2}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'page 1' },
    { role: 'tool', tool_call_id: 'toolu_2', content: MOVED_MEDIA_TEXT },
    {
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'image_url', image_url: { url: 'https://x.test/2.png' } },
      ],
    },
    { role: 'user', content: 'Compare them.' },
  ]);
  assert.equal(codes(losses), ['moved_content /messages/2/parts/0/content/1', 'moved_content /messages/2/parts/1/content/0']);
});

cross('a failed tool result is prefixed, since Chat has no error flag', () => {
  const { body, losses } = encodeRequest(
    conversation({ role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', isError: true, content: [{ type: 'text', text: 'timeout' }] }] }),
  );
  assert.equal(body['messages'], [{ role: 'tool', tool_call_id: 'c1', content: `${TOOL_ERROR_PREFIX}timeout` }]);
  assert.equal(lossKeys(losses.losses), [{ code: 'approximated', path: '/messages/0/parts/0', severity: 'warning' }]);
});

cross('foreign reasoning, opaque blocks and synthetic ids are reported', () => {
  const { body, losses } = encodeRequest(
    conversation({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'Let me think.', state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
        { type: 'opaque', format: 'anthropic', blockType: 'server_tool_use', value: { type: 'server_tool_use' } },
        { type: 'text', text: 'Calling.' },
        { type: 'tool_call', id: 'call_gemini_0_0', syntheticId: true, name: 'lookup', arguments: {} },
        { type: 'text', text: 'Done.' },
      ],
    }),
  );
  assert.equal(body['messages'], [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Calling.' },
        { type: 'text', text: 'Done.' },
      ],
      tool_calls: [{ id: 'call_gemini_0_0', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
    },
  ]);
  assert.equal(codes(losses), [
    'reasoning_state_dropped /messages/0/parts/0',
    'unsupported_part /messages/0/parts/0',
    'unsupported_part /messages/0/parts/1',
    'synthesised_id /messages/0/parts/3',
    'approximated /messages/0',
  ]);
  assert.is(losses.losses[3]?.severity, 'info');
});

cross('parts Chat cannot carry in user messages are reported, not stringified', () => {
  const { body, losses } = encodeRequest(
    conversation({
      role: 'user',
      parts: [
        { type: 'text', text: 'Look:' },
        { type: 'video', source: { kind: 'url', url: 'gs://bucket/v.mp4' } },
        { type: 'document', source: { kind: 'file', id: 'file_011', format: 'anthropic' } },
        { type: 'document', source: { kind: 'base64', data: 'JVBERi0=', mediaType: 'application/pdf' }, filename: 'a.pdf' },
        { type: 'audio', source: { kind: 'base64', data: 'T2dnUw==', mediaType: 'audio/ogg' } },
      ],
    }),
  );
  assert.equal(body['messages'], [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look:' },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
        { type: 'input_audio', input_audio: { data: 'T2dnUw==', format: 'ogg' } },
      ],
    },
  ]);
  assert.equal(codes(losses), [
    'unsupported_part /messages/0/parts/1',
    'unsupported_part /messages/0/parts/2',
    'approximated /messages/0/parts/4',
  ]);
});

cross('request settings: budget to effort, top-k dropped, allowed tools, developer', () => {
  const { body, losses } = encodeRequest({
    model: 'o4-mini',
    messages: [{ role: 'system', developer: true, parts: [{ type: 'text', text: 'Be brief.' }] }],
    tools: [
      { type: 'function', name: 'a', parameters: { type: 'object' } },
      { type: 'opaque', format: 'gemini', toolType: 'googleSearch', value: { googleSearch: {} } },
    ],
    toolChoice: { type: 'allowed', names: ['a'], mode: 'required' },
    reasoning: { mode: 'enabled', budgetTokens: 6000, includeThoughts: true },
    generation: { maxTokens: 512, topK: 40, stop: ['END'] },
    output: { type: 'json_schema', schema: { type: 'object' } },
    user: 'u-1',
  });
  assert.equal(body, {
    model: 'o4-mini',
    messages: [{ role: 'developer', content: 'Be brief.' }],
    tools: [{ type: 'function', function: { name: 'a', parameters: { type: 'object' } } }],
    tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'a' } }] } },
    reasoning_effort: 'medium',
    max_completion_tokens: 512,
    stop: ['END'],
    response_format: { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } },
    safety_identifier: 'u-1',
  });
  assert.equal(codes(losses), [
    'dropped_field /tools/1',
    'defaulted /output/name',
    'dropped_field /reasoning/includeThoughts',
    'approximated /reasoning/budgetTokens',
    'dropped_field /generation/topK',
  ]);
});

cross('responses: candidates, stop-reason mapping and usage arithmetic', () => {
  const { body, losses } = encodeResponse({
    id: 'msg_01',
    model: 'claude-x',
    candidates: [
      {
        index: 0,
        message: { role: 'assistant', parts: [{ type: 'text', text: 'No.' }] },
        stopReason: { unified: 'refusal', raw: 'refusal', format: 'anthropic' },
      },
      {
        index: 1,
        message: { role: 'assistant', parts: [{ type: 'tool_call', id: 'fc_1', name: 'f', arguments: { x: 1 } }] },
        stopReason: { unified: 'end_turn', raw: 'STOP', format: 'gemini' },
      },
      {
        index: 2,
        message: { role: 'assistant', parts: [{ type: 'text', text: 'Paused' }] },
        stopReason: { unified: 'pause', raw: 'pause_turn', format: 'anthropic' },
      },
    ],
    usage: { inputTokens: 1000, cacheReadTokens: 800, cacheWriteTokens: 100, outputTokens: 300, reasoningTokens: 120 },
  });
  const choices = body['choices'] as Body[];
  assert.equal(
    choices.map((choice) => choice['finish_reason']),
    ['content_filter', 'tool_calls', 'stop'],
  );
  assert.equal(choices[1]?.['message'], {
    role: 'assistant',
    content: null,
    refusal: null,
    annotations: [],
    tool_calls: [{ id: 'fc_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
  });
  assert.equal(body['usage'], {
    prompt_tokens: 1000,
    completion_tokens: 300,
    total_tokens: 1300,
    prompt_tokens_details: { cached_tokens: 800, cache_write_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 120 },
  });
  assert.is(body['object'], 'chat.completion');
  assert.equal(codes(losses), ['defaulted /created', 'approximated /candidates/0/stopReason', 'approximated /candidates/2/stopReason']);
});

cross('citations with a URL become url_citation annotations over their text', () => {
  const { body, losses } = encodeResponse({
    candidates: [
      {
        index: 0,
        message: {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Intro. ' },
            { type: 'text', text: 'Cited fact.', citations: [{ kind: 'web_search_result_location', url: 'https://a.test', title: 'A' }] },
            { type: 'text', text: 'Other.', citations: [{ kind: 'char_location', citedText: 'x', documentIndex: 0, start: 0, end: 1 }] },
          ],
        },
        stopReason: { unified: 'end_turn' },
      },
    ],
  });
  const message = (body['choices'] as Body[])[0]?.['message'] as Body;
  assert.is(message['content'], 'Intro. Cited fact.Other.');
  assert.equal(message['annotations'], [
    { type: 'url_citation', url_citation: { url: 'https://a.test', title: 'A', start_index: 7, end_index: 18 } },
  ]);
  assert.equal(codes(losses), ['synthesised_id /id', 'defaulted /created', 'defaulted /model', 'approximated /candidates/0/message/parts/1/citations/0', 'dropped_field /candidates/0/message/parts/2/citations/0']);
});

cross('errors: a foreign error becomes a Chat error body; odd captures decode leniently', () => {
  const losses = new LossCollector();
  const error: ApiError = { type: 'overloaded', message: 'Overloaded', status: 529, code: 'overloaded_error' };
  assert.equal(openaiChatCodec.encodeError(error, { losses }), {
    error: { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded_error' },
  });
  const decoded = openaiChatCodec.decodeError({ error: 'Error: 429 Too many requests' }, { losses });
  assert.is(decoded.type, 'rate_limit');
  assert.is(decoded.status, 429);
  assert.equal(codes(losses), []);
});

cross('citations of several text parts point into the joined content: a url_citation moved by its part\'s offset, another kind over its whole part', () => {
  const response: Response = {
    candidates: [{
      index: 0,
      stopReason: { unified: 'end_turn' },
      message: {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'First part cites A.', citations: [{ kind: 'url_citation', url: 'https://a.example', title: 'A', start: 17, end: 18 }] },
          { type: 'text', text: 'Second cites B.', citations: [{ kind: 'url_citation', url: 'https://b.example', title: 'B', start: 13, end: 14 }] },
          // A search result's range is blocks of the cited source, not characters of this text.
          { type: 'text', text: ' Fact.', citations: [{ kind: 'search_result_location', url: 'https://s.example', title: 'S', start: 0, end: 1 }] },
        ],
      },
    }],
  };
  const body = openaiChatCodec.encodeResponse(response, { losses: new LossCollector() }) as { choices: { message: { content: string; annotations: { url_citation: { start_index: number; end_index: number } }[] } }[] };
  const { content, annotations } = body.choices[0]!.message;
  assert.equal(annotations.map(({ url_citation: cited }) => content.slice(cited.start_index, cited.end_index)), ['A', 'B', ' Fact.']);
});

cross.run();

// ---------------------------------------------------------------------------

const types = suite('openai-chat golden bodies match the SDK types');

// Checked by tsc: a misspelt or mistyped field fails the type check of this file.
const toolsRequest = {
  model: 'gpt-4.1-2025-04-14',
  messages: [
    { role: 'system', content: 'You are a travel assistant. Use the tools when you need live data.' },
    { role: 'user', content: "What's the weather in Paris and in Oslo right now?" },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_Xq2v8kPa1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
        { id: 'call_Bn7r3TdL9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","unit":"celsius"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_Xq2v8kPa1', content: '{"temperature":18,"condition":"sunny"}' },
    { role: 'tool', tool_call_id: 'call_Bn7r3TdL9', content: [{ type: 'text', text: '{"temperature":4,"condition":"snow"}' }] },
    { role: 'assistant', content: 'Paris is sunny at 18°C; Oslo has snow at 4°C.' },
    { role: 'user', content: 'Book me a table in Oslo tonight, and run the SQL to log it.' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
          required: ['city', 'unit'],
          additionalProperties: false,
        },
        strict: true,
      },
    },
    {
      type: 'function',
      function: {
        name: 'book_table',
        description: 'Book a restaurant table.',
        parameters: { type: 'object', properties: { city: { type: 'string' }, time: { type: 'string' } }, required: ['city'] },
      },
    },
    {
      type: 'custom',
      custom: {
        name: 'run_sql',
        description: 'Run one SQL statement.',
        format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: /INSERT .+/' } },
      },
    },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  max_completion_tokens: 1024,
} satisfies ChatCompletionCreateParamsNonStreaming;

const refusalResponse = {
  id: 'chatcmpl-CA1x7refuse6no',
  object: 'chat.completion',
  created: 1767225842,
  model: 'gpt-4o-2024-08-06',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        refusal: "I'm sorry, I can't help with creating fake identification numbers.",
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 58,
    completion_tokens: 14,
    total_tokens: 72,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_7c3a9e1f2b',
} satisfies ChatCompletion;

types('the typed bodies are the golden files', () => {
  assert.equal(toolsRequest, golden('tools-parallel/request.json'));
  assert.equal(refusalResponse, golden('refusal/response.json'));
});

types('the refusal decodes to a refusal part and the finish reason keeps its raw value', () => {
  const ir = openaiChatCodec.decodeResponse(refusalResponse, { losses: new LossCollector() });
  const candidate = ir.candidates[0];
  assert.equal(candidate?.message.parts, [{ type: 'refusal', text: refusalResponse.choices[0]?.message.refusal ?? '' }]);
  assert.equal(candidate?.stopReason, { unified: 'refusal', raw: 'stop', format: 'openai-chat' });
  assert.equal(ir.usage?.cacheReadTokens, 0);
});

types.run();
