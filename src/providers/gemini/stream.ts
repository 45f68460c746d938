/**
 * Gemini streaming (`:streamGenerateContent?alt=sse`): the decoder and the
 * encoder, each a small state machine.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export { createGeminiStreamDecoder } from './stream-decode.ts';
export { createGeminiStreamEncoder } from './stream-encode.ts';
