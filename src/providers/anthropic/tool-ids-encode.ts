/**
 * Tool-call ids: Anthropic requires `^[a-zA-Z0-9_-]+$`. Ids from other
 * formats are rewritten by one deterministic function, applied to both the
 * call and its result so pairs stay matched.
 */
import type { LossCollector } from '../../core/losses.ts';

/** 1 for the characters of `[a-zA-Z0-9_-]`, by character code below 128. */
const ID_CHARACTERS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45) ID_CHARACTERS[code] = 1;
}

/** True when Anthropic accepts `id` as it is: one or more of `[a-zA-Z0-9_-]` (a table read per character: cheaper than a regular expression or five range checks). */
export function isAnthropicToolId(id: string): boolean {
  if (id.length === 0) return false;
  for (let index = 0; index < id.length; index++) {
    const code = id.charCodeAt(index);
    if (code >= 128 || ID_CHARACTERS[code] === 0) return false;
  }
  return true;
}

/** The id as Anthropic accepts it; reports an `approximated` loss when it had to change. */
export function anthropicToolId(id: string, path: string, losses: LossCollector): string {
  if (isAnthropicToolId(id)) return id;
  const rewritten = id === '' ? 'toolu_empty' : id.replace(/[^a-zA-Z0-9_-]/g, '_');
  losses.add('approximated', path, `tool call id "${id}" has characters Anthropic rejects; sent as "${rewritten}"`, 'info');
  return rewritten;
}
