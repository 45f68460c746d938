/**
 * Service tiers across formats: each vendor takes its own list (OpenAI
 * `auto default flex scale priority fast`, Responses also `ultrafast`;
 * Converse `default flex priority reserved`; Gemini `flex standard
 * priority`; Anthropic `auto standard_only`), so a tier is mapped to the
 * target's spelling or dropped with a loss, never sent as a value the
 * target refuses. A tier of the format's own that interlingua does not list
 * goes back to that format unchanged.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest } from '../src/core/convert.ts';
import type { FormatId } from '../src/core/ir.ts';

const test = suite('service tiers');

type TierFormat = Exclude<FormatId, 'ollama'>;

function requestWith(format: TierFormat, tier: string): Record<string, unknown> {
  switch (format) {
    case 'anthropic':
      return { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], service_tier: tier };
    case 'openai-chat':
      return { model: 'gpt-5.1', messages: [{ role: 'user', content: 'hi' }], service_tier: tier };
    case 'openai-responses':
      return { model: 'gpt-5.1', input: 'hi', service_tier: tier };
    case 'gemini':
      return { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], serviceTier: tier };
    case 'bedrock-converse':
      return { messages: [{ role: 'user', content: [{ text: 'hi' }] }], serviceTier: { type: tier } };
  }
}

function tierOf(format: TierFormat, body: Record<string, unknown>): unknown {
  switch (format) {
    case 'anthropic':
    case 'openai-chat':
    case 'openai-responses':
      return body['service_tier'];
    case 'gemini':
      return body['serviceTier'];
    case 'bedrock-converse':
      return (body['serviceTier'] as { type?: unknown } | undefined)?.type;
  }
}

/** [from, tier, to, the tier sent, the loss about it] */
const CASES: [TierFormat, string, TierFormat, string | undefined, string | undefined][] = [
  ['openai-chat', 'auto', 'openai-responses', 'auto', undefined],
  ['openai-chat', 'fast', 'openai-responses', 'fast', undefined],
  ['openai-chat', 'auto', 'bedrock-converse', undefined, 'dropped_field'],
  ['openai-chat', 'scale', 'gemini', undefined, 'dropped_field'],
  ['openai-chat', 'priority', 'bedrock-converse', 'priority', undefined],
  ['openai-chat', 'default', 'gemini', 'standard', undefined],
  ['openai-responses', 'ultrafast', 'openai-chat', 'fast', 'approximated'],
  ['openai-responses', 'flex', 'bedrock-converse', 'flex', undefined],
  ['gemini', 'standard', 'openai-chat', 'default', undefined],
  ['gemini', 'standard', 'bedrock-converse', 'default', undefined],
  ['anthropic', 'standard_only', 'openai-responses', 'default', 'approximated'],
  ['anthropic', 'auto', 'bedrock-converse', undefined, 'dropped_field'],
  ['bedrock-converse', 'reserved', 'openai-chat', undefined, 'dropped_field'],
  ['bedrock-converse', 'reserved', 'gemini', undefined, 'dropped_field'],
  ['bedrock-converse', 'default', 'anthropic', undefined, 'dropped_field'],
  // Tiers of a format's own that interlingua does not list: back to that format as they came, elsewhere dropped.
  ['openai-chat', 'turbo', 'openai-chat', 'turbo', undefined],
  ['openai-chat', 'turbo', 'openai-responses', undefined, 'dropped_field'],
  ['openai-responses', 'turbo', 'openai-responses', 'turbo', undefined],
  ['bedrock-converse', 'turbo', 'bedrock-converse', 'turbo', undefined],
  ['bedrock-converse', 'turbo', 'openai-chat', undefined, 'dropped_field'],
];

for (const [from, tier, to, sent, loss] of CASES) {
  test(`${from} "${tier}" → ${to}: ${sent === undefined ? 'dropped' : `"${sent}"`}${loss === undefined ? '' : ` (${loss})`}`, () => {
    const source = requestWith(from, tier);
    const { body, losses } = convertRequest(source, { from, to, model: 'model-under-test' });
    assert.is(tierOf(to, body as Record<string, unknown>), sent);
    const about = losses.filter((entry) => entry.message.includes('service tier'));
    assert.equal(about.map((entry) => entry.code), loss === undefined ? [] : [loss]);
    // The loss points at the tier in the body that was passed in.
    for (const entry of about) assert.is(entry.path, from === 'gemini' || from === 'bedrock-converse' ? '/serviceTier' : '/service_tier');
    if (from === to) assert.equal(body, source);
  });
}

test.run();
