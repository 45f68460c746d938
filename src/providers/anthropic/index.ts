/**
 * The Anthropic Messages codec.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
import type { Codec } from '../../core/codec.ts';
import { anthropicTokenCount } from './token-count.ts';
import { decodeAnthropicError, encodeAnthropicError } from './error.ts';
import { decodeAnthropicRequest, encodeAnthropicRequest } from './request.ts';
import { decodeAnthropicResponse, encodeAnthropicResponse } from './response.ts';
import { createAnthropicStreamDecoder, createAnthropicStreamEncoder } from './stream.ts';

/** Decode and encode Anthropic Messages requests, responses and error bodies. */
export const anthropicCodec: Codec = {
  format: 'anthropic',
  decodeRequest: decodeAnthropicRequest,
  encodeRequest: encodeAnthropicRequest,
  decodeResponse: decodeAnthropicResponse,
  encodeResponse: encodeAnthropicResponse,
  decodeError: decodeAnthropicError,
  encodeError: encodeAnthropicError,
  createStreamDecoder: createAnthropicStreamDecoder,
  createStreamEncoder: createAnthropicStreamEncoder,
  tokenCount: anthropicTokenCount,
};

/** The codec's functions one by one, for the leanest bundles: `convertRequest(body, { from: { decodeRequest: decodeAnthropicRequest }, to: … })` from `interlingua/core`. */
export { decodeAnthropicRequest, encodeAnthropicRequest } from './request.ts';
export { decodeAnthropicResponse, encodeAnthropicResponse } from './response.ts';
export { decodeAnthropicError, encodeAnthropicError } from './error.ts';
export { createAnthropicStreamDecoder, createAnthropicStreamEncoder } from './stream.ts';
export { anthropicTokenCount } from './token-count.ts';
