/**
 * Gemini `contents` (and `systemInstruction`) → IR messages. A user turn that
 * holds `functionResponse` parts is split into runs: `tool` messages for the
 * results and `user` messages for the rest, each but the last marked
 * `$joinNext` so the encoder puts the turn back together exactly.
 * @see https://ai.google.dev/api/caching#Content
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import { hasMadeUpId, type Message, type Part } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, hint, isObject, itemPointers, pointer, type JsonObject } from '../../core/wire.ts';
import { PendingCalls } from './ids.ts';
import { decodeGeminiPart } from './parts-decode.ts';
import type { PartScope } from './parts.ts';

/** The keys of a `Content` other than `role` and `parts`, or `undefined` (a switch: cheaper than a set lookup per key). */
export function contentExtras(content: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in content) {
    switch (key) {
      case 'role':
      case 'parts':
        continue;
    }
    (rest ??= {})[key] = content[key];
  }
  return rest;
}

/** The Gemini role of a content: `model` or user-side; `null` when absent. */
function readRole(content: JsonObject, path: string): 'user' | 'model' {
  const role = content['role'];
  if (role === undefined || role === 'user' || role === 'function') return 'user';
  if (role === 'model') return 'model';
  expectString(role, pointer(path, 'role'), 'gemini');
  throw new InterlinguaError('invalid_value', `Gemini content role must be "user" or "model", got ${JSON.stringify(role)}`, {
    path: pointer(path, 'role'),
    format: 'gemini',
  });
}

/** Decode the parts of one content; `undefined` when `parts` was absent. */
export function decodeGeminiParts(content: JsonObject, path: string, scope: PartScope): Part[] | undefined {
  const value = content['parts'];
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : expectArray(value, `${path}/parts`, 'gemini');
  const parts: Part[] = new Array(list.length);
  const losses = scope.losses;
  for (let index = 0; index < list.length; index++) {
    const partPath = `${path}/parts/${index}`;
    const part = decodeGeminiPart(list[index], partPath, index, scope);
    // A call or result whose id was made up is reported by every target that carries ids: anchored, so that needs no recording decode.
    parts[index] = losses.recording ? losses.origin(part, partPath) : hasMadeUpId(part) ? losses.anchorItem(part, partPath) : part;
  }
  return parts;
}

const CONTENT_POINTERS = itemPointers('/contents');

/** Decode `contents` into messages, appended to `messages`; `lean` skips hints only a trip back to Gemini needs. */
export function decodeGeminiContents(value: unknown, path: string, losses: LossCollector, messages: Message[], lean = false, same = false): void {
  const contents = Array.isArray(value) ? value : expectArray(value, path, 'gemini');
  // One scope for every content, its role and id scope set per content: nothing keeps it past the content's decode.
  const scope: PartScope = { losses, role: 'user', idScope: 0, pending: new PendingCalls() };
  if (lean) scope.lean = true;
  if (same) scope.same = true;
  for (let index = 0; index < contents.length; index++) {
    const contentPath = CONTENT_POINTERS.of(path, index);
    const entry = contents[index];
    const content = isObject(entry) ? entry : expectObject(entry, contentPath, 'gemini');
    const role = readRole(content, contentPath);
    scope.role = role;
    scope.idScope = index;
    const parts = decodeGeminiParts(content, contentPath, scope);
    const rawRole = content['role'];
    const rest = contentExtras(content);
    if (role === 'model') {
      const message: Message = { role: 'assistant', parts: parts ?? [] };
      if (rawRole !== 'model') hint(message, 'gemini', '$role', rawRole ?? null);
      if (parts === undefined) hint(message, 'gemini', '$noParts', true);
      extend(message, 'gemini', rest);
      messages.push(losses.origin(message, contentPath));
      continue;
    }
    const produced = splitUserTurn(parts ?? []);
    const first = produced[0] as Message;
    if (rawRole !== 'user') {
      for (const message of produced) hint(message, 'gemini', '$role', rawRole ?? null);
    }
    if (parts === undefined) hint(first, 'gemini', '$noParts', true);
    extend(first, 'gemini', rest);
    if (!lean) for (let run = 0; run < produced.length - 1; run++) hint(produced[run] as Message, 'gemini', '$joinNext', true);
    for (const message of produced) messages.push(losses.origin(message, contentPath));
  }
}

/** Split a user turn into runs of tool results and other parts (`parts` is the turn's own list: a turn of one run keeps it). */
function splitUserTurn(parts: Part[]): Message[] {
  // A turn of one run (most are) is its parts as they are, in a list made with its one message (`[]` grown by `push` takes room for 17).
  const first = parts[0];
  if (first === undefined) return [{ role: 'user', parts: [] }];
  const role = first.type === 'tool_result' ? 'tool' : 'user';
  let index = 1;
  while (index < parts.length && ((parts[index] as Part).type === 'tool_result' ? 'tool' : 'user') === role) index++;
  if (index === parts.length) return [{ role, parts }];
  const messages: Message[] = [];
  let current: Message | undefined;
  for (const part of parts) {
    const partRole = part.type === 'tool_result' ? 'tool' : 'user';
    if (current === undefined || current.role !== partRole) {
      current = { role: partRole, parts: [part] };
      messages.push(current);
    } else current.parts.push(part);
  }
  return messages;
}

/** Decode `systemInstruction` (a Content, or a bare string as the SDK allows) into a leading system message. */
export function decodeGeminiSystemInstruction(value: unknown, path: string, losses: LossCollector): Message {
  if (typeof value === 'string') {
    const message: Message = { role: 'system', parts: [losses.origin({ type: 'text', text: value }, path)] };
    hint(message, 'gemini', '$systemString', true);
    return losses.origin(message, path);
  }
  const content = expectObject(value, path, 'gemini');
  const parts = decodeGeminiParts(content, path, { losses, role: 'user', idScope: 'system', pending: new PendingCalls() });
  const message: Message = { role: 'system', parts: parts ?? [] };
  if (content['role'] !== undefined) hint(message, 'gemini', '$role', content['role']);
  if (parts === undefined) hint(message, 'gemini', '$noParts', true);
  extend(message, 'gemini', contentExtras(content));
  return losses.origin(message, path);
}
