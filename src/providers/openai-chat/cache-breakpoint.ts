/**
 * OpenAI's prompt-cache breakpoint on Chat content parts ⇄ the IR's
 * `cache`. `prompt_cache_breakpoint: {"mode": "explicit"}` on a text, image,
 * audio or file part (openai 7's types add a `ttl` of `30m` or `12h`) is
 * that part's breakpoint; any other value stays the part's own field. Only
 * plain OpenAI writes it, in requests: the other dialects, and answers,
 * report each breakpoint as dropped.
 *
 * @see https://platform.openai.com/docs/guides/prompt-caching
 */
import type { Message, Part } from '../../core/ir.ts';
import type { PartMarker } from '../../core/cache-points.ts';

/** The wire key. */
export const BREAKPOINT_KEY = 'prompt_cache_breakpoint';

/**
 * The marker, for core's `liftPartMarker` and `withPartMarker`, with the
 * lifetimes a breakpoint may name (openai 7.57's `PromptCacheBreakpoint.ttl`);
 * a lifetime OpenAI does not name is left to the request's own
 * (`prompt_cache_options.ttl`), reported.
 */
export const CHAT_BREAKPOINT: PartMarker = { key: BREAKPOINT_KEY, kindKey: 'mode', kind: 'explicit', lifetimes: ['30m', '12h'], vendor: 'OpenAI' };

/**
 * The breakpoints a plain OpenAI request carries: on text parts, on the
 * media of a user message (or moved there from a tool result), and on a
 * tool result (on its tool message's last content part). None on tool
 * calls, reasoning, refusals, opaque parts or tools.
 */
export function chatCarries(part: Part, role: Message['role']): boolean {
  switch (part.type) {
    case 'text':
      return true;
    case 'image':
    case 'audio':
    case 'document':
      return role === 'user' || role === 'tool';
    case 'tool_result':
      return role === 'tool';
    default:
      return false;
  }
}
