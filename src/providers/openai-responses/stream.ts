/**
 * OpenAI Responses streaming: the decoder (wire events → IR events) and the
 * encoder (IR events → SSE messages), each in its own file; what they share
 * (hints, item builders) is in stream-event.ts.
 *
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export { createOpenaiResponsesStreamDecoder } from './stream-decode.ts';
export { createOpenaiResponsesStreamEncoder } from './stream-encode.ts';
