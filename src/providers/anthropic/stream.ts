/**
 * Anthropic Messages streaming: the decoder (wire events → IR events) and the
 * encoder (IR events → SSE messages), each in its own file.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export { createAnthropicStreamDecoder } from './stream-decode.ts';
export { createAnthropicStreamEncoder } from './stream-encode.ts';
