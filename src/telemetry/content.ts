/**
 * Message content for spans, only when the standard opt-in variable asks
 * for it (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`): the
 * request's messages, its system instructions and the answer, from the IR,
 * in the shapes of the GenAI conventions' `gen_ai.input.messages`,
 * `gen_ai.system_instructions` and `gen_ai.output.messages` (JSON text).
 * Inline media goes as a `blob` part with its media type and modality but
 * without its bytes (a span is no place for megabytes of base64).
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-input-messages.json
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-output-messages.json
 */
import type { Message, Part, Request, Response } from '../core/ir.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import { accumulate } from '../core/accumulate.ts';

/** The variable that turns capture on. */
export const CAPTURE_CONTENT_VARIABLE = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/** What a request's record keeps for capture: the request, and the answer whole or as its stream's events. */
export interface CapturedContent {
  request?: Request;
  response?: Response;
  events?: StreamEvent[];
}

/** Does the environment ask for message content? */
export function captureRequested(env: Record<string, string | undefined>): boolean {
  return env[CAPTURE_CONTENT_VARIABLE]?.trim().toLowerCase() === 'true';
}

type SemconvPart = Record<string, unknown>;

function modalityOf(type: Part['type']): string {
  return type === 'audio' ? 'audio' : type === 'video' ? 'video' : 'image';
}

function partOf(part: Part): SemconvPart | undefined {
  switch (part.type) {
    case 'text':
    case 'refusal':
      return { type: 'text', content: part.text };
    case 'reasoning':
      return { type: 'reasoning', content: part.text };
    case 'tool_call':
      return { type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments ?? part.rawArguments ?? null };
    case 'tool_result':
      return { type: 'tool_call_response', id: part.callId, response: part.content.map(partOf).filter((inner) => inner !== undefined) };
    case 'image':
    case 'audio':
    case 'video': {
      const source = part.source;
      const modality = modalityOf(part.type);
      if (source.kind === 'url') return { type: 'uri', modality, uri: source.url, ...(source.mediaType === undefined ? {} : { mime_type: source.mediaType }) };
      if (source.kind === 'file') return { type: 'file', modality, file_id: source.id, ...(source.mediaType === undefined ? {} : { mime_type: source.mediaType }) };
      return { type: 'blob', modality, mime_type: source.mediaType };
    }
    case 'document': {
      const source = part.source;
      if (source.kind === 'text') return { type: 'text', content: source.text };
      if (source.kind === 'url') return { type: 'uri', modality: 'document', uri: source.url };
      if (source.kind === 'file') return { type: 'file', modality: 'document', file_id: source.id };
      if (source.kind === 'content') return { type: 'document', parts: source.parts.map(partOf).filter((inner) => inner !== undefined) };
      return { type: 'blob', modality: 'document', mime_type: source.mediaType };
    }
    case 'opaque':
      return { type: part.blockType };
  }
}

function partsOf(parts: readonly Part[]): SemconvPart[] {
  const out: SemconvPart[] = [];
  for (const part of parts) {
    const converted = partOf(part);
    if (converted !== undefined) out.push(converted);
  }
  return out;
}

/** `gen_ai.input.messages` and `gen_ai.system_instructions` of a request (system messages are the instructions). */
export function inputMessages(request: Request): { messages: string; system?: string } {
  const messages: unknown[] = [];
  const system: SemconvPart[] = [];
  for (const message of request.messages as Message[]) {
    if (message.role === 'system') system.push(...partsOf(message.parts));
    else messages.push({ role: message.role, parts: partsOf(message.parts), ...(message.name === undefined ? {} : { name: message.name }) });
  }
  return system.length === 0 ? { messages: JSON.stringify(messages) } : { messages: JSON.stringify(messages), system: JSON.stringify(system) };
}

/** `gen_ai.output.messages` of an answer, whole or accumulated from its stream's events. */
export function outputMessages(content: CapturedContent): string | undefined {
  const response = content.response ?? (content.events === undefined ? undefined : accumulate(content.events).response);
  if (response === undefined) return undefined;
  return JSON.stringify(
    response.candidates.map((candidate) => ({
      role: 'assistant',
      parts: partsOf(candidate.message.parts),
      finish_reason: candidate.stopReason?.unified ?? 'other',
    })),
  );
}
