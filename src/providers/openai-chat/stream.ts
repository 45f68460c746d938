/**
 * Chat Completions streaming: `createOpenaiChatStreamDecoder` (chunks → IR
 * stream events) and `createOpenaiChatStreamEncoder` (IR stream events →
 * chunks). See stream-decode.ts (with stream-choices-decode.ts, each
 * choice's parts), stream-encode.ts and stream-chunk.ts.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
export { createOpenaiChatStreamDecoder } from './stream-decode.ts';
export { createOpenaiChatStreamEncoder } from './stream-encode.ts';
