/**
 * IR → GenAI messages, the inverse of `messages-decode.ts`: a leading
 * system message becomes `gen_ai.system_instructions`, the other messages
 * `gen_ai.input.messages`; candidates become `gen_ai.output.messages` with a
 * `finish_reason`; function tools become `gen_ai.tool.definitions`. Paths of
 * losses are IR pointers.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
import type { Candidate, Message, Tool } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { encodeOtelGenAiPart } from './parts-encode.ts';
import { CODEC_NAME, type OtelGenAiMessage, type OtelGenAiOutputMessage, type OtelGenAiPart, type OtelGenAiToolDefinition } from './shape.ts';
import { encodeOtelGenAiFinishReason } from './stop-reason.ts';

function partsOf(message: Message, path: string, losses: LossCollector): OtelGenAiPart[] {
  return message.parts.flatMap((part, index) => encodeOtelGenAiPart(part, `${path}/parts/${index}`, losses) ?? []);
}

function encodeMessage(message: Message, path: string, losses: LossCollector): OtelGenAiMessage {
  const encoded: OtelGenAiMessage = { role: message.developer === true ? 'developer' : message.role, parts: partsOf(message, path, losses) };
  if (message.name !== undefined) encoded.name = message.name;
  return encoded;
}

/** The GenAI attributes of a request's messages: system instructions (from a leading system message) and input messages. */
export function encodeOtelGenAiMessages(messages: readonly Message[], losses: LossCollector, path = '/messages'): { systemInstructions?: OtelGenAiPart[]; inputMessages: OtelGenAiMessage[] } {
  const first = messages[0];
  const leading = first?.role === 'system' && first.developer !== true && first.name === undefined;
  const inputMessages = messages.flatMap((message, index) => (leading && index === 0 ? [] : [encodeMessage(message, `${path}/${index}`, losses)]));
  return leading && first !== undefined ? { systemInstructions: partsOf(first, `${path}/0`, losses), inputMessages } : { inputMessages };
}

/** `gen_ai.output.messages` of a response's candidates. */
export function encodeOtelGenAiOutputMessages(candidates: readonly Candidate[], losses: LossCollector, path = '/candidates'): OtelGenAiOutputMessage[] {
  return candidates.map((candidate, index) => {
    const at = `${path}/${index}`;
    const reason = encodeOtelGenAiFinishReason(candidate.stopReason);
    if (!reason.exact) losses.add('approximated', `${at}/stopReason`, `stop reason ${candidate.stopReason?.raw ?? candidate.stopReason?.unified} written as ${CODEC_NAME} "${reason.value}"`, 'info');
    return { ...encodeMessage(candidate.message, `${at}/message`, losses), finish_reason: reason.value };
  });
}

/** `gen_ai.tool.definitions` of a request's tools; tools other than functions are reported. */
export function encodeOtelGenAiToolDefinitions(tools: readonly Tool[], losses: LossCollector, path = '/tools'): OtelGenAiToolDefinition[] {
  const definitions: OtelGenAiToolDefinition[] = [];
  for (const [index, tool] of tools.entries()) {
    if (tool.type !== 'function') {
      losses.add('unsupported_part', `${path}/${index}`, `a ${tool.type} tool has no ${CODEC_NAME} definition; dropped`);
      continue;
    }
    const definition: OtelGenAiToolDefinition = { type: 'function', name: tool.name };
    if (tool.description !== undefined) definition.description = tool.description;
    if (tool.parameters !== undefined) definition.parameters = tool.parameters;
    definitions.push(definition);
  }
  return definitions;
}
