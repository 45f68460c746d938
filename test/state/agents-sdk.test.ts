/**
 * The OpenAI Agents SDK (`@openai/agents`) holding its conversation on the
 * server, with the proxy as the server: `run(agent, input, {
 * previousResponseId })` and `{ conversationId }`, whole and streamed, in
 * front of the strict emulators of the five other formats. The SDK sends
 * only the new items of each step (the tool's result, the next question);
 * the upstream must receive the whole history every time.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { Agent, OpenAIProvider, run, setTracingDisabled, tool } from '@openai/agents';
import type { FormatId } from '../../src/core/ir.ts';
import { createNodeFetch } from '../../src/node/fetch.ts';
import { createMemoryStore } from '../../src/store/memory.ts';
import { withProxy } from '../support/proxy-server.ts';
import { startStrictUpstream, type ScriptedAnswer } from '../support/strict/index.ts';

const test = suite('the OpenAI Agents SDK with previousResponseId and conversationId');
setTracingDisabled(true);

const SCRIPT: ScriptedAnswer[] = [
  { kind: 'tool_calls', calls: [{ name: 'lookup_order', arguments: { order_id: 'A-18' } }] },
  { kind: 'text', text: 'Order A-18 shipped on Monday.' },
  { kind: 'text', text: 'It should arrive on Thursday.' },
];

const lookupOrder = tool({
  name: 'lookup_order',
  description: 'Look up an order.',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'], additionalProperties: false } as const,
  execute: () => 'shipped on Monday',
});

function turnsOf(format: FormatId, body: Record<string, unknown>): number {
  const list = (format === 'gemini' ? body['contents'] : body['messages']) as { role?: string }[] | undefined;
  return (list ?? []).filter((entry) => entry.role !== 'system').length;
}

for (const format of ['anthropic', 'openai-chat', 'gemini', 'bedrock-converse', 'ollama'] as const) {
  for (const how of ['previousResponseId', 'conversationId'] as const) {
    for (const stream of [false, true]) {
      test(`${format}, ${how}${stream ? ', streamed' : ''}: two runs, a tool call in the first, the whole history upstream each step`, async () => {
        const upstream = await startStrictUpstream({ format, script: SCRIPT });
        try {
          await withProxy({ upstream: { format, baseUrl: upstream.url, apiKey: 'upstream-secret' }, modelMap: { '*': 'test-model' }, fetch: createNodeFetch(), store: createMemoryStore() }, async (url) => {
            const client = new OpenAI({ apiKey: 'caller-key', baseURL: `${url}/v1`, maxRetries: 0 });
            // The provider makes the SDK's own OpenAI client (its own `openai` version) on the proxy's URL.
            const provider = new OpenAIProvider({ apiKey: 'caller-key', baseURL: `${url}/v1`, useResponses: true });
            const agent = new Agent({ name: 'orders', instructions: 'Answer questions about orders.', model: await provider.getModel('gpt-test'), tools: [lookupOrder] });
            const conversationId = how === 'conversationId' ? (await client.conversations.create({})).id : undefined;
            const once = async (input: string, previousResponseId: string | undefined) => {
              const options = { maxTurns: 4, ...(conversationId === undefined ? {} : { conversationId }), ...(previousResponseId === undefined ? {} : { previousResponseId }) };
              if (!stream) return run(agent, input, options);
              const result = await run(agent, input, { ...options, stream: true });
              for await (const _event of result) {
                // drained
              }
              await result.completed;
              return result;
            };
            const first = await once('Where is order A-18?', undefined);
            assert.equal(first.finalOutput, 'Order A-18 shipped on Monday.');
            const second = await once('When will it arrive?', conversationId === undefined ? first.lastResponseId : undefined);
            assert.equal(second.finalOutput, 'It should arrive on Thursday.');
            assert.equal(upstream.refusals(), [], 'the upstream accepted every step');
            assert.equal(upstream.received.map((request) => turnsOf(format, request.body as Record<string, unknown>)), [1, 3, 5]);
            assert.ok(JSON.stringify(upstream.received[2]?.body).includes('Where is order A-18?'), 'the last step carries the first question');
          });
        } finally {
          await upstream.close();
        }
      });
    }
  }
}

test.run();
