/**
 * The names the OpenTelemetry GenAI semantic conventions give (attributes,
 * metrics, provider names, bucket boundaries), in one place, so spans,
 * OTLP metrics and `/metrics` say the same.
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-spans.md
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-metrics.md
 */
import type { FormatId } from '../core/ir.ts';

export const ATTR_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
export const ATTR_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_HTTP_STATUS = 'http.response.status_code';
export const ATTR_HTTP_METHOD = 'http.request.method';
export const ATTR_HTTP_ROUTE = 'http.route';

/** Client metrics. */
export const METRIC_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_TIME_TO_FIRST_CHUNK = 'gen_ai.client.operation.time_to_first_chunk';

/** The conventions' advised bucket boundaries for `gen_ai.client.token.usage`. */
export const TOKEN_BUCKETS: readonly number[] = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** The conventions' advised bucket boundaries for `gen_ai.client.operation.duration`, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** Bucket boundaries for the time to the first chunk, in seconds (the conventions' time-to-first-token ones). */
export const FIRST_CHUNK_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** `gen_ai.provider.name` of each format's vendor (Ollama has no listed name: its own). */
const PROVIDERS: Readonly<Record<FormatId, string>> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  gemini: 'gcp.gemini',
  ollama: 'ollama',
  'bedrock-converse': 'aws.bedrock',
};

/** Dialects of OpenAI Chat that name another provider. */
const DIALECT_PROVIDERS: Readonly<Record<string, string>> = {
  deepseek: 'deepseek',
  openrouter: 'openrouter',
  'gemini-openai': 'gcp.gemini',
  vllm: 'vllm',
  'ollama-openai': 'ollama',
};

/** The `gen_ai.provider.name` of an upstream of `format` (in `dialect`). */
export function providerName(format: FormatId, dialect?: string): string {
  return (dialect === undefined ? undefined : DIALECT_PROVIDERS[dialect]) ?? PROVIDERS[format];
}

/** The `error.type` of a failed request: the HTTP status class the caller got, or `stream_error` for a stream that ended with an error event. */
export function errorType(status: number, streamError: boolean | undefined): string | undefined {
  if (status >= 400 || status === 0) return String(status);
  return streamError === true ? 'stream_error' : undefined;
}

/**
 * The `gen_ai.operation.name` of a call: `generate_content` for Gemini
 * (the conventions' name for its multimodal API), `text_completion` for a
 * prompt sent to Ollama's `/api/generate`, `chat` for the rest; a token
 * count has no name in the conventions and goes as `count_tokens`.
 */
export function operationName(upstream: FormatId, options: { generate?: boolean; count?: boolean }): string {
  if (options.count === true) return 'count_tokens';
  if (upstream === 'gemini') return 'generate_content';
  if (upstream === 'ollama' && options.generate === true) return 'text_completion';
  return 'chat';
}
