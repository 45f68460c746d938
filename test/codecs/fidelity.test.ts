/**
 * Fidelity classes that more recorded traffic caught (issue 39), each with a
 * payload written in the vendor's documented shape: what the source vendor
 * accepts must reach the target as something the target's spec accepts,
 * with a loss for what changes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { convertRequest } from '../../src/index.ts';
import type { FormatId } from '../../src/index.ts';
import { SpecValidators } from '../support/spec-schemas.ts';

const test = suite('fidelity');
const validators = new SpecValidators();
const MODEL = 'model-under-test';

/** The spec errors of a converted body, for the targets that have a spec. */
function specErrors(format: FormatId, kind: 'request' | 'response', body: unknown): string {
  if (!['anthropic', 'openai-chat', 'openai-responses', 'gemini'].includes(format)) return '[]';
  return JSON.stringify(validators.validate(format, kind, body) ?? []);
}

// 1. Media encodings. Gemini's `Blob.data` is proto `bytes`, which the proto3
// JSON parser takes in "either standard or URL-safe base64 encoding
// with/without paddings" (https://protobuf.dev/programming-guides/json/);
// Anthropic's `source.data` is `format: byte` (standard base64, RFC 4648 §4:
// test/corpus/spec/tryAGI-Anthropic--openapi.yaml `Base64ImageSource`).
// 0xfb 0xff 0xfe… encodes to `+//+` in the standard alphabet, `-__-` URL-safe.
const URL_SAFE_PNG = 'iVBORw0KGgoA-__-AAAA_w';
const STANDARD_PNG = 'iVBORw0KGgoA+//+AAAA/w==';
const geminiImage = {
  contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: URL_SAFE_PNG } }] }],
};

test('1. URL-safe base64 from Gemini becomes standard base64 (alphabet and padding) for every other target; Gemini gets it back as it came', () => {
  const find = (body: unknown): string[] => JSON.stringify(body).match(/iVBORw0KGgo[^"]*/g) ?? [];
  for (const to of ['anthropic', 'openai-chat', 'openai-responses', 'bedrock-converse', 'ollama'] as const) {
    const { body } = convertRequest(geminiImage, { from: 'gemini', to, model: MODEL });
    assert.equal(find(body), [STANDARD_PNG], to);
    assert.is(specErrors(to, 'request', body), '[]', to);
  }
  const { body } = convertRequest(geminiImage, { from: 'gemini', to: 'gemini', model: MODEL });
  assert.equal(find(body), [URL_SAFE_PNG]);
  // Standard base64 is passed on as the very string it was.
  const standard = { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: STANDARD_PNG } }] }] };
  const anthropic = convertRequest(standard, { from: 'gemini', to: 'anthropic', model: MODEL }).body as { messages: [{ content: [{ source: { data: string } }] }] };
  assert.is(anthropic.messages[0].content[0].source.data, STANDARD_PNG);
});

test.run();
