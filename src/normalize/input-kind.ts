/**
 * What an input holds, decided from its first bytes (the file) and from each
 * line's shape (the line): HAR and JSON arrays are whole documents, anything
 * else is read line by line, and every line says by its own fields whether it
 * is a batch line or a recorded exchange.
 */
import { isObject } from '../core/wire.ts';
import type { InputKind } from './types.ts';

/** How a file is read: one JSON document (HAR, or an array of exchanges), or one item per line. */
export type FileLayout = 'document' | 'lines';

/**
 * The layout of a file from its name and its first bytes. A file is a
 * document when it is named `.har`, or when its first line is not a whole
 * JSON value but the file starts like one (pretty-printed JSON), or when its
 * first line is a whole HAR (`{"log": …}` on one line) or a whole array.
 */
export function detectLayout(fileName: string, head: string): FileLayout {
  if (/\.har$/i.test(fileName)) return 'document';
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const start = text.search(/\S/);
  if (start < 0) return 'lines';
  const first = text[start];
  if (first !== '{' && first !== '[') return 'lines';
  const end = text.indexOf('\n', start);
  const line = end < 0 ? text.slice(start) : text.slice(start, end);
  try {
    const value: unknown = JSON.parse(line);
    return Array.isArray(value) || (isObject(value) && isObject(value['log'])) ? 'document' : 'lines';
  } catch {
    // The first line is not a whole value: a pretty-printed document, or a malformed first line of JSONL.
    return end < 0 || /^[{[]\s*$/.test(line) || /^\{\s*"log"\s*:/.test(line) ? 'document' : 'lines';
  }
}

/** The kind of one JSON line (or array element), by the fields each container uses. */
export function classifyItem(value: unknown): InputKind {
  if (!isObject(value)) return 'jsonl';
  if (typeof value['custom_id'] === 'string') {
    if ('result' in value) return 'anthropic-batch-result';
    if ('params' in value) return 'anthropic-batch-request';
    if ('body' in value && ('url' in value || 'method' in value)) return 'openai-batch-input';
    if ('response' in value || 'error' in value) return 'openai-batch-output';
  }
  if (isObject(value['modelInput'])) return 'bedrock-batch';
  if (typeof value['key'] === 'string') {
    if (isObject(value['request']) && !('response' in value)) return 'gemini-batch-request';
    if (isObject(value['response']) || isObject(value['error']) || isObject(value['status'])) return 'gemini-batch-response';
  }
  return 'jsonl';
}

/** True when a parsed document is a HAR log. */
export function isHar(value: unknown): value is { log: { entries: unknown[] } } {
  return isObject(value) && isObject(value['log']) && Array.isArray(value['log']['entries']);
}
