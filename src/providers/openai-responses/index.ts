/**
 * The OpenAI Responses codec (`POST /v1/responses`): requests, responses and
 * error bodies ⇄ the IR.
 *
 * @see https://platform.openai.com/docs/api-reference/responses
 */
import type { Codec } from '../../core/codec.ts';
import { openaiResponsesTokenCount } from './token-count.ts';
import { decodeOpenaiResponsesError, encodeOpenaiResponsesError } from './error.ts';
import { decodeOpenaiResponsesRequest, encodeOpenaiResponsesRequest } from './request.ts';
import { decodeOpenaiResponsesResponse, encodeOpenaiResponsesResponse } from './response.ts';
import { FORMAT } from './shape.ts';
import { createOpenaiResponsesStreamDecoder, createOpenaiResponsesStreamEncoder } from './stream.ts';

/** The openai-responses codec. */
export const openaiResponsesCodec: Codec = {
  format: FORMAT,
  createStreamDecoder: createOpenaiResponsesStreamDecoder,
  createStreamEncoder: createOpenaiResponsesStreamEncoder,
  decodeRequest: decodeOpenaiResponsesRequest,
  encodeRequest: encodeOpenaiResponsesRequest,
  decodeResponse: decodeOpenaiResponsesResponse,
  encodeResponse: encodeOpenaiResponsesResponse,
  decodeError: decodeOpenaiResponsesError,
  encodeError: encodeOpenaiResponsesError,
  tokenCount: openaiResponsesTokenCount,
};

/** The codec's functions one by one, for the leanest bundles: `convertRequest(body, { from: { decodeRequest: decodeOpenaiResponsesRequest }, to: … })` from `interlingua/core`. */
export { decodeOpenaiResponsesRequest, encodeOpenaiResponsesRequest } from './request.ts';
export { decodeOpenaiResponsesResponse, encodeOpenaiResponsesResponse } from './response.ts';
export { decodeOpenaiResponsesError, encodeOpenaiResponsesError } from './error.ts';
export { createOpenaiResponsesStreamDecoder, createOpenaiResponsesStreamEncoder } from './stream.ts';
export { openaiResponsesTokenCount } from './token-count.ts';
