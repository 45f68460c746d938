/**
 * The AWS Bedrock Converse codec (`POST /model/{modelId}/converse` and
 * `/converse-stream`). The model id lives in the URL: `context.model`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
import type { Codec } from '../../core/codec.ts';
import { bedrockConverseTokenCount } from './token-count.ts';
import { decodeBedrockRequest, encodeBedrockRequest } from './request.ts';
import { decodeBedrockResponse, encodeBedrockResponse } from './response.ts';
import { bedrockErrorFromHeaders, bedrockErrorHeaders, decodeBedrockError, encodeBedrockError } from './error.ts';
import { createBedrockStreamDecoder } from './stream-decode.ts';
import { createBedrockStreamEncoder } from './stream-encode.ts';
import { eventStreamFraming } from './framing.ts';

export { eventStreamFraming } from './framing.ts';
export { bedrockErrorFromHeaders, bedrockErrorHeaders, bedrockErrorName, bedrockErrorStatus, bedrockExceptionName, ERROR_TYPE_HEADER } from './error.ts';

/** The bedrock-converse codec. */
export const bedrockConverseCodec: Codec = {
  format: 'bedrock-converse',
  decodeRequest: decodeBedrockRequest,
  encodeRequest: encodeBedrockRequest,
  decodeResponse: decodeBedrockResponse,
  encodeResponse: encodeBedrockResponse,
  decodeError: decodeBedrockError,
  encodeError: encodeBedrockError,
  createStreamDecoder: createBedrockStreamDecoder,
  createStreamEncoder: createBedrockStreamEncoder,
  streamFraming: eventStreamFraming,
  errorHeaders: bedrockErrorHeaders,
  errorFromAnswer: bedrockErrorFromHeaders,
  tokenCount: bedrockConverseTokenCount,
};
export { bedrockConverseTokenCount } from './token-count.ts';
