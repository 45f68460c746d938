/**
 * IR messages → Gemini `systemInstruction` and `contents`. Leading system
 * messages become `systemInstruction`; tool messages become user turns of
 * `functionResponse` parts. For IR from other formats, consecutive turns of
 * the same Gemini role are merged (tool results, then a directly following
 * user message, share one user turn), and the results of a run of tool
 * messages go in the order of their calls (src/core/result-order.ts).
 * @see https://ai.google.dev/api/caching#Content
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Message, Part } from '../../core/ir.ts';
import { appended, extensionsOf, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeGeminiPart } from './parts-encode.ts';
import type { EncodePartScope } from './parts.ts';
import { messagePointer, partPointer } from '../../core/ir-pointers.ts';
import { CallNames } from '../../core/tools.ts';
import { resultsInCallOrder, type PartAt } from '../../core/result-order.ts';

/** The encoded conversation. */
export interface GeminiConversation {
  systemInstruction?: unknown;
  contents: JsonObject[];
}

/**
 * Encode `messages`. `native` says the IR was decoded from Gemini: its turn
 * boundaries are then kept exactly as the `$joinNext` hints say.
 */
export function encodeGeminiContents(messages: readonly Message[], native: boolean, losses: LossCollector): GeminiConversation {
  const scope: EncodePartScope = { losses, names: new CallNames() };
  const conversation: GeminiConversation = { contents: [] };
  let index = 0;
  while (index < messages.length && (messages[index] as Message).role === 'system') index++;
  if (index > 0) conversation.systemInstruction = encodeSystemInstruction(messages, index, scope);
  let joinNext = false;
  let last: JsonObject | undefined;
  for (; index < messages.length; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    const role = message.role === 'assistant' ? 'model' : 'user';
    // Gemini pairs function responses with calls by position: results of other formats go in their calls' order.
    const run = !native && message.role === 'tool' ? resultsInCallOrder(messages, index, losses, 'Gemini') : undefined;
    const parts = run === undefined ? encodeMessageParts(message, index, path, scope) : encodeOrderedResults(messages, run.order, scope);
    const gemini = extensionsOf(message, 'gemini');
    for (let each = index; each < (run?.end ?? index + 1); each++) {
      const one = messages[each] as Message;
      losses.foreignExtensions(one.extensions, 'gemini', messagePointer(each));
      if (one.name !== undefined) losses.add('dropped_field', messagePointer(each), `Gemini turns have no participant name ("${one.name}"); dropped`, 'info');
    }
    if (run !== undefined) index = run.end - 1;
    if (!native && parts.length === 0) {
      // Gemini rejects a turn without parts; everything in it was dropped (and reported) above.
      joinNext = false;
      continue;
    }
    if (last !== undefined && (joinNext || (!native && last['role'] === role))) {
      const existing = last['parts'] as JsonObject[];
      for (let part = 0; part < parts.length; part++) existing.push(parts[part] as JsonObject);
    } else {
      last = { role, parts };
      const rawRole = gemini?.['$role'];
      if (rawRole === null) delete last['role'];
      else if (typeof rawRole === 'string') last['role'] = rawRole;
      if (gemini?.['$noParts'] === true && parts.length === 0) delete last['parts'];
      spreadExtensions(last, message, 'gemini');
      conversation.contents.push(last);
    }
    joinNext = gemini?.['$joinNext'] === true;
  }
  return conversation;
}

function encodeMessageParts(message: Message, messageIndex: number, path: string, scope: EncodePartScope): JsonObject[] {
  let parts: JsonObject[] | undefined;
  const midSystem = message.role === 'system';
  if (midSystem) {
    scope.losses.add('moved_content', path, 'Gemini has no system turn mid-conversation; sent as user text prefixed "System:"');
  }
  for (let index = 0; index < message.parts.length; index++) {
    const part = message.parts[index] as Part;
    // A text with nothing but its text (most parts of other formats): what encoding it gives, without its pointer, since nothing can be lost.
    const wire = part.type === 'text' && part.extensions === undefined && part.citations === undefined ? { text: part.text } : encodeGeminiPart(part, partPointer(path, messageIndex, index), scope);
    if (wire === undefined) continue;
    if (midSystem && typeof wire['text'] === 'string') wire['text'] = `System: ${wire['text']}`;
    parts = appended(parts, wire);
  }
  return parts ?? [];
}

/** The parts of a run of tool messages in `order`, each at its own IR pointer. */
function encodeOrderedResults(messages: readonly Message[], order: readonly PartAt[], scope: EncodePartScope): JsonObject[] {
  const parts: JsonObject[] = [];
  for (const [messageIndex, partIndex] of order) {
    const part = (messages[messageIndex] as Message).parts[partIndex] as Part;
    const wire = encodeGeminiPart(part, partPointer(messagePointer(messageIndex), messageIndex, partIndex), scope);
    if (wire !== undefined) parts.push(wire);
  }
  return parts;
}

/** Encode the leading system messages (`messages` up to `count`). */
function encodeSystemInstruction(messages: readonly Message[], count: number, scope: EncodePartScope): unknown {
  const first = messages[0] as Message;
  const gemini = extensionsOf(first, 'gemini');
  if (count === 1 && gemini?.['$systemString'] === true) {
    const part = first.parts[0];
    if (first.parts.length === 1 && part?.type === 'text') return part.text;
  }
  const parts: JsonObject[] = [];
  for (let index = 0; index < count; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    scope.losses.foreignExtensions(message.extensions, 'gemini', path);
    if (message.developer === true) {
      scope.losses.add('approximated', path, 'Gemini has no developer role; the developer message goes into systemInstruction', 'info');
    }
    for (let partIndex = 0; partIndex < message.parts.length; partIndex++) {
      const wire = encodeGeminiPart(message.parts[partIndex] as Part, partPointer(path, index, partIndex), scope);
      if (wire !== undefined) parts.push(wire);
    }
  }
  const instruction: JsonObject = { parts };
  if (gemini?.['$noParts'] === true && parts.length === 0) delete instruction['parts'];
  const role = gemini?.['$role'];
  if (typeof role === 'string') instruction['role'] = role;
  spreadExtensions(instruction, first, 'gemini');
  return instruction;
}
