/**
 * The OpenTelemetry GenAI semantic conventions' message shape: what
 * `gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions` and `gen_ai.tool.definitions` hold (as JSON
 * text on a span, or as structured attributes). A neutral shape of its own,
 * close to the IR but not the IR: parts are `{type, content}`, tool calls
 * `{type: "tool_call", id, name, arguments}`, results
 * `{type: "tool_call_response", id, response}`, media `blob` (base64
 * `content`), `uri` or `file` with a `modality` and `mime_type`.
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-input-messages.json
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-output-messages.json
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */

/** A part of a GenAI message. `additionalProperties` are allowed, so other fields may be present. */
export type OtelGenAiPart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id?: string | null; name: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string | null; response: unknown }
  | { type: 'blob'; modality: string; mime_type?: string | null; content: string }
  | { type: 'uri'; modality: string; mime_type?: string | null; uri: string }
  | { type: 'file'; modality: string; mime_type?: string | null; file_id: string }
  | { type: string; [key: string]: unknown };

/** One input message: a role (`system`, `user`, `assistant`, `tool`, or another string) and its parts. */
export interface OtelGenAiMessage {
  role: string;
  parts: OtelGenAiPart[];
  name?: string;
}

/** One output message: an input message with the reason generation stopped. */
export interface OtelGenAiOutputMessage extends OtelGenAiMessage {
  finish_reason: string;
}

/** A tool definition (`gen_ai.tool.definitions`). */
export interface OtelGenAiToolDefinition {
  type: string;
  name: string;
  description?: string;
  parameters?: unknown;
}

/** The name used in loss messages and errors. */
export const CODEC_NAME = 'otel-genai';
