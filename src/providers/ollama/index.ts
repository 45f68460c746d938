/**
 * The Ollama `/api/chat` codec (and `/api/generate` bodies). Streams are
 * newline-delimited JSON.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md
 */
import type { Codec } from '../../core/codec.ts';
import { ndjsonFraming } from '../../core/framing.ts';
import { decodeOllamaError, encodeOllamaError } from './error.ts';
import { decodeOllamaRequest, encodeOllamaRequest } from './request.ts';
import { decodeOllamaResponse, encodeOllamaResponse } from './response.ts';
import { createOllamaStreamDecoder, createOllamaStreamEncoder } from './stream.ts';

/** The ollama codec: chat requests, responses, error bodies and NDJSON streams. */
export const ollamaCodec: Codec = {
  format: 'ollama',
  decodeRequest: decodeOllamaRequest,
  encodeRequest: encodeOllamaRequest,
  decodeResponse: decodeOllamaResponse,
  encodeResponse: encodeOllamaResponse,
  decodeError: decodeOllamaError,
  encodeError: encodeOllamaError,
  createStreamDecoder: createOllamaStreamDecoder,
  createStreamEncoder: createOllamaStreamEncoder,
  streamFraming: ndjsonFraming,
};

/** The codec's functions one by one, for the leanest bundles: `convertRequest(body, { from: { decodeRequest: decodeOllamaRequest }, to: … })` from `interlingua/core`. */
export { decodeOllamaRequest, encodeOllamaRequest } from './request.ts';
export { decodeOllamaResponse, encodeOllamaResponse } from './response.ts';
export { decodeOllamaError, encodeOllamaError } from './error.ts';
export { createOllamaStreamDecoder, createOllamaStreamEncoder } from './stream.ts';
