/**
 * Prompt-cache breakpoints: Anthropic `cache_control`, Bedrock `cachePoint`,
 * OpenAI `prompt_cache_breakpoint` and the `cache_control` OpenRouter and
 * LiteLLM take on Chat parts are one IR breakpoint (`cache` on a part or tool),
 * and a top-level `cache_control` (automatic caching) the request's own, carried between them on real recorded requests and
 * through the proxy with the official SDKs on both sides; every other
 * target (and Chat, for what it has no place for) reports each one it
 * drops, pointing at the breakpoint in the body the caller passed in.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Anthropic from '@anthropic-ai/sdk';
import { ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { convertRequest, decodeRequest, encodeRequest } from '../../src/formats/convert.ts';
import type { FormatId, Part, Request } from '../../src/core/ir.ts';
import type { ProxyConfig } from '../../src/proxy/index.ts';
import { receivedThrough, withProxy } from '../support/proxy-server.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { corpusFixtures, fixtureBody, GOLDEN_DIR, readJson } from '../support/fixtures.ts';
import { startFakeBedrock } from '../support/strict/index.ts';
import { bedrockClient } from '../support/clients.ts';
import OpenAI from 'openai';
import { SpecValidators, describeErrors } from '../support/spec-schemas.ts';

type Json = Record<string, unknown>;

/** Where each breakpoint of a decoded request sits: `system`, `message <n> part <k>`, `tool <n>`, with its lifetime. */
function breakpoints(request: Request): string[] {
  const found: string[] = [];
  const inParts = (parts: readonly Part[], where: string): void => {
    parts.forEach((part, index) => {
      if (part.cache !== undefined) found.push(`${where} ${part.type} ${index} ${part.cache.ttl ?? 'default'}`);
      if (part.type === 'tool_result') inParts(part.content, `${where} result ${index}`);
    });
  };
  request.messages.forEach((message, index) => inParts(message.parts, `${message.role} ${index}`));
  request.tools?.forEach((tool, index) => {
    if (tool.type === 'function' && tool.cache !== undefined) found.push(`tool ${index} ${tool.cache.ttl ?? 'default'}`);
  });
  return found;
}

/** The `cachePoint` blocks of a Converse body, by where they are. */
function cachePoints(body: Json): string[] {
  const found: string[] = [];
  const scan = (list: unknown, where: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((block: Json, index) => {
      if (block['cachePoint'] !== undefined) found.push(`${where}/${index} ${JSON.stringify(block['cachePoint'])}`);
    });
  };
  scan(body['system'], '/system');
  (body['messages'] as Json[] | undefined)?.forEach((message, index) => scan(message['content'], `/messages/${index}/content`));
  scan((body['toolConfig'] as Json | undefined)?.['tools'], '/toolConfig/tools');
  return found;
}

const TARGETS_WITHOUT: FormatId[] = ['gemini', 'ollama'];

/** The `prompt_cache_breakpoint`s (or the `key`s) of a Chat body, by where they are (`/messages/<n>/content/<k>`). */
function chatBreakpoints(body: Json, key = 'prompt_cache_breakpoint'): string[] {
  const found: string[] = [];
  (body['messages'] as Json[] | undefined)?.forEach((message, index) => {
    const content = message['content'];
    if (!Array.isArray(content)) return;
    content.forEach((part: Json, at) => {
      if (part[key] !== undefined) found.push(`/messages/${index}/content/${at} ${JSON.stringify(part[key])}`);
    });
  });
  return found;
}

const validators = new SpecValidators();

const convert = suite('cache breakpoints: Anthropic ⇄ Bedrock');

convert('golden Anthropic request → Bedrock: a cache point after each marked block, lifetimes kept, nothing lost', () => {
  const body = readJson(join(GOLDEN_DIR, 'anthropic', 'system-blocks-cache-control', 'request.json')) as Json;
  const { body: converse, losses } = convertRequest(body, { from: 'anthropic', to: 'bedrock-converse' });
  // The request-wide `cache_control` (automatic caching) marks the last cacheable block, the user text: marked already.
  assert.equal(cachePoints(converse as Json), ['/system/2 {"type":"default","ttl":"1h"}', '/messages/0/content/1 {"type":"default"}']);
  assert.equal(losses, []);
});

convert('golden Bedrock request → Anthropic: cache_control on the system text, the user text and the tool; back to Bedrock unchanged', () => {
  const body = readJson(join(GOLDEN_DIR, 'bedrock-converse', 'cache-points', 'request.json')) as Json;
  const { body: anthropic, losses } = convertRequest(body, { from: 'bedrock-converse', to: 'anthropic', model: 'claude-test' });
  const wire = anthropic as Json;
  assert.equal((wire['system'] as Json[])[0]?.['cache_control'], { type: 'ephemeral' });
  assert.equal(((wire['messages'] as Json[])[0]?.['content'] as Json[])[0]?.['cache_control'], { type: 'ephemeral' });
  assert.equal((wire['tools'] as Json[])[0]?.['cache_control'], { type: 'ephemeral' });
  assert.not.ok(losses.some((loss) => loss.message.includes('cache')), 'no breakpoint is lost');
  const back = convertRequest(anthropic, { from: 'anthropic', to: 'bedrock-converse' }).body as Json;
  assert.equal(cachePoints(back), cachePoints(body));
});

convert('every corpus Bedrock request with cache points: the same breakpoints reach Anthropic, and Anthropic → Bedrock puts the cache points back where they were', () => {
  let checked = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.format !== 'bedrock-converse' || fixture.kind !== 'request') continue;
    const { body } = fixtureBody(fixture);
    const points = cachePoints(body as Json);
    if (points.length === 0) continue;
    const source = decodeRequest('bedrock-converse', body, { model: 'claude-test' }).ir;
    assert.is(breakpoints(source).length, points.length, `${fixture.name}: every cache point is a breakpoint`);
    const anthropic = convertRequest(body, { from: 'bedrock-converse', to: 'anthropic', model: 'claude-test' });
    assert.not.ok(anthropic.losses.some((loss) => loss.message.includes('cache')), `${fixture.name}: no breakpoint lost`);
    assert.equal(breakpoints(decodeRequest('anthropic', anthropic.body).ir), breakpoints(source), fixture.name);
    const back = convertRequest(anthropic.body, { from: 'anthropic', to: 'bedrock-converse' }).body as Json;
    assert.equal(cachePoints(back), points, fixture.name);
    checked++;
  }
  assert.ok(checked >= 15, `corpus Bedrock requests with cache points checked: ${checked}`);
});

convert('every corpus Anthropic request with cache_control: its breakpoints reach Bedrock as cache points (thinking blocks, which take none, excepted)', () => {
  let checked = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.format !== 'anthropic' || fixture.kind !== 'request') continue;
    const { body } = fixtureBody(fixture);
    const source = decodeRequest('anthropic', body).ir;
    const marks = breakpoints(source);
    if (marks.length === 0) continue;
    const converse = convertRequest(body, { from: 'anthropic', to: 'bedrock-converse' });
    const carried = breakpoints(decodeRequest('bedrock-converse', converse.body, { model: 'claude-test' }).ir);
    assert.is(cachePoints(converse.body as Json).length, carried.length, fixture.name);
    // A breakpoint is lost only with its part (a part Converse cannot carry, reported on its own).
    assert.ok(carried.length <= marks.length, fixture.name);
    if (carried.length < marks.length) assert.ok(converse.losses.some((loss) => loss.code === 'unsupported_part' || loss.code === 'reasoning_state_dropped'), fixture.name);
    checked++;
  }
  assert.ok(checked >= 5, `corpus Anthropic requests with breakpoints checked: ${checked}`);
});

convert('a cache point with nothing before it, or of another shape, stays an opaque Converse block', () => {
  const body = {
    messages: [{ role: 'user', content: [{ cachePoint: { type: 'default' } }, { text: 'hi' }, { cachePoint: { type: 'default', extra: 1 } }] }],
  };
  const { ir } = decodeRequest('bedrock-converse', body, { model: 'm' });
  assert.equal(ir.messages[0]?.parts.map((part) => part.type), ['opaque', 'text', 'opaque']);
  assert.is(ir.messages[0]?.parts[1]?.cache, undefined);
  assert.equal(convertRequest(body, { from: 'bedrock-converse', to: 'bedrock-converse', model: 'm' }).body, body);
});

convert('an Anthropic cache_control that is not the ephemeral breakpoint stays the block\'s own field, for Anthropic only', () => {
  const body = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '2h' } }] }] };
  const { ir } = decodeRequest('anthropic', body);
  assert.is(ir.messages[0]?.parts[0]?.cache, undefined);
  assert.equal(ir.messages[0]?.parts[0]?.extensions?.anthropic, { cache_control: { type: 'ephemeral', ttl: '2h' } });
  assert.equal(convertRequest(body, { from: 'anthropic', to: 'anthropic' }).body, body);
  const converse = convertRequest(body, { from: 'anthropic', to: 'bedrock-converse' });
  assert.equal(cachePoints(converse.body as Json), []);
  assert.equal(converse.losses.map((loss) => loss.path), ['/messages/0/content/0/cache_control']);
});

convert('IR breakpoints a vendor does not take: a thinking block, a lifetime of neither 5m nor 1h, a cache point inside a Converse tool result but after its last item', () => {
  const request: Request = {
    model: 'm',
    generation: { maxTokens: 10 },
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'q', cache: { ttl: '30m' } }] },
      { role: 'assistant', parts: [{ type: 'reasoning', text: 't', state: { format: 'anthropic', kind: 'signature', value: 'sig' }, cache: {} }, { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: {} }] },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', name: 'f', content: [{ type: 'text', text: 'r', cache: {} }, { type: 'text', text: 's', cache: { ttl: '1h' } }] }] },
    ],
  };
  const anthropic = encodeRequest('anthropic', request);
  const messages = (anthropic.body as Json)['messages'] as Json[];
  assert.equal((messages[0]?.['content'] as Json[])[0]?.['cache_control'], { type: 'ephemeral' });
  assert.is((messages[1]?.['content'] as Json[])[0]?.['cache_control'], undefined);
  assert.equal(((messages[2]?.['content'] as Json[])[0]?.['content'] as Json[])[0]?.['cache_control'], { type: 'ephemeral' });
  assert.equal(anthropic.losses.map((loss) => [loss.code, loss.path]), [
    ['approximated', '/messages/0/parts/0/cache/ttl'],
    ['dropped_field', '/messages/1/parts/0/cache'],
  ]);
  const converse = encodeRequest('bedrock-converse', request);
  assert.equal(converse.losses.map((loss) => [loss.code, loss.path]).filter(([, path]) => path?.includes('cache')), [
    ['approximated', '/messages/0/parts/0/cache/ttl'],
    ['dropped_field', '/messages/2/parts/0/content/0/cache'],
  ]);
  // The Anthropic-signed reasoning goes nowhere on Converse (its own loss), and its breakpoint with it; the result's last item's goes after the result.
  assert.equal(cachePoints(converse.body as Json), ['/messages/0/content/1 {"type":"default"}', '/messages/2/content/1 {"type":"default","ttl":"1h"}']);
  assert.ok(converse.losses.some((loss) => loss.code === 'reasoning_state_dropped' && loss.path === '/messages/1/parts/0'));
});

convert.run();

const others = suite('cache breakpoints: targets without them report each one');

for (const target of TARGETS_WITHOUT) {
  others(`Anthropic and Bedrock → ${target}: one dropped_field per breakpoint, at its cache_control or cachePoint`, () => {
    const anthropic = readJson(join(GOLDEN_DIR, 'anthropic', 'system-blocks-cache-control', 'request.json')) as Json;
    const fromAnthropic = convertRequest(anthropic, { from: 'anthropic', to: target }).losses.filter((loss) => loss.message.includes('prompt-cache breakpoint'));
    assert.equal(fromAnthropic.map((loss) => [loss.code, loss.path]), [
      ['dropped_field', '/system/1/cache_control'],
      ['dropped_field', '/messages/0/content/0/cache_control'],
    ]);
    const converse = readJson(join(GOLDEN_DIR, 'bedrock-converse', 'cache-points', 'request.json')) as Json;
    const fromConverse = convertRequest(converse, { from: 'bedrock-converse', to: target, model: 'm' }).losses.filter((loss) => loss.message.includes('prompt-cache breakpoint'));
    assert.equal(fromConverse.map((loss) => loss.path), ['/system/1', '/messages/0/content/1', '/toolConfig/tools/1']);
  });
}

others('Anthropic → openai-chat in the DeepSeek dialect: one dropped_field per breakpoint (only plain OpenAI has them)', () => {
  const anthropic = readJson(join(GOLDEN_DIR, 'anthropic', 'system-blocks-cache-control', 'request.json')) as Json;
  const result = convertRequest(anthropic, { from: 'anthropic', to: 'openai-chat', dialect: 'deepseek' });
  assert.equal(chatBreakpoints(result.body as Json), []);
  assert.equal(result.losses.filter((loss) => loss.message.includes('prompt-cache breakpoint')).map((loss) => loss.path), ['/system/1/cache_control', '/messages/0/content/0/cache_control']);
});

others.run();

const chat = suite('cache breakpoints: OpenAI Chat prompt_cache_breakpoint');

chat('golden Anthropic request → Chat: a breakpoint on the cached system text and user text, valid by the OpenAI spec; the lifetime OpenAI does not name is reported', () => {
  const body = readJson(join(GOLDEN_DIR, 'anthropic', 'system-blocks-cache-control', 'request.json')) as Json;
  const result = convertRequest(body, { from: 'anthropic', to: 'openai-chat' });
  const wire = result.body as Json;
  assert.equal(chatBreakpoints(wire), ['/messages/0/content/1 {"mode":"explicit"}', '/messages/1/content/0 {"mode":"explicit"}']);
  const errors = validators.validate('openai-chat', 'request', wire);
  assert.is(errors, undefined, errors === undefined ? '' : describeErrors(errors));
  assert.equal(result.losses.filter((loss) => loss.message.includes('lifetime')).map((loss) => [loss.code, loss.path]), [['approximated', '/system/1/cache_control']]);
  assert.not.ok(result.losses.some((loss) => loss.message.includes('prompt-cache breakpoint')), 'no breakpoint dropped');
});

chat('golden Bedrock request → Chat: system and user breakpoints carried, the tool\'s reported (Chat tools take none)', () => {
  const body = readJson(join(GOLDEN_DIR, 'bedrock-converse', 'cache-points', 'request.json')) as Json;
  const result = convertRequest(body, { from: 'bedrock-converse', to: 'openai-chat', model: 'gpt-test' });
  assert.equal(chatBreakpoints(result.body as Json), ['/messages/0/content/0 {"mode":"explicit"}', '/messages/1/content/0 {"mode":"explicit"}']);
  assert.equal(result.losses.filter((loss) => loss.message.includes('prompt-cache breakpoint')).map((loss) => loss.path), ['/toolConfig/tools/1']);
});

chat('an Anthropic tool_result with cache_control: the Chat tool message ends with the breakpoint; a cached tool_use is reported', () => {
  const body = {
    model: 'claude-test',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {}, cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny', cache_control: { type: 'ephemeral' } }] },
    ],
  };
  const result = convertRequest(body, { from: 'anthropic', to: 'openai-chat' });
  const messages = (result.body as Json)['messages'] as Json[];
  assert.equal(messages[2], { role: 'tool', tool_call_id: 'toolu_1', content: [{ type: 'text', text: 'sunny', prompt_cache_breakpoint: { mode: 'explicit' } }] });
  assert.equal(result.losses.filter((loss) => loss.message.includes('prompt-cache breakpoint')).map((loss) => loss.path), ['/messages/1/content/0/cache_control']);
});

chat('every corpus Chat request with prompt_cache_breakpoint: the breakpoints reach Anthropic and Bedrock, and come back to Chat where they were', () => {
  let checked = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.format !== 'openai-chat' || fixture.kind !== 'request') continue;
    const { body } = fixtureBody(fixture);
    const points = chatBreakpoints(body as Json);
    if (points.length === 0) continue;
    const source = decodeRequest('openai-chat', body).ir;
    assert.is(breakpoints(source).length, points.length, fixture.name);
    for (const via of ['anthropic', 'bedrock-converse'] as const) {
      const there = convertRequest(body, { from: 'openai-chat', to: via, model: 'm' });
      assert.equal(breakpoints(decodeRequest(via, there.body, { model: 'm' }).ir).length, points.length, `${fixture.name} → ${via}`);
      const back = convertRequest(there.body, { from: via, to: 'openai-chat', model: 'm' }).body as Json;
      assert.equal(chatBreakpoints(back), points, `${fixture.name} → ${via} → openai-chat`);
    }
    checked++;
  }
  assert.ok(checked >= 4, `corpus Chat requests with breakpoints checked: ${checked}`);
});

chat.run();

const control = suite('cache breakpoints: Chat cache_control (OpenRouter, LiteLLM)');

/** A Chat request as OpenRouter and LiteLLM callers write it: Anthropic's cache_control on content parts. */
function controlledChat(): Json {
  return {
    model: 'anthropic/claude-sonnet-4.5',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' }, cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Which section covers leave?', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
  };
}

control('decoded as the part\'s breakpoint with its lifetime: Anthropic gets cache_control, Bedrock cache points, Chat the body it came as', () => {
  const body = controlledChat();
  assert.equal(breakpoints(decodeRequest('openai-chat', body).ir), ['system 0 text 0 1h', 'user 1 image 0 default', 'user 1 text 1 default']);
  const anthropic = convertRequest(body, { from: 'openai-chat', to: 'anthropic' });
  const wire = anthropic.body as Json;
  assert.equal(wire['system'], [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
  assert.equal(((wire['messages'] as Json[])[0]?.['content'] as Json[]).map((block) => block['cache_control']), [{ type: 'ephemeral' }, { type: 'ephemeral' }]);
  assert.not.ok(anthropic.losses.some((loss) => loss.message.includes('cache_control')), JSON.stringify(anthropic.losses));
  const errors = validators.validate('anthropic', 'request', wire);
  assert.is(errors, undefined, errors === undefined ? '' : describeErrors(errors));
  const converse = convertRequest(body, { from: 'openai-chat', to: 'bedrock-converse' }).body as Json;
  assert.equal(cachePoints(converse), ['/system/1 {"type":"default","ttl":"1h"}', '/messages/0/content/1 {"type":"default"}', '/messages/0/content/3 {"type":"default"}']);
  const again = convertRequest(body, { from: 'openai-chat', to: 'openai-chat' });
  assert.equal(again.body, body);
  assert.equal(again.losses, []);
});

control('targets without breakpoints report each one at its cache_control; plain OpenAI gets prompt_cache_breakpoint only for a request from another format', () => {
  for (const target of TARGETS_WITHOUT) {
    const losses = convertRequest(controlledChat(), { from: 'openai-chat', to: target, model: 'm' }).losses.filter((loss) => loss.message.includes('prompt-cache breakpoint'));
    assert.equal(losses.map((loss) => loss.path), ['/messages/0/content/0/cache_control', '/messages/1/content/0/cache_control', '/messages/1/content/1/cache_control'], target);
  }
  const deepseek = convertRequest(controlledChat(), { from: 'openai-chat', to: 'openai-chat', dialect: 'deepseek' });
  assert.equal(chatBreakpoints(deepseek.body as Json, 'cache_control'), chatBreakpoints(controlledChat(), 'cache_control'), 'the caller\'s own spelling goes back to any dialect');
  const viaAnthropic = convertRequest(convertRequest(controlledChat(), { from: 'openai-chat', to: 'anthropic' }).body, { from: 'anthropic', to: 'openai-chat' }).body as Json;
  assert.equal(chatBreakpoints(viaAnthropic), ['/messages/0/content/0 {"mode":"explicit"}', '/messages/1/content/0 {"mode":"explicit"}', '/messages/1/content/1 {"mode":"explicit"}']);
  assert.equal(chatBreakpoints(viaAnthropic, 'cache_control'), []);
});

control('a cache_control that is not the ephemeral breakpoint, or beside a prompt_cache_breakpoint of another lifetime, stays the part\'s own field', () => {
  const body = {
    model: 'm',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a', cache_control: { type: 'persistent' } },
          { type: 'text', text: 'b', prompt_cache_breakpoint: { mode: 'explicit', ttl: '30m' }, cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
      },
    ],
  };
  assert.equal(breakpoints(decodeRequest('openai-chat', body).ir), ['user 0 text 1 30m']);
  assert.equal(convertRequest(body, { from: 'openai-chat', to: 'openai-chat' }).body, body);
  const anthropic = convertRequest(body, { from: 'openai-chat', to: 'anthropic' });
  assert.equal(
    anthropic.losses.filter((loss) => loss.message.includes('cache')).map((loss) => [loss.code, loss.path]),
    [
      ['dropped_field', '/messages/0/content/0/cache_control'],
      ['dropped_field', '/messages/0/content/1/cache_control'],
      ['approximated', '/messages/0/content/1/prompt_cache_breakpoint'],
    ],
  );
});

control('Anthropic → Chat for OpenRouter: cache_control on the cached texts and tool results with their lifetimes; media and tools reported; back to Anthropic unchanged', () => {
  const body = readJson(join(GOLDEN_DIR, 'anthropic', 'system-blocks-cache-control', 'request.json')) as Json;
  const result = convertRequest(body, { from: 'anthropic', to: 'openai-chat', dialect: 'openrouter' });
  const wire = result.body as Json;
  assert.equal(chatBreakpoints(wire, 'cache_control'), ['/messages/0/content/1 {"type":"ephemeral","ttl":"1h"}', '/messages/1/content/0 {"type":"ephemeral"}']);
  assert.equal(chatBreakpoints(wire), []);
  assert.not.ok(result.losses.some((loss) => loss.message.includes('lifetime') || loss.message.includes('prompt-cache breakpoint')), JSON.stringify(result.losses));
  const back = convertRequest(wire, { from: 'openai-chat', to: 'anthropic' }).body as Json;
  assert.equal(back['system'], body['system']);
  assert.equal(back['messages'], body['messages']);

  const tools = {
    model: 'claude-test',
    max_tokens: 100,
    tools: [{ name: 'weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'weather?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    ],
  };
  const routed = convertRequest(tools, { from: 'anthropic', to: 'openai-chat', dialect: 'openrouter' });
  assert.equal(((routed.body as Json)['messages'] as Json[])[2], { role: 'tool', tool_call_id: 'toolu_1', content: [{ type: 'text', text: 'sunny', cache_control: { type: 'ephemeral', ttl: '1h' } }] });
  assert.equal(
    routed.losses.filter((loss) => loss.message.includes('prompt-cache breakpoint')).map((loss) => [loss.path, loss.message.includes('openai-chat (openrouter)')]),
    [['/messages/0/content/0/cache_control', true], ['/tools/0/cache_control', true]],
  );
});

control('every corpus Chat request with cache_control: the breakpoints reach Anthropic with no cache_control reported, and the body comes back to Chat as it was', () => {
  let checked = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.format !== 'openai-chat' || fixture.kind !== 'request') continue;
    const { body } = fixtureBody(fixture);
    const marked = chatBreakpoints(body as Json, 'cache_control');
    if (marked.length === 0) continue;
    const anthropic = convertRequest(body, { from: 'openai-chat', to: 'anthropic' });
    assert.not.ok(anthropic.losses.some((loss) => loss.message.includes('cache_control')), `${fixture.name}: ${JSON.stringify(anthropic.losses)}`);
    assert.is(breakpoints(decodeRequest('anthropic', anthropic.body).ir).length, marked.length, fixture.name);
    assert.equal(convertRequest(body, { from: 'openai-chat', to: 'openai-chat' }).body, body, fixture.name);
    checked++;
  }
  assert.ok(checked >= 4, `corpus Chat requests with cache_control checked: ${checked}`);
});

control.run();

const responses = suite('cache breakpoints: OpenAI Responses prompt_cache_breakpoint');

/** The `prompt_cache_breakpoint`s of a Responses request's input items and tool outputs, by where they are. */
function responsesBreakpoints(body: Json): string[] {
  const found: string[] = [];
  (body['input'] as Json[] | undefined)?.forEach((item, index) => {
    const list = item['content'] ?? item['output'];
    if (!Array.isArray(list)) return;
    list.forEach((part: Json, at) => {
      if (part['prompt_cache_breakpoint'] !== undefined) found.push(`/input/${index}/${item['content'] === undefined ? 'output' : 'content'}/${at} ${JSON.stringify(part['prompt_cache_breakpoint'])}`);
    });
  });
  return found;
}

responses('golden Anthropic request → Responses: the system prompt with a breakpoint stays a system input message (instructions is a string), so both breakpoints are carried, valid by the OpenAI spec; and back', () => {
  const body = readJson(join(GOLDEN_DIR, 'anthropic', 'system-blocks-cache-control', 'request.json')) as Json;
  const result = convertRequest(body, { from: 'anthropic', to: 'openai-responses' });
  const wire = result.body as Json;
  assert.is(wire['instructions'], undefined);
  assert.is((wire['input'] as Json[])[0]?.['role'], 'system');
  assert.equal(responsesBreakpoints(wire), ['/input/0/content/1 {"mode":"explicit"}', '/input/1/content/0 {"mode":"explicit"}']);
  const errors = validators.validate('openai-responses', 'request', wire);
  assert.is(errors, undefined, errors === undefined ? '' : describeErrors(errors));
  assert.equal(result.losses.filter((loss) => loss.message.includes('prompt-cache breakpoint')), []);
  const back = convertRequest(wire, { from: 'openai-responses', to: 'anthropic' }).body as Json;
  assert.equal((back['system'] as Json[]).map((block) => block['cache_control']), [undefined, { type: 'ephemeral' }]);
  // Without a breakpoint, the system prompt goes into instructions as before.
  const plain = convertRequest({ ...body, system: 'Be brief.' }, { from: 'anthropic', to: 'openai-responses' }).body as Json;
  assert.is(plain['instructions'], 'Be brief.');
});

responses('golden Bedrock request → Responses: the system and user breakpoints carried; the tool\'s reported', () => {
  const body = readJson(join(GOLDEN_DIR, 'bedrock-converse', 'cache-points', 'request.json')) as Json;
  const result = convertRequest(body, { from: 'bedrock-converse', to: 'openai-responses', model: 'gpt-test' });
  assert.equal(responsesBreakpoints(result.body as Json), ['/input/0/content/0 {"mode":"explicit"}', '/input/1/content/0 {"mode":"explicit"}']);
  assert.equal(result.losses.filter((loss) => loss.message.includes('prompt-cache breakpoint')).map((loss) => loss.path), ['/toolConfig/tools/1']);
});

responses('an Anthropic tool_result with cache_control: the function_call_output ends with the breakpoint, which comes back to Anthropic on the result\'s last block (the same end of the prefix)', () => {
  const body = {
    model: 'claude-test',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny', cache_control: { type: 'ephemeral' } }] },
    ],
  };
  const result = convertRequest(body, { from: 'anthropic', to: 'openai-responses' });
  assert.equal(responsesBreakpoints(result.body as Json), ['/input/2/output/0 {"mode":"explicit"}']);
  assert.not.ok(result.losses.some((loss) => loss.message.includes('prompt-cache breakpoint')));
  const back = convertRequest(result.body, { from: 'openai-responses', to: 'anthropic', model: 'claude-test' }).body as Json;
  assert.equal(breakpoints(decodeRequest('anthropic', body).ir), ['tool 2 tool_result 0 default']);
  assert.equal(breakpoints(decodeRequest('anthropic', back).ir), ['tool 2 result 0 text 0 default']);
});

responses.run();

const automatic = suite('automatic prompt caching: a top-level cache_control');

/** An Anthropic tool loop with automatic caching (a one-hour lifetime), its last block a tool result. */
function automaticLoop(): Json {
  return {
    model: 'claude-test',
    max_tokens: 256,
    cache_control: { type: 'ephemeral', ttl: '1h' },
    system: 'Answer from the weather tool.',
    tools: [{ name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'rain, 4°C' }] },
    ],
  };
}

automatic('Anthropic\'s is the request\'s automatic breakpoint, back to Anthropic as it came; any other value stays Anthropic\'s own field', () => {
  const body = automaticLoop();
  const ir = decodeRequest('anthropic', body).ir;
  assert.equal(ir.cache, { ttl: '1h' });
  assert.equal(breakpoints(ir), [], 'no part gets it in the IR');
  const again = convertRequest(body, { from: 'anthropic', to: 'anthropic' });
  assert.equal(again.body, body);
  assert.equal(again.losses, []);
  const other = { ...automaticLoop(), cache_control: { type: 'persistent' } };
  assert.is(decodeRequest('anthropic', other).ir.cache, undefined);
  assert.equal(convertRequest(other, { from: 'anthropic', to: 'anthropic' }).body, other);
  assert.equal(convertRequest(other, { from: 'anthropic', to: 'bedrock-converse' }).losses.map((loss) => [loss.code, loss.path, loss.message.includes('"cache_control"')]), [['dropped_field', '/cache_control', true]]);
});

automatic('to Bedrock: a cache point after the last block, with its lifetime, as Anthropic places the marker; the caller\'s IR is left as it was', () => {
  const ir = decodeRequest('anthropic', automaticLoop()).ir;
  const { body, losses } = encodeRequest('bedrock-converse', ir);
  assert.equal(cachePoints(body as Json), ['/messages/2/content/1 {"type":"default","ttl":"1h"}']);
  assert.equal(losses, []);
  assert.equal(breakpoints(ir), [], 'the IR passed in has no part breakpoint after the encode');
  assert.equal(ir.cache, { ttl: '1h' });
  // Marked already: nothing added.
  const marked = automaticLoop();
  ((marked['messages'] as Json[])[2]?.['content'] as Json[])[0]!['cache_control'] = { type: 'ephemeral' };
  assert.equal(cachePoints(convertRequest(marked, { from: 'anthropic', to: 'bedrock-converse' }).body as Json), ['/messages/2/content/1 {"type":"default"}']);
});

automatic('to OpenAI: a breakpoint on the last part that takes one (Chat\'s tool message, Responses\' function output), valid by the spec; the lifetime OpenAI does not name is reported at the cache_control', () => {
  const chat = convertRequest(automaticLoop(), { from: 'anthropic', to: 'openai-chat' });
  const messages = (chat.body as Json)['messages'] as Json[];
  assert.equal(messages.at(-1), { role: 'tool', tool_call_id: 'toolu_1', content: [{ type: 'text', text: 'rain, 4°C', prompt_cache_breakpoint: { mode: 'explicit' } }] });
  assert.equal(chat.losses.map((loss) => [loss.code, loss.path]), [['approximated', '/cache_control']]);
  for (const [format, wire] of [['openai-chat', chat.body], ['openai-responses', convertRequest(automaticLoop(), { from: 'anthropic', to: 'openai-responses' }).body]] as const) {
    const errors = validators.validate(format, 'request', wire);
    assert.is(errors, undefined, errors === undefined ? '' : describeErrors(errors));
  }
  const responses = convertRequest(automaticLoop(), { from: 'anthropic', to: 'openai-responses' });
  assert.equal(responsesBreakpoints(responses.body as Json), ['/input/2/output/0 {"mode":"explicit"}']);
  assert.equal(responses.losses.map((loss) => [loss.code, loss.path]), [['approximated', '/cache_control']]);
});

automatic('to OpenRouter: the same top-level cache_control, lifetime kept; the other Chat dialects, Gemini and Ollama report it at the cache_control', () => {
  const routed = convertRequest(automaticLoop(), { from: 'anthropic', to: 'openai-chat', dialect: 'openrouter' });
  assert.equal((routed.body as Json)['cache_control'], { type: 'ephemeral', ttl: '1h' });
  assert.equal(chatBreakpoints(routed.body as Json, 'cache_control'), []);
  assert.equal(routed.losses, []);
  for (const [to, dialect] of [['openai-chat', 'deepseek'], ['gemini', undefined], ['ollama', undefined]] as const) {
    const losses = convertRequest(automaticLoop(), { from: 'anthropic', to, ...(dialect === undefined ? {} : { dialect }) }).losses.filter((loss) => loss.message.includes('automatic prompt caching'));
    assert.equal(losses.map((loss) => [loss.code, loss.path]), [['dropped_field', '/cache_control']], `${to} ${dialect ?? ''}`);
  }
});

automatic('a Chat request\'s top-level cache_control (OpenRouter\'s) reaches Anthropic as it is, Bedrock as a trailing cache point, and comes back to Chat in any dialect', () => {
  const body = { model: 'anthropic/claude-sonnet-4.5', cache_control: { type: 'ephemeral' }, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }] };
  assert.equal(decodeRequest('openai-chat', body).ir.cache, {});
  const anthropic = convertRequest(body, { from: 'openai-chat', to: 'anthropic' }).body as Json;
  assert.equal(anthropic['cache_control'], { type: 'ephemeral' });
  assert.equal(cachePoints(convertRequest(body, { from: 'openai-chat', to: 'bedrock-converse' }).body as Json), ['/messages/0/content/1 {"type":"default"}']);
  for (const dialect of ['openai', 'deepseek'] as const) assert.equal(convertRequest(body, { from: 'openai-chat', to: 'openai-chat', dialect }).body, body, dialect);
});

automatic('an IR request whose cache is not an object is refused with its path', () => {
  const ir = { ...decodeRequest('anthropic', automaticLoop()).ir, cache: 'yes' } as unknown as Request;
  try {
    encodeRequest('bedrock-converse', ir);
    assert.unreachable('encoded');
  } catch (error) {
    assert.match(String((error as { path?: string }).path), '/cache');
  }
});

automatic.run();

const proxy = suite('cache breakpoints through the proxy, official SDKs on both sides');

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const MODEL_ID = 'us.anthropic.claude-test-v1:0';

/** The body a fake Bedrock (signing checked, answering with the plain-chat golden answer) received when the Anthropic SDK sent `params` through the proxy in front of it. */
async function receivedByBedrock(params: Anthropic.MessageCreateParamsNonStreaming): Promise<Json> {
  const bedrock = await startFakeBedrock(CREDENTIALS, 'us-east-1', readJson(join(GOLDEN_DIR, 'cross', 'plain-chat', 'bedrock-converse.response.json')));
  try {
    const env = { AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, AWS_REGION: 'us-east-1' };
    const config: ProxyConfig = { upstream: { format: 'bedrock-converse', baseUrl: bedrock.url }, env, modelMap: { '*': MODEL_ID }, fetch: createNodeFetch() };
    await withProxy(config, (url) => new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 }).messages.create(params));
    return bedrock.received.at(-1)?.body ?? {};
  } finally {
    await bedrock.close();
  }
}

proxy('the Anthropic SDK in front of Bedrock: cache_control arrives as cache points', async () => {
  const received = await receivedByBedrock({
    model: 'claude-test',
    max_tokens: 64,
    system: [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    tools: [{ name: 'lookup', description: 'Look up a section.', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Which section covers leave?', cache_control: { type: 'ephemeral' } }] }],
  });
  assert.equal(cachePoints(received), ['/system/1 {"type":"default","ttl":"1h"}', '/messages/0/content/1 {"type":"default"}', '/toolConfig/tools/1 {"type":"default"}']);
});

proxy('the Anthropic SDK with automatic caching in front of Bedrock: a cache point after the last block', async () => {
  const received = await receivedByBedrock({
    model: 'claude-test',
    max_tokens: 64,
    cache_control: { type: 'ephemeral' },
    system: 'A long, stable policy text.',
    messages: [
      { role: 'user', content: 'Which section covers leave?' },
      { role: 'assistant', content: 'Section 7.' },
      { role: 'user', content: 'And sick days?' },
    ],
  });
  assert.equal(cachePoints(received), ['/messages/2/content/1 {"type":"default"}']);
});

proxy('the AWS SDK in front of Anthropic: cache points arrive as cache_control', async () => {
  const received = await receivedThrough('anthropic', 'claude-test', (url) =>
    bedrockClient(url).send(
      new ConverseCommand({
        modelId: MODEL_ID,
        system: [{ text: 'A long, stable policy text.' }, { cachePoint: { type: 'default' } }],
        messages: [{ role: 'user', content: [{ text: 'Which section covers leave?' }, { cachePoint: { type: 'default', ttl: '5m' } }] }],
      }),
    ),
  );
  assert.equal((received['system'] as Json[])[0]?.['cache_control'], { type: 'ephemeral' });
  assert.equal(((received['messages'] as Json[])[0]?.['content'] as Json[])[0]?.['cache_control'], { type: 'ephemeral', ttl: '5m' });
});

proxy('the OpenAI SDK in front of Anthropic: prompt_cache_breakpoint arrives as cache_control', async () => {
  const received = await receivedThrough('anthropic', 'claude-test', (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    // openai 6's types have no prompt_cache_breakpoint yet (openai 7's do); the wire field is what counts.
    const cached = { type: 'text', text: 'A long, stable policy text.', prompt_cache_breakpoint: { mode: 'explicit' } } as OpenAI.Chat.ChatCompletionContentPartText;
    return client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'system', content: [cached] }, { role: 'user', content: 'Which section covers leave?' }] });
  });
  assert.equal(received['system'], [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral' } }]);
});

proxy('the OpenAI SDK\'s Responses in front of Anthropic: prompt_cache_breakpoint arrives as cache_control', async () => {
  const received = await receivedThrough('anthropic', 'claude-test', (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    // openai 6's types have no prompt_cache_breakpoint yet (openai 7's do); the wire field is what counts.
    const cached = { type: 'input_text', text: 'A long, stable policy text.', prompt_cache_breakpoint: { mode: 'explicit' } } as OpenAI.Responses.ResponseInputText;
    return client.responses.create({ model: 'gpt-test', input: [{ role: 'user', content: [cached, { type: 'input_text', text: 'Which section covers leave?' }] }] });
  });
  assert.equal(((received['messages'] as Json[])[0]?.['content'] as Json[])[0], { type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral' } });
});

proxy('the Anthropic SDK in front of OpenAI Chat: cache_control arrives as prompt_cache_breakpoint', async () => {
  const received = await receivedThrough('openai-chat', 'gpt-test', (url) =>
    new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 }).messages.create({
      model: 'claude-test',
      max_tokens: 64,
      system: [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Which section covers leave?' }],
    }),
  );
  assert.equal(chatBreakpoints(received), ['/messages/0/content/0 {"mode":"explicit"}']);
});

proxy('the OpenAI SDK with cache_control (as LiteLLM and OpenRouter take it) in front of Anthropic: it arrives as cache_control', async () => {
  const received = await receivedThrough('anthropic', 'claude-test', (url) => {
    const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
    // Not in OpenAI's types: a field the caller's gateway reads, sent as is by the SDK.
    const cached = { type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral', ttl: '1h' } } as OpenAI.Chat.ChatCompletionContentPartText;
    return client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'system', content: [cached] }, { role: 'user', content: 'Which section covers leave?' }] });
  });
  assert.equal(received['system'], [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
});

proxy('the Anthropic SDK in front of OpenRouter: cache_control arrives on the Chat text parts, lifetime kept', async () => {
  const received = await receivedThrough(
    'openai-chat',
    'anthropic/claude-sonnet-4.5',
    (url) =>
      new Anthropic({ apiKey: 'caller-key', baseURL: url, maxRetries: 0 }).messages.create({
        model: 'claude-test',
        max_tokens: 64,
        system: [{ type: 'text', text: 'A long, stable policy text.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Which section covers leave?', cache_control: { type: 'ephemeral' } }] }],
      }),
    'openrouter',
  );
  assert.equal(chatBreakpoints(received, 'cache_control'), ['/messages/0/content/0 {"type":"ephemeral","ttl":"1h"}', '/messages/1/content/0 {"type":"ephemeral"}']);
  assert.equal(chatBreakpoints(received), []);
});

proxy.run();
