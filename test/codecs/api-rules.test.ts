/**
 * Rules the vendors' APIs enforce beyond their schemas, checked on every
 * corpus request converted to every other format: no empty tools list
 * (OpenAI answers 400 `empty_array`, Converse takes at least one tool), no
 * tool choice or parallel switch without tools where the API refuses one,
 * and Converse's own rules: a conversation holding tool calls or results
 * declares tools ("The toolConfig field must be defined when using toolUse
 * and toolResult content blocks"), no empty text block ("The text field in
 * the ContentBlock object … is blank"), no message with empty content.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest } from '../../src/formats/convert.ts';
import { implementedFormats } from '../../src/formats/registry.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import { corpusFixtures, fixtureBody } from '../support/fixtures.ts';

type Json = Record<string, unknown>;

const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

/** What Claude refuses beside thinking (Anthropic's rules, on Bedrock too): a temperature but 1, top_k, top_p under 0.95, a budget not under max_tokens, manual thinking with a forced tool choice. */
function claudeThinking(thinking: unknown, maxTokens: unknown, temperature: unknown, topP: unknown, topK: unknown, choice: unknown): string[] {
  const type = (thinking as Json | undefined)?.['type'];
  if (type !== 'enabled' && type !== 'adaptive') return [];
  const problems: string[] = [];
  if (temperature !== undefined && temperature !== 1) problems.push(`temperature ${String(temperature)} with thinking`);
  if (topK !== undefined) problems.push('top_k with thinking');
  if (typeof topP === 'number' && topP < 0.95) problems.push(`top_p ${topP} with thinking`);
  const budget = (thinking as Json)['budget_tokens'];
  if (typeof budget === 'number' && typeof maxTokens === 'number' && budget >= maxTokens) problems.push(`budget ${budget} not under max_tokens ${maxTokens}`);
  if (type === 'enabled' && (choice === 'any' || choice === 'tool')) problems.push('manual thinking with a forced tool choice');
  return problems;
}

/** What `body`, a request of `format`, has that the API refuses; empty when nothing. */
function refused(format: string, body: Json): string[] {
  const problems: string[] = [];
  const tools = body['tools'];
  // Chat, Anthropic and Gemini need a message (Converse one starting the conversation, checked below).
  const conversation = format === 'gemini' ? body['contents'] : format === 'openai-chat' || format === 'anthropic' || format === 'bedrock-converse' ? body['messages'] : undefined;
  if (Array.isArray(conversation) && conversation.length === 0) problems.push('no messages');
  switch (format) {
    case 'openai-chat':
      if (Array.isArray(tools) && tools.length === 0) problems.push('tools: []');
      if (count(tools) + count(body['functions']) === 0) {
        if (body['tool_choice'] !== undefined) problems.push('tool_choice without tools');
        if (body['parallel_tool_calls'] !== undefined) problems.push('parallel_tool_calls without tools');
      }
      break;
    case 'openai-responses':
      if (Array.isArray(tools) && tools.length === 0) problems.push('tools: []');
      if (count(tools) === 0 && body['tool_choice'] !== undefined) problems.push('tool_choice without tools');
      break;
    case 'anthropic':
      if (Array.isArray(tools) && tools.length === 0) problems.push('tools: []');
      if (count(tools) === 0 && body['tool_choice'] !== undefined) problems.push('tool_choice without tools');
      problems.push(...claudeThinking(body['thinking'], body['max_tokens'], body['temperature'], body['top_p'], body['top_k'], (body['tool_choice'] as Json | undefined)?.['type']));
      if (typeof body['temperature'] === 'number' && body['temperature'] > 1) problems.push(`temperature ${body['temperature']} over 1`);
      break;
    case 'gemini':
    case 'ollama':
      if (Array.isArray(tools) && tools.length === 0) problems.push('tools: []');
      break;
    case 'bedrock-converse': {
      const config = body['toolConfig'] as Json | undefined;
      if (config !== undefined && count(config['tools']) === 0) problems.push('toolConfig without tools');
      const messages = body['messages'] as Json[];
      const blocks = messages.some((message) => (message['content'] as Json[]).some((block) => 'toolUse' in block || 'toolResult' in block));
      if (blocks && config === undefined) problems.push('tool blocks without toolConfig');
      const blank = (block: Json) => typeof block['text'] === 'string' && block['text'] === '';
      messages.forEach((message, index) => {
        const content = message['content'] as Json[];
        if (content.length === 0) problems.push(`/messages/${index}: empty content`);
        if (content.some(blank)) problems.push(`/messages/${index}: blank text block`);
      });
      if (((body['system'] as Json[] | undefined) ?? []).some(blank)) problems.push('blank system text block');
      const fields = body['additionalModelRequestFields'] as Json | undefined;
      const inference = (body['inferenceConfig'] ?? {}) as Json;
      if (typeof inference['temperature'] === 'number' && inference['temperature'] > 1) problems.push(`temperature ${inference['temperature']} over 1`);
      const choice = config?.['toolChoice'] as Json | undefined;
      const forced = choice === undefined ? undefined : 'any' in choice ? 'any' : 'tool' in choice ? 'tool' : 'auto';
      problems.push(...claudeThinking(fields?.['thinking'] ?? fields?.['reasoning_config'], inference['maxTokens'], inference['temperature'], inference['topP'], fields?.['top_k'], forced));
      break;
    }
  }
  return problems;
}

test('no conversion of a corpus request writes what the target API refuses: an empty tools list, a tool choice without tools, a blank Converse text', () => {
  const formats = implementedFormats();
  let conversions = 0;
  let refusals = 0;
  let droppedAll = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.kind !== 'request') continue;
    const source = fixtureBody(fixture).body as Json;
    for (const to of formats) {
      if (to === fixture.format) continue;
      let result;
      try {
        result = convertRequest(source, { from: fixture.format, to, model: 'm' });
      } catch (error) {
        // A typed refusal is not output (an Ollama request that only loads a model has no messages to send).
        if (!isInterlinguaError(error)) throw error;
        refusals++;
        continue;
      }
      const { body, losses } = result;
      conversions++;
      assert.equal(refused(to, body as Json), [], `${fixture.name} → ${to}`);
      if (losses.some((loss) => loss.message.includes('none of this request\'s went out')) || (count(source['tools']) > 0 && (body as Json)['tools'] === undefined)) droppedAll++;
    }
  }
  assert.ok(conversions > 3500, `conversions: ${conversions}`);
  assert.ok(refusals < 20, `typed refusals: ${refusals}`);
  // The corpus has requests whose tools no other format takes (server tools, MCP servers): the rule is exercised.
  assert.ok(droppedAll >= 30, `conversions whose tools were all dropped: ${droppedAll}`);
});

test('Claude\'s thinking rules, from formats without them: sampling, budget and forced tool choice fitted and reported, to Anthropic and to Claude on Bedrock', () => {
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 1000, temperature: 0.3, topP: 0.5, topK: 40, thinkingConfig: { thinkingBudget: 8000 } } };
  for (const to of ['anthropic', 'bedrock-converse'] as const) {
    const { body, losses } = convertRequest(gemini, { from: 'gemini', to, model: 'claude-sonnet' });
    assert.equal(refused(to, body as Json), [], to);
    assert.equal(
      losses.filter((loss) => loss.path.startsWith('/generationConfig/')).map((loss) => [loss.code, loss.path]),
      [
        ['dropped_field', '/generationConfig/temperature'],
        ['dropped_field', '/generationConfig/topK'],
        ['approximated', '/generationConfig/topP'],
        ['approximated', '/generationConfig/maxOutputTokens'],
      ],
      to,
    );
  }
  const anthropic = convertRequest(gemini, { from: 'gemini', to: 'anthropic', model: 'claude-sonnet' }).body as Json;
  assert.equal([anthropic['max_tokens'], anthropic['top_p'], anthropic['temperature']], [9000, 0.95, undefined]);
  // A forced tool call leaves manual thinking off; adaptive thinking takes one.
  const forced = {
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    reasoning: { max_tokens: 2000 },
    max_tokens: 8000,
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    tool_choice: { type: 'function', function: { name: 'f' } },
  };
  const manual = convertRequest(forced, { from: 'openai-chat', to: 'anthropic' });
  assert.is((manual.body as Json)['thinking'], undefined);
  assert.ok(manual.losses.some((loss) => loss.path === '/reasoning' && loss.message.includes('forced tool call')), JSON.stringify(manual.losses));
  // An Anthropic body's own settings go back as they came, whatever Anthropic makes of them.
  const own = { model: 'claude', max_tokens: 1000, temperature: 0.2, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: 'hi' }] };
  assert.equal(convertRequest(own, { from: 'anthropic', to: 'anthropic' }).body, own);
});

test('a temperature over 1 (OpenAI and Gemini go to 2) is sent as 1 to Anthropic and Converse, which take 0-1, and reported at the source field', () => {
  const chat = { model: 'gpt-5', temperature: 1.3, messages: [{ role: 'user', content: 'hi' }] };
  const anthropic = convertRequest(chat, { from: 'openai-chat', to: 'anthropic' });
  assert.is((anthropic.body as Json)['temperature'], 1);
  assert.ok(anthropic.losses.some((loss) => loss.path === '/temperature' && loss.code === 'approximated' && loss.message.includes('1.3')), JSON.stringify(anthropic.losses));
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 1.8, topP: 0.9 } };
  const converse = convertRequest(gemini, { from: 'gemini', to: 'bedrock-converse', model: 'm' });
  assert.equal((converse.body as Json)['inferenceConfig'], { temperature: 1, topP: 0.9 });
  assert.equal(refused('bedrock-converse', converse.body as Json), []);
  assert.ok(converse.losses.some((loss) => loss.path === '/generationConfig/temperature' && loss.code === 'approximated'), JSON.stringify(converse.losses));
  // Within the range nothing is reported; a Converse body's own value goes back as it came.
  assert.equal(convertRequest({ ...chat, temperature: 0.7 }, { from: 'openai-chat', to: 'bedrock-converse' }).losses.filter((loss) => loss.path === '/temperature'), []);
  const own = { messages: [{ role: 'user', content: [{ text: 'hi' }] }], inferenceConfig: { temperature: 1.5 } };
  assert.equal(convertRequest(own, { from: 'bedrock-converse', to: 'bedrock-converse', model: 'm' }).body, own);
});

test('stop sequences within what Chat (4) and Gemini (5) take, an empty list left out; a system prompt alone becomes the user message where a message is needed; nothing at all is a typed error', () => {
  const anthropic = { model: 'claude', max_tokens: 100, stop_sequences: ['a', 'b', 'c', 'd', 'e', 'f'], messages: [{ role: 'user', content: 'hi' }] };
  const chat = convertRequest(anthropic, { from: 'anthropic', to: 'openai-chat' });
  assert.equal((chat.body as Json)['stop'], ['a', 'b', 'c', 'd']);
  assert.ok(chat.losses.some((loss) => loss.path === '/stop_sequences' && loss.code === 'dropped_field'), JSON.stringify(chat.losses));
  const gemini = convertRequest(anthropic, { from: 'anthropic', to: 'gemini' }).body as Json;
  assert.equal((gemini['generationConfig'] as Json)['stopSequences'], ['a', 'b', 'c', 'd', 'e']);
  const empty = { messages: [{ role: 'user', content: [{ text: 'hi' }] }], inferenceConfig: { stopSequences: [] } };
  assert.is((convertRequest(empty, { from: 'bedrock-converse', to: 'openai-chat', model: 'm' }).body as Json)['stop'], undefined);
  const systemOnly = { model: 'gpt-5', messages: [{ role: 'system', content: 'Write a haiku about rain.' }] };
  for (const to of ['anthropic', 'gemini', 'bedrock-converse'] as const) {
    const { body, losses } = convertRequest(systemOnly, { from: 'openai-chat', to, model: 'm' });
    assert.equal(refused(to, body as Json), [], to);
    assert.ok(losses.some((loss) => loss.code === 'moved_content'), `${to}: ${JSON.stringify(losses)}`);
  }
  assert.throws(() => convertRequest({ model: 'llama3.2', messages: [] }, { from: 'ollama', to: 'openai-chat' }), (error: unknown) => isInterlinguaError(error) && error.code === 'missing_field' && error.path === '/messages');
});

test.run();

test("Claude's thinking continuity: a Chat or Ollama tool loop with reasoning, whose last tool turn has no thinking block to send, goes to Anthropic without thinking, reported", () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A-18"}' } };
  const tools = [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } }];
  const chat = {
    model: 'gpt-test',
    reasoning_effort: 'high',
    tools,
    messages: [
      { role: 'user', content: 'Where is order A-18?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', content: 'shipped' },
    ],
  };
  const ollama = {
    model: 'llama-test',
    think: true,
    tools,
    messages: [
      { role: 'user', content: 'Where is order A-18?' },
      { role: 'assistant', content: '', thinking: 'I should look it up.', tool_calls: [{ function: { name: 'lookup_order', arguments: { order_id: 'A-18' } } }] },
      { role: 'tool', tool_name: 'lookup_order', content: 'shipped' },
    ],
  };
  for (const [from, body, path] of [['openai-chat', chat, '/reasoning_effort'], ['ollama', ollama, '/think']] as const) {
    const { body: out, losses } = convertRequest(body, { from, to: 'anthropic', model: 'claude-sonnet' });
    assert.is((out as Json)['thinking'], undefined, from);
    assert.ok(losses.some((loss) => loss.code === 'dropped_field' && loss.path === path && loss.message.includes('without thinking')), `${from}: ${JSON.stringify(losses)}`);
    // The first turn of the same loop keeps its thinking.
    const first = convertRequest({ ...body, messages: body.messages.slice(0, 1) }, { from, to: 'anthropic', model: 'claude-sonnet' }).body as Json;
    assert.ok(first['thinking'] !== undefined, from);
  }
});
