/**
 * IR parts → GenAI message parts. Text, reasoning text, tool calls and
 * results, and media (base64 as `blob`, URLs as `uri`, provider files as
 * `file`) have a place; what has none (opaque vendor blocks, reasoning
 * state, citations, cache breakpoints, text documents) is reported.
 * @see https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/gen-ai-input-messages.json
 */
import type { Part } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { OtelGenAiPart } from './shape.ts';
import { CODEC_NAME } from './shape.ts';

function mediaOf(part: Part & { source: unknown }, modality: string, path: string, losses: LossCollector): OtelGenAiPart | undefined {
  const source = part.source as { kind: string; data?: string; url?: string; id?: string; mediaType?: string };
  const mime = source.mediaType === undefined ? {} : { mime_type: source.mediaType };
  if (source.kind === 'base64' && source.data !== undefined) return { type: 'blob', modality, ...mime, content: source.data };
  if (source.kind === 'url' && source.url !== undefined) return { type: 'uri', modality, ...mime, uri: source.url };
  if (source.kind === 'file' && source.id !== undefined) return { type: 'file', modality, ...mime, file_id: source.id };
  losses.add('unsupported_part', path, `a ${part.type} of ${source.kind} source has no ${CODEC_NAME} part; dropped`);
  return undefined;
}

function toolResponse(part: Part & { type: 'tool_result' }, path: string, losses: LossCollector): unknown {
  if (part.content.every((inner) => inner.type === 'text')) return part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
  losses.add('approximated', `${path}/content`, `tool result with ${part.content.length} parts written as a list of ${CODEC_NAME} parts`, 'info');
  return part.content.flatMap((inner, index) => encodeOtelGenAiPart(inner, `${path}/content/${index}`, losses) ?? []);
}

function reportExtras(part: Part, path: string, losses: LossCollector): void {
  if (part.cache !== undefined) losses.add('dropped_field', `${path}/cache`, `${CODEC_NAME} has no prompt-cache breakpoints`, 'info');
  if (part.type === 'text' && part.citations !== undefined) losses.add('dropped_field', `${path}/citations`, `${CODEC_NAME} text parts carry no citations`);
}

/** One IR part → a GenAI part, or `undefined` when it has none (reported). */
export function encodeOtelGenAiPart(part: Part, path: string, losses: LossCollector): OtelGenAiPart | undefined {
  reportExtras(part, path, losses);
  switch (part.type) {
    case 'text':
      return { type: 'text', content: part.text };
    case 'reasoning':
      if (part.state !== undefined) losses.add('reasoning_state_dropped', `${path}/state`, `${CODEC_NAME} has no place for ${part.state.format} reasoning state`);
      return { type: 'reasoning', content: part.text };
    case 'tool_call':
      return { type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments ?? part.rawArguments ?? null };
    case 'tool_result':
      return { type: 'tool_call_response', id: part.callId, response: toolResponse(part, path, losses) };
    case 'image':
    case 'audio':
    case 'video':
      return mediaOf(part, part.type, path, losses);
    case 'document':
      return mediaOf(part, 'document', path, losses);
    case 'refusal':
      losses.add('approximated', path, `a refusal written as ${CODEC_NAME} text`);
      return { type: 'text', content: part.text };
    case 'opaque':
      losses.add('unsupported_part', path, `${part.format} block "${part.blockType}" has no ${CODEC_NAME} part; dropped`);
      return undefined;
    default:
      return unreachable(part);
  }
}
