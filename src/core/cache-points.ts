/**
 * Prompt-cache breakpoints (`cache` on parts and tools, see
 * `CacheBreakpoint`) for the encoders that do not write them (Gemini,
 * Ollama, and OpenAI Chat and Responses for what they have no place for):
 * each breakpoint is reported where it is, as a `dropped_field` loss, so a
 * caller learns that the prompt it sends there is cached, if at all, only
 * by the vendor's own rules. One walk that reads one field per part and
 * tool; a decoder anchors each breakpoint it makes, so the loss points at
 * its `cache_control`, `cachePoint` or `prompt_cache_breakpoint` at once.
 */
import type { LossCollector } from './losses.ts';
import type { CacheBreakpoint, Message, Part, Response, Request } from './ir.ts';
import { isObject } from './wire.ts';

/**
 * The breakpoint a vendor's marker means (Anthropic's `cache_control`,
 * the inside of a Bedrock `cachePoint`): `{ <key>: <kind> }`, with at most a
 * `ttl` among `lifetimes` beside it; `undefined` for any other value, which
 * the decoder keeps as the vendor's own.
 */
export function markerBreakpoint(value: unknown, key: string, kind: string, lifetimes: readonly string[]): CacheBreakpoint | undefined {
  if (!isObject(value) || value[key] !== kind) return undefined;
  let ttl: unknown;
  for (const field in value) {
    if (field === key) continue;
    if (field !== 'ttl') return undefined;
    ttl = value[field];
  }
  if (ttl === undefined) return {};
  return typeof ttl === 'string' && lifetimes.includes(ttl) ? { ttl } : undefined;
}

/**
 * The lifetime of a breakpoint (of the part or tool at IR pointer `path`)
 * as `vendor` writes it: its own when among `lifetimes`, else none (the
 * vendor's default), reported as `approximated`.
 */
export function markerTtl(cache: CacheBreakpoint, lifetimes: readonly string[], path: string, losses: LossCollector, vendor: string): string | undefined {
  const ttl = cache.ttl;
  if (ttl === undefined || lifetimes.includes(ttl)) return ttl;
  losses.addAt(cache, 'approximated', `${path}/cache/ttl`, `${vendor} takes a cache lifetime of ${lifetimes.join(' or ')}, not "${ttl}"; the breakpoint was sent with the default lifetime`);
  return undefined;
}

/** How a format spells a breakpoint that sits on a content part as a field of its own (OpenAI's `prompt_cache_breakpoint: {"mode": "explicit"}`). */
export interface PartMarker {
  key: string;
  kindKey: string;
  kind: string;
  lifetimes: readonly string[];
  vendor: string;
}

/** Set `node.cache` from the content part `wire`'s neutral marker; true when it had one (its key is then read, not kept). */
export function liftPartMarker(node: { cache?: CacheBreakpoint }, wire: Readonly<Record<string, unknown>>, marker: PartMarker): boolean {
  const value = wire[marker.key];
  if (value === undefined) return false;
  const cache = markerBreakpoint(value, marker.kindKey, marker.kind, marker.lifetimes);
  if (cache === undefined) return false;
  node.cache = cache;
  return true;
}

/** `wire` (a fresh content part) with the marker of the breakpoint of the part at IR pointer `path`. */
export function withPartMarker(wire: Record<string, unknown>, cache: CacheBreakpoint, path: string, losses: LossCollector, marker: PartMarker): Record<string, unknown> {
  const ttl = markerTtl(cache, marker.lifetimes, path, losses, marker.vendor);
  wire[marker.key] = ttl === undefined ? { [marker.kindKey]: marker.kind } : { [marker.kindKey]: marker.kind, ttl };
  return wire;
}

function dropped(target: string): string {
  return `a prompt-cache breakpoint (Anthropic cache_control, Bedrock cachePoint, OpenAI prompt_cache_breakpoint) is not carried to ${target}; dropped`;
}

/** Which breakpoints an encoder writes after all: by the part and the role of its message (a nested part: of the message of the part it is in). */
export type CarriedBreakpoint = (part: Part, role: Message['role']) => boolean;

/** Does any of `parts` (or the parts nested in a tool result or document) carry a breakpoint? Paths are built only once one is found. */
function anyInParts(parts: readonly Part[]): boolean {
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if (part.cache !== undefined) return true;
    if (part.type === 'tool_result' ? anyInParts(part.content) : part.type === 'document' && part.source.kind === 'content' && anyInParts(part.source.parts)) return true;
  }
  return false;
}

function dropInParts(parts: readonly Part[], path: string, role: Message['role'], losses: LossCollector, target: string, carried: CarriedBreakpoint | undefined): void {
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Part;
    if (part.cache !== undefined && carried?.(part, role) !== true) losses.addAt(part.cache, 'dropped_field', `${path}/${index}/cache`, dropped(target));
    if (part.type === 'tool_result') dropInParts(part.content, `${path}/${index}/content`, role, losses, target, carried);
    else if (part.type === 'document' && part.source.kind === 'content') dropInParts(part.source.parts, `${path}/${index}/source/parts`, role, losses, target, carried);
  }
}

function automaticDropped(target: string): string {
  return `automatic prompt caching (a breakpoint on the last cacheable block: Anthropic's or OpenRouter's top-level cache_control) is not carried to ${target}; dropped`;
}

/**
 * `request` with its automatic breakpoint (`request.cache`: "a marker on the
 * last cacheable block") on the last part of its messages that `carried`
 * says the encoder writes one on, for a format with no such setting (what
 * the vendor would do with it), and without `cache`. The request itself when
 * it has none; without `cache` but otherwise itself when that part has a
 * breakpoint already, or when no part can take one (reported as dropped by
 * `target`). Only the message and part that change are copied.
 */
export function placeAutomaticBreakpoint(request: Request, carried: CarriedBreakpoint, losses: LossCollector, target: string): Request {
  const cache = request.cache;
  if (cache === undefined) return request;
  const { cache: _automatic, ...placed } = request;
  const messages = request.messages;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    const parts = message.parts;
    for (let at = parts.length - 1; at >= 0; at--) {
      const part = parts[at] as Part;
      if (!carried(part, message.role)) continue;
      if (part.cache !== undefined) return placed;
      const marked = parts.slice();
      marked[at] = { ...part, cache };
      placed.messages = messages.slice();
      placed.messages[index] = { ...message, parts: marked };
      return placed;
    }
  }
  losses.addAt(cache, 'dropped_field', '/cache', automaticDropped(target));
  return placed;
}

/**
 * Report every breakpoint of `request` as dropped by `target`, but those
 * `carried` says it writes (never a tool's), and its automatic one
 * (`request.cache`) unless `automatic`: the encoder writes that one itself.
 */
export function dropRequestCacheBreakpoints(request: Request, losses: LossCollector, target: string, carried?: CarriedBreakpoint, automatic = false): void {
  if (request.cache !== undefined && !automatic) {
    losses.addAt(request.cache, 'dropped_field', '/cache', automaticDropped(target));
  }
  const messages = request.messages;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (anyInParts(message.parts)) dropInParts(message.parts, `/messages/${index}/parts`, message.role, losses, target, carried);
  }
  const tools = request.tools;
  if (tools === undefined) return;
  for (let index = 0; index < tools.length; index++) {
    const tool = tools[index];
    if (tool?.type === 'function' && tool.cache !== undefined) losses.addAt(tool.cache, 'dropped_field', `/tools/${index}/cache`, dropped(target));
  }
}

/** Report every breakpoint in the messages of `response` as dropped by `target` (an answer never has one from a decoder; IR built by hand may). */
export function dropResponseCacheBreakpoints(response: Response, losses: LossCollector, target: string): void {
  const candidates = response.candidates;
  for (let index = 0; index < candidates.length; index++) {
    const message = (candidates[index] as Response['candidates'][number]).message;
    if (anyInParts(message.parts)) dropInParts(message.parts, `/candidates/${index}/message/parts`, message.role, losses, target, undefined);
  }
}
