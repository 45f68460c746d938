/**
 * The Google Gemini `generateContent` codec.
 * @see https://ai.google.dev/api/generate-content
 */
import type { Codec } from '../../core/codec.ts';
import { geminiTokenCount } from './token-count.ts';
import { decodeGeminiRequest, encodeGeminiRequest } from './request.ts';
import { decodeGeminiResponse, encodeGeminiResponse } from './response.ts';
import { decodeGeminiError, encodeGeminiError } from './error.ts';
import { createGeminiStreamDecoder, createGeminiStreamEncoder } from './stream.ts';

export { geminiSchemaToJsonSchema, jsonSchemaToGeminiSchema } from './schema.ts';

/** The gemini codec: requests, whole responses and error bodies. */
export const geminiCodec: Codec = {
  format: 'gemini',
  decodeRequest: decodeGeminiRequest,
  encodeRequest: encodeGeminiRequest,
  decodeResponse: decodeGeminiResponse,
  encodeResponse: encodeGeminiResponse,
  decodeError: decodeGeminiError,
  encodeError: encodeGeminiError,
  createStreamDecoder: createGeminiStreamDecoder,
  createStreamEncoder: createGeminiStreamEncoder,
  tokenCount: geminiTokenCount,
};

/** The codec's functions one by one, for the leanest bundles: `convertRequest(body, { from: { decodeRequest: decodeGeminiRequest }, to: … })` from `interlingua/core`. */
export { decodeGeminiRequest, encodeGeminiRequest } from './request.ts';
export { decodeGeminiResponse, encodeGeminiResponse } from './response.ts';
export { decodeGeminiError, encodeGeminiError } from './error.ts';
export { createGeminiStreamDecoder, createGeminiStreamEncoder } from './stream.ts';
export { geminiTokenCount } from './token-count.ts';
