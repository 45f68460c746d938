/**
 * Prompt-cache breakpoints on Chat content parts ⇄ the IR's `cache`. Chat
 * requests spell one in two ways:
 *
 * - OpenAI's `prompt_cache_breakpoint: {"mode": "explicit"}` on a text,
 *   image, audio or file part (openai 7's types add a `ttl` of `30m` or
 *   `12h`);
 * - Anthropic's `cache_control: {"type": "ephemeral"}` (a `ttl` of `5m` or
 *   `1h`), which OpenRouter takes on text parts (its SDK's
 *   `ChatMessageContentItemText.cache_control`) and LiteLLM and Braintrust's
 *   gateway take on any part, to pass on to a caching vendor.
 *
 * Either is the part's breakpoint; a part with both (recorded lingua
 * requests) lifts both when neither names a lifetime, and otherwise the
 * OpenAI one, `cache_control` then staying the part's own field. A part
 * keeps the spelling it came in (`$cacheKeys`); a breakpoint from another
 * format is written in the dialect's own: `prompt_cache_breakpoint` for plain
 * OpenAI, `cache_control` on text parts and tool results for OpenRouter. The
 * other dialects, and answers, report each such breakpoint as dropped.
 *
 * @see https://platform.openai.com/docs/guides/prompt-caching
 * @see https://openrouter.ai/docs/features/prompt-caching
 */
import type { CacheBreakpoint, Message, Part, Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { unknownKeys, type JsonObject } from '../../core/wire.ts';
import { liftPartMarker, markerBreakpoint, markerTtl, withPartMarker, type CarriedBreakpoint, type PartMarker } from '../../core/cache-points.ts';
import type { OpenaiChatDialect } from './dialects.ts';
import { chatHint, shapeHint } from './shape.ts';

/** OpenAI's wire key. */
export const BREAKPOINT_KEY = 'prompt_cache_breakpoint';
/** Anthropic's wire key, as OpenRouter and LiteLLM take it. */
export const CACHE_CONTROL_KEY = 'cache_control';

/**
 * OpenAI's marker, for core's `liftPartMarker` and `withPartMarker`, with the
 * lifetimes a breakpoint may name (openai 7.57's `PromptCacheBreakpoint.ttl`);
 * a lifetime OpenAI does not name is left to the request's own
 * (`prompt_cache_options.ttl`), reported.
 */
export const CHAT_BREAKPOINT: PartMarker = { key: BREAKPOINT_KEY, kindKey: 'mode', kind: 'explicit', lifetimes: ['30m', '12h'], vendor: 'OpenAI' };

/** Anthropic's marker as OpenRouter takes it (`ChatMessageContentItemCacheControl`: `ephemeral`, a `ttl` of `5m` or `1h`). */
export const CHAT_CACHE_CONTROL: PartMarker = { key: CACHE_CONTROL_KEY, kindKey: 'type', kind: 'ephemeral', lifetimes: ['5m', '1h'], vendor: 'OpenRouter' };

/** The keys that spell a part's breakpoint: bit 1 `prompt_cache_breakpoint`, bit 2 `cache_control`; 0 none. */
export type ChatSpelling = 0 | 1 | 2 | 3;

/**
 * Set `node.cache` from the breakpoint keys of the content part `wire`, and
 * note a `cache_control` spelling on it. Returns the keys it read, which the
 * caller leaves out of the part's own fields.
 */
export function liftChatBreakpoint(node: Part, wire: JsonObject): ChatSpelling {
  const lifted: ChatSpelling = wire[BREAKPOINT_KEY] !== undefined && liftPartMarker(node, wire, CHAT_BREAKPOINT) ? 1 : 0;
  const control = wire[CACHE_CONTROL_KEY];
  if (control === undefined) return lifted;
  const cache = markerBreakpoint(control, CHAT_CACHE_CONTROL.kindKey, CHAT_CACHE_CONTROL.kind, CHAT_CACHE_CONTROL.lifetimes);
  if (cache === undefined) return lifted;
  if (lifted === 0) node.cache = cache;
  // Both, each with a lifetime of its own set (or one with, one without): the IR has one lifetime, so `cache_control` stays the part's own field.
  else if (cache.ttl !== undefined || node.cache?.ttl !== undefined) return lifted;
  chatHint(node, '$cacheKeys', lifted === 0 ? 'cache_control' : 'both');
  return lifted === 0 ? 2 : 3;
}

/** The key a decoded part's breakpoint is reported at: where it came from. */
export function liftedKey(node: Part): string {
  return shapeHint(node, '$cacheKeys') === 'cache_control' ? CACHE_CONTROL_KEY : BREAKPOINT_KEY;
}

/**
 * Which breakpoints a Chat encoder writes in its own spelling: none in an
 * answer, OpenAI's or OpenRouter's in a request to that dialect, only those
 * that came spelled in Chat (`$cacheKeys`) to the other dialects.
 */
export type BreakpointMode = 'none' | 'source' | 'openai' | 'openrouter';

/** The mode of a request to `dialect`. */
export function requestMode(dialect: OpenaiChatDialect): BreakpointMode {
  return dialect === 'openai' || dialect === 'openrouter' ? dialect : 'source';
}

/**
 * The keys that carry the breakpoint of `part` (in a message of `role`; a
 * nested part: of the message of the part it is in), 0 when it is not
 * carried. Its own spelling when it came in `cache_control`; else plain
 * OpenAI's on text parts, on the media of a user message (or moved there from
 * a tool result) and on a tool result (on its tool message's last content
 * part), OpenRouter's on text parts and tool results. None on tool calls,
 * reasoning, refusals, opaque parts or tools.
 */
export function spellingOf(part: Part, role: Message['role'], mode: BreakpointMode): ChatSpelling {
  return part.cache === undefined ? 0 : takenSpelling(part, role, mode);
}

/** {@link spellingOf} for a breakpoint `part` has or may be given (the request's automatic one). */
function takenSpelling(part: Part, role: Message['role'], mode: BreakpointMode): ChatSpelling {
  if (mode === 'none' || part.type === 'opaque') return 0;
  const own = shapeHint(part, '$cacheKeys');
  if (own === 'cache_control') return 2;
  if (own === 'both') return 3;
  switch (part.type) {
    case 'text':
      return mode === 'openai' ? 1 : mode === 'openrouter' ? 2 : 0;
    case 'image':
    case 'audio':
    case 'document':
      return mode === 'openai' && (role === 'user' || role === 'tool') ? 1 : 0;
    case 'tool_result':
      return role !== 'tool' ? 0 : mode === 'openai' ? 1 : mode === 'openrouter' ? 2 : 0;
    default:
      return 0;
  }
}

/** Per mode, made once: which parts take a breakpoint (`dropRequestCacheBreakpoints`, `placeAutomaticBreakpoint`). */
export const CARRIED: Readonly<Record<BreakpointMode, CarriedBreakpoint>> = {
  none: () => false,
  source: (part, role) => takenSpelling(part, role, 'source') !== 0,
  openai: (part, role) => takenSpelling(part, role, 'openai') !== 0,
  openrouter: (part, role) => takenSpelling(part, role, 'openrouter') !== 0,
};

/** `wire` (a fresh content part) with the breakpoint `cache` of the part at IR pointer `path`, under the keys of `spelling`. */
export function withChatMarkers(wire: JsonObject, cache: CacheBreakpoint, spelling: ChatSpelling, path: string, losses: LossCollector): JsonObject {
  if ((spelling & 1) !== 0) withPartMarker(wire, cache, path, losses, CHAT_BREAKPOINT);
  if ((spelling & 2) !== 0) withPartMarker(wire, cache, path, losses, CHAT_CACHE_CONTROL);
  return wire;
}

/** True when the content part `wire` already carries a breakpoint. */
export function hasMarker(wire: JsonObject): boolean {
  return wire[BREAKPOINT_KEY] !== undefined || wire[CACHE_CONTROL_KEY] !== undefined;
}

const AUTOMATIC_KEY: ReadonlySet<string> = new Set([CACHE_CONTROL_KEY]);

/**
 * A request's top-level `cache_control` (OpenRouter's automatic caching, as
 * Anthropic's: a breakpoint on the last cacheable block) as its automatic
 * breakpoint, noted so Chat writes it back there; `rest` (the keys the
 * decoder did not read) without it, or `rest` itself for any other value.
 */
export function liftAutomaticBreakpoint(request: Request, rest: JsonObject, losses: LossCollector): JsonObject | undefined {
  const cache = markerBreakpoint(rest[CACHE_CONTROL_KEY], CHAT_CACHE_CONTROL.kindKey, CHAT_CACHE_CONTROL.kind, CHAT_CACHE_CONTROL.lifetimes);
  if (cache === undefined) return rest;
  request.cache = losses.anchorItem(cache, `/${CACHE_CONTROL_KEY}`);
  chatHint(request, '$cacheControl', true);
  return unknownKeys(rest, AUTOMATIC_KEY);
}

/** True when a request in `mode` writes its automatic breakpoint as a top-level `cache_control`: to OpenRouter, or back to whatever dialect it came from in Chat. */
export function writesAutomatic(request: Request, mode: BreakpointMode): boolean {
  return request.cache !== undefined && (mode === 'openrouter' || shapeHint(request, '$cacheControl') === true);
}

/** The top-level `cache_control` of the automatic breakpoint `cache`. */
export function automaticCacheControl(cache: CacheBreakpoint, losses: LossCollector): JsonObject {
  const ttl = markerTtl(cache, CHAT_CACHE_CONTROL.lifetimes, '', losses, CHAT_CACHE_CONTROL.vendor);
  return ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
}
