/**
 * Ollama streaming (NDJSON): `createOllamaStreamDecoder` (lines → IR stream
 * events) and `createOllamaStreamEncoder` (IR stream events → lines). See
 * stream-decode.ts and stream-encode.ts.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#streaming-responses
 */
export { createOllamaStreamDecoder } from './stream-decode.ts';
export { createOllamaStreamEncoder } from './stream-encode.ts';
