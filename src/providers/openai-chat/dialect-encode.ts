/**
 * IR reasoning parts → the dialect fields of an assistant message (see
 * dialects.ts): reasoning text in the dialect's field, OpenRouter
 * `reasoning_details` back unmodified, Gemini thought signatures back on the
 * tool call they came with. Plain OpenAI has none of these: the caller of
 * {@link takeDialectReasoning} reports the part as before.
 */
import type { ReasoningPart, ToolCallPart } from '../../core/ir.ts';
import { extensionsOf, isObject, type JsonObject } from '../../core/wire.ts';
import { dialectOwns, reasoningField, type OpenaiChatDialect } from './dialects.ts';
import { FORMAT } from './shape.ts';

/** What the dialect fields of one assistant message collect. */
export interface DialectFields {
  texts: string[];
  /** The field the source spelled the text in, where it said. */
  field?: string;
  details?: unknown[];
  /** Thought signatures by tool-call id (or, for signatures without a known call, in order). */
  signatures: Map<string, string>;
  pending: string[];
}

/** Fresh collector. */
export function dialectFields(): DialectFields {
  return { texts: [], signatures: new Map(), pending: [] };
}

/** Take a reasoning part into `fields` when `dialect` carries it; false when it does not (the caller reports it). */
export function takeDialectReasoning(part: ReasoningPart, dialect: OpenaiChatDialect, fields: DialectFields): boolean {
  const state = part.state;
  const field = reasoningField(dialect);
  if (state === undefined) {
    if (field === undefined || part.text === '') return false;
    fields.texts.push(part.text);
    return true;
  }
  if (!dialectOwns(dialect, state)) return false;
  switch (state.kind) {
    case 'details': {
      const details: unknown = JSON.parse(state.value);
      if (Array.isArray(details)) fields.details = [...(fields.details ?? []), ...details];
      if (part.text !== '' || extensionsOf(part, FORMAT)?.['$field'] === 'reasoning') fields.texts.push(part.text);
      return true;
    }
    case 'thought_signature': {
      const target = extensionsOf(part, FORMAT)?.['$signatureFor'];
      if (typeof target === 'string') fields.signatures.set(target, state.value);
      else fields.pending.push(state.value);
      return true;
    }
    default: {
      fields.texts.push(part.text);
      const spelled = extensionsOf(part, FORMAT)?.['$field'];
      if (typeof spelled === 'string') fields.field ??= spelled;
      return true;
    }
  }
}

/** Put a thought signature on an encoded tool call, if one was taken for it (or is waiting for the next call). */
export function signToolCall(call: JsonObject, part: ToolCallPart, fields: DialectFields): void {
  const signature = fields.signatures.get(part.id) ?? fields.pending.shift();
  if (signature === undefined) return;
  const extra = isObject(call['extra_content']) ? { ...call['extra_content'] } : {};
  const google = isObject(extra['google']) ? { ...extra['google'] } : {};
  google['thought_signature'] = signature;
  extra['google'] = google;
  call['extra_content'] = extra;
}

/** Write the collected fields onto an assistant message. */
export function writeDialectFields(wire: JsonObject, dialect: OpenaiChatDialect, fields: DialectFields): void {
  const field = fields.field ?? reasoningField(dialect);
  if (fields.texts.length > 0 && field !== undefined) wire[field] = fields.texts.join('');
  if (fields.details !== undefined) wire['reasoning_details'] = fields.details;
}
