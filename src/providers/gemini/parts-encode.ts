/**
 * IR part → Gemini `Part`. Returns `undefined` for a part Gemini cannot carry
 * (reported as a loss).
 * @see https://ai.google.dev/api/caching#Part
 */
import type { LossCollector } from '../../core/losses.ts';
import type { AudioPart, DocumentPart, ImagePart, Part, ReasoningPart, TextPart, ToolCallPart, VideoPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { argumentsAsObject } from '../../core/tools.ts';
import { extensionsOf, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { respell } from './spelling.ts';
import { emitsId } from './ids.ts';
import { encodeGeminiMedia } from './media-encode.ts';
import { encodeGeminiFunctionResponse } from './tool-result-encode.ts';
import type { EncodePartScope } from './parts.ts';

/** Encode one IR part at IR pointer `path`. */
export function encodeGeminiPart(part: Part, path: string, scope: EncodePartScope): JsonObject | undefined {
  let wire: JsonObject | undefined;
  switch (part.type) {
    case 'text':
      wire = encodeText(part, path, scope);
      break;
    case 'reasoning':
      wire = encodeReasoning(part, path, scope.losses);
      break;
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
      wire = encodeMediaPart(part, path, scope);
      break;
    case 'tool_call':
      wire = encodeToolCall(part, path, scope);
      break;
    case 'tool_result':
      wire = encodeGeminiFunctionResponse(part, path, scope, encodeGeminiPart);
      break;
    case 'refusal':
      scope.losses.addAt(part, 'approximated', path, 'Gemini has no refusal part; the refusal is sent as text');
      wire = { text: part.text };
      break;
    case 'opaque':
      if (part.format === 'gemini') return part.value as JsonObject;
      scope.losses.addAt(part, 'unsupported_part', path, `${part.format} "${part.blockType}" block has no Gemini equivalent; dropped`);
      return undefined;
    default:
      return unreachable(part);
  }
  if (wire === undefined) return undefined;
  // Most parts of other formats carry no extensions: nothing to report, spread or respell.
  if (part.extensions === undefined) return wire;
  scope.losses.foreignExtensions(part.extensions, 'gemini', path);
  spreadExtensions(wire, part, 'gemini');
  const snake = extensionsOf(part, 'gemini')?.['$snake'];
  if (snake === undefined) return wire;
  for (const key in wire) {
    const value = wire[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) respell(value as JsonObject, snake);
  }
  return respell(wire, snake);
}

function encodeText(part: TextPart, path: string, scope: EncodePartScope): JsonObject {
  const wire: JsonObject = { text: part.text };
  if (extensionsOf(part, 'gemini')?.['$thought'] === false) wire['thought'] = false;
  if (part.citations !== undefined && part.citations.length > 0) {
    if (scope.grounding !== undefined) scope.grounding.take(part, path);
    else scope.losses.add('dropped_field', path, 'Gemini request parts carry no citations; dropped', 'info');
  }
  return wire;
}

function encodeReasoning(part: ReasoningPart, path: string, losses: LossCollector): JsonObject | undefined {
  if (part.state?.format === 'gemini') return { text: part.text, thought: true, thoughtSignature: part.state.value };
  if (part.state === undefined && extensionsOf(part, 'gemini')?.['$thought'] === true) return { text: part.text, thought: true };
  // Gemini does not take thoughts from clients; another vendor's reasoning is dropped.
  if (part.state !== undefined) {
    losses.addAt(part, 'reasoning_state_dropped', path, `${part.state.format} reasoning (and its ${part.state.kind}) only goes back to ${part.state.format}; dropped for Gemini`);
  } else {
    losses.addAt(part, 'unsupported_part', path, 'reasoning from another format cannot be sent to Gemini as a thought; dropped');
  }
  return undefined;
}

function encodeMediaPart(part: ImagePart | AudioPart | VideoPart | DocumentPart, path: string, scope: EncodePartScope): JsonObject | undefined {
  if (part.type === 'image' && part.detail !== undefined && part.detail !== 'auto') {
    scope.losses.add('dropped_field', path, `Gemini has no per-image "detail" (${part.detail}); dropped`, 'info');
  }
  if (part.type === 'audio' && part.transcript !== undefined) {
    scope.losses.add('dropped_field', path, 'Gemini audio parts carry no transcript; dropped', 'info');
  }
  if (part.type === 'document') {
    for (const key of ['title', 'context', 'filename', 'citations'] as const) {
      if (part[key] !== undefined) scope.losses.add('dropped_field', path, `Gemini documents have no "${key}"; dropped`, 'info');
    }
  }
  return encodeGeminiMedia(part, path, scope);
}

function encodeToolCall(part: ToolCallPart, path: string, scope: EncodePartScope): JsonObject {
  scope.names.add(part);
  const call: JsonObject = { name: part.name };
  const gemini = extensionsOf(part, 'gemini');
  const noArgs = gemini?.['$noArgs'] === true && part.arguments !== undefined && Object.keys(part.arguments).length === 0;
  if (!noArgs) call['args'] = argumentsAsObject(part, scope.losses, path);
  if (emitsId(part.id, part.syntheticId, gemini)) call['id'] = part.id;
  const rest = gemini?.['functionCall'];
  if (rest !== undefined && typeof rest === 'object') Object.assign(call, rest);
  return { functionCall: call };
}
