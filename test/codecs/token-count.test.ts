/**
 * Token counting across formats: the counting bodies of Anthropic
 * (`count_tokens`), OpenAI Responses (`input_tokens`), Gemini
 * (`countTokens`) and Bedrock (`CountTokens`) converted into each other,
 * their answers too, and the proxy serving each counting path in front of
 * another format's upstream, called by the official SDKs. Formats without a
 * counting endpoint get a typed error, never an estimate.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { CountTokensCommand } from '@aws-sdk/client-bedrock-runtime';
import { convertRequest, convertTokenCountRequest, convertTokenCountResponse } from '../../src/formats/convert.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import type { ProxyConfig, ProxyLogEntry } from '../../src/proxy/index.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startUpstream, startFakeBedrock } from '../support/strict/index.ts';
import { bedrockClient } from '../support/clients.ts';
import { describeErrors, SpecValidators, type SpecName } from '../support/spec-schemas.ts';
import { corpusFixtures, fixtureBody } from '../support/fixtures.ts';
import { resolves } from '../support/pointers.ts';

const test = suite('token counting');

const COUNTING = ['anthropic', 'openai-responses', 'gemini', 'bedrock-converse'] as const;
type Counting = (typeof COUNTING)[number];

const TOOL_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** The same question, system prompt and tool as each format's counting body. */
const BODIES: Record<Counting, Record<string, unknown>> = {
  anthropic: {
    model: 'claude-test',
    system: 'Answer briefly.',
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    tools: [{ name: 'weather', description: 'Weather by city.', input_schema: TOOL_SCHEMA }],
  },
  'openai-responses': {
    model: 'gpt-test',
    instructions: 'Answer briefly.',
    input: [{ role: 'user', content: 'What is the weather in Paris?' }],
    tools: [{ type: 'function', name: 'weather', description: 'Weather by city.', parameters: TOOL_SCHEMA, strict: false }],
  },
  gemini: {
    generateContentRequest: {
      model: 'models/gemini-test',
      systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
      contents: [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }],
      tools: [{ functionDeclarations: [{ name: 'weather', description: 'Weather by city.', parametersJsonSchema: TOOL_SCHEMA }] }],
    },
  },
  'bedrock-converse': {
    input: {
      converse: {
        system: [{ text: 'Answer briefly.' }],
        messages: [{ role: 'user', content: [{ text: 'What is the weather in Paris?' }] }],
        toolConfig: { tools: [{ toolSpec: { name: 'weather', description: 'Weather by city.', inputSchema: { json: TOOL_SCHEMA } } }] },
      },
    },
  },
};

/** The generation request a counting body holds, in its format's request shape. */
function inner(format: Counting, body: Record<string, unknown>): Record<string, unknown> {
  if (format === 'gemini') {
    const { model: _model, ...request } = body['generateContentRequest'] as Record<string, unknown>;
    return request;
  }
  if (format === 'bedrock-converse') return (body['input'] as Record<string, Record<string, unknown>>)['converse'] as Record<string, unknown>;
  return body;
}

const ALLOWED: Record<Counting, string[]> = {
  anthropic: ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'],
  'openai-responses': ['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text'],
  gemini: ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'],
  'bedrock-converse': ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'],
};

test('a counting body converts to every other counting format: the request inside as convertRequest converts it, in the target wrapper', () => {
  for (const from of COUNTING) {
    for (const to of COUNTING) {
      const model = from === 'bedrock-converse' ? 'bedrock-test' : undefined;
      const { body, losses } = convertTokenCountRequest(BODIES[from], { from, to, ...(model === undefined ? {} : { model }) });
      const out = body as Record<string, unknown>;
      const request = inner(to, out);
      for (const key of Object.keys(request)) assert.ok(ALLOWED[to].includes(key), `${from} → ${to}: "${key}" in ${JSON.stringify(out)}`);
      // The same conversion as a generation request, minus what counting does not take.
      const expected = convertRequest(inner(from, BODIES[from]), { from, to, model: model ?? (from === 'gemini' ? 'gemini-test' : 'm') }).body as Record<string, unknown>;
      for (const key of ['messages', 'system', 'tools', 'input', 'instructions', 'contents', 'systemInstruction', 'toolConfig']) {
        if (key in expected) assert.equal(request[key], expected[key], `${from} → ${to}: ${key}`);
      }
      if (to === 'gemini') assert.is((out['generateContentRequest'] as Record<string, unknown>)['model'], `models/${model ?? (from === 'gemini' ? 'gemini-test' : from === 'anthropic' ? 'claude-test' : 'gpt-test')}`);
      if (to === 'anthropic') assert.not.ok('max_tokens' in out, 'counting takes no max_tokens');
      // Nothing lost, and no made-up max_tokens reported.
      assert.equal(losses.filter((loss) => loss.severity !== 'info'), [], `${from} → ${to}: ${JSON.stringify(losses)}`);
    }
  }
});

/** The official specs' schemas of the counting bodies and answers (Anthropic's beta ones, as the spec test takes its beta Messages schema: `?beta=true` is what Claude Code calls; Bedrock has no spec in test/corpus/spec, the AWS SDK's types stand for it). */
const SPEC_SCHEMAS: Partial<Record<Counting, { spec: SpecName; request: string; response: string }>> = {
  anthropic: { spec: 'anthropic', request: 'BetaCountMessageTokensParams', response: 'BetaCountMessageTokensResponse' },
  'openai-responses': { spec: 'openai', request: 'TokenCountsBody', response: 'TokenCountsResource' },
  gemini: { spec: 'gemini', request: 'CountTokensRequest', response: 'CountTokensResponse' },
};

test('every counting body and answer written is valid against the target\'s official spec', () => {
  const validators = new SpecValidators();
  const answers: Record<Counting, unknown> = { anthropic: { input_tokens: 7 }, 'openai-responses': { object: 'response.input_tokens', input_tokens: 7 }, gemini: { totalTokens: 7, cachedContentTokenCount: 2 }, 'bedrock-converse': { inputTokens: 7 } };
  for (const from of COUNTING) {
    for (const to of COUNTING) {
      const schema = SPEC_SCHEMAS[to];
      if (schema === undefined) continue;
      const { body } = convertTokenCountRequest(BODIES[from], { from, to, model: 'spec-model' });
      const requestErrors = validators.validateAs(schema.spec, schema.request, body);
      assert.ok(requestErrors === undefined, `${from} → ${to}: ${describeErrors(requestErrors ?? [])} in ${JSON.stringify(body)}`);
      const answer = convertTokenCountResponse(answers[from], { from, to }).body;
      const answerErrors = validators.validateAs(schema.spec, schema.response, answer);
      assert.ok(answerErrors === undefined, `${from} → ${to} answer: ${describeErrors(answerErrors ?? [])}`);
    }
  }
});

/** The fields each counting endpoint takes from a recorded generation request (the rest would be refused by the vendor). */
const COUNTED_FIELDS: Record<Counting, ReadonlySet<string>> = {
  anthropic: new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers', 'context_management', 'output_config', 'output_format', 'cache_control']),
  'openai-responses': new Set(['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'conversation', 'previous_response_id', 'truncation']),
  gemini: new Set(['contents', 'systemInstruction', 'system_instruction', 'tools', 'toolConfig', 'tool_config', 'generationConfig', 'generation_config', 'safetySettings', 'safety_settings', 'cachedContent', 'cached_content']),
  'bedrock-converse': new Set(['messages', 'system', 'toolConfig', 'additionalModelRequestFields']),
};

/** A recorded generation request as the counting body its format's SDK would send for it. */
function countingBodyOf(format: Counting, request: Record<string, unknown>): Record<string, unknown> {
  const picked = Object.fromEntries(Object.entries(request).filter(([key]) => COUNTED_FIELDS[format].has(key)));
  if (format === 'gemini') return { generateContentRequest: { model: 'models/corpus-model', ...picked } };
  if (format === 'bedrock-converse') return { input: { converse: picked } };
  return picked;
}

test('every recorded request of the counting formats, as a counting body, converts to every other counting format as its request does: spec-valid, losses placed', () => {
  const validators = new SpecValidators();
  let converted = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.kind !== 'request' || !(COUNTING as readonly FormatId[]).includes(fixture.format)) continue;
    const from = fixture.format as Counting;
    const body = countingBodyOf(from, fixtureBody(fixture).body as Record<string, unknown>);
    for (const to of COUNTING) {
      // What convertRequest refuses (a tool result answering no call, …), counting refuses too, with the same typed error.
      let expected: unknown;
      try {
        convertRequest(inner(from, body), { from, to, model: 'corpus-model' });
      } catch (error) {
        expected = error;
      }
      let result: ReturnType<typeof convertTokenCountRequest> | undefined;
      try {
        result = convertTokenCountRequest(body, { from, to, model: 'corpus-model' });
      } catch (error) {
        assert.ok(isInterlinguaError(error), `${fixture.name} → ${to}: ${String(error)}`);
        assert.ok(isInterlinguaError(expected) && expected.code === error.code, `${fixture.name} → ${to}: counting threw ${String(error)}, the request ${String(expected)}`);
        continue;
      }
      assert.is(expected, undefined, `${fixture.name} → ${to}: the request threw ${String(expected)}, counting did not`);
      converted++;
      for (const loss of result.losses) assert.ok(resolves(body, loss.path), `${fixture.name} → ${to}: ${loss.path} (${loss.message})`);
      const schema = SPEC_SCHEMAS[to];
      if (schema === undefined) continue;
      const errors = validators.validateAs(schema.spec, schema.request, result.body);
      assert.ok(errors === undefined, `${fixture.name} → ${to}: ${describeErrors(errors ?? [])}`);
    }
  }
  assert.ok(converted > 1000, `recorded requests converted: ${converted}`);
});

test('settings that change no count are dropped as info losses pointing into the counting body; a source max_tokens is one of them', () => {
  const body = { generateContentRequest: { model: 'models/g', contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 0.2, maxOutputTokens: 50 } } };
  const { body: out, losses } = convertTokenCountRequest(body, { from: 'gemini', to: 'anthropic' });
  assert.equal(out, { model: 'g', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(
    losses.map((loss) => [loss.code, loss.path, loss.severity]),
    [
      ['dropped_field', '/generateContentRequest', 'info'],
      ['dropped_field', '/generateContentRequest', 'info'],
    ],
  );
  assert.ok(losses[0]?.message.includes('"max_tokens"') && losses[1]?.message.includes('"temperature"'), JSON.stringify(losses));
  for (const loss of losses) assert.ok(resolves(body, loss.path), loss.path);
});

test('a loss of the request inside a wrapper points into the wrapper, and so does an error', () => {
  const body = { input: { converse: { messages: [{ role: 'user', content: [{ text: 'hi', x_mark: 1 }] }] } } };
  const { losses } = convertTokenCountRequest(body, { from: 'bedrock-converse', to: 'anthropic', model: 'b' });
  assert.ok(losses.length > 0);
  for (const loss of losses) {
    assert.ok(loss.path.startsWith('/input/converse'), loss.path);
    assert.ok(resolves(body, loss.path), loss.path);
  }
  try {
    convertTokenCountRequest({ generateContentRequest: { model: 'models/g', contents: 3 } }, { from: 'gemini', to: 'anthropic' });
    assert.unreachable('bad contents');
  } catch (error) {
    assert.ok(isInterlinguaError(error));
    assert.is(error.path, '/generateContentRequest/contents');
    assert.ok(error.message.endsWith('at /generateContentRequest/contents (gemini)'), error.message);
  }
});

test('fields of a counting wrapper that nothing reads are reported where they are', () => {
  const gemini = { generateContentRequest: { model: 'models/g', contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, x_trace: 'a' };
  const fromGemini = convertTokenCountRequest(gemini, { from: 'gemini', to: 'anthropic' }).losses;
  assert.equal(fromGemini.map((loss) => [loss.code, loss.path]), [['dropped_field', '/x_trace']]);
  const bedrock = { input: { converse: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] }, x_extra: 1 }, x_top: 2 };
  const fromBedrock = convertTokenCountRequest(bedrock, { from: 'bedrock-converse', to: 'anthropic', model: 'b' }).losses;
  assert.equal(fromBedrock.map((loss) => loss.path), ['/x_top', '/input/x_extra']);
});

test('Gemini counting bodies: contents alone, and the model that generateContentRequest needs', () => {
  const { body } = convertTokenCountRequest({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] }, { from: 'anthropic', to: 'gemini', model: 'gemini-pro' });
  assert.equal(body, { generateContentRequest: { model: 'models/gemini-pro', contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } });
  const fromContents = convertTokenCountRequest({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { from: 'gemini', to: 'anthropic', model: 'g' });
  assert.equal(fromContents.body, { model: 'g', messages: [{ role: 'user', content: 'hi' }] });
  for (const [bad, path] of [
    [{}, ''],
    [{ contents: [], generateContentRequest: { contents: [] } }, '/contents'],
  ] as const) {
    try {
      convertTokenCountRequest(bad, { from: 'gemini', to: 'anthropic', model: 'g' });
      assert.unreachable(JSON.stringify(bad));
    } catch (error) {
      assert.ok(isInterlinguaError(error));
      assert.is(error.path, path);
    }
  }
  try {
    convertTokenCountRequest({ input: { converse: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } } }, { from: 'bedrock-converse', to: 'gemini' });
    assert.unreachable('no model');
  } catch (error) {
    assert.ok(isInterlinguaError(error) && error.code === 'missing_field', String(error));
  }
});

test('formats without a counting endpoint are a typed error both ways, never an estimate', () => {
  for (const other of ['openai-chat', 'ollama'] as const) {
    for (const [from, to] of [
      ['anthropic', other],
      [other, 'anthropic'],
    ] as const) {
      for (const convert of [convertTokenCountRequest, convertTokenCountResponse]) {
        try {
          convert({ model: 'm', messages: [] }, { from, to });
          assert.unreachable(`${from} → ${to}`);
        } catch (error) {
          assert.ok(isInterlinguaError(error) && error.code === 'not_implemented', String(error));
          assert.ok(error.message.includes(`${other} has no token-counting endpoint`), error.message);
        }
      }
    }
  }
  try {
    convertTokenCountRequest({ input: { invokeModel: { body: '{}' } } }, { from: 'bedrock-converse', to: 'anthropic', model: 'b' });
    assert.unreachable('invokeModel');
  } catch (error) {
    assert.ok(isInterlinguaError(error) && error.code === 'not_implemented' && error.path === '/input/invokeModel', String(error));
  }
});

test('counting answers: the count carried between every pair, and what a target cannot tell apart reported', () => {
  const answers: Record<Counting, unknown> = {
    anthropic: { input_tokens: 42 },
    'openai-responses': { object: 'response.input_tokens', input_tokens: 42 },
    gemini: { totalTokens: 42 },
    'bedrock-converse': { inputTokens: 42 },
  };
  for (const from of COUNTING) {
    for (const to of COUNTING) {
      const { body, losses } = convertTokenCountResponse(answers[from], { from, to });
      assert.equal(body, answers[to], `${from} → ${to}`);
      assert.equal(losses, [], `${from} → ${to}`);
    }
  }
  const gemini = { totalTokens: 31, cachedContentTokenCount: 10, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 31 }] };
  const back = convertTokenCountResponse(gemini, { from: 'gemini', to: 'gemini' });
  assert.equal(back.body, { totalTokens: 31, cachedContentTokenCount: 10 });
  const { body, losses } = convertTokenCountResponse(JSON.stringify(gemini), { from: 'gemini', to: 'anthropic' });
  assert.equal(body, { input_tokens: 31 });
  assert.equal(
    losses.map((loss) => [loss.code, loss.path, loss.severity]),
    [
      ['dropped_field', '', 'info'],
      ['dropped_field', '/promptTokensDetails', 'warning'],
    ],
  );
  for (const bad of [{}, { input_tokens: -1 }, { input_tokens: 1.5 }, { input_tokens: '3' }]) {
    try {
      convertTokenCountResponse(bad, { from: 'anthropic', to: 'gemini' });
      assert.unreachable(JSON.stringify(bad));
    } catch (error) {
      assert.ok(isInterlinguaError(error) && error.path === '/input_tokens', String(error));
    }
  }
});

/** A proxy in front of a fake `upstream` that answers every request with `answer`; `call` runs against the proxy. */
async function throughProxy(upstream: Exclude<FormatId, 'bedrock-converse'>, answer: unknown, call: (url: string) => Promise<void>, log?: ProxyLogEntry[]) {
  const fake = await startUpstream(upstream);
  try {
    fake.behaviour = { kind: 'answer', body: answer };
    const config: ProxyConfig = { upstream: { format: upstream, baseUrl: fake.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'upstream-model' }, fetch: createNodeFetch() };
    if (log !== undefined) config.log = (entry) => log.push(entry);
    await withProxy(config, call);
    return fake.received;
  } finally {
    await fake.close();
  }
}

test('proxy: the Anthropic SDK counts tokens through a Gemini upstream', async () => {
  let count = -1;
  const log: ProxyLogEntry[] = [];
  const received = await throughProxy(
    'gemini',
    { totalTokens: 57, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 57 }] },
    async (url) => {
      const client = new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 });
      count = (await client.messages.countTokens(BODIES.anthropic as unknown as Anthropic.MessageCountTokensParams)).input_tokens;
      // Claude Code counts through the beta surface: /v1/messages/count_tokens?beta=true.
      const beta = await client.beta.messages.countTokens(BODIES.anthropic as unknown as Anthropic.Beta.Messages.MessageCountTokensParams);
      assert.is(beta.input_tokens, 57);
    },
    log,
  );
  assert.is(count, 57);
  assert.is(received.length, 2);
  assert.equal(received[1]?.body, received[0]?.body);
  assert.is(received[0]?.url, '/v1beta/models/upstream-model:countTokens');
  const request = received[0]?.body['generateContentRequest'] as Record<string, unknown>;
  assert.is(request['model'], 'models/upstream-model');
  assert.equal(request['systemInstruction'], { parts: [{ text: 'Answer briefly.' }] });
  assert.equal(Object.keys(request).sort(), ['contents', 'model', 'systemInstruction', 'tools']);
  // The answer's promptTokensDetails has no Anthropic field: one loss, in the log.
  assert.is(log[0]?.losses, 1);
  assert.is(log[0]?.path, '/v1/messages/count_tokens');
});

test('proxy: the OpenAI SDK counts Responses input tokens through an Anthropic upstream', async () => {
  let answer: OpenAI.Responses.InputTokenCountResponse | undefined;
  const received = await throughProxy('anthropic', { input_tokens: 23 }, async (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    answer = await client.responses.inputTokens.count(BODIES['openai-responses'] as OpenAI.Responses.InputTokenCountParams);
  });
  assert.equal(answer, { object: 'response.input_tokens', input_tokens: 23 });
  assert.is(received[0]?.url, '/v1/messages/count_tokens');
  const body = received[0]?.body ?? {};
  assert.is(body['model'], 'upstream-model');
  assert.is(body['system'], 'Answer briefly.');
  assert.not.ok('max_tokens' in body);
  assert.is(received[0]?.headers['x-api-key'], 'upstream-secret');
});

test('proxy: the Gemini SDK counts tokens through an OpenAI Responses upstream', async () => {
  let total: number | undefined;
  const received = await throughProxy('openai-responses', { object: 'response.input_tokens', input_tokens: 9 }, async (url) => {
    const client = new GoogleGenAI({ apiKey: 'caller-key', httpOptions: { baseUrl: url } });
    total = (await client.models.countTokens({ model: 'gemini-test', contents: 'What is the weather in Paris?' })).totalTokens;
  });
  assert.is(total, 9);
  assert.is(received[0]?.url, '/v1/responses/input_tokens');
  assert.equal(received[0]?.body, { model: 'upstream-model', input: [{ role: 'user', content: 'What is the weather in Paris?' }] });
});

test('proxy: the AWS SDK counts tokens through an Anthropic upstream, and the Anthropic SDK through a signed Bedrock upstream', async () => {
  let tokens: number | undefined;
  const received = await throughProxy('anthropic', { input_tokens: 5 }, async (url) => {
    const converse = (BODIES['bedrock-converse']['input'] as { converse: unknown }).converse;
    tokens = (await bedrockClient(url, true).send(new CountTokensCommand({ modelId: 'anthropic.claude-test', input: { converse } as never }))).inputTokens;
  });
  assert.is(tokens, 5);
  assert.is(received[0]?.url, '/v1/messages/count_tokens');
  assert.equal(received[0]?.body['messages'], [{ role: 'user', content: 'What is the weather in Paris?' }]);

  const credentials = { accessKeyId: 'AKIDUPSTREAM', secretAccessKey: 'upstream-secret' };
  const bedrock = await startFakeBedrock(credentials, 'us-east-1', { inputTokens: 33 });
  try {
    const config: ProxyConfig = { upstream: { format: 'bedrock-converse', baseUrl: bedrock.url, region: 'us-east-1', aws: credentials }, modelMap: { '*': 'anthropic.claude-up' }, fetch: createNodeFetch() };
    let count = -1;
    await withProxy(config, async (url) => {
      const client = new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 });
      count = (await client.messages.countTokens(BODIES.anthropic as unknown as Anthropic.MessageCountTokensParams)).input_tokens;
    });
    assert.is(count, 33);
    assert.is(bedrock.received[0]?.path, '/model/anthropic.claude-up/count-tokens');
    assert.ok(bedrock.received[0]?.signed, 'signed with the upstream credentials');
    assert.equal(Object.keys((bedrock.received[0]?.body['input'] as Record<string, Record<string, unknown>>)['converse'] ?? {}).sort(), ['messages', 'system', 'toolConfig']);
  } finally {
    await bedrock.close();
  }
});

test('proxy: an upstream without a counting endpoint is never called, and the caller hears so in its own format', async () => {
  let status = 0;
  let message = '';
  const received = await throughProxy('openai-chat', {}, async (url) => {
    const client = new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 });
    try {
      await client.messages.countTokens(BODIES.anthropic as unknown as Anthropic.MessageCountTokensParams);
    } catch (error) {
      if (!(error instanceof Anthropic.NotFoundError)) throw error;
      status = error.status;
      message = error.message;
    }
  });
  assert.is(status, 404);
  assert.ok(message.includes('openai-chat, which has no token-counting endpoint'), message);
  assert.is(received.length, 0);
});

test('proxy: the upstream\'s error on a count reaches the caller in its own format', async () => {
  const fake = await startUpstream('gemini');
  try {
    fake.behaviour = { kind: 'error', status: 429, body: { error: { code: 429, message: 'quota exhausted', status: 'RESOURCE_EXHAUSTED' } } };
    const config: ProxyConfig = { upstream: { format: 'gemini', baseUrl: fake.url, apiKey: 'k' }, fetch: createNodeFetch() };
    await withProxy(config, async (url) => {
      const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
      try {
        await client.responses.inputTokens.count(BODIES['openai-responses'] as OpenAI.Responses.InputTokenCountParams);
        assert.unreachable('429');
      } catch (error) {
        assert.ok(error instanceof OpenAI.RateLimitError, String(error));
        assert.ok(error.message.includes('quota exhausted'), error.message);
      }
    });
  } finally {
    await fake.close();
  }
});

test.run();
