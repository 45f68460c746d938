/**
 * The hash of an assistant message as a caller sees it, which finds the
 * reasoning state the proxy kept for it when the caller sends it back.
 *
 * A client does not send an assistant message back byte for byte: Chat
 * SDKs and frameworks turn `content: null` into `""` or drop it, split or
 * join text into content parts, trim it, re-serialise tool-call
 * `arguments` (Python's `json.dumps` puts a space after `:` and `,`,
 * others reorder keys or escape non-ASCII), add `type`, `index`,
 * `refusal: null` or `annotations: []`, and echo or drop reasoning text
 * (`reasoning_content`, Ollama's `thinking`). So the hash reads only what
 * every client keeps: the text with all white space taken out, and each
 * tool call's id, name and arguments (parsed, keys sorted). Ollama callers
 * see no call ids (its wire has none unless the proxy put one there), so
 * for them the ids stay out of the hash.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { FormatId, Part, ToolCallPart } from '../core/ir.ts';

const utf8 = new TextEncoder();
const WHITE_SPACE = /\s+/g;

/** `value` as JSON text with the keys of every object sorted. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    if (record[key] === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalJson(record[key])}`;
  }
  return `${text}}`;
}

/**
 * A call's arguments as every client's re-serialisation of them reads back.
 * A custom (free-text) call counts as the function that stood for it
 * upstream, taking the text as `input` (`src/core/custom-tools.ts`): the
 * answer kept is the upstream's, the turn sent back the caller's.
 */
function callArguments(call: ToolCallPart): string {
  if (call.kind === 'custom') return canonicalJson({ input: call.rawArguments ?? '' });
  if (call.arguments !== undefined) return canonicalJson(call.arguments);
  return (call.rawArguments ?? '').replace(WHITE_SPACE, '');
}

/** Whether `caller`'s wire shows the call ids the proxy answered with. */
function showsCallIds(caller: FormatId): boolean {
  return caller !== 'ollama';
}

/**
 * The text the hash is taken of: the message's text without white space,
 * then one line per tool call (`id`, name and canonical arguments), in
 * order. Reasoning, refusals and media are left out: callers of the formats
 * this serves cannot keep them reliably.
 */
export function visibleMessageText(parts: readonly Part[], caller: FormatId): string {
  let text = '';
  let calls = '';
  const ids = showsCallIds(caller);
  for (const part of parts) {
    if (part.type === 'text') text += part.text.replace(WHITE_SPACE, '');
    else if (part.type === 'tool_call') calls += `\n${ids ? part.id : ''}\u0000${part.name}\u0000${callArguments(part)}`;
  }
  return text + calls;
}

/** True when a message of `parts` shows the caller anything to key it by (text or a tool call). */
export function hasVisibleContent(parts: readonly Part[]): boolean {
  return parts.some((part) => (part.type === 'text' && part.text.trim() !== '') || part.type === 'tool_call');
}

/**
 * The SHA-256 of {@link visibleMessageText}, as 64 hex digits. Synchronous
 * (`@noble/hashes`): Web Crypto's `digest` costs a promise and a hop to a
 * worker thread each, about 27 µs of CPU per call against 3 µs here.
 */
export function assistantMessageHash(parts: readonly Part[], caller: FormatId): string {
  return bytesToHex(sha256(utf8.encode(visibleMessageText(parts, caller))));
}
