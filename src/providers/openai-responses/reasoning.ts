/**
 * Reasoning items ⇄ IR reasoning parts: `summary[]` (`summary_text`) → IR
 * `summary`, `content[]` (`reasoning_text`) → IR `text`, `encrypted_content` →
 * a `ReasoningState` that only goes back to OpenAI Responses.
 *
 * Policy for reasoning of other formats: a Responses request must not carry
 * reasoning items another model produced (the API pairs them with the
 * following item), so the request encoder drops such parts and reports them;
 * the response encoder shows them as a reasoning item (their text as a
 * summary, which is what Anthropic and Gemini show) without encrypted content.
 *
 * @see https://platform.openai.com/docs/guides/reasoning
 */
import type { ReasoningPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectArray, expectString, extend, hint, isObject, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { FORMAT, keepNulls, own, ownHint, restoreNulls } from './shape.ts';
import type { ItemEncodeContext } from './tool-items.ts';

/** The keys of a reasoning item this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function reasoningExtras(item: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in item) {
    switch (key) {
      case 'type':
      case 'id':
      case 'summary':
      case 'content':
      case 'encrypted_content':
      case 'status':
        continue;
    }
    (rest ??= {})[key] = item[key];
  }
  return rest;
}

/** Texts of a `summary` or `content` list whose entries are all `{type: <type>, text}`; `undefined` when any entry is not. */
function texts(list: unknown[], type: string): string[] | undefined {
  const result: string[] = [];
  for (const entry of list) {
    if (!isObject(entry) || entry['type'] !== type || typeof entry['text'] !== 'string' || Object.keys(entry).length !== 2) return undefined;
    result.push(entry['text']);
  }
  return result;
}

/**
 * Decode a `reasoning` item; `undefined` when its summary or content holds
 * entries of a kind this codec does not know (the caller keeps it opaque).
 */
export function decodeOpenaiResponsesReasoning(item: JsonObject, path: string): ReasoningPart | undefined {
  const part: ReasoningPart = { type: 'reasoning', text: '' };
  const summary = item['summary'];
  if (summary === undefined || summary === null) hint(part, FORMAT, '$noSummary', true);
  else {
    const list = texts(Array.isArray(summary) ? summary : expectArray(summary, pointer(path, 'summary'), FORMAT), 'summary_text');
    if (list === undefined) return undefined;
    part.summary = list;
  }
  const content = item['content'];
  if (content !== undefined && content !== null) {
    const list = texts(Array.isArray(content) ? content : expectArray(content, pointer(path, 'content'), FORMAT), 'reasoning_text');
    if (list === undefined) return undefined;
    part.text = list.join('');
    if (list.length === 0) hint(part, FORMAT, '$emptyContent', true);
    if (list.length > 1) hint(part, FORMAT, '$contentSplit', list.map((text) => text.length));
  }
  const id = item['id'];
  if (id !== undefined && id !== null) part.id = typeof id === 'string' ? id : expectString(id, pointer(path, 'id'), FORMAT);
  const encrypted = item['encrypted_content'];
  if (encrypted !== undefined && encrypted !== null) {
    part.state = { format: FORMAT, kind: 'encrypted', value: typeof encrypted === 'string' ? encrypted : expectString(encrypted, pointer(path, 'encrypted_content'), FORMAT) };
  }
  const status = item['status'];
  if (status !== undefined && status !== null) hint(part, FORMAT, '$status', typeof status === 'string' ? status : expectString(status, pointer(path, 'status'), FORMAT));
  // keepNulls looks up each key; mostly none is null.
  if (id === null || content === null || encrypted === null || status === null || summary === null) keepNulls(part, item, ['id', 'content', 'encrypted_content', 'status', 'summary']);
  extend(part, FORMAT, reasoningExtras(item));
  if (part.id === undefined && part.state === undefined && own(part) === undefined) hint(part, FORMAT, '$native', true);
  return part;
}

/** True when the reasoning part came from OpenAI Responses. */
function native(part: ReasoningPart): boolean {
  if (part.state !== undefined) return part.state.format === FORMAT;
  return own(part) !== undefined || part.id?.startsWith('rs_') === true;
}

function contentList(part: ReasoningPart): JsonObject[] | undefined {
  const split = ownHint(part, '$contentSplit');
  if (Array.isArray(split)) {
    let offset = 0;
    return (split as number[]).map((length) => {
      const text = part.text.slice(offset, offset + length);
      offset += length;
      return { type: 'reasoning_text', text };
    });
  }
  if (part.text !== '') return [{ type: 'reasoning_text', text: part.text }];
  return ownHint(part, '$emptyContent') === true ? [] : undefined;
}

/**
 * Encode a reasoning part as a `reasoning` item, or `undefined` when it must
 * not be sent (reasoning of another format in a request). Reports its losses.
 */
export function encodeOpenaiResponsesReasoning(part: ReasoningPart, context: ItemEncodeContext, path: string, index: number): JsonObject | undefined {
  const losses = context.losses;
  const isNative = native(part);
  if (!isNative && context.target === 'request') {
    dropForeign(part, losses, path);
    return undefined;
  }
  const item: JsonObject = { type: 'reasoning' };
  if (part.id !== undefined) item['id'] = part.id;
  else if (!isNative) {
    item['id'] = `rs_interlingua_${index}`;
    losses.addAt(part, 'synthesised_id', pointer(path, 'id'), 'reasoning item id made up by interlingua', 'info');
  }
  // Other formats' visible reasoning is itself a summary (Anthropic, Gemini): it goes to `summary` unless a summary exists.
  const summary = part.summary ?? (isNative || part.text === '' ? [] : [part.text]);
  if (ownHint(part, '$noSummary') !== true) item['summary'] = summary.map((text) => ({ type: 'summary_text', text }));
  const content = isNative || part.summary !== undefined ? contentList(part) : undefined;
  if (content !== undefined) item['content'] = content;
  if (part.state !== undefined) {
    if (part.state.format === FORMAT) item['encrypted_content'] = part.state.value;
    else losses.addAt(part, 'reasoning_state_dropped', pointer(path, 'state'), `${part.state.format} reasoning state only goes back to ${part.state.format}; dropped`);
  }
  const status = ownHint(part, '$status');
  if (status !== undefined) item['status'] = status;
  losses.foreignExtensions(part.extensions, FORMAT, path);
  return restoreNulls(spreadExtensions(item, part, FORMAT), part);
}

function dropForeign(part: ReasoningPart, losses: LossCollector, path: string): void {
  if (part.state !== undefined) {
    losses.addAt(part, 'reasoning_state_dropped', pointer(path, 'state'), `${part.state.format} reasoning state only goes back to ${part.state.format}; dropped`);
  }
  if (part.text !== '' || (part.summary?.length ?? 0) > 0) {
    losses.add('unsupported_part', path, 'OpenAI Responses only accepts reasoning items its own model produced; reasoning of another format dropped from the input');
  }
}
