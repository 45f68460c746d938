/**
 * Decode Anthropic content blocks into IR parts: one flat switch over the
 * block type, each case a named function.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages-content
 */
import type { OpaquePart, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { CallNames } from '../../core/tools.ts';
import {
  expectArray,
  expectBoolean,
  expectObject,
  expectString,
  extend,
  isObject,
  pointer,
  required,
  unknownKeys,
  type JsonObject,
} from '../../core/wire.ts';
import { CALL_BLOCK_TYPES, OPAQUE_BLOCK_TYPES } from './block-types.ts';
import { decodeAnthropicCitation } from './citations.ts';
import { decodeAnthropicDocument, decodeAnthropicImage, decodeAnthropicSearchResult } from './media-blocks.ts';
import { liftCacheControl } from './cache-control.ts';
import { ANTHROPIC, anthropicHint, hintNull } from './shape.ts';

/** State shared while decoding one body: losses and the tool calls seen so far (id → name). */
export interface BlockScope {
  losses: LossCollector;
  /** The tool calls seen so far, by id; made on the first one (most bodies have none). */
  calls?: CallNames;
  /**
   * Whether to record the shape hints only the Anthropic encoder reads
   * (`false` when the IR is headed for another format, see `CodecContext.target`);
   * unset keeps them.
   */
  hints?: boolean;
}

/** Whether a decode headed for `target` keeps the Anthropic shape hints: only for Anthropic itself or an unknown target. */
export function keepsHints(target: string | undefined): boolean {
  return target === undefined || target === ANTHROPIC;
}

const THINKING_KEYS: ReadonlySet<string> = new Set(['type', 'thinking', 'signature']);
const REDACTED_KEYS: ReadonlySet<string> = new Set(['type', 'data']);

/** The keys of `object` other than the two to four given (compared directly: cheaper than a set lookup per key). */
function extras(object: JsonObject, first: string, second: string, third: string, fourth = first): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    if (key === first || key === second || key === third || key === fourth) continue;
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

function field(object: JsonObject, key: string, path: string): string {
  const value = object[key];
  if (typeof value === 'string') return value;
  // Not a string: the checks below throw with the pointer, built only now.
  return expectString(required(object, key, path, ANTHROPIC), pointer(path, key), ANTHROPIC);
}

/**
 * The pointer of the block at `index` of the list at `base`, or `base` itself
 * for `index` -1. The common blocks are read with `base` and `index` and
 * build it only for an error, a loss or a recorded origin.
 */
function blockPath(base: string, index: number): string {
  return index < 0 ? base : `${base}/${index}`;
}

/**
 * The string `value`, read by the caller as `object[key]`, of the block at
 * `base`/`index`; its pointer is built only when it is missing or not a
 * string. The caller reads the field by name: a read whose key is a
 * parameter is a generic lookup at every call (12% of a 50-turn decode).
 */
function blockField(value: unknown, object: JsonObject, key: string, base: string, index: number): string {
  return typeof value === 'string' ? value : field(object, key, blockPath(base, index));
}

function decodeText(object: JsonObject, base: string, index: number, hints: boolean): TextPart {
  const part: TextPart = { type: 'text', text: blockField(object['text'], object, 'text', base, index) };
  if (part.text === '' && hints) anthropicHint(part, '$empty', true);
  const citations = object['citations'];
  if (citations === null) {
    if (hints) hintNull(part, 'citations');
  } else if (citations !== undefined) {
    const path = blockPath(base, index);
    const list = expectArray(citations, `${path}/citations`, ANTHROPIC);
    part.citations = list.map((citation, at) => decodeAnthropicCitation(citation, `${path}/citations/${at}`));
  }
  extend(part, ANTHROPIC, liftCacheControl(part, extras(object, 'type', 'text', 'citations')));
  return part;
}

function decodeThinking(object: JsonObject, path: string, hints: boolean): ReasoningPart {
  const part: ReasoningPart = { type: 'reasoning', text: field(object, 'thinking', path) };
  if (object['signature'] === undefined) {
    if (hints) anthropicHint(part, '$unsigned', true);
  }
  else part.state = { format: ANTHROPIC, kind: 'signature', value: field(object, 'signature', path) };
  extend(part, ANTHROPIC, unknownKeys(object, THINKING_KEYS));
  return part;
}

function decodeRedactedThinking(object: JsonObject, path: string): ReasoningPart {
  const part: ReasoningPart = {
    type: 'reasoning',
    text: '',
    redacted: true,
    state: { format: ANTHROPIC, kind: 'redacted', value: field(object, 'data', path) },
  };
  extend(part, ANTHROPIC, unknownKeys(object, REDACTED_KEYS));
  return part;
}

function decodeToolUse(object: JsonObject, base: string, index: number, scope: BlockScope): ToolCallPart {
  const id = blockField(object['id'], object, 'id', base, index);
  const name = blockField(object['name'], object, 'name', base, index);
  const value = object['input'];
  const input = isObject(value) ? value : expectObject(required(object, 'input', blockPath(base, index), ANTHROPIC), `${blockPath(base, index)}/input`, ANTHROPIC);
  const part: ToolCallPart = { type: 'tool_call', id, name, arguments: input };
  (scope.calls ??= new CallNames()).add(part);
  extend(part, ANTHROPIC, liftCacheControl(part, extras(object, 'type', 'id', 'name', 'input')));
  return part;
}

function decodeToolResult(object: JsonObject, base: string, index: number, scope: BlockScope): ToolResultPart {
  const callId = blockField(object['tool_use_id'], object, 'tool_use_id', base, index);
  const name = scope.calls?.of(callId);
  if (name === undefined) {
    throw new InterlinguaError(
      'invalid_reference',
      `tool_result answers "${callId}", but no earlier tool_use has that id; send the assistant turn with the tool_use first`,
      { path: `${blockPath(base, index)}/tool_use_id`, format: ANTHROPIC },
    );
  }
  const hints = scope.hints !== false;
  const content = object['content'];
  let parts: Part[];
  if (typeof content === 'string') {
    parts = [{ type: 'text', text: content }];
  } else if (content === undefined) {
    parts = [];
  } else {
    const contentPath = `${blockPath(base, index)}/content`;
    const blocks = expectArray(content, contentPath, ANTHROPIC);
    parts = new Array<Part>(blocks.length);
    for (let at = 0; at < blocks.length; at++) parts[at] = decodeAnthropicBlockAt(blocks[at], contentPath, at, scope);
  }
  const part: ToolResultPart = { type: 'tool_result', callId, content: parts };
  if (name !== '') part.name = name;
  if (hints) anthropicHint(part, typeof content === 'string' ? '$contentString' : content === undefined ? '$contentAbsent' : '$contentArray', true);
  const isError = object['is_error'];
  // Python SDK users replay `model_dump()` output, where an unset flag is `null`: absent in meaning, written back as sent.
  if (isError === null) {
    if (hints) anthropicHint(part, '$isErrorNull', true);
  } else if (isError !== undefined) part.isError = typeof isError === 'boolean' ? isError : expectBoolean(isError, `${blockPath(base, index)}/is_error`, ANTHROPIC);
  extend(part, ANTHROPIC, liftCacheControl(part, extras(object, 'type', 'tool_use_id', 'content', 'is_error')));
  return part;
}

function decodeOpaque(object: JsonObject, type: string, path: string, scope: BlockScope): OpaquePart {
  if (OPAQUE_BLOCK_TYPES.has(type)) {
    // Server and MCP calls can be answered by later result blocks, so their ids count as known.
    if (CALL_BLOCK_TYPES.has(type) && typeof object['id'] === 'string') (scope.calls ??= new CallNames()).add({ id: object['id'], name: typeof object['name'] === 'string' ? object['name'] : '' });
  } else {
    scope.losses.add('unknown_block', path, `unknown Anthropic block type "${type}"; kept as an opaque part for Anthropic only`);
  }
  return { type: 'opaque', format: ANTHROPIC, blockType: type, value: object };
}

/** Decode one wire content block into an IR part. Unknown types become opaque parts with an `unknown_block` loss. */
export function decodeAnthropicBlock(value: unknown, path: string, scope: BlockScope): Part {
  return decodeAnthropicBlockAt(value, path, -1, scope);
}

/** {@link decodeAnthropicBlock} for the block at `index` of the list at `base` (see {@link blockPath}). */
export function decodeAnthropicBlockAt(value: unknown, base: string, index: number, scope: BlockScope): Part {
  const part = decodeBlock(value, base, index, scope);
  // A breakpoint's losses (every other target drops it) point at its `cache_control`, found at once.
  if (part.cache !== undefined) scope.losses.anchorItem(part.cache, `${blockPath(base, index)}/cache_control`);
  return scope.losses.recording ? scope.losses.origin(part, blockPath(base, index)) : part;
}

function decodeBlock(value: unknown, base: string, index: number, scope: BlockScope): Part {
  const object = isObject(value) ? value : expectObject(value, blockPath(base, index), ANTHROPIC);
  const type = blockField(object['type'], object, 'type', base, index);
  switch (type) {
    case 'text':
      return decodeText(object, base, index, scope.hints !== false);
    case 'image':
      return decodeAnthropicImage(object, blockPath(base, index));
    case 'document':
      return decodeAnthropicDocument(object, blockPath(base, index), (block, nestedPath) => decodeAnthropicBlock(block, nestedPath, scope));
    case 'search_result':
      return decodeAnthropicSearchResult(object, blockPath(base, index), (block, nestedPath) => decodeAnthropicBlock(block, nestedPath, scope));
    case 'thinking':
      return decodeThinking(object, blockPath(base, index), scope.hints !== false);
    case 'redacted_thinking':
      return decodeRedactedThinking(object, blockPath(base, index));
    case 'tool_use':
      return decodeToolUse(object, base, index, scope);
    case 'tool_result':
      return decodeToolResult(object, base, index, scope);
    default:
      return decodeOpaque(object, type, blockPath(base, index), scope);
  }
}
