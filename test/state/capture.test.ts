/**
 * The stamping and capture of a streamed Responses answer
 * (src/state/responses-capture.ts), cut at every byte boundary and at
 * random, through both body kinds (a Web stream and the Node adapter's
 * callback source): the bytes out are the same however they came in, every
 * `response` object is stamped with the same id, the encoder's item ids are
 * made unique, the final event waits for the store, and what is captured is
 * the completed response.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { captureStream, type ResponseStamp } from '../../src/state/responses-capture.ts';
import type { Answer, ByteSource } from '../../src/proxy/exchange.ts';

const test = suite('stream capture');

const events = [
  ['response.created', { type: 'response.created', response: { id: 'msg_01Anthropic', object: 'response', status: 'in_progress', output: [] } }],
  ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_interlingua_0', type: 'message', role: 'assistant', content: [] } }],
  ['response.output_text.delta', { type: 'response.output_text.delta', item_id: 'msg_interlingua_0', output_index: 0, content_index: 0, delta: 'héllo ✓ 🌍' }],
  ['response.completed', { type: 'response.completed', response: { id: 'msg_01Anthropic', object: 'response', status: 'completed', output: [{ id: 'msg_interlingua_0', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'héllo ✓ 🌍' }] }] } }],
] as const;
const TEXT = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
const BYTES = new TextEncoder().encode(TEXT);
const STAMP: ResponseStamp = { id: 'resp_stamped', itemSuffix: 'Unique1', previousResponseId: 'resp_before' };

function chunked(cuts: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, BYTES.length]) {
    chunks.push(BYTES.slice(from, cut));
    from = cut;
  }
  return chunks;
}

function webBody(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

function sourceBody(chunks: readonly Uint8Array[]): ByteSource {
  return {
    start(sink) {
      queueMicrotask(() => {
        for (const chunk of chunks) sink.data(chunk);
        sink.end();
      });
    },
    pause() {},
    resume() {},
    cancel() {},
  };
}

async function readAll(body: Answer['body']): Promise<string> {
  const decoder = new TextDecoder();
  if (body instanceof ReadableStream) {
    let text = '';
    const reader = body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
    return text + decoder.decode();
  }
  const source = body as ByteSource;
  return new Promise((resolve, reject) => {
    let text = '';
    source.start({ data: (chunk) => (text += decoder.decode(chunk, { stream: true })), end: () => resolve(text + decoder.decode()), fail: reject });
  });
}

/** The stream through the capture: the text out, what was captured, and whether the final event came only after the store had settled. */
async function through(chunks: readonly Uint8Array[], kind: 'web' | 'source'): Promise<{ text: string; captured: unknown[]; heldForStore: boolean }> {
  const captured: unknown[] = [];
  let stored = false;
  const answer: Answer = { status: 200, headers: {}, body: kind === 'web' ? webBody(chunks) : sourceBody(chunks) };
  captureStream(answer, STAMP, async (response) => {
    captured.push(structuredClone(response));
    await new Promise((resolve) => setTimeout(resolve, 1));
    stored = true;
    return undefined;
  });
  const text = await readAll(answer.body);
  return { text, captured, heldForStore: stored };
}

/** What the capture should write: each `response` stamped, each encoder item id made unique. */
const EXPECTED = events
  .map(([name, data]) => {
    const stamped = JSON.parse(JSON.stringify(data).replaceAll('"msg_interlingua_0"', '"msg_Unique10"')) as { response?: Record<string, unknown> };
    if (stamped.response !== undefined) Object.assign(stamped.response, { id: 'resp_stamped', previous_response_id: 'resp_before' });
    return `event: ${name}\ndata: ${JSON.stringify(stamped)}\n\n`;
  })
  .join('');

test('one chunk: stamped, captured, the final event after the store', async () => {
  const { text, captured, heldForStore } = await through([BYTES], 'web');
  const completed = (captured[0] as { id: string; previous_response_id: string; output: { id: string }[] });
  assert.equal(captured.length, 1);
  assert.equal(completed.id, 'resp_stamped');
  assert.equal(completed.previous_response_id, 'resp_before');
  assert.equal(completed.output[0]?.id, 'msg_Unique10');
  assert.ok(heldForStore, 'the stream ended only once the record was stored');
  assert.equal(text, EXPECTED);
});

for (const kind of ['web', 'source'] as const) {
  test(`cut at every byte boundary (${kind}): the same bytes out`, async () => {
    const whole = EXPECTED;
    for (let cut = 1; cut < BYTES.length; cut++) {
      const { text, captured } = await through(chunked([cut]), kind);
      assert.equal(text, whole, `cut at ${cut}`);
      assert.equal(captured.length, 1);
    }
  });

  test(`cut at random into many pieces (${kind}): the same bytes out`, async () => {
    const whole = EXPECTED;
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const cuts = [...new Set(Array.from({ length: 1 + Math.floor(next() * 20) }, () => 1 + Math.floor(next() * (BYTES.length - 1))))].sort((a, b) => a - b);
      assert.equal((await through(chunked(cuts), kind)).text, whole, `cuts ${cuts.join(',')}`);
    }
  });
}

test.run();
