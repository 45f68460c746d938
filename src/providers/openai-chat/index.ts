/**
 * The OpenAI Chat Completions codec (`POST /v1/chat/completions`).
 * @see https://platform.openai.com/docs/api-reference/chat
 */
import type { Codec } from '../../core/codec.ts';
import { decodeOpenaiChatError, encodeOpenaiChatError } from './error.ts';
import { decodeOpenaiChatRequest, encodeOpenaiChatRequest } from './request.ts';
import { decodeOpenaiChatResponse, encodeOpenaiChatResponse } from './response.ts';
import { createOpenaiChatStreamDecoder, createOpenaiChatStreamEncoder } from './stream.ts';
import { OPENAI_CHAT_DIALECTS } from './dialects.ts';

export { OPENAI_CHAT_DIALECTS, type OpenaiChatDialect } from './dialects.ts';

/** The openai-chat codec: Chat Completions requests, responses and error bodies. */
export const openaiChatCodec: Codec = {
  format: 'openai-chat',
  decodeRequest: decodeOpenaiChatRequest,
  encodeRequest: encodeOpenaiChatRequest,
  decodeResponse: decodeOpenaiChatResponse,
  encodeResponse: encodeOpenaiChatResponse,
  decodeError: decodeOpenaiChatError,
  encodeError: encodeOpenaiChatError,
  createStreamDecoder: createOpenaiChatStreamDecoder,
  createStreamEncoder: createOpenaiChatStreamEncoder,
  dialects: OPENAI_CHAT_DIALECTS,
};

/** The codec's functions one by one, for the leanest bundles: `convertRequest(body, { from: { decodeRequest: decodeOpenaiChatRequest }, to: … })` from `interlingua/core`. */
export { decodeOpenaiChatRequest, encodeOpenaiChatRequest } from './request.ts';
export { decodeOpenaiChatResponse, encodeOpenaiChatResponse } from './response.ts';
export { decodeOpenaiChatError, encodeOpenaiChatError } from './error.ts';
export { createOpenaiChatStreamDecoder, createOpenaiChatStreamEncoder } from './stream.ts';
