/**
 * OpenAI's prompt-cache breakpoint on Responses input content ⇄ the IR's
 * `cache`. `prompt_cache_breakpoint: {"mode": "explicit"}` on an
 * `input_text`, `input_image` or `input_file` part (openai 7's types add a
 * `ttl` of `30m` or `12h`) is that part's breakpoint; any other value stays
 * the part's own field. The encoder writes it on those parts of a request;
 * `instructions` (a string), `output_text`, audio, tool calls and tools have
 * no place for one, and each such breakpoint is reported.
 *
 * @see https://platform.openai.com/docs/guides/prompt-caching
 */
import type { Message, Part } from '../../core/ir.ts';
import type { PartMarker } from '../../core/cache-points.ts';

/** The wire key. */
export const BREAKPOINT_KEY = 'prompt_cache_breakpoint';

/** The marker, for core's `liftPartMarker` and `withPartMarker`, with the lifetimes a breakpoint may name (openai 7.57's `ttl`). */
export const RESPONSES_BREAKPOINT: PartMarker = { key: BREAKPOINT_KEY, kindKey: 'mode', kind: 'explicit', lifetimes: ['30m', '12h'], vendor: 'OpenAI' };

/** The input part types that take a breakpoint. */
export function takesBreakpoint(type: unknown): boolean {
  return type === 'input_text' || type === 'input_image' || type === 'input_file';
}

/**
 * The breakpoints a Responses request carries (besides those of the leading
 * system messages, which go into `instructions` and are reported there): on
 * the texts, images and files of input messages and tool outputs, and on a
 * tool output (on its last part). None on assistant text (`output_text`),
 * audio, tool calls or tools.
 */
export function responsesCarries(part: Part, role: Message['role']): boolean {
  switch (part.type) {
    case 'text':
    case 'image':
    case 'document':
      return role !== 'assistant';
    case 'tool_result':
      return role === 'tool';
    default:
      return false;
  }
}
