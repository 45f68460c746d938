/**
 * A candidate's `content` ↔ the IR candidate message (role `assistant`).
 * @see https://ai.google.dev/api/generate-content#candidate
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { Message, Part } from '../../core/ir.ts';
import { expectObject, extend, extensionsOf, hint, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { CallNames } from '../../core/tools.ts';
import { PendingCalls } from './ids.ts';
import { contentExtras, decodeGeminiParts } from './contents-decode.ts';
import { encodeGeminiPart } from './parts-encode.ts';
import type { EncodePartScope, PartScope } from './parts.ts';
import type { GroundingWriter } from './grounding.ts';


/** Decode a candidate's `content` (absent for some blocked candidates). */
export function decodeGeminiCandidateContent(value: unknown, path: string, idScope: string, losses: LossCollector, lean = false): Message {
  const message: Message = { role: 'assistant', parts: [] };
  if (value === undefined) {
    hint(message, 'gemini', '$noContent', true);
    return message;
  }
  const content = expectObject(value, path, 'gemini');
  const role = content['role'];
  if (role !== 'model') {
    if (role !== undefined && typeof role !== 'string') {
      throw new InterlinguaError('invalid_type', 'candidate content role must be a string', { path: pointer(path, 'role'), format: 'gemini' });
    }
    hint(message, 'gemini', '$role', role ?? null);
  }
  const scope: PartScope = { losses, role: 'model', idScope, pending: new PendingCalls() };
  if (lean) scope.lean = true;
  const parts = decodeGeminiParts(content, path, scope);
  if (parts === undefined) hint(message, 'gemini', '$noParts', true);
  else message.parts = parts;
  extend(message, 'gemini', contentExtras(content));
  return losses.origin(message, path);
}

/** Encode the candidate message as `content`; `undefined` when the source had none. */
export function encodeGeminiCandidateContent(message: Message, path: string, losses: LossCollector, grounding?: GroundingWriter): JsonObject | undefined {
  const gemini = extensionsOf(message, 'gemini');
  if (gemini?.['$noContent'] === true && message.parts.length === 0) return undefined;
  losses.foreignExtensions(message.extensions, 'gemini', path);
  const scope: EncodePartScope = grounding === undefined ? { losses, names: new CallNames() } : { losses, names: new CallNames(), grounding };
  const parts: JsonObject[] = [];
  for (let index = 0; index < message.parts.length; index++) {
    if (grounding !== undefined) grounding.at = parts.length;
    const wire = encodeGeminiPart(message.parts[index] as Part, `${path}/parts/${index}`, scope);
    if (wire !== undefined) parts.push(wire);
  }
  const content: JsonObject = { role: 'model' };
  const role = gemini?.['$role'];
  if (role === null) delete content['role'];
  else if (typeof role === 'string') content['role'] = role;
  if (gemini?.['$noParts'] !== true || parts.length > 0) content['parts'] = parts;
  return spreadExtensions(content, message, 'gemini');
}
