/**
 * The Gemini codec: bad input, unknown parts, id synthesis, schema dialects
 * and encodes of hand-made IR (as if it came from another format).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { geminiCodec, geminiSchemaToJsonSchema, jsonSchemaToGeminiSchema } from '../../src/providers/gemini/index.ts';
import { LossCollector } from '../../src/core/losses.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { Message, Request, Response } from '../../src/core/ir.ts';
import { lossKeys } from '../support/compare.ts';

const test = suite('gemini');

function context() {
  return { losses: new LossCollector() };
}

function decodeFails(body: unknown, code: string, path: string, kind: 'request' | 'response' = 'request'): void {
  try {
    if (kind === 'request') geminiCodec.decodeRequest(body, context());
    else geminiCodec.decodeResponse(body, context());
  } catch (error) {
    assert.ok(isInterlinguaError(error), `expected an InterlinguaError, got ${String(error)}`);
    assert.is(error.code, code);
    assert.is(error.path, path);
    return;
  }
  assert.unreachable(`decoding ${JSON.stringify(body)} should fail`);
}

const user = (text: string) => ({ role: 'user', parts: [{ text }] });

// ---------------------------------------------------------------------------
// Bad input

test('bad input: body is not an object', () => decodeFails([], 'invalid_type', ''));
test('bad input: contents missing', () => decodeFails({ generationConfig: {} }, 'missing_field', '/contents'));
test('bad input: contents not an array', () => decodeFails({ contents: 'hi' }, 'invalid_type', '/contents'));
test('bad input: unknown role', () => decodeFails({ contents: [{ role: 'assistant', parts: [] }] }, 'invalid_value', '/contents/0/role'));
test('bad input: text is not a string', () =>
  decodeFails({ contents: [{ role: 'user', parts: [{ text: 3 }] }] }, 'invalid_type', '/contents/0/parts/0/text'));
test('bad input: inlineData without data', () =>
  decodeFails({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png' } }] }] }, 'missing_field', '/contents/0/parts/0/inlineData/data'));
test('bad input: malformed mime type', () =>
  decodeFails(
    { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'png', data: 'AAAA' } }] }] },
    'invalid_value',
    '/contents/0/parts/0/inlineData/mimeType',
  ));
test('bad input: functionCall without name', () =>
  decodeFails({ contents: [{ role: 'model', parts: [{ functionCall: { args: {} } }] }] }, 'missing_field', '/contents/0/parts/0/functionCall/name'));
test('bad input: functionCall args not an object', () =>
  decodeFails({ contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: '{}' } }] }] }, 'invalid_type', '/contents/0/parts/0/functionCall/args'));
test('bad input: fileData without fileUri', () =>
  decodeFails({ contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'video/mp4' } }] }] }, 'missing_field', '/contents/0/parts/0/fileData/fileUri'));
test('bad input: bad function calling mode', () =>
  decodeFails({ contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }, 'invalid_value', '/toolConfig/functionCallingConfig/mode'));
test('bad input: maxOutputTokens not a number', () =>
  decodeFails({ contents: [user('x')], generationConfig: { maxOutputTokens: '10' } }, 'invalid_type', '/generationConfig/maxOutputTokens'));
test('bad input: declaration without name', () =>
  decodeFails({ contents: [user('x')], tools: [{ functionDeclarations: [{ description: 'd' }] }] }, 'missing_field', '/tools/0/functionDeclarations/0/name'));
test('bad input: response candidates not an array', () => decodeFails({ candidates: {} }, 'invalid_type', '/candidates', 'response'));
test('bad input: finishReason neither an enum name nor a proto number', () =>
  decodeFails({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: true }] }, 'invalid_type', '/candidates/0/finishReason', 'response'));

// ---------------------------------------------------------------------------
// Unknown parts

test('unknown part becomes an opaque part with an unknown_block loss and round-trips', () => {
  const body = { contents: [{ role: 'user', parts: [{ hologram: { frames: 3 } }] }] };
  const decodeContext = context();
  const request = geminiCodec.decodeRequest(body, decodeContext);
  const part = request.messages[0]?.parts[0];
  assert.is(part?.type, 'opaque');
  assert.equal(lossKeys(decodeContext.losses.losses), [{ code: 'unknown_block', path: '/contents/0/parts/0', severity: 'warning' }]);
  assert.equal(geminiCodec.encodeRequest(request, context()), body);
});

// ---------------------------------------------------------------------------
// Tool-call ids

const parallelCalls = {
  contents: [
    user('weather?'),
    { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: 'rain' } } },
        { functionResponse: { name: 'get_weather', response: { output: 'clear' } } },
      ],
    },
  ],
};

test('synthesised ids are deterministic, distinct, paired, and never sent back', () => {
  const first = geminiCodec.decodeRequest(parallelCalls, context());
  const second = geminiCodec.decodeRequest(parallelCalls, context());
  const calls = first.messages[1]?.parts ?? [];
  const results = first.messages[2]?.parts ?? [];
  assert.equal(first, second);
  const [paris, oslo] = calls;
  assert.ok(paris?.type === 'tool_call' && oslo?.type === 'tool_call');
  assert.ok(paris.syntheticId === true && oslo.syntheticId === true);
  assert.is.not(paris.id, oslo.id);
  const [parisResult, osloResult] = results;
  assert.ok(parisResult?.type === 'tool_result' && osloResult?.type === 'tool_result');
  assert.is(parisResult.callId, paris.id);
  assert.is(osloResult.callId, oslo.id);
  assert.equal(geminiCodec.encodeRequest(first, context()), parallelCalls);
});

test('ids Gemini produced go back; other formats\' ids are left out', () => {
  const body = {
    contents: [
      user('x'),
      { role: 'model', parts: [{ functionCall: { id: 'fc_1', name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'f', response: { output: 'ok' } } }] },
    ],
  };
  const request = geminiCodec.decodeRequest(body, context());
  assert.equal(geminiCodec.encodeRequest(request, context()), body);
  const foreign: Request = {
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'x' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'toolu_01', name: 'f', arguments: { a: 1 } }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_01', content: [{ type: 'text', text: '{"ok":true}' }] }] },
    ],
  };
  const encoded = geminiCodec.encodeRequest(foreign, context()) as { contents: unknown[] };
  assert.equal(encoded.contents[1], { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] });
  assert.equal(encoded.contents[2], { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] });
});

test('a tool result that answers no call and has no name is an invalid_reference error', () => {
  const request: Request = {
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'x' }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'missing', content: [] }] },
    ],
  };
  try {
    geminiCodec.encodeRequest(request, context());
    assert.unreachable('should throw');
  } catch (error) {
    assert.ok(isInterlinguaError(error));
    assert.is(error.code, 'invalid_reference');
    assert.is(error.path, '/messages/1/parts/0');
  }
});

// ---------------------------------------------------------------------------
// Schemas

test('Gemini Schema → JSON Schema', () => {
  const schema = geminiSchemaToJsonSchema({
    type: 'OBJECT',
    properties: {
      name: { type: 'STRING', nullable: true },
      tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['a', 'b'] }, minItems: '1' },
    },
    required: ['name'],
  });
  assert.equal(schema, {
    type: 'object',
    properties: {
      name: { type: ['string', 'null'] },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
    },
    required: ['name'],
  });
});

test('JSON Schema → Gemini Schema resolves $ref, nullable unions and const, and reports what it drops', () => {
  const losses = new LossCollector();
  const schema = jsonSchemaToGeminiSchema(
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { city: { type: 'string', description: 'City' } },
      type: 'object',
      properties: {
        city: { $ref: '#/$defs/city' },
        unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] },
        count: { type: ['integer', 'null'], exclusiveMinimum: 0 },
        kind: { const: 'weather' },
      },
      required: ['city'],
      additionalProperties: false,
    },
    losses,
    '/tools/0/parameters',
  );
  assert.equal(schema, {
    type: 'OBJECT',
    properties: {
      city: { type: 'STRING', description: 'City' },
      unit: { type: 'STRING', enum: ['c', 'f'], nullable: true },
      count: { type: 'INTEGER', nullable: true },
      kind: { type: 'STRING', enum: ['weather'] },
    },
    required: ['city'],
  });
  assert.equal(lossKeys(losses.losses), [
    { code: 'schema_downgraded', path: '/tools/0/parameters/properties/count/exclusiveMinimum', severity: 'warning' },
    { code: 'schema_downgraded', path: '/tools/0/parameters/additionalProperties', severity: 'warning' },
  ]);
});

test('an edited IR schema of a Gemini `parameters` tool is converted back, the untouched one is kept exactly', () => {
  const body = {
    contents: [user('x')],
    tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } }] }],
  };
  const request = geminiCodec.decodeRequest(body, context());
  const tool = request.tools?.[0];
  assert.ok(tool?.type === 'function');
  tool.parameters = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } };
  const encoded = geminiCodec.encodeRequest(request, context()) as { tools: { functionDeclarations: unknown[] }[] };
  assert.equal(encoded.tools[0]?.functionDeclarations[0], {
    name: 'f',
    parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' }, b: { type: 'INTEGER' } } },
  });
});

test('tools from other formats use parametersJsonSchema as is; empty schemas stay valid', () => {
  const request: Request = {
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
    tools: [
      { type: 'function', name: 'now', parameters: { type: 'object', properties: {} } },
      { type: 'opaque', format: 'anthropic', toolType: 'web_search_20250305', value: { type: 'web_search_20250305' } },
    ],
    toolChoice: { type: 'tool', name: 'now' },
  };
  const encodeContext = context();
  const body = geminiCodec.encodeRequest(request, encodeContext) as Record<string, unknown>;
  assert.equal(body['tools'], [{ functionDeclarations: [{ name: 'now', parametersJsonSchema: { type: 'object', properties: {} } }] }]);
  assert.equal(body['toolConfig'], { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['now'] } });
  assert.equal(lossKeys(encodeContext.losses.losses), [{ code: 'dropped_field', path: '/tools/1', severity: 'warning' }]);
});

// ---------------------------------------------------------------------------
// Encoding IR from other formats

test('foreign reasoning, opaque parts and extensions are dropped with the right losses', () => {
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'hi', extensions: { anthropic: { cache_control: { type: 'ephemeral' } } } }] },
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'thinking…', state: { format: 'anthropic', kind: 'signature', value: 'sig' } },
        { type: 'opaque', format: 'openai-responses', blockType: 'web_search_call', value: {} },
        { type: 'text', text: 'hello' },
      ],
    },
    { role: 'user', parts: [{ type: 'text', text: 'again' }] },
  ];
  const encodeContext = context();
  const body = geminiCodec.encodeRequest({ messages }, encodeContext);
  assert.equal(body, { contents: [user('hi'), { role: 'model', parts: [{ text: 'hello' }] }, user('again')] });
  assert.equal(lossKeys(encodeContext.losses.losses), [
    { code: 'dropped_field', path: '/messages/0/parts/0', severity: 'warning' },
    { code: 'reasoning_state_dropped', path: '/messages/1/parts/0', severity: 'warning' },
    { code: 'unsupported_part', path: '/messages/1/parts/1', severity: 'warning' },
  ]);
});

test('a Gemini thought signature is reported when encoding to another format', () => {
  const request = geminiCodec.decodeRequest(
    { contents: [user('x'), { role: 'model', parts: [{ text: 'y', thoughtSignature: 'c2ln' }] }, user('z')] },
    context(),
  );
  const losses = new LossCollector();
  const part = request.messages[1]?.parts[0];
  losses.foreignExtensions(part?.extensions, 'anthropic', '/messages/1/parts/0');
  assert.equal(lossKeys(losses.losses), [{ code: 'reasoning_state_dropped', path: '/messages/1/parts/0', severity: 'warning' }]);
});

test('inline media is written as Gemini writes it: mimeType, then data, whatever the source', () => {
  const data = 'iVBORw0KGgo=';
  const sources = [
    { kind: 'base64', mediaType: 'image/png', data },
    { kind: 'url', url: `data:image/png;base64,${data}` },
  ] as const;
  for (const source of sources) {
    const request: Request = { messages: [{ role: 'user', parts: [{ type: 'image', source }] }] };
    const body = geminiCodec.encodeRequest(request, context()) as { contents: { parts: { inlineData: object }[] }[] };
    assert.equal(JSON.stringify(body.contents[0]!.parts[0]!.inlineData), `{"mimeType":"image/png","data":"${data}"}`, source.kind);
  }
  // A Gemini request goes back with its keys in their order.
  const wire = { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/jpeg', data } }] }] };
  const again = geminiCodec.encodeRequest(geminiCodec.decodeRequest(wire, context()), context());
  assert.is(JSON.stringify(again), JSON.stringify(wire));
});

test('tool messages and a following user message merge into one user turn; system leads', () => {
  const request: Request = {
    messages: [
      { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'x' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'a', name: 'f', arguments: {} }, { type: 'tool_call', id: 'b', name: 'g', arguments: {} }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'a', content: [{ type: 'text', text: 'one' }] }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'b', content: [{ type: 'text', text: 'two' }], isError: true }] },
      { role: 'user', parts: [{ type: 'text', text: 'and?' }] },
    ],
  };
  const body = geminiCodec.encodeRequest(request, context());
  assert.equal(body, {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      user('x'),
      { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'f', response: { output: 'one' } } },
          { functionResponse: { name: 'g', response: { error: 'two' } } },
          { text: 'and?' },
        ],
      },
    ],
  });
});

test('usage: thoughts are part of output tokens, and come back out', () => {
  const body = {
    candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, thoughtsTokenCount: 30, cachedContentTokenCount: 40, totalTokenCount: 150 },
  };
  const response = geminiCodec.decodeResponse(body, context());
  assert.is(response.usage?.inputTokens, 100);
  assert.is(response.usage?.outputTokens, 50);
  assert.is(response.usage?.reasoningTokens, 30);
  assert.is(response.usage?.cacheReadTokens, 40);
  const foreign: Response = {
    candidates: [{ index: 0, message: { role: 'assistant', parts: [{ type: 'text', text: 'ok' }] }, stopReason: { unified: 'tool_calls', raw: 'tool_use', format: 'anthropic' } }],
    usage: { inputTokens: 10, outputTokens: 25, reasoningTokens: 5, cacheReadTokens: 0 },
  };
  const encoded = geminiCodec.encodeResponse(foreign, context()) as Record<string, unknown>;
  assert.equal(encoded['usageMetadata'], { promptTokenCount: 10, candidatesTokenCount: 20, thoughtsTokenCount: 5, totalTokenCount: 35 });
  assert.is((encoded['candidates'] as { finishReason: string }[])[0]?.finishReason, 'STOP');
});

test('STOP with function calls is unified as tool_calls, raw STOP kept', () => {
  const response = geminiCodec.decodeResponse(
    { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }, finishReason: 'STOP' }], responseId: 'r/1' },
    context(),
  );
  const candidate = response.candidates[0];
  assert.equal(candidate?.stopReason, { unified: 'tool_calls', raw: 'STOP', format: 'gemini' });
  const call = candidate?.message.parts[0];
  assert.ok(call?.type === 'tool_call' && call.syntheticId === true && /^[A-Za-z0-9_-]+$/.test(call.id));
});

test('a blocked prompt surfaces as a content_filter candidate for other formats', () => {
  const response = geminiCodec.decodeResponse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 3 } }, context());
  assert.equal(response.candidates[0]?.stopReason, { unified: 'content_filter', raw: 'PROHIBITED_CONTENT', format: 'gemini' });
});

test('errors: odd captures round-trip and foreign errors get a Gemini status', () => {
  const odd = { error: 'Error: ApiError: {"error": {"code": 400}}' };
  const error = geminiCodec.decodeError(odd, context());
  assert.is(error.type, 'invalid_request');
  assert.equal(geminiCodec.encodeError(error, context()), odd);
  assert.equal(geminiCodec.encodeError({ type: 'rate_limit', message: 'slow down', status: 429 }, context()), {
    error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' },
  });
});

test.run();
