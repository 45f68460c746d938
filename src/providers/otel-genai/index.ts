/**
 * The `otel-genai` codec: the message shape of the OpenTelemetry GenAI
 * semantic conventions (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`, `gen_ai.tool.definitions`) to and from the
 * IR's messages, candidates and tools. Not a wire format of an API: the
 * normalizer reads spans through it (`src/normalize/readers/otlp.ts`), and
 * the same functions can write the attributes of a span.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
export type { OtelGenAiMessage, OtelGenAiOutputMessage, OtelGenAiPart, OtelGenAiToolDefinition } from './shape.ts';
export {
  decodeOtelGenAiMessages,
  decodeOtelGenAiOutputMessages,
  decodeOtelGenAiSystemInstructions,
  decodeOtelGenAiToolDefinitions,
  otelGenAiScope,
  type DecodeScope,
} from './messages-decode.ts';
export { encodeOtelGenAiMessages, encodeOtelGenAiOutputMessages, encodeOtelGenAiToolDefinitions } from './messages-encode.ts';
export { decodeOtelGenAiFinishReason, encodeOtelGenAiFinishReason } from './stop-reason.ts';
