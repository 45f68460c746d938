/**
 * Rules the vendors' APIs enforce beyond their schemas, checked on every
 * corpus request converted to every other format: no empty tools list
 * (OpenAI answers 400 `empty_array`, Converse takes at least one tool), no
 * tool choice or parallel switch without tools where the API refuses one,
 * and Converse's own rules: a conversation holding tool calls or results
 * declares tools ("The toolConfig field must be defined when using toolUse
 * and toolResult content blocks"), no blank text block ("The text field in
 * the ContentBlock object … is blank"), no message with empty content.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest } from '../src/core/convert.ts';
import { implementedFormats } from '../src/core/registry.ts';
import { corpusFixtures, fixtureBody } from './support/fixtures.ts';

type Json = Record<string, unknown>;

const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

/** What `body`, a request of `format`, has that the API refuses about its tools; empty when nothing. */
function refused(format: string, body: Json): string[] {
  const problems: string[] = [];
  const tools = body['tools'];
  switch (format) {
    case 'openai-chat':
      if (Array.isArray(tools) && tools.length === 0) problems.push('tools: []');
      if (count(tools) + count(body['functions']) === 0) {
        if (body['tool_choice'] !== undefined) problems.push('tool_choice without tools');
        if (body['parallel_tool_calls'] !== undefined) problems.push('parallel_tool_calls without tools');
      }
      break;
    case 'openai-responses':
    case 'anthropic':
      if (Array.isArray(tools) && tools.length === 0) problems.push('tools: []');
      if (count(tools) === 0 && body['tool_choice'] !== undefined) problems.push('tool_choice without tools');
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
      const blank = (block: Json) => typeof block['text'] === 'string' && block['text'].trim() === '';
      messages.forEach((message, index) => {
        const content = message['content'] as Json[];
        if (content.length === 0) problems.push(`/messages/${index}: empty content`);
        if (content.some(blank)) problems.push(`/messages/${index}: blank text block`);
      });
      if (((body['system'] as Json[] | undefined) ?? []).some(blank)) problems.push('blank system text block');
      break;
    }
  }
  return problems;
}

test('no conversion of a corpus request writes what the target API refuses: an empty tools list, a tool choice without tools, a blank Converse text', () => {
  const formats = implementedFormats();
  let conversions = 0;
  let droppedAll = 0;
  for (const fixture of corpusFixtures()) {
    if (fixture.kind !== 'request') continue;
    const source = fixtureBody(fixture).body as Json;
    for (const to of formats) {
      if (to === fixture.format) continue;
      const { body, losses } = convertRequest(source, { from: fixture.format, to, model: 'm' });
      conversions++;
      assert.equal(refused(to, body as Json), [], `${fixture.name} → ${to}`);
      if (losses.some((loss) => loss.message.includes('none of this request\'s could be sent')) || (count(source['tools']) > 0 && (body as Json)['tools'] === undefined)) droppedAll++;
    }
  }
  assert.ok(conversions > 3500, `conversions: ${conversions}`);
  // The corpus has requests whose tools no other format takes (server tools, MCP servers): the rule is exercised.
  assert.ok(droppedAll >= 30, `conversions whose tools were all dropped: ${droppedAll}`);
});

test.run();
