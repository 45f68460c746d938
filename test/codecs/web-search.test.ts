/**
 * The vendors' own web search as one IR tool: Anthropic `web_search_*`,
 * OpenAI Responses `web_search`, Chat `web_search_options` (its search
 * models), Gemini `googleSearch`, Amazon Nova's `nova_grounding` on
 * Bedrock. Recorded requests carry it to every format that has one, each
 * setting a target lacks is reported at its field in the caller's body, and
 * the official SDKs' requests arrive at another vendor's upstream with it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { convertRequest, decodeRequest } from '../../src/formats/convert.ts';
import type { FormatId, Tool } from '../../src/core/ir.ts';
import { receivedThrough } from '../support/proxy-server.ts';
import { corpusFixtures, fixtureBody } from '../support/fixtures.ts';
import { SpecValidators, describeErrors } from '../support/spec-schemas.ts';

type Json = Record<string, unknown>;

const validators = new SpecValidators();
const NOVA = 'us.amazon.nova-2-lite-v1:0';

/** The web search a request body of `format` sends, in that format's spelling, or `undefined`. */
function searchOf(format: FormatId, body: Json): unknown {
  const tools = (format === 'bedrock-converse' ? (body['toolConfig'] as Json | undefined)?.['tools'] : body['tools']) as Json[] | undefined;
  switch (format) {
    case 'anthropic':
      return tools?.find((tool) => typeof tool['type'] === 'string' && tool['type'].startsWith('web_search_'));
    case 'openai-responses':
      return tools?.find((tool) => typeof tool['type'] === 'string' && tool['type'].startsWith('web_search'));
    case 'openai-chat':
      return body['web_search_options'];
    case 'gemini':
      return tools?.find((tool) => 'googleSearch' in tool || 'google_search' in tool);
    case 'bedrock-converse':
      return tools?.find((tool) => (tool['systemTool'] as Json | undefined)?.['name'] === 'nova_grounding');
    case 'ollama':
      return undefined;
  }
}

/** The model each target gets: a search model for Chat, a Nova model for Bedrock, whose searches need one. */
const MODEL: Partial<Record<FormatId, string>> = { 'openai-chat': 'gpt-4o-search-preview', 'bedrock-converse': NOVA };

const carried = suite('web search: one IR tool');

carried('every recorded request with a web search decodes it as the IR web search, and sends it to every format that has one', () => {
  let seen = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.kind !== 'request') continue;
    const body = fixtureBody(fixture).body as Json;
    if (searchOf(fixture.format, body) === undefined) continue;
    const ir = decodeRequest(fixture.format, body, { model: NOVA }).ir;
    // A search with a field the IR does not hold (a Gemini time range) stays the format's own opaque tool.
    if (!(ir.tools ?? []).some((tool) => tool.type === 'web_search')) continue;
    seen++;
    for (const to of ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'bedrock-converse'] as const) {
      if (to === fixture.format) continue;
      const source = MODEL[to] !== undefined && 'model' in body ? { ...body, model: MODEL[to] } : body;
      const { body: out } = convertRequest(source, { from: fixture.format, to, model: MODEL[to] ?? 'm' });
      assert.ok(searchOf(to, out as Json) !== undefined, `${fixture.name} → ${to}: ${JSON.stringify(out).slice(0, 300)}`);
      if (to === 'anthropic' || to === 'openai-responses' || to === 'openai-chat') {
        const errors = validators.validate(to, 'request', out);
        assert.is(errors, undefined, errors === undefined ? '' : `${fixture.name} → ${to}: ${describeErrors(errors)}`);
      }
    }
  }
  assert.ok(seen >= 12, `recorded requests with a web search: ${seen}`);
});

carried('settings: domains, location, limit and context size where the target has them, each other one reported at its field', () => {
  const anthropic = {
    model: 'claude',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'news?' }],
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['example.com'], user_location: { type: 'approximate', city: 'Paris', country: 'FR' } }],
  };
  const search = decodeRequest('anthropic', anthropic).ir.tools?.[0] as Tool;
  assert.equal(search, { type: 'web_search', maxUses: 3, allowedDomains: ['example.com'], userLocation: { city: 'Paris', country: 'FR' } });
  assert.equal(convertRequest(anthropic, { from: 'anthropic', to: 'anthropic' }).body, anthropic);
  const responses = convertRequest(anthropic, { from: 'anthropic', to: 'openai-responses' });
  assert.equal((responses.body as Json)['tools'], [{ type: 'web_search', filters: { allowed_domains: ['example.com'] }, user_location: { type: 'approximate', city: 'Paris', country: 'FR' } }]);
  assert.equal(responses.losses.map((loss) => [loss.path, loss.severity]), [['/tools/0/max_uses', 'info']]);
  const gemini = convertRequest(anthropic, { from: 'anthropic', to: 'gemini' });
  assert.equal((gemini.body as Json)['tools'], [{ googleSearch: {} }]);
  assert.equal(gemini.losses.map((loss) => [loss.path, loss.severity]), [
    ['/tools/0/allowed_domains', 'warning'],
    ['/tools/0/user_location', 'info'],
    ['/tools/0/max_uses', 'info'],
  ]);
  const chat = convertRequest({ ...anthropic, model: 'gpt-4o-search-preview' }, { from: 'anthropic', to: 'openai-chat' });
  assert.equal((chat.body as Json)['web_search_options'], { user_location: { type: 'approximate', approximate: { city: 'Paris', country: 'FR' } } });
  assert.is((chat.body as Json)['tools'], undefined);
  // Anthropic takes allowed or blocked domains, not both.
  const both = { model: 'gpt-5', input: 'news?', tools: [{ type: 'web_search', filters: { allowed_domains: ['a.com'] } }] };
  const fromResponses = convertRequest(both, { from: 'openai-responses', to: 'anthropic' }).body as Json;
  assert.equal(fromResponses['tools'], [{ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['a.com'] }]);
});

carried('where the vendor searches only with some models: Chat with its search models, Converse with Amazon Nova; any other model drops the search, reported', () => {
  const responses = { model: 'gpt-5', input: 'news?', tools: [{ type: 'web_search_preview', search_context_size: 'low' }] };
  assert.equal(convertRequest(responses, { from: 'openai-responses', to: 'openai-responses' }).body, responses);
  const plain = convertRequest(responses, { from: 'openai-responses', to: 'openai-chat' });
  assert.is((plain.body as Json)['web_search_options'], undefined);
  assert.ok(plain.losses.some((loss) => loss.path === '/tools/0' && loss.message.includes('search models')), JSON.stringify(plain.losses));
  const searching = convertRequest({ ...responses, model: 'gpt-4o-mini-search-preview' }, { from: 'openai-responses', to: 'openai-chat' }).body as Json;
  assert.equal(searching['web_search_options'], { search_context_size: 'low' });
  const chat = { model: 'gpt-4o-search-preview', messages: [{ role: 'user', content: 'news?' }], web_search_options: { search_context_size: 'high' } };
  assert.equal(convertRequest(chat, { from: 'openai-chat', to: 'openai-chat' }).body, chat);
  const nova = convertRequest(chat, { from: 'openai-chat', to: 'bedrock-converse', model: NOVA });
  // Converse takes the model from the URL: the caller's `model` option names it.
  assert.equal(((nova.body as Json)['toolConfig'] as Json)['tools'], [{ systemTool: { name: 'nova_grounding' } }]);
  const claude = convertRequest(chat, { from: 'openai-chat', to: 'bedrock-converse', model: 'us.anthropic.claude-sonnet-4-5-v1:0' });
  assert.is((claude.body as Json)['toolConfig'], undefined);
  assert.ok(claude.losses.some((loss) => loss.path === '/web_search_options' && loss.message.includes('Amazon Nova')), JSON.stringify(claude.losses));
});

const proxied = suite('web search through the proxy, with the official SDKs');

proxied('the Anthropic SDK with its web search tool in front of a Responses upstream: a web_search tool arrives', async () => {
  const body = await receivedThrough('openai-responses', 'model-under-test', (url) =>
    new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 }).messages.create({
      model: 'claude-test',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'What happened today?' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', country: 'US', timezone: 'America/New_York' } }],
    }),
  );
  assert.equal(body['tools'], [{ type: 'web_search', user_location: { type: 'approximate', country: 'US', timezone: 'America/New_York' } }]);
});

proxied('the OpenAI SDK\'s Responses with web search in front of an Anthropic upstream: Anthropic\'s web search tool arrives', async () => {
  const body = await receivedThrough('anthropic', 'model-under-test', (url) =>
    new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 }).responses.create({
      model: 'gpt-test',
      input: 'What happened today?',
      tools: [{ type: 'web_search', filters: { allowed_domains: ['reuters.com'] } }],
    }),
  );
  assert.equal(body['tools'], [{ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['reuters.com'] }]);
});

carried.run();
proxied.run();
