/**
 * Decode Anthropic content blocks into IR parts: one flat switch over the
 * block type, each case a named function.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages-content
 */
import type { OpaquePart, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
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
import { ANTHROPIC, anthropicHint, hintNull } from './shape.ts';

/** State shared while decoding one body: losses and the tool calls seen so far (id → name). */
export interface BlockScope {
  losses: LossCollector;
  /** Made on the first tool call (most bodies have none). */
  calls?: Map<string, string>;
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

function decodeText(object: JsonObject, path: string, hints: boolean): TextPart {
  const part: TextPart = { type: 'text', text: field(object, 'text', path) };
  if (part.text === '' && hints) anthropicHint(part, '$empty', true);
  const citations = object['citations'];
  if (citations === null) {
    if (hints) hintNull(part, 'citations');
  } else if (citations !== undefined) {
    const list = expectArray(citations, `${path}/citations`, ANTHROPIC);
    part.citations = list.map((citation, index) => decodeAnthropicCitation(citation, `${path}/citations/${index}`));
  }
  extend(part, ANTHROPIC, extras(object, 'type', 'text', 'citations'));
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

function decodeToolUse(object: JsonObject, path: string, scope: BlockScope): ToolCallPart {
  const id = field(object, 'id', path);
  const name = field(object, 'name', path);
  const value = object['input'];
  const input = isObject(value) ? value : expectObject(required(object, 'input', path, ANTHROPIC), `${path}/input`, ANTHROPIC);
  (scope.calls ??= new Map()).set(id, name);
  const part: ToolCallPart = { type: 'tool_call', id, name, arguments: input };
  extend(part, ANTHROPIC, extras(object, 'type', 'id', 'name', 'input'));
  return part;
}

function decodeToolResult(object: JsonObject, path: string, scope: BlockScope): ToolResultPart {
  const callId = field(object, 'tool_use_id', path);
  const name = scope.calls?.get(callId);
  if (name === undefined) {
    throw new InterlinguaError(
      'invalid_reference',
      `tool_result answers "${callId}", but no earlier tool_use has that id; send the assistant turn with the tool_use first`,
      { path: `${path}/tool_use_id`, format: ANTHROPIC },
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
    const blocks = expectArray(content, `${path}/content`, ANTHROPIC);
    parts = new Array<Part>(blocks.length);
    const contentPath = `${path}/content`;
    for (let index = 0; index < blocks.length; index++) parts[index] = decodeAnthropicBlock(blocks[index], `${contentPath}/${index}`, scope);
  }
  const part: ToolResultPart = { type: 'tool_result', callId, content: parts };
  if (name !== '') part.name = name;
  if (hints) anthropicHint(part, typeof content === 'string' ? '$contentString' : content === undefined ? '$contentAbsent' : '$contentArray', true);
  const isError = object['is_error'];
  // Python SDK users replay `model_dump()` output, where an unset flag is `null`: absent in meaning, written back as sent.
  if (isError === null) {
    if (hints) anthropicHint(part, '$isErrorNull', true);
  } else if (isError !== undefined) part.isError = expectBoolean(isError, `${path}/is_error`, ANTHROPIC);
  extend(part, ANTHROPIC, extras(object, 'type', 'tool_use_id', 'content', 'is_error'));
  return part;
}

function decodeOpaque(object: JsonObject, type: string, path: string, scope: BlockScope): OpaquePart {
  if (OPAQUE_BLOCK_TYPES.has(type)) {
    // Server and MCP calls can be answered by later result blocks, so their ids count as known.
    if (CALL_BLOCK_TYPES.has(type) && typeof object['id'] === 'string') (scope.calls ??= new Map()).set(object['id'], typeof object['name'] === 'string' ? object['name'] : '');
  } else {
    scope.losses.add('unknown_block', path, `unknown Anthropic block type "${type}"; kept as an opaque part for Anthropic only`);
  }
  return { type: 'opaque', format: ANTHROPIC, blockType: type, value: object };
}

/** Decode one wire content block into an IR part. Unknown types become opaque parts with an `unknown_block` loss. */
export function decodeAnthropicBlock(value: unknown, path: string, scope: BlockScope): Part {
  return scope.losses.origin(decodeBlock(value, path, scope), path);
}

function decodeBlock(value: unknown, path: string, scope: BlockScope): Part {
  const object = isObject(value) ? value : expectObject(value, path, ANTHROPIC);
  const type = field(object, 'type', path);
  switch (type) {
    case 'text':
      return decodeText(object, path, scope.hints !== false);
    case 'image':
      return decodeAnthropicImage(object, path);
    case 'document':
      return decodeAnthropicDocument(object, path, (block, blockPath) => decodeAnthropicBlock(block, blockPath, scope));
    case 'search_result':
      return decodeAnthropicSearchResult(object, path, (block, blockPath) => decodeAnthropicBlock(block, blockPath, scope));
    case 'thinking':
      return decodeThinking(object, path, scope.hints !== false);
    case 'redacted_thinking':
      return decodeRedactedThinking(object, path);
    case 'tool_use':
      return decodeToolUse(object, path, scope);
    case 'tool_result':
      return decodeToolResult(object, path, scope);
    default:
      return decodeOpaque(object, type, path, scope);
  }
}

