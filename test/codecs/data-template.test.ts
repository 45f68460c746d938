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
import type { Codec } from '../../src/core/codec.ts';
import { DataTemplates } from '../../src/core/data-template.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { LossCollector, type Loss } from '../../src/core/losses.ts';
import { codecFor } from '../../src/formats/registry.ts';
import { createTranscoder, framingFor } from '../../src/formats/stream.ts';
import { fixedAnswerIds } from '../../src/core/answer-ids.ts';
import { wireEventOf } from '../../src/core/framing.ts';
import type { SseMessage, StreamDecoder, StreamEvent } from '../../src/core/stream-events.ts';
import { streamingFormats } from '../support/streams.ts';

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

/** The codec of `format`, counting the events its decoder recognises by their text (in `counter.count`). */
function counting(format: FormatId, counter: { count: number }): Codec {
  const codec = codecFor(format);
  return {
    ...codec,
    createStreamDecoder(context) {
      const decoder = codec.createStreamDecoder!(context);
      const counted: StreamDecoder = { decode: (event) => decoder.decode(event), flush: () => decoder.flush() };
      if (decoder.decodeText !== undefined && decoder.learn !== undefined) {
        counted.decodeText = (data, event) => {
          const events = decoder.decodeText!(data, event);
          if (events !== undefined) counter.count++;
          return events;
        };
        counted.learn = (data, wire) => decoder.learn!(data, wire);
      }
      return counted;
    },
  };
}

/** The converted bytes and losses, the source written one event per chunk or all in one chunk. */
function converted(messages: SseMessage[], from: FormatId | Codec, to: FormatId, whole: boolean): { bytes: string; losses: Loss[] } {
  const framing = framingFor(typeof from === 'string' ? from : from.format);
  return convertedChunks(whole ? [framing.write(messages)] : messages.map((message) => framing.write([message])), from, to);
}

/** The converted bytes and losses of a source given as chunks of bytes. */
function convertedChunks(chunks: Uint8Array[], from: FormatId | Codec, to: FormatId | Codec): { bytes: string; losses: Loss[] } {
  // Fixed ids: the two conversions compared must make up the same ones.
  const transcoder = createTranscoder({ from, to, model: 'm', ids: fixedAnswerIds });
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
  // Anthropic pads deltas with blanks between their closing braces.
  ...['   ', ' ', '', '\t  '].map((blanks) => ({ event: 'content_block_delta', data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"padded"}${blanks}}` })),
  { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"padded"}  }  ' },
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

// As OpenAI writes them: every chunk with its own `obfuscation`, a `service_tier` and a null `system_fingerprint`. For the
// same format, a chunk that is the builder's but for its `obfuscation` is taken by its text too (its hint sets just that).
const openaiHead = '{"id":"c2","object":"chat.completion.chunk","created":2,"model":"gpt","service_tier":"default","system_fingerprint":null,"choices":[{"index":0,';
const openaiChunk = (delta: string, padding: string) => ({ data: `${openaiHead}"delta":${delta},"finish_reason":null}],"obfuscation":"${padding}"}` });
const chatWire: SseMessage[] = [
  openaiChunk('{"role":"assistant","content":"","refusal":null}', 'Qx'),
  ...['Hello', ' there', ...tricky, '!', ' é', 'more'].map((text, index) => openaiChunk(`{"content":"${text}"}`, `p${'q'.repeat(index % 4)}${index}`)),
  // The same padding as the chunk before: no patch, as parsed.
  openaiChunk('{"content":"again"}', 'p2'),
  openaiChunk('{"content":"and again"}', 'p2'),
  openaiChunk('{"content":"new padding"}', 'n1'),
  // Another `created`: the other top-level fields changed, the template waits until they are back.
  { data: `${openaiHead.replace('"created":2', '"created":3')}"delta":{"content":"later"},"finish_reason":null}],"obfuscation":"l1"}` },
  openaiChunk('{"content":"back"}', 'b1'),
  openaiChunk('{"content":"back again"}', 'b2'),
  openaiChunk('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}', 't0'),
  ...['{\\"a\\"', ':', '1', '}'].map((text, index) => openaiChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"${text}"}}]}`, `a${index}`)),
  { data: `${openaiHead}"delta":{},"finish_reason":"tool_calls"}],"obfuscation":"end"}` },
  { data: '[DONE]' },
];

// As OpenAI-compatible servers (SGLang, here through Azure for DeepSeek) write them: every other delta key and
// `matched_stop` null, `usage` null, and `created` the second each chunk was made. For another format a chunk is taken by
// its text whatever its second; for the same format the nulls need a patch, and the chunk is parsed.
const sglangChunk = (created: number, delta: string, finish = 'null') =>
  ({ data: `{"id":"d1","object":"chat.completion.chunk","created":${created},"model":"deepseek","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish},"matched_stop":null}],"usage":null}` });
const nullsAround = (field: string, text: string) =>
  `{"role":null,"content":${field === 'content' ? `"${text}"` : 'null'},"reasoning_content":${field === 'reasoning_content' ? `"${text}"` : 'null'},"tool_calls":null}`;
const chatNulls: SseMessage[] = [
  sglangChunk(100, '{"role":"assistant","content":"","reasoning_content":null,"tool_calls":null}'),
  ...['We', ' need', ...tricky, ' to'].map((text, index) => sglangChunk(100 + (index >> 2), nullsAround('reasoning_content', text))),
  ...['The', ' answer', ...tricky, ' 101'].map((text, index) => sglangChunk(103 + (index >> 1), nullsAround('content', text))),
  // A null turned into a value, an empty content beside the text, a key not null in the choice.
  sglangChunk(110, '{"role":"assistant","content":"a","reasoning_content":null,"tool_calls":null}'),
  sglangChunk(110, '{"role":null,"content":"","reasoning_content":"b","tool_calls":null}'),
  { data: '{"id":"d1","object":"chat.completion.chunk","created":110,"model":"deepseek","choices":[{"index":0,"delta":{"role":null,"content":"c","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":7}],"usage":null}' },
  // Log probabilities (not null) twice: the second chunk is not taken by the text of the first.
  ...['d', 'e'].map((text) => ({ data: `{"id":"d1","object":"chat.completion.chunk","created":110,"model":"deepseek","choices":[{"index":0,"delta":${nullsAround('content', text)},"logprobs":{"content":[{"token":"t","logprob":-1}]},"finish_reason":null,"matched_stop":null}],"usage":null}` })),
  sglangChunk(111, '{"role":null,"content":null,"reasoning_content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}'),
  ...['{\\"a\\"', ':1', '}'].map((text) => sglangChunk(111, `{"role":null,"content":null,"reasoning_content":null,"tool_calls":[{"index":0,"function":{"arguments":"${text}"}}]}`)),
  sglangChunk(112, '{"role":null,"content":null,"reasoning_content":null,"tool_calls":null}', '"tool_calls"'),
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

// Real Gemini chunks carry `usageMetadata` (and on Vertex AI `createTime`) each time: for another format its growing counts are slots.
const usageChunk = (text: string, usage: string, candidate = '"index":0', extra = '') =>
  ({ data: `{"candidates":[{"content":{"parts":[{"text":"${text}"}],"role":"model"}${candidate === '' ? '' : `,${candidate}`}}],${extra}"usageMetadata":{${usage}},"modelVersion":"m","responseId":"r3"}` });
const prompt = '"promptTokenCount":7,"promptTokensDetails":[{"modality":"TEXT","tokenCount":7}]';
const growing = (out: number, total = out + 7) => `${prompt},"candidatesTokenCount":${out},"totalTokenCount":${total},"thoughtsTokenCount":3`;
const geminiUsage: SseMessage[] = [
  usageChunk('The', `${prompt},"totalTokenCount":7`),
  // The total equals the prompt's count: it stays literal.
  ...[' sky', ' is', ' blue'].map((text) => usageChunk(text, `${prompt},"totalTokenCount":7`)),
  usageChunk(',', growing(5)),
  ...tricky.map((text, index) => usageChunk(text, growing(6 + index))),
  usageChunk('twice', growing(14, 14)),
  usageChunk('spaced', `${prompt},"candidatesTokenCount": 21 ,"totalTokenCount":28,"thoughtsTokenCount":3`),
  // Near misses: another literal count, a count that is not a plain integer, another key, no index, a Vertex AI chunk.
  usageChunk('prompt changed', growing(22).replace('"promptTokenCount":7', '"promptTokenCount":8')),
  usageChunk('thoughts changed', growing(23).replace('"thoughtsTokenCount":3', '"thoughtsTokenCount":4')),
  usageChunk('float', growing(24).replace('"candidatesTokenCount":24', '"candidatesTokenCount":1e1')),
  usageChunk('extra', growing(25), '"index":0', '"turnToken":"t",'),
  usageChunk('no index', growing(26), ''),
  usageChunk('no index again', growing(27), ''),
  ...['vertex', 'vertex again', 'vertex more'].map((text) => usageChunk(text, '"trafficType":"ON_DEMAND"', '', '"createTime":"2025-08-16T00:44:37.859180Z",')),
  ...['plain', 'plain again', 'plain more', 'plain last'].map((text) => ({ data: `{"candidates":[{"content":{"role":"model","parts":[{"text":"${text}"}]},"index":0}],"modelVersion":"m","responseId":"r3"}` })),
  { data: `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{${growing(30)}},"modelVersion":"m","responseId":"r3"}` },
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
/** A Responses event of `type` with `fields` after its `sequence_number` (written as given: a number in any spelling, or not one). */
const responsesEvent = (type: string, sequence: string, fields: string): SseMessage => ({ event: type, data: `{"type":"${type}","sequence_number":${sequence},${fields}}` });
const responseBody = (status: string, output: string) =>
  `"response":{"id":"resp_1","object":"response","created_at":1,"status":"${status}","model":"m","output":[${output}],"usage":null}`;
const textDelta = (sequence: string, delta: string, tail = ',"logprobs":[]') =>
  responsesEvent('response.output_text.delta', sequence, `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"${delta}"${tail}`);
const summaryDelta = (sequence: string, delta: string, tail = '') =>
  responsesEvent('response.reasoning_summary_text.delta', sequence, `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"${delta}"${tail}`);
const argumentsDelta = (sequence: string, delta: string, tail = '') =>
  responsesEvent('response.function_call_arguments.delta', sequence, `"item_id":"fc_1","output_index":2,"delta":"${delta}"${tail}`);
const reasoningItem = '{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"s"}]}';
const messageItem = '{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"t","annotations":[]}]}';
const callItem = '{"id":"fc_1","type":"function_call","status":"completed","arguments":"{}","call_id":"call_1","name":"f"}';
// Odd sequence numbers: each is left to the parser, and the events after it still match.
const oddNumbers = ['"7"', '1e5', '-0', '01', ' 9 ', '2.0', 'null'];
const responses: SseMessage[] = [
  responsesEvent('response.created', '0', responseBody('in_progress', '')),
  responsesEvent('response.in_progress', '1', responseBody('in_progress', '')),
  responsesEvent('response.output_item.added', '2', '"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}'),
  responsesEvent('response.reasoning_summary_part.added', '3', '"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}'),
  ...tricky.map((text, index) => summaryDelta(String(4 + index), text)),
  summaryDelta('20', 'padded', ',"obfuscation":"Qx"'),
  summaryDelta('21', 'padded again', ',"obfuscation":"k\\"z"'),
  summaryDelta('22', 'padded', ',"obfuscation":7'),
  responsesEvent('response.reasoning_summary_text.delta', '23', '"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"other summary"'),
  responsesEvent('response.reasoning_summary_text.delta', '24', '"item_id":"rs_1","output_index":0,"delta":"no summary index"'),
  responsesEvent('response.output_item.done', '25', `"output_index":0,"item":${reasoningItem}`),
  responsesEvent('response.output_item.added', '26', '"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}'),
  responsesEvent('response.content_part.added', '27', '"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}'),
  ...tricky.map((text, index) => textDelta(String(30 + index), text, `,"logprobs":[],"obfuscation":"p${index}"`)),
  ...oddNumbers.map((sequence) => textDelta(sequence, 'odd number', ',"logprobs":[],"obfuscation":"o"')),
  textDelta('40', 'after the odd numbers', ',"logprobs":[],"obfuscation":"o"'),
  textDelta('41', 'no obfuscation'),
  textDelta('42', 'no logprobs', ''),
  textDelta('43', 'log probabilities', ',"logprobs":[{"token":"x","logprob":-1,"bytes":[120]}]'),
  textDelta('44', 'a', ',"logprobs":[],"obfuscation":"b","extra":"c"'),
  textDelta('45', '\\"obfuscation\\":\\"x\\"', ',"logprobs":[],"obfuscation":"q"'),
  responsesEvent('response.output_text.delta', '46', '"item_id":"msg_1","output_index":1,"content_index":3,"delta":"to no part","logprobs":[]'),
  responsesEvent('response.output_text.delta', '47', '"item_id":"msg_1","output_index":1,"content_index":0,"delta":"blank","logprobs":[] '),
  responsesEvent('response.refusal.delta', '48', '"item_id":"msg_1","output_index":1,"content_index":0,"delta":"refused"'),
  responsesEvent('response.refusal.delta', '49', '"item_id":"msg_1","output_index":1,"content_index":0,"delta":"refused again"'),
  responsesEvent('response.output_text.done', '50', '"item_id":"msg_1","output_index":1,"content_index":0,"text":"t","logprobs":[]'),
  responsesEvent('response.content_part.done', '51', '"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"t","annotations":[]}'),
  responsesEvent('response.output_item.done', '52', `"output_index":1,"item":${messageItem}`),
  textDelta('53', 'after its item is done'),
  responsesEvent('response.output_item.added', '54', '"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"f"}'),
  argumentsDelta('55', '{\\"a\\"'),
  argumentsDelta('56', ':1', ',"obfuscation":"z"'),
  argumentsDelta('57', '}', ',"obfuscation":"zz"'),
  responsesEvent('response.function_call_arguments.done', '58', '"item_id":"fc_1","output_index":2,"arguments":"{}"'),
  responsesEvent('response.output_item.done', '59', `"output_index":2,"item":${callItem}`),
  responsesEvent('response.completed', '60', responseBody('completed', `${reasoningItem},${messageItem},${callItem}`)),
  textDelta('61', 'after the end'),
];

// The same format: deltas the encoder writes exactly are recognised only while the shadow would write them too.
let sequence = 0;
const seq = () => String(sequence++);
const messageItem2 = '{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"t","annotations":[]},{"type":"output_text","text":"u","annotations":[]}]}';
const reasoningTextItem = '{"id":"rs_2","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"r"}]}';
const customItem = '{"id":"ct_1","type":"custom_tool_call","status":"completed","call_id":"call_2","name":"g","input":"xy"}';
const responsesSame: SseMessage[] = [
  responsesEvent('response.created', seq(), responseBody('in_progress', '')),
  responsesEvent('response.in_progress', seq(), responseBody('in_progress', '')),
  responsesEvent('response.output_item.added', seq(), '"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}'),
  responsesEvent('response.reasoning_summary_part.added', seq(), '"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}'),
  ...tricky.map((text) => summaryDelta(seq(), text)),
  // A repeated number, then a gap, then the next number: each is left to the parser, and the events after it match again.
  summaryDelta(String(sequence - 1), 'repeat'),
  summaryDelta(String(sequence + 5), 'gap'),
  summaryDelta(String((sequence += 6)), 'after the gap'),
  summaryDelta(String(sequence++), 'and more'),
  // Padded events, and blanks: never the direct path's text.
  summaryDelta(seq(), 'padded', ',"obfuscation":"Qx"'),
  summaryDelta(seq(), 'padded again', ',"obfuscation":"Qy"'),
  summaryDelta(seq(), 'plain again'),
  responsesEvent('response.reasoning_summary_text.delta', seq(), '"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"blank" '),
  // A delta to a summary not open, another item id, no summary index.
  responsesEvent('response.reasoning_summary_text.delta', seq(), '"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"other summary"'),
  responsesEvent('response.reasoning_summary_text.delta', seq(), '"item_id":"rs_9","output_index":0,"summary_index":0,"delta":"other id"'),
  responsesEvent('response.reasoning_summary_text.delta', seq(), '"item_id":"rs_1","output_index":0,"delta":"no summary index"'),
  summaryDelta(seq(), 'back to summary 0'),
  responsesEvent('response.reasoning_summary_part.done', seq(), '"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"s"}'),
  // The next summary: summary 0's template no longer fits the shadow, a new one is learned.
  summaryDelta(seq(), 'summary 0 after it is done'),
  responsesEvent('response.reasoning_summary_part.added', seq(), '"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}'),
  summaryDelta(seq(), 'summary 0 while 1 is open'),
  ...['one', 'two', 'three', 'four'].map((text) => responsesEvent('response.reasoning_summary_text.delta', seq(), `"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"${text}"`)),
  responsesEvent('response.output_item.done', seq(), `"output_index":0,"item":${reasoningItem}`),
  summaryDelta(seq(), 'after its item is done'),
  responsesEvent('response.output_item.added', seq(), '"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}'),
  responsesEvent('response.content_part.added', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}'),
  ...tricky.map((text) => textDelta(seq(), text)),
  textDelta(seq(), 'padded', ',"logprobs":[],"obfuscation":"p"'),
  textDelta(seq(), 'no logprobs', ''),
  textDelta(seq(), 'no logprobs again', ''),
  textDelta(seq(), 'log probabilities', ',"logprobs":[{"token":"x","logprob":-1,"bytes":[120]}]'),
  textDelta(seq(), 'after them'),
  responsesEvent('response.output_text.delta', seq(), '"item_id":"msg_2","output_index":1,"content_index":0,"delta":"another item id","logprobs":[]'),
  textDelta(seq(), 'right id'),
  responsesEvent('response.content_part.added', seq(), '"item_id":"msg_1","output_index":1,"content_index":1,"part":{"type":"output_text","text":"","annotations":[]}'),
  // Both parts open: each has its template.
  ...['a', 'b', 'c'].map((text) => responsesEvent('response.output_text.delta', seq(), `"item_id":"msg_1","output_index":1,"content_index":1,"delta":"${text}","logprobs":[]`)),
  textDelta(seq(), 'part 0 again'),
  textDelta(seq(), 'and again'),
  responsesEvent('response.refusal.delta', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"delta":"refused"'),
  responsesEvent('response.refusal.delta', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"delta":"refused again"'),
  responsesEvent('response.output_text.done', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"text":"t","logprobs":[]'),
  responsesEvent('response.content_part.done', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"t","annotations":[]}'),
  textDelta(seq(), 'after its part is done'),
  responsesEvent('response.output_text.delta', seq(), '"item_id":"msg_1","output_index":1,"content_index":1,"delta":"part 1 still open","logprobs":[]'),
  responsesEvent('response.output_item.done', seq(), `"output_index":1,"item":${messageItem2}`),
  responsesEvent('response.output_text.delta', seq(), '"item_id":"msg_1","output_index":1,"content_index":1,"delta":"after its item is done","logprobs":[]'),
  responsesEvent('response.output_item.added', seq(), '"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"f"}'),
  argumentsDelta(seq(), '{\\"a\\"'),
  argumentsDelta(seq(), ':1'),
  argumentsDelta(seq(), ', \\"b\\": \\"\\u00e9\\"'),
  argumentsDelta(seq(), '}'),
  responsesEvent('response.function_call_arguments.done', seq(), '"item_id":"fc_1","output_index":2,"arguments":"{}"'),
  responsesEvent('response.output_item.done', seq(), `"output_index":2,"item":${callItem}`),
  argumentsDelta(seq(), 'after its item is done'),
  responsesEvent('response.output_item.added', seq(), '"output_index":3,"item":{"id":"rs_2","type":"reasoning","summary":[],"content":[]}'),
  responsesEvent('response.content_part.added', seq(), '"item_id":"rs_2","output_index":3,"content_index":0,"part":{"type":"reasoning_text","text":""}'),
  ...['r1', 'r2', 'r3', ''].map((text) => responsesEvent('response.reasoning_text.delta', seq(), `"item_id":"rs_2","output_index":3,"content_index":0,"delta":"${text}"`)),
  responsesEvent('response.output_item.done', seq(), `"output_index":3,"item":${reasoningTextItem}`),
  responsesEvent('response.output_item.added', seq(), '"output_index":4,"item":{"id":"ct_1","type":"custom_tool_call","status":"in_progress","call_id":"call_2","name":"g","input":""}'),
  ...['x', 'y', 'z'].map((text) => responsesEvent('response.custom_tool_call_input.delta', seq(), `"item_id":"ct_1","output_index":4,"delta":"${text}"`)),
  responsesEvent('response.output_item.done', seq(), `"output_index":4,"item":${customItem}`),
  // The same item id and output index added again: the shadow numbers the new item 5, so the template learned for 1 does not fit.
  responsesEvent('response.output_item.added', seq(), '"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}'),
  responsesEvent('response.content_part.added', seq(), '"item_id":"msg_1","output_index":1,"content_index":1,"part":{"type":"output_text","text":"","annotations":[]}'),
  responsesEvent('response.output_text.delta', seq(), '"item_id":"msg_1","output_index":1,"content_index":1,"delta":"re-added","logprobs":[]'),
  responsesEvent('response.output_text.delta', seq(), '"item_id":"msg_1","output_index":1,"content_index":1,"delta":"re-added again","logprobs":[]'),
  responsesEvent('response.output_item.done', seq(), `"output_index":1,"item":${messageItem2}`),
  responsesEvent('response.completed', seq(), responseBody('completed', `${reasoningItem},${messageItem2},${callItem},${reasoningTextItem},${customItem}`)),
  textDelta(seq(), 'after the end'),
];

/** An Ollama chat line with `message` fields, `created_at` and maybe other line fields. */
const ollamaLine = (message: string, createdAt = '2025-06-01T10:00:00.1Z', more = ''): SseMessage => ({
  data: `{"model":"qwen3","created_at":"${createdAt}","message":{"role":"assistant",${message}},"done":false${more}}`,
});
const ollama: SseMessage[] = [
  ollamaLine('"content":"","thinking":"first"'),
  ...tricky.map((text, index) => ollamaLine(`"content":"","thinking":"${text}"`, `2025-06-01T10:00:0${index}.5Z`)),
  ollamaLine('"thinking":"no content"'),
  ollamaLine('"thinking":"again no content"', 'x'),
  ...tricky.map((text, index) => ollamaLine(`"content":"${text}"`, `2025-06-01T10:00:1${index}.5Z`)),
  ollamaLine('"content":"with empty thinking","thinking":""'),
  ollamaLine('"content":"again","thinking":""', '\\u0032\\"'),
  ollamaLine('"content":"both","thinking":"both"'),
  ollamaLine('"content":"a"', '2025', ',"extra":1'),
  ollamaLine('"content":"b"', '2025', ',"done_reason":null'),
  { data: '{"model":"qwen3","created_at":7,"message":{"role":"assistant","content":"number date"},"done":false}' },
  { data: '{"model":"other","created_at":"t","message":{"role":"assistant","content":"other model"},"done":false}' },
  { data: '{"created_at":"t","message":{"role":"assistant","content":"no model"},"done":false}' },
  { data: '{"created_at":"u","message":{"role":"assistant","content":"no model again"},"done":false}' },
  { data: '{"model":"qwen3","message":{"role":"assistant","content":"no date"},"done":false}' },
  { data: '{"model":"qwen3","message":{"role":"assistant","content":"no date again"},"done":false}' },
  { data: '{"model":"qwen3","created_at":"t","message":{"role":"user","content":"a user"},"done":false}' },
  { data: '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":"x","tool_calls":[]},"done":false}' },
  { data: '{"model":"qwen3","created_at":"t","message":{"role":"assistant","content":"x"}}' },
  ollamaLine('"content":"last"', '2025-06-01T10:00:30Z'),
  { data: '{"model":"qwen3","created_at":"2025-06-01T10:00:31Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"eval_count":3}' },
  ollamaLine('"content":"after the end"'),
];

// The same format as OpenAI writes it: compact, keys in the writer's order, an `obfuscation` on every delta. A plain delta
// of a template learned from such text is written as it came (`StreamEncoder.encodeText`); one with an escape or a blank,
// or in another key order, is written by the encoder; either way the bytes are those of the codecs run on every parsed event.
sequence = 0;
const obfuscation = (index: number) => `"obfuscation":"o${'x'.repeat(index % 5)}${index}"`;
const responsesWire: SseMessage[] = [
  responsesEvent('response.created', seq(), responseBody('in_progress', '')),
  responsesEvent('response.in_progress', seq(), responseBody('in_progress', '')),
  responsesEvent('response.output_item.added', seq(), '"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}'),
  responsesEvent('response.reasoning_summary_part.added', seq(), '"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}'),
  ...['think', 'ing', ...tricky, 'more', 'and more'].map((text, index) => summaryDelta(seq(), text, `,${obfuscation(index)}`)),
  responsesEvent('response.output_item.done', seq(), `"output_index":0,"item":${reasoningItem}`),
  responsesEvent('response.output_item.added', seq(), '"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}'),
  responsesEvent('response.content_part.added', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}'),
  ...['Hello', ' there', ...tricky, '!', ' é', ''].map((text, index) => textDelta(seq(), text, `,"logprobs":[],${obfuscation(index)}`)),
  // A blank, another key order, no obfuscation, a plain one again.
  responsesEvent('response.output_text.delta', seq(), `"item_id":"msg_1","output_index":1,"content_index":0,"delta": "blank","logprobs":[],${obfuscation(1)}`),
  responsesEvent('response.output_text.delta', seq(), `"item_id":"msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":"reordered",${obfuscation(2)}`),
  textDelta(seq(), 'no obfuscation'),
  textDelta(seq(), 'plain again', `,"logprobs":[],${obfuscation(3)}`),
  responsesEvent('response.output_text.done', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"text":"t","logprobs":[]'),
  responsesEvent('response.content_part.done', seq(), '"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"t","annotations":[]}'),
  responsesEvent('response.output_item.done', seq(), `"output_index":1,"item":${messageItem}`),
  responsesEvent('response.output_item.added', seq(), '"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"f"}'),
  ...['{\\"a\\"', ':', '1', ',\\"b\\":', '2', '}'].map((text, index) => argumentsDelta(seq(), text, `,${obfuscation(index)}`)),
  responsesEvent('response.function_call_arguments.done', seq(), '"item_id":"fc_1","output_index":2,"arguments":"{}"'),
  responsesEvent('response.output_item.done', seq(), `"output_index":2,"item":${callItem}`),
  responsesEvent('response.completed', seq(), responseBody('completed', `${reasoningItem},${messageItem},${callItem}`)),
];

/** An Ollama `/api/generate` line. */
const generateLine = (fields: string, createdAt = 't1'): SseMessage => ({ data: `{"model":"m","created_at":"${createdAt}",${fields},"done":false}` });
const ollamaGenerate: SseMessage[] = [
  generateLine('"response":"","thinking":"think"'),
  generateLine('"response":"","thinking":"more"', 't2'),
  generateLine('"response":"","thinking":""', 't3'),
  generateLine('"response":"text"', 't4'),
  generateLine('"response":"more text"', 't5'),
  generateLine('"response":"with thinking","thinking":""', 't6'),
  generateLine('"response":"again","thinking":""', 't7'),
  generateLine('"response":""', 't8'),
  { data: '{"model":"m","created_at":"t9","response":"","done":true,"done_reason":"stop"}' },
];

const sources: [FormatId, SseMessage[]][] = [
  ['anthropic', anthropic],
  ['openai-chat', chat],
  ['openai-chat', chatObfuscated],
  ['openai-chat', chatChanging],
  ['openai-chat', chatWire],
  ['openai-chat', chatNulls],
  ['gemini', gemini],
  ['gemini', geminiUsage],
  ['bedrock-converse', bedrock],
  ['bedrock-converse', bedrockFailing],
  ['openai-responses', responses],
  ['openai-responses', responsesSame],
  ['openai-responses', responsesWire],
  ['ollama', ollama],
  ['ollama', ollamaGenerate],
];

/** The IR events (and losses) of the decoder of `from` for `to`, every event parsed or, with `text`, offered by its text first; a throw ends it. */
function decoded(messages: SseMessage[], from: FormatId, to: FormatId, text: boolean): { events: (StreamEvent | { thrown: string })[]; losses: Loss[] } {
  const losses = new LossCollector();
  const decoder = codecFor(from).createStreamDecoder!({ losses, target: to, model: 'm' });
  const events: (StreamEvent | { thrown: string })[] = [];
  try {
    for (const message of messages) {
      const byText = text ? decoder.decodeText?.(message.data, message.event) : undefined;
      if (byText !== undefined) {
        events.push(...byText);
        continue;
      }
      const wire = wireEventOf(message.data, message.event);
      events.push(...decoder.decode(wire));
      decoder.learn?.(message.data, wire);
    }
    events.push(...decoder.flush());
  } catch (error) {
    events.push({ thrown: String(error) });
  }
  // Key order too: an encoder may write hints as they are.
  return { events: JSON.parse(JSON.stringify(events)) as StreamEvent[], losses: losses.losses };
}

for (const [number, [from, messages]] of sources.entries()) {
  for (const to of streamingFormats()) {
    test(`${from} (${number}) → ${to}: the same bytes and losses as with every event parsed`, () => {
      for (const whole of [false, true]) assert.equal(converted(messages, from, to, whole), converted(messages, parsingOnly(from), to, whole));
      // The same IR events, hints included (some only an encoder of the source format reads).
      const byText = decoded(messages, from, to, true);
      const parsed = decoded(messages, from, to, false);
      assert.equal(byText, parsed);
      assert.is(JSON.stringify(byText), JSON.stringify(parsed));
      // The text path is taken (but for a trip back to Chat of chunks that differ from the builder's in their nulls).
      const counter = { count: 0 };
      converted(messages, counting(from, counter), to, false);
      if (process.env['COUNTS'] !== undefined) console.log(`\n${from} (${number}) → ${to}: ${counter.count}`);
      if (messages === chatNulls && to === from) assert.is(counter.count, 0);
      else assert.ok(counter.count >= 3, `${counter.count} events recognised`);
    });
  }
}

/** The Responses codec, counting the events its stream encoder writes as their text came (in `counter.count`). */
function keepingCount(counter: { count: number }): Codec {
  const codec = codecFor('openai-responses');
  return {
    ...codec,
    createStreamEncoder(context) {
      const encoder = codec.createStreamEncoder!(context);
      return {
        encode: (event) => encoder.encode(event),
        flush: () => encoder.flush(),
        encodeText(event, data, check) {
          const message = encoder.encodeText!(event, data, check);
          if (message !== undefined) {
            assert.is(message.data, data);
            counter.count++;
          }
          return message;
        },
      };
    },
  };
}

test('a trip back to Responses writes the plain deltas it recognised as they came, and only then', () => {
  const framing = framingFor('openai-responses');
  const chunks = [framing.write(responsesWire)];
  const counter = { count: 0 };
  const codec = keepingCount(counter);
  const kept = convertedChunks(chunks, codec, codec);
  assert.equal(kept, converted(responsesWire, parsingOnly('openai-responses'), 'openai-responses', true));
  // Of 31 deltas, 17: not the first of each kind (parsed, learned), the 7 with an escape and the blank (encoded), the other
  // key order and the one without obfuscation (parsed: other templates), the empty reasoning delta (parsed: no usual event).
  assert.is(counter.count, 17);
  // Not when the events are rewritten on the way (nor for a dialect): the encoder writes them.
  counter.count = 0;
  const transcoder = createTranscoder({ from: codec, to: codec, mapEvent: (event) => (event.type === 'text_delta' ? { ...event, text: event.text.toUpperCase() } : event) });
  const text = new TextDecoder().decode(transcoder.push(chunks[0]!));
  assert.is(counter.count, 0);
  assert.ok(text.includes('"delta":" THERE"'));
  // Nor for the other format's encoder.
  const other = createTranscoder({ from: codec, to: 'openai-responses' });
  other.push(chunks[0]!);
  assert.is(counter.count, 0);
});

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
  templates.learn(data, undefined, [{ kind: 'read', value: 'hello' }], (value, [probe]) => ((value as { b: unknown }).b === probe ? 'b' : undefined));
  assert.equal(templates.read('{"a":1,"b":"bye","c":[true]}', undefined), ['bye']);
  assert.is(templates.shape, 'b');
  assert.equal(templates.read('{"a":1,"b":"\\u0062ye \\"x\\"","c":[true]}', undefined), ['bye "x"']);
  assert.equal(templates.read('{"a":1,"b": "spaced" ,"c":[true]}', undefined), ['spaced']);
  assert.is(templates.read('{"a":1,"b":"x","y":"z","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"x" "c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":1,"c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":2,"b":"bye","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"bye","c":[true]}', 'named'), undefined);
  // Not one JSON string token: a raw control character, a bad escape, an unterminated string.
  assert.is(templates.read('{"a":1,"b":"x\ty","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"x\\qy","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"\\u00","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":"x\\","c":[true]}', undefined), undefined);
  assert.is(templates.read('{"a":1,"b":,"c":[true]}', undefined), undefined);
  // A second, ignored string after the first.
  const two = new DataTemplates<string>();
  const both = (value: unknown, [probe, other]: readonly (string | number | undefined)[]) =>
    (value as { a: unknown }).a === probe && (value as { b: unknown }).b === other ? 'a' : undefined;
  two.learn('{"a":"x","b":"y","c":1}', undefined, [{ kind: 'read', value: 'x' }, { kind: 'string', value: 'y' }], both);
  assert.equal(two.read('{"a":"new","b":"pad","c":1}', undefined), ['new']);
  assert.equal(two.read('{"a":"n\\"ew","b":"p\\"ad","c":1}', undefined), ['n"ew']);
  assert.is(two.read('{"a":"x","b":"y","d":"z","c":1}', undefined), undefined);
  assert.is(two.read('{"a":"x","b":2,"c":1}', undefined), undefined);
  assert.is(two.read('{"a":"x","b":"y","c":2}', undefined), undefined);
  assert.is(two.read('{"a":"x","b":"\\x","c":1}', undefined), undefined);
  // A string that occurs twice says nothing of where the slot is.
  const twice = new DataTemplates<string>();
  twice.learn('{"a":"x","b":"x"}', undefined, [{ kind: 'read', value: 'x' }], () => 'b');
  assert.is(twice.read('{"a":"x","b":"y"}', undefined), undefined);
  // The decoder's check sees where the probe landed.
  const wrong = new DataTemplates<string>();
  wrong.learn('{"a":"x","b":"y"}', undefined, [{ kind: 'read', value: 'x' }], (value, [probe]) => ((value as { b: unknown }).b === probe ? 'b' : undefined));
  assert.is(wrong.read('{"a":"z","b":"y"}', undefined), undefined);
});

test('a number slot takes one plain integer; string slots before and after it are read in the order given', () => {
  const templates = new DataTemplates<true>();
  const data = '{"type":"d","seq":5003,"at":"t1","delta":"hello","pad":"xy"}';
  const slots = [
    { kind: 'read', value: 'hello' },
    { kind: 'number', value: 5003 },
    { kind: 'read', value: 't1' },
    { kind: 'string', value: 'xy' },
  ] as const;
  templates.learn(data, 'e', slots, (value, [delta, seq, at, pad]) => {
    const object = value as Record<string, unknown>;
    return object['delta'] === delta && object['seq'] === seq && object['at'] === at && object['pad'] === pad ? true : undefined;
  });
  const event = (seq: string, delta = '"d"', pad = '"p"') => `{"type":"d","seq":${seq},"at":"t2","delta":${delta},"pad":${pad}}`;
  assert.equal(templates.read(event('5004'), 'e'), ['d', 't2']);
  assert.equal(templates.read(event('0'), 'e'), ['d', 't2']);
  assert.equal(templates.read(event('123456789012345678901234567890'), 'e'), ['d', 't2']);
  assert.equal(templates.read(event(' 7 '), 'e'), ['d', 't2']);
  assert.equal(templates.read(event('7', '"\\u0041\\n"'), 'e'), ['A\n', 't2']);
  // Anything but one plain integer is left to the parser.
  for (const seq of ['"7"', '1e5', '1E5', '-0', '-1', '01', '00', '1.0', '1.', '.5', '', ' ', '+1', 'null', 'true', '[1]', '7 8', '0x1', 'NaN', 'Infinity']) {
    assert.is(templates.read(event(seq), 'e'), undefined, seq);
  }
  assert.is(templates.read(event('7', '1'), 'e'), undefined);
  assert.is(templates.read(event('7', '"d"', '1'), 'e'), undefined);
  assert.is(templates.read(event('7', '"d"', '"a\\"'), 'e'), undefined);
  assert.is(templates.read(event('7'), undefined), undefined);
  // The number's text must be a whole token (not a piece of a string or of a longer number), and a number probe where the decoder looks.
  const inString = new DataTemplates<true>();
  inString.learn('{"id":"m5","n":"x"}', undefined, [{ kind: 'number', value: 5 }, { kind: 'read', value: 'x' }], () => true);
  assert.is(inString.read('{"id":"m6","n":"y"}', undefined), undefined);
  const longer = new DataTemplates<true>();
  longer.learn('{"a":5.5,"n":"x"}', undefined, [{ kind: 'number', value: 5 }, { kind: 'read', value: 'x' }], () => true);
  assert.is(longer.read('{"a":6.5,"n":"y"}', undefined), undefined);
  const elsewhere = new DataTemplates<true>();
  elsewhere.learn('{"a":5,"b":5.0,"n":"x"}', undefined, [{ kind: 'number', value: 5 }, { kind: 'read', value: 'x' }], (value, [seq]) =>
    (value as { b: unknown }).b === seq ? true : undefined,
  );
  assert.is(elsewhere.read('{"a":6,"b":5.0,"n":"y"}', undefined), undefined);
  // Only integers a stream counts with: not negative, not fractional.
  const fraction = new DataTemplates<true>();
  fraction.learn('{"a":0.5,"n":"x"}', undefined, [{ kind: 'number', value: 0.5 }, { kind: 'read', value: 'x' }], () => true);
  assert.is(fraction.read('{"a":0.5,"n":"y"}', undefined), undefined);
  // Slots whose texts overlap, or that hold the probe already, teach nothing.
  const overlap = new DataTemplates<true>();
  overlap.learn('{"a":"x","n":1}', undefined, [{ kind: 'read', value: 'x' }, { kind: 'string', value: 'x' }], () => true);
  assert.is(overlap.read('{"a":"y","n":1}', undefined), undefined);
  const probed = new DataTemplates<true>();
  probed.learn('{"a":"x","n":"\\u0001interlingua-slot-1"}', undefined, [{ kind: 'read', value: 'x' }], () => true);
  assert.is(probed.read('{"a":"y","n":"\\u0001interlingua-slot-1"}', undefined), undefined);
  const learned = new DataTemplates<true>();
  learned.learn('{"a":"x","n":1}', undefined, [{ kind: 'read', value: 'x' }], () => true);
  assert.equal(learned.read('{"a":"y","n":1}', undefined), ['y']);
});

test('a read number slot gives its plain integer text, in the order given with the read strings', () => {
  const templates = new DataTemplates<true>();
  const slots = [
    { kind: 'read', value: 'hello' },
    { kind: 'read-number', value: 5003 },
    { kind: 'number', value: 12 },
  ] as const;
  templates.learn('{"seq":5003,"delta":"hello","at":12}', 'e', slots, (value, [delta, seq, at]) => {
    const object = value as Record<string, unknown>;
    return object['delta'] === delta && object['seq'] === seq && object['at'] === at ? true : undefined;
  });
  const event = (seq: string, at = '1') => `{"seq":${seq},"delta":"d","at":${at}}`;
  assert.equal(templates.read(event('5004'), 'e'), ['d', '5004']);
  assert.equal(templates.read(event('0'), 'e'), ['d', '0']);
  assert.equal(templates.read(event(' 77 ', '999'), 'e'), ['d', '77']);
  // Its text is what `JSON.parse` reads as that number: `Number` of it, however long.
  const long = '123456789012345678901234567890';
  const [, text] = templates.read(event(long), 'e')!;
  assert.is(Number(text), (JSON.parse(event(long)) as { seq: number }).seq);
  for (const seq of ['"7"', '1e5', '-0', '-1', '01', '1.0', '', 'null', '7 8']) assert.is(templates.read(event(seq), 'e'), undefined, seq);
  // Like an ignored number, a whole token only, where the decoder reads it.
  const inString = new DataTemplates<true>();
  inString.learn('{"id":"m5","n":"x"}', undefined, [{ kind: 'read-number', value: 5 }, { kind: 'read', value: 'x' }], () => true);
  assert.is(inString.read('{"id":"m6","n":"y"}', undefined), undefined);
  const negative = new DataTemplates<true>();
  negative.learn('{"a":-5,"n":"x"}', undefined, [{ kind: 'read-number', value: -5 }, { kind: 'read', value: 'x' }], () => true);
  assert.is(negative.read('{"a":-5,"n":"y"}', undefined), undefined);
});

test('a template whose text ends in closing brackets takes any blanks between them', () => {
  const templates = new DataTemplates<true>();
  const usual = (value: unknown, [probe]: readonly (string | number | undefined)[]) => ((value as { d: { t: unknown } }).d.t === probe ? true : undefined);
  templates.learn('{"d":{"t":"a"}   }', undefined, [{ kind: 'read', value: 'a' }], usual);
  for (const tail of ['}}', '} }', '}\t\n}', '}}  ', ' }   } ']) assert.equal(templates.read(`{"d":{"t":"b"${tail}`, undefined), ['b'], tail);
  for (const tail of ['}', '}}}', '} x }', '}]}', ']}', '}},']) assert.is(templates.read(`{"d":{"t":"b"${tail}`, undefined), undefined, tail);
  // A last segment with anything but brackets is compared as it is.
  const keyed = new DataTemplates<true>();
  keyed.learn('{"d":{"t":"a"},"e":1}', undefined, [{ kind: 'read', value: 'a' }], usual);
  assert.equal(keyed.read('{"d":{"t":"b"},"e":1}', undefined), ['b']);
  assert.is(keyed.read('{"d":{"t":"b"}, "e":1}', undefined), undefined);
});

test('a number slot is placed at its one whole token, and an optional one stays literal where its count is written twice', () => {
  const usual = (value: unknown, probes: readonly (string | number | undefined)[]): true | undefined => {
    const object = value as Record<string, unknown>;
    return object['text'] === probes[0] && object['out'] === (probes[1] ?? 43) && object['total'] === (probes[2] ?? 7) ? true : undefined;
  };
  const slots = [
    { kind: 'read', value: 'hi' },
    { kind: 'read-number', value: 43, optional: true },
    { kind: 'read-number', value: 7, optional: true },
  ] as const;
  // 43 also stands inside "143" and the id: its one whole token is the count. 7 is written twice: it stays literal.
  const templates = new DataTemplates<true>();
  templates.learn('{"id":"r43","text":"hi","in":7,"out":43,"total":7,"n":143}', undefined, slots, usual);
  assert.equal(templates.read('{"id":"r43","text":"yo","in":7,"out":50,"total":7,"n":143}', undefined), ['yo', '50', undefined]);
  assert.is(templates.read('{"id":"r43","text":"yo","in":7,"out":50,"total":8,"n":143}', undefined), undefined);
  // Not optional: no template.
  const strict = new DataTemplates<true>();
  strict.learn('{"id":"r43","text":"hi","in":7,"out":43,"total":7,"n":143}', undefined, [slots[0], { kind: 'read-number', value: 43 }, { kind: 'read-number', value: 7 }], usual);
  assert.is(strict.read('{"id":"r43","text":"yo","in":7,"out":50,"total":7,"n":143}', undefined), undefined);
  // A whole-looking token inside a string is refused by the probe.
  const inText = new DataTemplates<true>();
  inText.learn('{"text":"hi","note":"a 43 b","out":1,"total":7}', undefined, [slots[0], { kind: 'read-number', value: 43, optional: true }], (value, probes) =>
    (value as Record<string, unknown>)['out'] === probes[1] ? true : undefined,
  );
  assert.is(inText.read('{"text":"yo","note":"a 44 b","out":1,"total":7}', undefined), undefined);
});

test.run();
