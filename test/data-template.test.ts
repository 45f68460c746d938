/**
 * Events recognised by their text (`src/core/data-template.ts`,
 * `StreamDecoder.decodeText`): a stream whose usual events are decoded
 * without parsing converts to exactly the bytes and losses of the codecs run
 * on every parsed event, also when events come close to a template without
 * being one (escapes, blanks, a second string, other keys, a changed number).
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Codec } from '../src/core/codec.ts';
import { DataTemplates } from '../src/core/data-template.ts';
import type { FormatId } from '../src/core/ir.ts';
import type { Loss } from '../src/core/losses.ts';
import { codecFor } from '../src/core/registry.ts';
import { createTranscoder, framingFor } from '../src/core/stream.ts';
import type { SseMessage } from '../src/core/stream-events.ts';
import { streamingFormats } from './support/streams.ts';

const test = suite('events recognised by their text');

/** The codec of `format` with a decoder that has no text path: every event is parsed and decoded. */
function parsingOnly(format: FormatId): Codec {
  const codec = codecFor(format);
  return {
    ...codec,
    createStreamDecoder(context) {
      const decoder = codec.createStreamDecoder!(context);
      return { decode: (event) => decoder.decode(event), flush: () => decoder.flush() };
    },
  };
}

/** The converted bytes and losses, the source written one event per chunk or all in one chunk. */
function converted(messages: SseMessage[], from: FormatId | Codec, to: FormatId, whole: boolean): { bytes: string; losses: Loss[] } {
  const framing = framingFor(typeof from === 'string' ? from : from.format);
  return convertedChunks(whole ? [framing.write(messages)] : messages.map((message) => framing.write([message])), from, to);
}

/** The converted bytes and losses of a source given as chunks of bytes. */
function convertedChunks(chunks: Uint8Array[], from: FormatId | Codec, to: FormatId): { bytes: string; losses: Loss[] } {
  const transcoder = createTranscoder({ from, to, model: 'm' });
  const text = new TextDecoder();
  let bytes = '';
  for (const chunk of chunks) {
    const out = transcoder.push(chunk);
    if (out !== undefined) bytes += text.decode(out);
  }
  const end = transcoder.end();
  if (end !== undefined) bytes += text.decode(end);
  return { bytes, losses: transcoder.losses };
}

const tricky = ['plain', 'with \\"quotes\\" and \\\\ backslash', '\\u00e9t\\u00e9 \\ud83d\\ude42', 'tab\\tnew\\nline', '', 'x'];

const anthropic: SseMessage[] = [
  { event: 'message_start', data: '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}' },
  { event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}' },
  ...tricky.map((text) => ({ event: 'content_block_delta', data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}` })),
  // Near misses: blanks around the string, another index, a second key, two strings, the string as a key.
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text": "blank" }}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":1}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","b":"c"}}' },
  { event: 'ping', data: '{"type":"ping"}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"after a ping"}}' },
  { event: 'content_block_stop', data: '{"type":"content_block_stop","index":0}' },
  { event: 'content_block_start', data: '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}' },
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"no block"}}' },
  { event: 'content_block_stop', data: '{"type":"content_block_stop","index":1}' },
  { event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}' },
  { event: 'message_stop', data: '{"type":"message_stop"}' },
];

const chatHead = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,';
const chat: SseMessage[] = [
  { data: `${chatHead}"delta":{"role":"assistant","content":""},"finish_reason":null}]}` },
  ...tricky.map((text) => ({ data: `${chatHead}"delta":{"content":"${text}"},"finish_reason":null}]}` })),
  { data: `${chatHead}"delta":{"content":"a"},"finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` },
  { data: `${chatHead}"delta":{"content":"a"},"finish_reason":null,"logprobs":{"content":[]}}]}` },
  { data: `${chatHead}"delta":{"content":"a","refusal":"b"},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"reasoning_content":"think"},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"reasoning_content":"more"},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\""}}]},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"tool_calls":[{"index":1,"function":{"arguments":"x"}}]},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{},"finish_reason":"tool_calls"}]}` },
  { data: '[DONE]' },
];

// OpenAI's chunks end with a random `obfuscation` string: a second slot the decoder ignores.
const obfuscated = (content: string, padding: string) => ({ data: `${chatHead}"delta":{"content":"${content}"},"finish_reason":null}],"obfuscation":"${padding}"}` });
const chatObfuscated: SseMessage[] = [
  { data: `${chatHead}"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}],"obfuscation":"Qx"}` },
  obfuscated('Hello', 'abc'),
  obfuscated('with \\"quote\\" and \\u00e9', 'k\\"z'),
  obfuscated('\\"obfuscation\\":\\"x\\"', 'p'),
  obfuscated('same', 'same'),
  obfuscated('a', ''),
  { data: `${chatHead}"delta":{"content":"no padding"},"finish_reason":null}]}` },
  { data: `${chatHead}"delta":{"content":"a"},"finish_reason":null}],"obfuscation":"b","extra":"c"}` },
  { data: `${chatHead}"delta":{"content":"a"},"finish_reason":null}],"obfuscation":7}` },
  // The same padding twice: for the same format the second chunk needs no hint, the third does.
  obfuscated('x', 'dup'),
  obfuscated('y', 'dup'),
  obfuscated('z', 'new'),
  obfuscated('last', 'Zz'),
  { data: `${chatHead}"delta":{},"finish_reason":"stop"}],"obfuscation":"e"}` },
  { data: '[DONE]' },
];

// For the same format, a template holds while the chunks' top-level fields stay the builder's: here they change and change back.
const chunkAt = (created: number, choice: string) => ({ data: `{"id":"c1","object":"chat.completion.chunk","created":${created},"model":"m","choices":[{"index":0,${choice}}]}` });
const chatChanging: SseMessage[] = [
  chunkAt(1, '"delta":{"role":"assistant","content":""},"finish_reason":null'),
  ...['a', 'b', 'c'].map((text) => chunkAt(1, `"delta":{"content":"${text}"},"finish_reason":null`)),
  ...['d', 'e', ''].map((text) => chunkAt(2, `"delta":{"content":"${text}"},"finish_reason":null`)),
  ...['f', '', 'g'].map((text) => chunkAt(1, `"delta":{"content":"${text}"},"finish_reason":null`)),
  chunkAt(1, '"delta":{"content":"h"},"finish_reason":null,"logprobs":null'),
  chunkAt(1, '"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null'),
  ...['{\\"a\\"', ':1}'].map((args) => chunkAt(1, `"delta":{"tool_calls":[{"index":0,"function":{"arguments":"${args}"}}]},"finish_reason":null`)),
  chunkAt(1, '"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"g","arguments":""}}]},"finish_reason":null'),
  ...['{}', ''].map((args) => chunkAt(1, `"delta":{"tool_calls":[{"index":1,"function":{"arguments":"${args}"}}]},"finish_reason":null`)),
  ...['{\\"b\\"', ':2}'].map((args) => chunkAt(1, `"delta":{"tool_calls":[{"index":0,"function":{"arguments":"${args}"}}]},"finish_reason":null`)),
  ...['after the calls', 'more'].map((text) => chunkAt(1, `"delta":{"content":"${text}"},"finish_reason":null`)),
  chunkAt(1, '"delta":{},"finish_reason":"tool_calls"'),
  { data: '[DONE]' },
];

const geminiTail = '}]},"index":0}],"modelVersion":"m","responseId":"r1"}';
const gemini: SseMessage[] = [
  ...tricky.map((text) => ({ data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"${text}"${geminiTail}` })),
  { data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"thought","thought":true${geminiTail}` },
  { data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"again"${geminiTail}` },
  { data: '{"candidates":[{"content":{"role":"model","parts":[{"text":"other id"}]},"index":0}],"modelVersion":"m","responseId":"r2"}' },
  { data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"signed","thoughtSignature":"c2ln"${geminiTail}` },
  { data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"after the signature"${geminiTail}` },
  { data: '{"candidates":[{"content":{"role":"model","parts":[{"text":"last"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2,"totalTokenCount":3},"modelVersion":"m","responseId":"r1"}' },
  { data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"after the finish"${geminiTail}` },
];

// Real Bedrock traffic pads every event with a random `"p"`: a second slot, read back as the `$extra` hint.
const padding = (length: number) => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.slice(0, length);
const bedrockDelta = (index: number, delta: string, p?: string) => ({ event: 'contentBlockDelta', data: `{"contentBlockIndex":${index},"delta":${delta}${p === undefined ? '' : `,"p":"${p}"`}}` });
const bedrock: SseMessage[] = [
  { event: 'messageStart', data: '{"p":"abc","role":"assistant"}' },
  ...tricky.map((text, n) => bedrockDelta(0, `{"reasoningContent":{"text":"${text}"}}`, padding(n * 7))),
  bedrockDelta(0, '{"reasoningContent":{"signature":"c2ln"}}', 'ab'),
  { event: 'contentBlockStop', data: '{"contentBlockIndex":0,"p":"abcd"}' },
  ...tricky.map((text, n) => bedrockDelta(1, `{"text":"${text}"}`, padding(n * 5 + 1))),
  // Near misses: blanks, a second key, no padding, the same padding twice then another, escapes in it, a padding that is no string or comes first, another block.
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":1,"delta":{"text": "blank" },"p":"ab"}' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":1,"delta":{"text":"a"},"p":"ab" }' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":1,"delta":{"text":"a"},"p":"ab","x":1}' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":1,"delta":{"text":"a","b":"c"},"p":"ab"}' },
  bedrockDelta(1, '{"text":"no padding"}'),
  bedrockDelta(1, '{"text":"again none"}'),
  bedrockDelta(1, '{"text":"same"}', 'dup'),
  bedrockDelta(1, '{"text":"same padding"}', 'dup'),
  bedrockDelta(1, '{"text":"other padding"}', 'new'),
  bedrockDelta(1, '{"text":"escaped padding"}', 'a\\"b\\u0063'),
  bedrockDelta(1, '{"text":"a quote in it"}', 'x\\"'),
  bedrockDelta(1, '{"text":"an escape in it"}', 'b\\u0063d'),
  bedrockDelta(1, '{"text":"dup"}', 'dup'),
  bedrockDelta(1, '{"text":"\\"p\\":\\"q\\""}', 'q'),
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":1,"delta":{"text":"a"},"p":7}' },
  { event: 'contentBlockDelta', data: '{"p":"ab","contentBlockIndex":1,"delta":{"text":"padding first"}}' },
  bedrockDelta(2, '{"text":"a block of its own"}', 'ab'),
  bedrockDelta(1, '{"text":"back"}', 'abc'),
  { event: 'contentBlockStop', data: '{"contentBlockIndex":1}' },
  { event: 'contentBlockStart', data: '{"contentBlockIndex":3,"start":{"toolUse":{"toolUseId":"t1","name":"f"}},"p":"a"}' },
  ...['{\\"a\\"', ':1}', ''].map((input, n) => bedrockDelta(3, `{"toolUse":{"input":"${input}"}}`, padding(n + 3))),
  bedrockDelta(4, '{"toolUse":{"input":"no start"}}', 'abc'),
  { event: 'contentBlockStop', data: '{"contentBlockIndex":3}' },
  { event: 'messageStop', data: '{"stopReason":"tool_use","p":"ab"}' },
  { event: 'metadata', data: '{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"metrics":{"latencyMs":1},"p":"abc"}' },
];
// An exception in the middle ends the stream; the deltas after it decode to nothing.
const bedrockFailing: SseMessage[] = [...bedrock.slice(0, 12), { event: 'throttlingException', data: '{"message":"slow down","p":"ab"}' }, ...bedrock.slice(8, 14)];

const sources: [FormatId, SseMessage[]][] = [
  ['anthropic', anthropic],
  ['openai-chat', chat],
  ['openai-chat', chatObfuscated],
  ['openai-chat', chatChanging],
  ['gemini', gemini],
  ['bedrock-converse', bedrock],
  ['bedrock-converse', bedrockFailing],
];

for (const [number, [from, messages]] of sources.entries()) {
  for (const to of streamingFormats()) {
    test(`${from} (${number}) → ${to}: the same bytes and losses as with every event parsed`, () => {
      for (const whole of [false, true]) assert.equal(converted(messages, from, to, whole), converted(messages, parsingOnly(from), to, whole));
    });
  }
}

// Bedrock frames that are not events: an `error` frame (its message in headers), an exception frame with no payload, a broken frame, a cut one.
const smithy = new EventStreamCodec((bytes) => new TextDecoder().decode(bytes), (text) => new TextEncoder().encode(text));
const header = (value: string) => ({ type: 'string' as const, value });
const bedrockFrames = bedrock.map((message) => framingFor('bedrock-converse').write([message]));
const errorFrame = smithy.encode({ headers: { ':message-type': header('error'), ':error-code': header('InternalFailure'), ':error-message': header('it "broke" \u00e9') }, body: new Uint8Array(0) });
const emptyException = smithy.encode({ headers: { ':message-type': header('exception'), ':exception-type': header('modelStreamErrorException') }, body: new Uint8Array(0) });
const broken = bedrockFrames[16]!.slice();
broken[broken.length - 8]! ^= 1;
const bedrockChunks: [string, Uint8Array[]][] = [
  ['an error frame', [...bedrockFrames.slice(0, 14), errorFrame, ...bedrockFrames.slice(14)]],
  ['an exception frame without payload', [...bedrockFrames.slice(0, 14), emptyException, ...bedrockFrames.slice(14)]],
  ['a broken frame', [...bedrockFrames.slice(0, 16), broken, ...bedrockFrames.slice(17)]],
  ['a cut frame', [...bedrockFrames.slice(0, 16), bedrockFrames[16]!.subarray(0, 20)]],
];
for (const [what, chunks] of bedrockChunks) {
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  chunks.reduce((at, chunk) => (whole.set(chunk, at), at + chunk.length), 0);
  for (const to of streamingFormats()) {
    test(`bedrock-converse with ${what} → ${to}: the same bytes and losses as with every event parsed`, () => {
      for (const input of [chunks, [whole]]) assert.equal(convertedChunks(input, 'bedrock-converse', to), convertedChunks(input, parsingOnly('bedrock-converse'), to));
    });
  }
}

test('a template takes one string in its slot, nothing else', () => {
  const templates = new DataTemplates<string>();
  const data = '{"a":1,"b":"hello","c":[true]}';
  templates.learn(data, undefined, 'hello', (value, probe) => ((value as { b: unknown }).b === probe ? 'b' : undefined));
  assert.is(templates.read('{"a":1,"b":"bye","c":[true]}', undefined), 'bye');
  assert.is(templates.shape, 'b');
  assert.is(templates.read('{"a":1,"b":"\\u0062ye \\"x\\"","c":[true]}', undefined), 'bye "x"');
  assert.is(templates.read('{"a":1,"b": "spaced" ,"c":[true]}', undefined), 'spaced');
  assert.is(templates.read('{"a":1,"b":"x","y":"z","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"x" "c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":1,"c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":2,"b":"bye","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"bye","c":[true]}', 'named'), undefined);
  // A second, ignored string after the first.
  const two = new DataTemplates<string>();
  two.learn('{"a":"x","b":"y","c":1}', undefined, 'x', (value, probe, other) => ((value as { a: unknown; b: unknown }).a === probe && (value as { b: unknown }).b === other ? 'a' : undefined), 'y');
  assert.is(two.read('{"a":"new","b":"pad","c":1}', undefined), 'new');
  assert.is(two.read('{"a":"n\\"ew","b":"p\\"ad","c":1}', undefined), 'n"ew');
  assert.is(two.read('{"a":"x","b":"y","d":"z","c":1}', undefined), undefined);
  assert.is(two.read('{"a":"x","b":2,"c":1}', undefined), undefined);
  assert.is(two.read('{"a":"x","b":"y","c":2}', undefined), undefined);
  // A string that occurs twice says nothing of where the slot is.
  const twice = new DataTemplates<string>();
  twice.learn('{"a":"x","b":"x"}', undefined, 'x', () => 'b');
  assert.is(twice.read('{"a":"x","b":"y"}', undefined), undefined);
  // The decoder's check sees where the probe landed.
  const wrong = new DataTemplates<string>();
  wrong.learn('{"a":"x","b":"y"}', undefined, 'x', (value, probe) => ((value as { b: unknown }).b === probe ? 'b' : undefined));
  assert.is(wrong.read('{"a":"z","b":"y"}', undefined), undefined);
});

test.run();
