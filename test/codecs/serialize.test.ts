/**
 * stringifyBody: bodies with large base64 data URLs (OpenAI Chat and
 * Responses images and files) are written with the data spliced in apart,
 * and the text is exactly what JSON.stringify writes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest } from '../../src/formats/convert.ts';
import { bodyText, markPieces, piecesMark, setDataUrl, stringifyBody } from '../../src/core/serialize.ts';
import { proxyBodies } from '../support/serialize-bodies.ts';

test('a converted request with a large image: the same text as JSON.stringify, to every format, with the base64 apart', () => {
  for (const { name, text } of proxyBodies()) {
    for (const from of ['anthropic', 'openai-chat'] as const) {
      const source = from === 'anthropic' ? text : stringifyBody(convertRequest(text, { from: 'anthropic', to: from }).body);
      for (const to of ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock-converse'] as const) {
        const { body } = convertRequest(source, { from, to });
        const written = stringifyBody(body);
        assert.is(written, JSON.stringify(body), `${name}, ${from} → ${to}`);
        assert.ok(Array.isArray(bodyText(body)), `${name}, ${from} → ${to}: the base64 is written apart`);
        if (to === 'openai-chat' || to === 'openai-responses') assert.ok(written.includes(';base64,'), `${name} → ${to}: the data URL is written`);
      }
    }
  }
});

test('an Ollama generate body keeps its large images apart too, and its text is JSON.stringify\'s', () => {
  const data = Buffer.alloc(96 * 1024, 5).toString('base64');
  const text = JSON.stringify({ model: 'm', prompt: 'what?', images: [data, data], stream: false });
  const { body } = convertRequest(text, { from: 'ollama', to: 'ollama' });
  assert.ok(Array.isArray(bodyText(body)));
  assert.is(stringifyBody(body), JSON.stringify(body));
  assert.is(stringifyBody(body), text);
});

test('bodyText: the data of each large data URL stands alone between the rest of the text, and the pieces join to JSON.stringify', () => {
  for (const { name, text } of proxyBodies()) {
    const { body } = convertRequest(text, { from: 'anthropic', to: 'openai-chat' });
    const pieces = bodyText(body);
    assert.ok(Array.isArray(pieces), name);
    assert.is((pieces as string[]).join(''), JSON.stringify(body), name);
    const data = (JSON.parse(text) as { messages: { content: { source?: { data: string } }[] }[] }).messages[0]!.content.filter((block) => block.source !== undefined).map((block) => block.source!.data);
    // Text, data, text, data, …, text.
    assert.equal((pieces as string[]).filter((_, index) => index % 2 === 1), data, name);
  }
  assert.is(bodyText({ a: 'x'.repeat(100_000) }), JSON.stringify({ a: 'x'.repeat(100_000) }));
});

test('data that JSON must escape is written the ordinary way', () => {
  const holder: Record<string, unknown> = {};
  const data = `${'A'.repeat(70_000)}"\\\u0001${'B'.repeat(10)}`;
  const mark = piecesMark();
  setDataUrl(holder, 'url', 'data:image/png;base64,', data);
  const body = markPieces({ model: 'm', image: holder }, mark);
  assert.is(stringifyBody(body), JSON.stringify(body));
  assert.equal(JSON.parse(stringifyBody(body)), body);
});

test('each character JSON escapes, alone at the end of large data, is written as JSON.stringify writes it', () => {
  const specials = ['"', '\\', '\ud800', '\udfff', '\ud83d\ude00', '\u007f', '\u00e9'];
  for (let code = 0; code < 32; code++) specials.push(String.fromCharCode(code));
  for (const special of specials) {
    const holder: Record<string, unknown> = {};
    const mark = piecesMark();
    setDataUrl(holder, 'url', 'data:image/png;base64,', `${'A'.repeat(70_000)}${special}`);
    const body = markPieces({ image: holder }, mark);
    assert.is(stringifyBody(body), JSON.stringify(body), `U+${special.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  // The spliced path itself: plain base64 data comes out the same too.
  const holder: Record<string, unknown> = {};
  const mark = piecesMark();
  setDataUrl(holder, 'url', 'data:image/png;base64,', 'QUJD'.repeat(20_000));
  const body = markPieces({ image: holder }, mark);
  assert.is(stringifyBody(body), JSON.stringify(body));
});

test('a value changed after encoding is written as it now is', () => {
  const { body } = convertRequest(proxyBodies()[0]!.text, { from: 'anthropic', to: 'openai-chat' });
  const part = (body as { messages: { content: { image_url?: { url: string } }[] }[] }).messages[0]!.content.find((item) => item.image_url !== undefined)!;
  part.image_url!.url = 'https://example.com/cat.png';
  assert.is(stringifyBody(body), JSON.stringify(body));
});

test('bodies without large data URLs take the plain path', () => {
  for (const body of [{}, [], 'text', 42, null, { a: 'x'.repeat(100_000) }]) assert.is(stringifyBody(body), JSON.stringify(body));
});

test.run();
