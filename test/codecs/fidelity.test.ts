/**
 * Fidelity classes that more recorded traffic caught (issue 39), each with a
 * payload written in the vendor's documented shape: what the source vendor
 * accepts must reach the target as something the target's spec accepts,
 * with a loss for what changes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest, convertResponse, convertStream, decodeResponse } from '../../src/index.ts';
import type { FormatId } from '../../src/index.ts';
import OpenAI from 'openai';
import { SpecValidators } from '../support/spec-schemas.ts';
import { startStrictUpstream } from '../support/strict/index.ts';
import { withProxy } from '../support/proxy-server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';

const test = suite('fidelity');
const validators = new SpecValidators();
const MODEL = 'model-under-test';

/** The spec errors of a converted body, for the targets that have a spec. */
function specErrors(format: FormatId, kind: 'request' | 'response', body: unknown): string {
  if (!['anthropic', 'openai-chat', 'openai-responses', 'gemini'].includes(format)) return '[]';
  return JSON.stringify(validators.validate(format, kind, body) ?? []);
}

// 1. Media encodings. Gemini's `Blob.data` is proto `bytes`, which the proto3
// JSON parser takes in "either standard or URL-safe base64 encoding
// with/without paddings" (https://protobuf.dev/programming-guides/json/);
// Anthropic's `source.data` is `format: byte` (standard base64, RFC 4648 §4:
// test/corpus/spec/tryAGI-Anthropic--openapi.yaml `Base64ImageSource`).
// 0xfb 0xff 0xfe… encodes to `+//+` in the standard alphabet, `-__-` URL-safe.
const URL_SAFE_PNG = 'iVBORw0KGgoA-__-AAAA_w';
const STANDARD_PNG = 'iVBORw0KGgoA+//+AAAA/w==';
const geminiImage = {
  contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: URL_SAFE_PNG } }] }],
};

test('1. URL-safe base64 from Gemini becomes standard base64 (alphabet and padding) for every other target; Gemini gets it back as it came', () => {
  const find = (body: unknown): string[] => JSON.stringify(body).match(/iVBORw0KGgo[^"]*/g) ?? [];
  for (const to of ['anthropic', 'openai-chat', 'openai-responses', 'bedrock-converse', 'ollama'] as const) {
    const { body } = convertRequest(geminiImage, { from: 'gemini', to, model: MODEL });
    assert.equal(find(body), [STANDARD_PNG], to);
    assert.is(specErrors(to, 'request', body), '[]', to);
  }
  const { body } = convertRequest(geminiImage, { from: 'gemini', to: 'gemini', model: MODEL });
  assert.equal(find(body), [URL_SAFE_PNG]);
  // Standard base64 is passed on as the very string it was.
  const standard = { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: STANDARD_PNG } }] }] };
  const anthropic = convertRequest(standard, { from: 'gemini', to: 'anthropic', model: MODEL }).body as { messages: [{ content: [{ source: { data: string } }] }] };
  assert.is(anthropic.messages[0].content[0].source.data, STANDARD_PNG);
});

// 2. Values outside the target's bounds (src/core/bounds.ts holds them, each
// with its source). Claude Code sends `metadata.user_id` of about 150
// characters (Anthropic's `Metadata.user_id` takes 512); OpenAI's
// `safety_identifier` takes 64 ("a maximum length of 64 characters",
// openai `ResponseCreateParams`). Ollama passes `options.top_k` to
// llama.cpp, where a value ≤ 0 means no top-k
// (https://github.com/ollama/ollama/blob/main/docs/modelfile.md#valid-parameters-and-values).
const CLAUDE_CODE_USER = `user_${'a1'.repeat(32)}_account_${'0f3c2d1e-5b6a-4c7d-8e9f-a0b1c2d3e4f5'}_session_${'7e6d5c4b-3a29-4817-9605-f4e3d2c1b0a9'}`;

test('2. an end-user id over the target\'s length limit is dropped with a loss; inside it, it travels', () => {
  const request = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }], metadata: { user_id: CLAUDE_CODE_USER } };
  assert.ok(CLAUDE_CODE_USER.length > 64 && CLAUDE_CODE_USER.length <= 512);
  for (const to of ['openai-chat', 'openai-responses'] as const) {
    const { body, losses } = convertRequest(request, { from: 'anthropic', to });
    assert.not.ok('safety_identifier' in (body as object) || 'user' in (body as object), to);
    assert.ok(losses.some((loss) => loss.code === 'dropped_field' && loss.irPath === '/user' && loss.severity === 'warning'), JSON.stringify(losses));
    assert.is(specErrors(to, 'request', body), '[]', to);
  }
  assert.equal(convertRequest(request, { from: 'anthropic', to: 'anthropic' }).body, request);
  const short = { ...request, metadata: { user_id: 'user-42' } };
  assert.is((convertRequest(short, { from: 'anthropic', to: 'openai-chat' }).body as { safety_identifier: string }).safety_identifier, 'user-42');
});

test('2. numeric settings outside the target\'s range: sentinels dropped, others clamped to the nearest bound, each reported', () => {
  const ollama = { model: 'llama3.2', stream: false, messages: [{ role: 'user', content: 'Hi' }], options: { top_k: -1, temperature: 1.5, top_p: 0.9 } };
  const anthropic = convertRequest(ollama, { from: 'ollama', to: 'anthropic' });
  const body = anthropic.body as Record<string, unknown>;
  assert.is(body['top_k'], undefined);
  assert.is(body['temperature'], 1);
  assert.is(body['top_p'], 0.9);
  const codes = Object.fromEntries(anthropic.losses.filter((loss) => loss.irPath?.startsWith('/generation/')).map((loss) => [loss.irPath, loss.code]));
  assert.equal(codes, { '/generation/topK': 'dropped_field', '/generation/temperature': 'approximated', '/generation/maxTokens': 'defaulted' });
  assert.is(specErrors('anthropic', 'request', body), '[]');
  // Gemini's top-k starts at 1: Anthropic's `top_k: 0` (no top-k) is left out, not made greedy.
  const fromAnthropic = convertRequest({ model: 'claude-sonnet-4-5', max_tokens: 64, top_k: 0, messages: [{ role: 'user', content: 'Hi' }] }, { from: 'anthropic', to: 'gemini' });
  assert.equal((fromAnthropic.body as { generationConfig: unknown }).generationConfig, { maxOutputTokens: 64 });
  // Chat's n goes to 128, penalties to ±2: a Gemini body's are fitted.
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { candidateCount: 200, presencePenalty: -3, topP: 0.5 } };
  const chat = convertRequest(gemini, { from: 'gemini', to: 'openai-chat', model: MODEL });
  const chatBody = chat.body as Record<string, unknown>;
  assert.is(chatBody['n'], 128);
  assert.is(chatBody['presence_penalty'], -2);
  assert.is(chatBody['top_p'], 0.5);
  assert.is(specErrors('openai-chat', 'request', chatBody), '[]');
});

test('2. OpenAI metadata limits: at most 16 entries, keys of 64 and values of 512 characters; the rest dropped with a loss each', () => {
  const labels: Record<string, string> = {};
  for (let index = 0; index < 18; index++) labels[`team${index}`] = 'search';
  labels['k'.repeat(65)] = 'x';
  const vertex = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], labels };
  const { body, losses } = convertRequest(vertex, { from: 'gemini', to: 'openai-responses', model: MODEL });
  const metadata = (body as { metadata: Record<string, string> }).metadata;
  assert.is(Object.keys(metadata).length, 16);
  assert.not.ok('k'.repeat(65) in metadata);
  assert.is(losses.filter((loss) => loss.irPath?.startsWith('/metadata/')).length, 3, JSON.stringify(losses));
  assert.is(specErrors('openai-responses', 'request', body), '[]');
});

// 3. Gemini `GroundingChunk.web.uri` is a plain string
// (https://ai.google.dev/api/generate-content#GroundingChunk); OpenAI's
// `url_citation.url` is `format: uri` (openai spec `UrlCitationBody`, Chat
// `ChatCompletionResponseMessage.annotations`), which RFC 3986 §2 limits.
const SPACED_URI = 'https://example.com/docs/Weather Report (März).pdf?q=rain "today"';
const geminiGrounded = {
  candidates: [
    {
      content: { role: 'model', parts: [{ text: 'Rain is likely tomorrow.' }] },
      finishReason: 'STOP',
      index: 0,
      groundingMetadata: {
        groundingChunks: [{ web: { uri: SPACED_URI, title: 'Weather Report' } }, { web: { uri: 'https://example.org/a%20b', title: 'Escaped' } }],
        groundingSupports: [{ segment: { startIndex: 0, endIndex: 24, text: 'Rain is likely tomorrow.' }, groundingChunkIndices: [0, 1] }],
      },
    },
  ],
  usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 6, totalTokenCount: 14 },
  modelVersion: 'gemini-2.5-flash',
};

test('3. URIs a source took with characters no URI may hold are percent-encoded for targets whose spec says format: uri; valid ones and escapes stay', () => {
  const expected = ['https://example.com/docs/Weather%20Report%20(M%C3%A4rz).pdf?q=rain%20%22today%22', 'https://example.org/a%20b'];
  const chat = convertResponse(geminiGrounded, { from: 'gemini', to: 'openai-chat' });
  const annotations = (chat.body as { choices: { message: { annotations: { url_citation: { url: string } }[] } }[] }).choices[0]?.message.annotations ?? [];
  assert.equal(annotations.map((annotation) => annotation.url_citation.url), expected);
  assert.is(specErrors('openai-chat', 'response', chat.body), '[]');
  const responses = convertResponse(geminiGrounded, { from: 'gemini', to: 'openai-responses' });
  const output = (responses.body as { output: { content: { annotations: { url: string }[] }[] }[] }).output[0]?.content[0]?.annotations ?? [];
  assert.equal(output.map((annotation) => annotation.url), expected);
  assert.is(specErrors('openai-responses', 'response', responses.body), '[]');
  // Back to Gemini the URI is as it came.
  assert.equal(convertResponse(geminiGrounded, { from: 'gemini', to: 'gemini' }).body, geminiGrounded);
  // An image URL in a Gemini request reaches Chat's `image_url.url` (format: uri) escaped too.
  const request = { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'https://example.com/my photo.png' } }] }] };
  const chatRequest = convertRequest(request, { from: 'gemini', to: 'openai-chat', model: MODEL }).body as { messages: { content: { image_url: { url: string } }[] }[] };
  assert.is(chatRequest.messages[0]?.content[0]?.image_url.url, 'https://example.com/my%20photo.png');
});

// 4. OpenAI Chat takes a system message anywhere in `messages`
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages);
// Anthropic's `MessageParam.role` is `user | assistant`
// (node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts), and
// Gemini's `Content.role` is `user | model`.
test('4. a mid-conversation Chat system message: the leading one is the system prompt, a later one user text marked "System: " with a loss', () => {
  const request = {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'List the files.' },
      { role: 'assistant', content: 'a.txt b.txt' },
      { role: 'system', content: 'The user switched to plan mode.' },
      { role: 'user', content: 'Now plan.' },
    ],
  };
  const anthropic = convertRequest(request, { from: 'openai-chat', to: 'anthropic' });
  const body = anthropic.body as { system: unknown; messages: { role: string; content: unknown }[] };
  assert.is(body.system, 'You are terse.');
  assert.equal(body.messages.map((message) => message.role), ['user', 'assistant', 'user']);
  assert.equal(body.messages[2]?.content, [
    { type: 'text', text: 'System: The user switched to plan mode.' },
    { type: 'text', text: 'Now plan.' },
  ]);
  assert.ok(anthropic.losses.some((loss) => loss.code === 'moved_content' && loss.path === '/messages/3'), JSON.stringify(anthropic.losses));
  assert.is(specErrors('anthropic', 'request', body), '[]');
  // Right after a user turn too (where it used to stay `role: "system"`).
  const afterUser = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Be brief.' }] };
  const turns = (convertRequest(afterUser, { from: 'openai-chat', to: 'anthropic' }).body as { messages: { role: string }[] }).messages;
  assert.equal(turns.map((message) => message.role), ['user']);
  const gemini = convertRequest(request, { from: 'openai-chat', to: 'gemini' });
  const contents = (gemini.body as { contents: { role: string; parts: { text: string }[] }[] }).contents;
  assert.equal(contents.map((content) => content.role), ['user', 'model', 'user']);
  assert.ok(contents[2]?.parts.some((part) => part.text === 'System: The user switched to plan mode.'), JSON.stringify(contents));
  assert.is(specErrors('gemini', 'request', gemini.body), '[]');
});

// 5. Shapes the vendor accepts. Gemini `tools` is a list of `Tool`
// (https://ai.google.dev/api/caching#Tool), but the API answers 200 to one
// `Tool` object; `videoMetadata` (https://ai.google.dev/api/caching#VideoMetadata)
// also comes as a part of its own after the video's `fileData`.
test('5. Gemini tools as one object and videoMetadata as a part of its own decode, go back to Gemini as they came, and reach other targets', () => {
  const request = {
    contents: [
      {
        role: 'user',
        parts: [
          { fileData: { mimeType: 'video/mp4', fileUri: 'https://www.youtube.com/watch?v=9hE5-98ZeCg' } },
          { videoMetadata: { startOffset: '10s', endOffset: '20s' } },
          { text: 'What is the weather where this was filmed?' },
        ],
      },
    ],
    tools: { functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } }] },
  };
  const same = convertRequest(request, { from: 'gemini', to: 'gemini', model: MODEL });
  assert.equal(same.body, request);
  assert.equal(same.losses, []);
  const anthropic = convertRequest(request, { from: 'gemini', to: 'anthropic', model: MODEL });
  const tools = (anthropic.body as { tools: { name: string }[] }).tools;
  assert.equal(tools.map((tool) => tool.name), ['get_weather']);
  // The clip offsets have no place in Anthropic: reported at the part that held them.
  assert.ok(anthropic.losses.some((loss) => loss.path === '/contents/0/parts/1' && loss.code === 'unsupported_part'), JSON.stringify(anthropic.losses));
  assert.is(specErrors('anthropic', 'request', anthropic.body), '[]');
});

// Converse: `ContentBlock.text` is a string
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html);
// Converse refuses only an empty one ("The text field in the ContentBlock
// object … is blank"), and answered 200 to " " and "\n" in recorded traffic.
test('5. Converse whitespace-only text blocks travel; only an empty one is left out', () => {
  const request = {
    messages: [
      { role: 'user', content: [{ text: ' ' }, { text: 'Hello' }] },
      { role: 'assistant', content: [{ text: '\n' }, { text: '' }] },
      { role: 'user', content: [{ text: 'Again' }] },
    ],
  };
  const { body, losses } = convertRequest(request, { from: 'bedrock-converse', to: 'bedrock-converse', model: MODEL });
  const messages = (body as { messages: { content: unknown[] }[] }).messages;
  assert.equal(messages[0]?.content, [{ text: ' ' }, { text: 'Hello' }]);
  assert.equal(messages[1]?.content, [{ text: '\n' }]);
  assert.equal(losses.map((loss) => loss.path), ['/messages/1/content/1']);
});

// Converse `TokenUsage` (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html):
// an answer that gave only `outputTokens` keeps the other counts missing.
test('5. a Converse answer without inputTokens and totalTokens: the counts stay missing, none invented', () => {
  const response = { output: { message: { role: 'assistant', content: [{ text: 'Hi' }] } }, stopReason: 'end_turn', usage: { outputTokens: 5 }, metrics: { latencyMs: 10 } };
  const { ir } = decodeResponse('bedrock-converse', response);
  assert.is(ir.usage?.inputTokens, undefined);
  assert.is(ir.usage?.totalTokens, undefined);
  assert.equal(convertResponse(response, { from: 'bedrock-converse', to: 'bedrock-converse' }).body, response);
  assert.equal((convertResponse(response, { from: 'bedrock-converse', to: 'gemini' }).body as { usageMetadata: unknown }).usageMetadata, { candidatesTokenCount: 5 });
});

// 7. A Responses `function_call_output` carries only `call_id`
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input);
// Gemini's `FunctionResponse.name` is required (https://ai.google.dev/api/caching#FunctionResponse).
test('7. Responses tool results without a name reach Gemini named after the call in the same request; with no such call, a typed error', () => {
  const request = {
    model: 'gpt-5',
    input: [
      { role: 'user', content: 'Weather in Paris, time in Rome?' },
      { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_b', name: 'get_time', arguments: '{"city":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_b', output: '12:00' },
      { type: 'function_call_output', call_id: 'call_a', output: '{"temp":21}' },
    ],
  };
  const { body } = convertRequest(request, { from: 'openai-responses', to: 'gemini' });
  const results = (body as { contents: { parts: { functionResponse?: { name: string; response: unknown } }[] }[] }).contents[2]?.parts ?? [];
  const byName = Object.fromEntries(results.map((part) => [part.functionResponse?.name, part.functionResponse?.response]));
  assert.equal(byName, { get_time: { output: '12:00' }, get_weather: { temp: 21 } });
  assert.is(specErrors('gemini', 'request', body), '[]');
  const chained = { model: 'gpt-5', previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_a', output: 'x' }] };
  assert.throws(() => convertRequest(chained, { from: 'openai-responses', to: 'gemini' }), (error: Error) => /call_a.*no tool name/.test(error.message));
});

// 8. Output modalities. Chat: `modalities: ["text", "audio"]` with `audio:
// {voice, format}` (https://platform.openai.com/docs/guides/audio); Gemini:
// `generationConfig.responseModalities` and `speechConfig`
// (https://ai.google.dev/gemini-api/docs/speech-generation).
test('8. output modalities map between Chat and Gemini; voices (which the vendors do not share) and text-only targets are reported', () => {
  const chat = {
    model: 'gpt-4o-audio-preview',
    modalities: ['text', 'audio'],
    audio: { voice: 'alloy', format: 'wav' },
    messages: [{ role: 'user', content: 'Is a golden retriever a good family dog?' }],
  };
  const toGemini = convertRequest(chat, { from: 'openai-chat', to: 'gemini' });
  assert.equal((toGemini.body as { generationConfig: unknown }).generationConfig, { responseModalities: ['TEXT', 'AUDIO'] });
  assert.ok(toGemini.losses.some((loss) => loss.path === '/audio'), JSON.stringify(toGemini.losses));
  assert.is(specErrors('gemini', 'request', toGemini.body), '[]');
  assert.equal(convertRequest(chat, { from: 'openai-chat', to: 'openai-chat' }).body, chat);
  const gemini = {
    contents: [{ role: 'user', parts: [{ text: 'Say cheerfully: Have a wonderful day!' }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  };
  const toChat = convertRequest(gemini, { from: 'gemini', to: 'openai-chat', model: 'gpt-4o-audio-preview' });
  const body = toChat.body as Record<string, unknown>;
  assert.equal(body['modalities'], ['audio']);
  assert.equal(body['audio'], { voice: 'alloy', format: 'pcm16' });
  assert.ok(toChat.losses.some((loss) => loss.code === 'defaulted' && loss.irPath === '/outputModalities'), JSON.stringify(toChat.losses));
  // The voice (Gemini's speechConfig, left in its generationConfig) is reported where it was.
  assert.ok(toChat.losses.some((loss) => loss.path === '/generationConfig' && loss.code === 'dropped_field'), JSON.stringify(toChat.losses));
  assert.is(specErrors('openai-chat', 'request', body), '[]');
  assert.equal(convertRequest(gemini, { from: 'gemini', to: 'gemini' }).body, gemini);
  for (const to of ['anthropic', 'openai-responses', 'bedrock-converse', 'ollama'] as const) {
    const { losses } = convertRequest(gemini, { from: 'gemini', to, model: MODEL });
    assert.ok(losses.some((loss) => loss.code === 'dropped_field' && /audio output/.test(loss.message)), `${to}: ${JSON.stringify(losses)}`);
  }
});

// 9. Gemini `UsageMetadata` (https://ai.google.dev/api/generate-content#UsageMetadata):
// `cacheTokensDetails` and `toolUsePromptTokensDetails` are `ModalityTokenCount` lists.
const geminiUsageAnswer = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'Rain tomorrow.' }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: {
    promptTokenCount: 1300,
    candidatesTokenCount: 5,
    cachedContentTokenCount: 1032,
    toolUsePromptTokenCount: 180,
    totalTokenCount: 1485,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 1042 }, { modality: 'IMAGE', tokenCount: 258 }],
    cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 774 }, { modality: 'IMAGE', tokenCount: 258 }],
    toolUsePromptTokensDetails: [{ modality: 'TEXT', tokenCount: 180 }],
  },
  modelVersion: 'gemini-2.5-flash',
};

test('9. Gemini cache and tool-use tokens by modality have an IR place, go back to Gemini as they came, and are reported where a target has none', () => {
  const { ir } = decodeResponse('gemini', geminiUsageAnswer);
  assert.equal(ir.usage?.cacheReadTokensByModality, { text: 774, image: 258 });
  assert.equal(ir.usage?.toolUseTokensByModality, { text: 180 });
  const same = convertResponse(geminiUsageAnswer, { from: 'gemini', to: 'gemini' });
  assert.equal(same.body, geminiUsageAnswer);
  assert.equal(same.losses, []);
  for (const to of ['anthropic', 'openai-chat', 'openai-responses', 'bedrock-converse', 'ollama'] as const) {
    const { losses } = convertResponse(geminiUsageAnswer, { from: 'gemini', to });
    const paths = losses.filter((loss) => /by modality/.test(loss.message) && !/input tokens/.test(loss.message)).map((loss) => loss.path);
    assert.equal(paths.sort(), ['/usageMetadata/cacheTokensDetails', '/usageMetadata/toolUsePromptTokensDetails'], to);
    // Nothing is reported twice as a leftover Gemini field.
    assert.not.ok(losses.some((loss) => /cacheTokensDetails|toolUsePromptTokensDetails/.test(loss.message)), JSON.stringify(losses));
  }
});

// 10. OpenAI's `Response` object (https://platform.openai.com/docs/api-reference/responses/object;
// openai `Response` type) always restates the request's settings. An
// Anthropic answer (https://docs.anthropic.com/en/api/messages#response) to
// a Responses caller echoes the request it answers, whole and streamed.
const anthropicAnswer = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 9 },
};
const responsesRequest = {
  model: 'gpt-5',
  input: 'Weather in Paris?',
  temperature: 0.2,
  max_output_tokens: 500,
  tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }],
  tool_choice: { type: 'function', name: 'get_weather' },
  reasoning: { effort: 'low' },
};
const ECHO_FIELDS = ['background', 'completed_at', 'frequency_penalty', 'max_output_tokens', 'max_tool_calls', 'presence_penalty', 'previous_response_id', 'prompt_cache_key', 'reasoning', 'safety_identifier', 'store', 'temperature', 'text', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation'];

test('10. a Responses answer from another format holds every field OpenAI returns: the request\'s settings when given, else OpenAI\'s defaults; function_call items have ids', () => {
  const echoed = convertResponse(anthropicAnswer, { from: 'anthropic', to: 'openai-responses', request: responsesRequest }).body as Record<string, unknown>;
  for (const key of ECHO_FIELDS) assert.ok(key in echoed, key);
  assert.is(echoed['temperature'], 0.2);
  assert.is(echoed['max_output_tokens'], 500);
  assert.equal(echoed['tools'], responsesRequest.tools);
  assert.equal(echoed['tool_choice'], responsesRequest.tool_choice);
  assert.equal(echoed['reasoning'], { effort: 'low', summary: null });
  assert.equal(echoed['text'], { format: { type: 'text' }, verbosity: 'medium' });
  const call = (echoed['output'] as { type: string; id?: string }[]).find((item) => item.type === 'function_call');
  assert.is(typeof call?.id, 'string');
  assert.is(specErrors('openai-responses', 'response', echoed), '[]');
  const defaults = convertResponse(anthropicAnswer, { from: 'anthropic', to: 'openai-responses' }).body as Record<string, unknown>;
  for (const key of ECHO_FIELDS) assert.ok(key in defaults, key);
  assert.is(defaults['temperature'], 1);
  assert.is(defaults['top_p'], 1);
  assert.equal(defaults['tools'], []);
  assert.is(defaults['tool_choice'], 'auto');
  assert.is(defaults['truncation'], 'disabled');
});

test('10. a streamed Responses answer from another format echoes the request in response.created, response.in_progress and response.completed', async () => {
  const events = [
    ['message_start', { type: 'message_start', message: { ...anthropicAnswer, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }],
    ['message_stop', { type: 'message_stop' }],
  ] as const;
  const sse = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  const source = new Response(sse).body as ReadableStream<Uint8Array>;
  const text = await new Response(convertStream(source, { from: 'anthropic', to: 'openai-responses', request: responsesRequest })).text();
  const objects = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { type: string; response?: Record<string, unknown> });
  const envelopes = objects.filter((event) => event.response !== undefined);
  assert.equal(envelopes.map((event) => event.type), ['response.created', 'response.in_progress', 'response.completed']);
  for (const { response } of envelopes) {
    assert.is(response?.['temperature'], 0.2);
    assert.equal(response?.['tool_choice'], responsesRequest.tool_choice);
    for (const key of ECHO_FIELDS) assert.ok(key in (response ?? {}), key);
  }
});

test('10. streamed output_text from another format carries logprobs: [] on its parts, deltas, done events and items, as OpenAI\'s streams do; every event is a ResponseStreamEvent of the spec', async () => {
  const message = { ...anthropicAnswer, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } };
  const events = [
    ['message_start', { type: 'message_start', message }],
    ...[0, 1].flatMap((index) => [
      ['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: `Part ${index}.` } }],
      ['content_block_stop', { type: 'content_block_stop', index }],
    ]),
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }],
    ['message_stop', { type: 'message_stop' }],
  ] as const;
  const sse = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  const text = await new Response(convertStream(new Response(sse).body as ReadableStream<Uint8Array>, { from: 'anthropic', to: 'openai-responses', request: responsesRequest })).text();
  const objects = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown> & { type: string });
  const texts: unknown[] = [];
  for (const event of objects) {
    assert.is(validators.validateAs('openai', 'ResponseStreamEvent', event), undefined, event.type);
    if (event.type === 'response.output_text.delta' || event.type === 'response.output_text.done') texts.push(event['logprobs']);
    const part = event['part'] as Record<string, unknown> | undefined;
    if (part !== undefined) texts.push(part['logprobs']);
    const item = (event['item'] ?? undefined) as { content?: Record<string, unknown>[] } | undefined;
    for (const content of item?.content ?? []) texts.push(content['logprobs']);
    const response = event['response'] as { output: { content?: Record<string, unknown>[] }[] } | undefined;
    for (const output of response?.output ?? []) for (const content of output.content ?? []) texts.push(content['logprobs']);
  }
  // Per part: content_part.added, delta, done, content_part.done, output_item.done; then both in response.completed.
  assert.equal(texts, Array.from({ length: 12 }, () => []));
});

test('10. a Chat answer from another format carries system_fingerprint: null, whole and in every chunk, as OpenAI\'s own do; a Chat body without one and a dialect\'s answer get none', async () => {
  const whole = convertResponse(anthropicAnswer, { from: 'anthropic', to: 'openai-chat' }).body as Record<string, unknown>;
  assert.ok('system_fingerprint' in whole && whole['system_fingerprint'] === null, JSON.stringify(whole));
  assert.is(specErrors('openai-chat', 'response', whole), '[]');
  assert.not.ok('system_fingerprint' in (convertResponse(anthropicAnswer, { from: 'anthropic', to: 'openai-chat', dialect: 'deepseek' }).body as object));
  // A gateway's Chat body without the field goes back as it came; OpenAI's fingerprint stays.
  const gateway = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] };
  assert.equal(convertResponse(gateway, { from: 'openai-chat', to: 'openai-chat' }).body, gateway);
  const fingerprinted = { ...gateway, system_fingerprint: 'fp_29330a9688' };
  assert.equal(convertResponse(fingerprinted, { from: 'openai-chat', to: 'openai-chat' }).body, fingerprinted);
  const message = { ...anthropicAnswer, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } };
  const events = [
    ['message_start', { type: 'message_start', message }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }],
    ['message_stop', { type: 'message_stop' }],
  ] as const;
  const sse = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  const text = await new Response(convertStream(new Response(sse).body as ReadableStream<Uint8Array>, { from: 'anthropic', to: 'openai-chat' })).text();
  const chunks = text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  assert.ok(chunks.length >= 3);
  for (const chunk of chunks) assert.ok('system_fingerprint' in chunk && chunk['system_fingerprint'] === null, JSON.stringify(chunk));
});

test('10. a whole upstream answer to a streaming Responses caller: the stream made from it echoes the request as a streamed answer does', async () => {
  // Claude answered whole although the caller asked for a stream (as a gateway or cache in front of it may): the proxy replays it as a stream.
  const upstream = await startStrictUpstream({ format: 'anthropic', behaviour: { kind: 'raw', status: 200, contentType: 'application/json', text: JSON.stringify(anthropicAnswer) } });
  try {
    await withProxy({ upstream: { format: 'anthropic', baseUrl: upstream.url, apiKey: 'k' }, modelMap: { '*': 'claude-sonnet-4-5' }, fetch: createNodeFetch() }, async (url) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'caller', maxRetries: 0 });
      const envelopes: { type: string; response: Record<string, unknown> }[] = [];
      for await (const event of await client.responses.create({ ...responsesRequest, stream: true } as never) as unknown as AsyncIterable<{ type: string; response?: Record<string, unknown> }>) {
        if (event.response !== undefined) envelopes.push({ type: event.type, response: event.response });
      }
      assert.equal(envelopes.map((event) => event.type), ['response.created', 'response.in_progress', 'response.completed']);
      for (const { response } of envelopes) {
        assert.is(response['temperature'], 0.2);
        assert.is(response['max_output_tokens'], 500);
        assert.equal(response['tools'], responsesRequest.tools);
        assert.equal(response['tool_choice'], responsesRequest.tool_choice);
        for (const key of ECHO_FIELDS) assert.ok(key in response, key);
      }
      assert.is(specErrors('openai-responses', 'response', envelopes.at(-1)?.response), '[]');
    });
  } finally {
    await upstream.close();
  }
});

test.run();
