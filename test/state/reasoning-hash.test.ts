/**
 * The hash of an assistant message as the caller sees it: the same for
 * every way a client echoes the message back, different for any edit of
 * what it shows.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FormatId, Message, Part } from '../../src/core/ir.ts';
import { decodeRequest, decodeResponse, encodeResponse } from '../../src/formats/convert.ts';
import { assistantMessageHash, visibleMessageText } from '../../src/state/reasoning-hash.ts';

const test = suite('reasoning state: the assistant message hash');

type Json = Record<string, unknown>;

/** Anthropic's answer with thinking, text and two calls, as the proxy decodes it from the upstream. */
const ANSWER = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'thinking', thinking: 'Two lookups.', signature: 'c2lnbmF0dXJl' },
    { type: 'text', text: 'Checking  both.\n' },
    { type: 'tool_use', id: 'toolu_01A', name: 'lookup_order', input: { order_id: 'A-18', options: { fast: true, notes: 'é' } } },
    { type: 'tool_use', id: 'toolu_01B', name: 'lookup_stock', input: { item: 'B' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 10 },
};

const answerParts = (): Part[] => (decodeResponse('anthropic', ANSWER).ir.candidates[0]?.message.parts ?? []) as Part[];

/** The assistant message a `caller` client sends back, decoded as the proxy decodes it. */
function echoed(caller: FormatId, assistant: Json): Part[] {
  const body = caller === 'ollama' ? { model: 'm', messages: [{ role: 'user', content: 'q' }, assistant] } : { model: 'm', messages: [{ role: 'user', content: 'q' }, assistant] };
  const messages = decodeRequest(caller, body).ir.messages as Message[];
  return messages.find((message) => message.role === 'assistant')?.parts ?? [];
}

/** What the proxy's Chat answer for ANSWER says, as the SDK returns it. */
function chatAnswerMessage(): Json {
  const out = encodeResponse('openai-chat', decodeResponse('anthropic', ANSWER).ir).body as { choices: { message: Json }[] };
  return out.choices[0]?.message as Json;
}

const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

test('a Chat client echoing the answer as it got it, or re-serialised as SDKs and frameworks do, hashes the same as the answer', async () => {
  const expected = assistantMessageHash(answerParts(), 'openai-chat');
  const message = chatAnswerMessage();
  const variants: Json[] = [
    message,
    // Python's json.dumps: a space after ':' and ','; keys reordered; non-ASCII escaped.
    { role: 'assistant', content: 'Checking  both.\n', tool_calls: [call('toolu_01A', 'lookup_order', '{"options": {"notes": "\\u00e9", "fast": true}, "order_id": "A-18"}'), call('toolu_01B', 'lookup_stock', '{"item": "B"}')] },
    // Content as parts, trimmed text, the accumulator's index fields, refusal and annotations.
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'Checking' }, { type: 'text', text: ' both.' }],
      refusal: null,
      annotations: [],
      tool_calls: [
        { index: 0, ...call('toolu_01A', 'lookup_order', '{"order_id":"A-18","options":{"fast":true,"notes":"é"}}') },
        { index: 1, ...call('toolu_01B', 'lookup_stock', '{"item":"B"}') },
      ],
    },
    // Reasoning text echoed back (DeepSeek-style clients) changes nothing.
    { role: 'assistant', content: 'Checking both.', reasoning_content: 'Two lookups.', tool_calls: [call('toolu_01A', 'lookup_order', '{"order_id":"A-18","options":{"fast":true,"notes":"é"}}'), call('toolu_01B', 'lookup_stock', '{"item":"B"}')] },
  ];
  for (const variant of variants) assert.is(assistantMessageHash(echoed('openai-chat', variant), 'openai-chat'), expected, JSON.stringify(variant));
});

test('a tool-call message without text hashes the same with content null, "" or absent', async () => {
  const parts: Part[] = [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: { a: 1 } }];
  const expected = assistantMessageHash(parts, 'openai-chat');
  for (const content of [null, '', undefined, []]) {
    const assistant: Json = { role: 'assistant', tool_calls: [call('call_1', 'f', '{"a":1}')] };
    if (content !== undefined) assistant['content'] = content;
    assert.is(assistantMessageHash(echoed('openai-chat', assistant), 'openai-chat'), expected, JSON.stringify(content));
  }
});

test('any edit of what the caller sees changes the hash: text, a call id, name or argument, a call added or dropped', async () => {
  const base = { role: 'assistant', content: 'Checking both.', tool_calls: [call('toolu_01A', 'lookup_order', '{"order_id":"A-18"}'), call('toolu_01B', 'lookup_stock', '{"item":"B"}')] };
  const hash = async (message: Json) => assistantMessageHash(echoed('openai-chat', message), 'openai-chat');
  const original = await hash(base);
  const edits: Json[] = [
    { ...base, content: 'Checking all.' },
    { ...base, tool_calls: [call('toolu_01X', 'lookup_order', '{"order_id":"A-18"}'), base.tool_calls[1]] },
    { ...base, tool_calls: [call('toolu_01A', 'lookup_orders', '{"order_id":"A-18"}'), base.tool_calls[1]] },
    { ...base, tool_calls: [call('toolu_01A', 'lookup_order', '{"order_id":"A-19"}'), base.tool_calls[1]] },
    { ...base, tool_calls: [call('toolu_01A', 'lookup_order', '{"order_id":18}'), base.tool_calls[1]] },
    { ...base, tool_calls: [base.tool_calls[0]] },
    { ...base, tool_calls: [base.tool_calls[1], base.tool_calls[0]] },
  ];
  const hashes = await Promise.all(edits.map(hash));
  for (const [index, edited] of hashes.entries()) assert.is.not(edited, original, JSON.stringify(edits[index]));
  assert.is(new Set(hashes).size, hashes.length, 'every edit hashes apart from the others');
});

test('an Ollama client sees no call ids: they stay out of its hash, and its echo with arguments as objects and thinking hashes as the answer', async () => {
  const expected = assistantMessageHash(answerParts(), 'ollama');
  const assistant = { role: 'assistant', content: 'Checking both.', thinking: 'Two lookups.', tool_calls: [{ function: { name: 'lookup_order', arguments: { options: { notes: 'é', fast: true }, order_id: 'A-18' } } }, { function: { name: 'lookup_stock', arguments: { item: 'B' } } }] };
  assert.is(assistantMessageHash(echoed('ollama', assistant), 'ollama'), expected);
  assert.is.not(assistantMessageHash(answerParts(), 'openai-chat'), expected, 'a Chat caller sees the ids, so they count');
});

test('a custom (free-text) call the caller sends back hashes as the function that stood for it upstream, taking the text as input', () => {
  const text = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch';
  const upstream: Part[] = [{ type: 'tool_call', id: 'toolu_1', name: 'apply_patch', arguments: { input: text } }];
  const caller: Part[] = [{ type: 'tool_call', id: 'toolu_1', name: 'apply_patch', arguments: undefined, rawArguments: text, kind: 'custom' }];
  assert.is(assistantMessageHash(caller, 'openai-chat'), assistantMessageHash(upstream, 'openai-chat'));
  assert.is.not(assistantMessageHash([{ ...caller[0], rawArguments: `${text} ` } as Part], 'openai-chat'), assistantMessageHash(upstream, 'openai-chat'));
});

test('the hash reads the text without white space and each call as id, name and canonical arguments', () => {
  const parts: Part[] = [
    { type: 'reasoning', text: 'hidden', state: { format: 'anthropic', kind: 'signature', value: 'x' } },
    { type: 'text', text: ' a b\n' },
    { type: 'tool_call', id: 'c1', name: 'f', arguments: { b: [1, { d: 2, c: 3 }], a: null } },
  ];
  assert.is(visibleMessageText(parts, 'openai-chat'), 'ab\nc1\u0000f\u0000{"a":null,"b":[1,{"c":3,"d":2}]}');
  assert.is(visibleMessageText(parts, 'ollama'), 'ab\n\u0000f\u0000{"a":null,"b":[1,{"c":3,"d":2}]}');
});

test.run();
