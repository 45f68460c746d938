/**
 * Settings OpenAI Chat Completions and Responses share: `store`,
 * `prompt_cache_key`, `prompt_cache_retention`, verbosity (Chat `verbosity`,
 * Responses `text.verbosity`), log probabilities (Chat `logprobs`, Responses'
 * `include` entry), `stream_options`, and custom (free-text) tools. They travel between the two APIs
 * (real recorded requests and the official SDK through the proxy), come back
 * to their own API as they came, and every other target reports each one,
 * pointing at the field in the body the caller passed in.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { convertRequest, decodeRequest } from '../../src/formats/convert.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { receivedThrough } from '../support/proxy-server.ts';
import { corpusFixtures, fixtureBody } from '../support/fixtures.ts';
import { SpecValidators, describeErrors } from '../support/spec-schemas.ts';

type Json = Record<string, unknown>;

const SHARED_KEYS = ['store', 'prompt_cache_key', 'prompt_cache_retention'] as const;
const OTHERS: FormatId[] = ['anthropic', 'gemini', 'ollama', 'bedrock-converse'];
const LOGPROBS = 'message.output_text.logprobs';
const validators = new SpecValidators();

function validOpenai(format: 'openai-chat' | 'openai-responses', body: unknown): void {
  const errors = validators.validate(format, 'request', body);
  assert.is(errors, undefined, errors === undefined ? '' : describeErrors(errors));
}

const carried = suite('OpenAI settings: Chat ⇄ Responses');

carried('recorded requests carry store, the prompt-cache key and retention to the other API, and come back as they came', () => {
  let seen = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.kind !== 'request' || (fixture.format !== 'openai-chat' && fixture.format !== 'openai-responses')) continue;
    const body = fixtureBody(fixture).body as Json;
    if (!SHARED_KEYS.some((key) => body[key] !== undefined)) continue;
    seen++;
    const to = fixture.format === 'openai-chat' ? 'openai-responses' : 'openai-chat';
    const { body: out, losses } = convertRequest(body, { from: fixture.format, to });
    for (const key of SHARED_KEYS) assert.equal((out as Json)[key], body[key], `${fixture.name}: ${key}`);
    assert.not.ok(losses.some((loss) => SHARED_KEYS.some((key) => loss.path === `/${key}`)), `${fixture.name}: ${JSON.stringify(losses)}`);
    validOpenai(to, out);
    assert.equal(convertRequest(out, { from: to, to: fixture.format }).body !== undefined, true);
    assert.equal(convertRequest(body, { from: fixture.format, to: fixture.format }).body, body, `${fixture.name} back to itself`);
  }
  assert.ok(seen >= 10, `recorded requests with these settings: ${seen}`);
});

carried('verbosity: Chat verbosity ⇄ Responses text.verbosity, beside a JSON schema', () => {
  const chat = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], verbosity: 'low', response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' } } } };
  const responses = convertRequest(chat, { from: 'openai-chat', to: 'openai-responses' });
  assert.equal((responses.body as Json)['text'], { format: { type: 'json_schema', name: 'out', schema: { type: 'object' } }, verbosity: 'low' });
  assert.equal(responses.losses, []);
  validOpenai('openai-responses', responses.body);
  const back = convertRequest(responses.body, { from: 'openai-responses', to: 'openai-chat' });
  assert.is((back.body as Json)['verbosity'], 'low');
  const only = { model: 'gpt-5', input: 'hi', text: { verbosity: 'high' } };
  assert.is(decodeRequest('openai-responses', only).ir.verbosity, 'high');
  assert.equal(convertRequest(only, { from: 'openai-responses', to: 'openai-responses' }).body, only);
});

carried('log probabilities: Chat logprobs ⇄ the Responses include entry, which goes back to its place among the others', () => {
  const responses = { model: 'gpt-5', input: 'hi', top_logprobs: 3, include: ['reasoning.encrypted_content', LOGPROBS, 'web_search_call.action.sources'] };
  const ir = decodeRequest('openai-responses', responses).ir;
  assert.equal(ir.generation, { topLogprobs: 3, logprobs: true });
  assert.equal(convertRequest(responses, { from: 'openai-responses', to: 'openai-responses' }).body, responses);
  const chat = convertRequest(responses, { from: 'openai-responses', to: 'openai-chat' });
  assert.is((chat.body as Json)['logprobs'], true);
  assert.is((chat.body as Json)['top_logprobs'], 3);
  // The other entries have no Chat field: reported at the include list itself.
  assert.equal(chat.losses.map((loss) => loss.path), ['/include']);
  validOpenai('openai-chat', chat.body);
  const chatBody = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], logprobs: true, top_logprobs: 2 };
  assert.equal((convertRequest(chatBody, { from: 'openai-chat', to: 'openai-responses' }).body as Json)['include'], [LOGPROBS]);
});

carried('Chat refuses top_logprobs without logprobs: another API\'s top_logprobs asks for both; a Chat body without logprobs goes back as it came', () => {
  const responses = { model: 'gpt-5', input: 'hi', top_logprobs: 2 };
  const chat = convertRequest(responses, { from: 'openai-responses', to: 'openai-chat' }).body as Json;
  assert.is(chat['logprobs'], true);
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { logprobs: 4 } };
  assert.is((convertRequest(gemini, { from: 'gemini', to: 'openai-chat', model: 'gpt-5' }).body as Json)['logprobs'], true);
  const own = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], top_logprobs: 2 };
  assert.equal(convertRequest(own, { from: 'openai-chat', to: 'openai-chat' }).body, own);
});

carried('stream options: usage is never lost (Responses always reports it), obfuscation travels, a stream to Chat asks for its usage', () => {
  const chat = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true, include_obfuscation: false } };
  const responses = convertRequest(chat, { from: 'openai-chat', to: 'openai-responses' });
  assert.equal((responses.body as Json)['stream_options'], { include_obfuscation: false });
  assert.equal(responses.losses, []);
  validOpenai('openai-responses', responses.body);
  const back = convertRequest(responses.body, { from: 'openai-responses', to: 'openai-chat' });
  assert.equal((back.body as Json)['stream_options'], { include_usage: true, include_obfuscation: false });
  const anthropic = { model: 'claude', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] };
  assert.equal((convertRequest(anthropic, { from: 'anthropic', to: 'openai-chat' }).body as Json)['stream_options'], { include_usage: true });
  const plain = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], stream: true };
  assert.equal(convertRequest(plain, { from: 'openai-chat', to: 'openai-chat' }).body, plain, 'a Chat stream that did not ask goes back without asking');
  const unknown = { ...plain, stream_options: { include_usage: false, chunk_size: 2 } };
  assert.equal(convertRequest(unknown, { from: 'openai-chat', to: 'openai-chat' }).body, unknown);
});

carried('custom (free-text) tools, with a grammar or without, and a choice of one: Chat ⇄ Responses, back as they came; the other formats report them', () => {
  const grammar = 'start: "+" LINE+\nLINE: /[^\\n]+\\n/';
  const responses = {
    model: 'gpt-5',
    input: 'Patch the file.',
    tools: [
      { type: 'custom', name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', syntax: 'lark', definition: grammar } },
      { type: 'custom', name: 'note', format: { type: 'text' }, defer_loading: true },
    ],
    tool_choice: { type: 'custom', name: 'apply_patch' },
  };
  const ir = decodeRequest('openai-responses', responses).ir;
  assert.equal(ir.tools?.[0], { type: 'custom', name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', syntax: 'lark', definition: grammar } });
  assert.equal(convertRequest(responses, { from: 'openai-responses', to: 'openai-responses' }).body, responses);
  const chat = convertRequest(responses, { from: 'openai-responses', to: 'openai-chat' });
  assert.equal((chat.body as Json)['tools'], [
    { type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', grammar: { definition: grammar, syntax: 'lark' } } } },
    { type: 'custom', custom: { name: 'note', format: { type: 'text' } } },
  ]);
  assert.equal((chat.body as Json)['tool_choice'], { type: 'custom', custom: { name: 'apply_patch' } });
  // Only Responses' own defer_loading has no Chat place.
  assert.equal(chat.losses.map((loss) => loss.path), ['/tools/1/defer_loading']);
  validOpenai('openai-chat', chat.body);
  assert.equal(convertRequest(chat.body, { from: 'openai-chat', to: 'openai-chat' }).body, chat.body);
  const back = convertRequest(chat.body, { from: 'openai-chat', to: 'openai-responses' }).body as Json;
  assert.equal(back['tools'], [responses.tools[0], { type: 'custom', name: 'note', format: { type: 'text' } }]);
  assert.equal(back['tool_choice'], { type: 'custom', name: 'apply_patch' });
  validOpenai('openai-responses', back);
  for (const to of OTHERS) {
    const { losses } = convertRequest(responses, { from: 'openai-responses', to, model: 'm' });
    assert.equal(losses.filter((loss) => loss.message.includes('custom tool')).map((loss) => loss.path), ['/tools/0', '/tools/1'], to);
  }
});

const reported = suite('OpenAI settings: formats without them');

reported('each setting is reported where the source body has it, by severity', () => {
  const chat = {
    model: 'gpt-5',
    messages: [{ role: 'user', content: 'hi' }],
    store: false,
    prompt_cache_key: 'k',
    prompt_cache_retention: '24h',
    verbosity: 'low',
    stream: true,
    stream_options: { include_usage: true, include_obfuscation: true },
  };
  const responses = { model: 'gpt-5', input: 'hi', store: true, prompt_cache_key: 'k', text: { verbosity: 'high' }, stream: true, stream_options: { include_obfuscation: true } };
  for (const to of OTHERS) {
    const fromChat = convertRequest(chat, { from: 'openai-chat', to, model: 'm' }).losses;
    const settings = fromChat.filter((loss) => loss.code === 'dropped_field').map((loss) => [loss.path, loss.severity]);
    assert.equal(settings, [
      ['/store', 'info'],
      ['/prompt_cache_key', 'info'],
      ['/prompt_cache_retention', 'info'],
      ['/verbosity', 'warning'],
      ['/stream_options/include_obfuscation', 'info'],
    ], to);
    const fromResponses = convertRequest(responses, { from: 'openai-responses', to, model: 'm' }).losses;
    assert.equal(
      fromResponses.filter((loss) => loss.code === 'dropped_field').map((loss) => [loss.path, loss.severity]),
      [
        ['/store', 'warning'],
        ['/prompt_cache_key', 'info'],
        ['/text/verbosity', 'warning'],
        ['/stream_options/include_obfuscation', 'info'],
      ],
      to,
    );
  }
});

reported('a body\'s own field another format has no place for is reported at that field, not at the body', () => {
  const body = { model: 'gpt-5', input: 'hi', truncation: 'auto', background: false };
  const losses = convertRequest(body, { from: 'openai-responses', to: 'openai-chat' }).losses;
  assert.equal(losses.map((loss) => loss.path), ['/truncation', '/background']);
});

const proxied = suite('OpenAI settings through the proxy, with the OpenAI SDK');

/** The body an upstream of `format` received from the proxy for `call`, made with the OpenAI SDK in front of it. */
function received(format: 'openai-chat' | 'openai-responses', call: (client: OpenAI) => Promise<unknown>): Promise<Json> {
  return receivedThrough(format, 'gpt-test', (url) => call(new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 })));
}

proxied('Chat Completions in front of a Responses upstream: store, cache key and retention, verbosity and logprobs arrive', async () => {
  const body = await received('openai-responses', (client) =>
    client.chat.completions.create({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Summarise the policy.' }],
      store: true,
      prompt_cache_key: 'policy-v3',
      prompt_cache_retention: '24h',
      verbosity: 'low',
      logprobs: true,
      top_logprobs: 2,
    }),
  );
  assert.equal(
    { store: body['store'], key: body['prompt_cache_key'], retention: body['prompt_cache_retention'], text: body['text'], include: body['include'], top: body['top_logprobs'] },
    { store: true, key: 'policy-v3', retention: '24h', text: { verbosity: 'low' }, include: [LOGPROBS], top: 2 },
  );
});

proxied('Responses with a custom tool (Codex\'s apply_patch shape) in front of a Chat upstream: the custom tool arrives', async () => {
  const body = await received('openai-chat', (client) =>
    client.responses.create({
      model: 'gpt-5',
      input: 'Patch the file.',
      tools: [{ type: 'custom', name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', syntax: 'lark', definition: 'start: LINE+' } }],
    }),
  );
  assert.equal(body['tools'], [{ type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', grammar: { definition: 'start: LINE+', syntax: 'lark' } } } }]);
});

proxied('Responses in front of a Chat upstream: the same settings arrive, logprobs with top_logprobs', async () => {
  // openai 6's types have no top_logprobs on Responses (the API and openai 7's do); the wire field is what counts.
  const params = { model: 'gpt-5', input: 'Summarise the policy.', store: false, prompt_cache_key: 'policy-v3', text: { verbosity: 'high' }, include: [LOGPROBS], top_logprobs: 2 } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
  const body = await received('openai-chat', (client) => client.responses.create(params));
  assert.equal(
    { store: body['store'], key: body['prompt_cache_key'], verbosity: body['verbosity'], logprobs: body['logprobs'], top: body['top_logprobs'] },
    { store: false, key: 'policy-v3', verbosity: 'high', logprobs: true, top: 2 },
  );
});

carried.run();
reported.run();
proxied.run();
