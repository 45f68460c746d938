/**
 * The stream writers' output chunks: small ones are views of a shared slab
 * (src/core/output-bytes.ts). Each chunk keeps its own bytes whatever comes
 * after it, and a consumer that transfers a chunk's buffer does not break
 * the chunks written after that.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claim, reserve, utf8Bytes } from '../../src/core/output-bytes.ts';
import { convertStream } from '../../src/formats/stream.ts';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

test('chunks keep their own bytes: no overlap, whatever is written next', () => {
  const inputs = ['data: {"a":1}\n\n', 'é😀 and "quotes"\n', '', 'x'.repeat(1500), 'y'.repeat(5000), '\ud800 lone'];
  const chunks = [];
  for (let round = 0; round < 200; round++) for (const input of inputs) chunks.push({ input, bytes: utf8Bytes(`${round}:${input}`) });
  for (const { input, bytes } of chunks.slice(-inputs.length)) assert.is(text(bytes), `199:${input}`.replace('\ud800', '\ufffd'));
  for (let index = 0; index < chunks.length; index++) {
    const { input, bytes } = chunks[index]!;
    assert.is(text(bytes), `${Math.floor(index / inputs.length)}:${input}`.replace('\ud800', '\ufffd'));
    assert.is(bytes.byteLength, new TextEncoder().encode(`${Math.floor(index / inputs.length)}:${input}`).byteLength);
  }
});

test('large chunks have a buffer of their own, exactly their size, also from the framing writers', () => {
  const large = utf8Bytes(`数据 ${'z'.repeat(3000)}`);
  const framed = reserve(20_000);
  const written = new TextEncoder().encodeInto('y'.repeat(6000), framed).written;
  const claimed = claim(framed, written);
  const after = utf8Bytes('w'.repeat(9000));
  for (const [bytes, length] of [[large, 3007], [claimed, 6000], [after, 9000]] as const) {
    assert.is(bytes.byteLength, length);
    assert.is(bytes.byteOffset, 0);
    assert.is(bytes.buffer.byteLength, length);
  }
  assert.is(text(large), `数据 ${'z'.repeat(3000)}`);
  assert.is(text(claimed), 'y'.repeat(6000));
});

test('a chunk whose buffer was transferred away: the next chunks are written whole', () => {
  const first = utf8Bytes('first chunk');
  const offset = first.byteOffset;
  const moved = structuredClone(first.buffer, { transfer: [first.buffer] });
  assert.is(first.byteLength, 0, 'the slab is detached');
  assert.is(text(new Uint8Array(moved, offset, 11)), 'first chunk');
  const next = utf8Bytes('next chunk');
  assert.is(text(next), 'next chunk');
  const room = reserve(40);
  assert.is(text(claim(room, new TextEncoder().encodeInto('framed', room).written)), 'framed');
});

test('convertStream output chunks read through their own view only, also after a transfer', async () => {
  const events = ['{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}'];
  events.push('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
  for (let index = 0; index < 50; index++) events.push(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w${index} "}}`);
  events.push('{"type":"content_block_stop","index":0}', '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":50}}', '{"type":"message_stop"}');
  const sse = events.map((data) => `event: ${JSON.parse(data).type}\ndata: ${data}\n\n`);
  const source = () => {
    let index = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (index < sse.length) controller.enqueue(new TextEncoder().encode(sse[index++]!));
        else controller.close();
      },
    });
  };
  const read = async (transfer: boolean): Promise<string> => {
    const reader = convertStream(source(), { from: 'anthropic', to: 'openai-chat' }).getReader();
    let out = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out += text(value);
      if (transfer) structuredClone(value.buffer, { transfer: [value.buffer] });
    }
  };
  const kept = await read(false);
  assert.ok(kept.includes('"content":"w49 "'));
  assert.is(await read(true), kept);
});

test.run();
