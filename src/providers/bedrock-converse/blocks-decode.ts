/**
 * Decode Converse content blocks into IR parts: one flat switch over the
 * block's member key, each case a named function. A block is a union with
 * one member set (`{"text": …}`, `{"toolUse": …}`); other keys beside it
 * travel in the part's extensions.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
 */
import type { OpaquePart, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectArray, expectObject, expectString, extend, hint, isObject, pointer, required, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { attachCachePoint } from './cache-point.ts';
import { decodeBedrockCitation } from './citations.ts';
import { decodeBedrockDocument, decodeBedrockMedia } from './media-decode.ts';
import { BEDROCK, stringField } from './shape.ts';

/** What decoding a list of blocks needs: where losses go, and whose turn it is. */
export interface BlockScope {
  losses: LossCollector;
  role: 'user' | 'assistant' | 'system';
}

/** Is `key` a member key of the block unions the codec reads? (A switch: cheaper than a set lookup per key.) */
function isMember(key: string): boolean {
  switch (key) {
    case 'text':
    case 'image':
    case 'document':
    case 'video':
    case 'audio':
    case 'toolUse':
    case 'toolResult':
    case 'reasoningContent':
    case 'citationsContent':
    case 'cachePoint':
    case 'guardContent':
    case 'searchResult':
    case 'toolAddition':
    case 'toolRemoval':
    case 'json':
      return true;
    default:
      return false;
  }
}

/** Blocks with no neutral meaning, kept whole for Converse without a loss. */
const OPAQUE_MEMBERS: ReadonlySet<string> = new Set(['cachePoint', 'guardContent', 'searchResult', 'toolAddition', 'toolRemoval']);

const CITATIONS_CONTENT_KEYS: ReadonlySet<string> = new Set(['content', 'citations']);
const REASONING_TEXT_KEYS: ReadonlySet<string> = new Set(['text', 'signature']);

/** The keys of a `toolUse` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function toolUseExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'toolUseId':
      case 'name':
      case 'input':
        continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

/** The keys of a `toolResult` this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function toolResultExtras(wire: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in wire) {
    switch (key) {
      case 'toolUseId':
      case 'content':
      case 'status':
        continue;
    }
    (rest ??= {})[key] = wire[key];
  }
  return rest;
}

function memberOf(block: JsonObject): string | undefined {
  for (const key in block) if (isMember(key)) return key;
  return undefined;
}

function opaque(block: JsonObject, blockType: string): OpaquePart {
  return { type: 'opaque', format: BEDROCK, blockType, value: block };
}

function decodeText(block: JsonObject, path: string): TextPart {
  const text = block['text'];
  return { type: 'text', text: typeof text === 'string' ? text : expectString(text, `${path}/text`, BEDROCK) };
}

function decodeCitationsContent(value: unknown, path: string): TextPart {
  const wire = expectObject(value, path, BEDROCK);
  const content = wire['content'] === undefined ? [] : expectArray(wire['content'], pointer(path, 'content'), BEDROCK);
  let text = '';
  let plain = true;
  content.forEach((item, index) => {
    if (isObject(item) && typeof item['text'] === 'string' && Object.keys(item).length === 1) text += item['text'];
    else if (!isObject(item)) expectObject(item, pointer(path, 'content', index), BEDROCK);
    else plain = false;
  });
  const part: TextPart = { type: 'text', text };
  hint(part, BEDROCK, '$citationsContent', true);
  if (wire['content'] === undefined) hint(part, BEDROCK, '$noContent', true);
  else if (!plain || content.length !== 1) hint(part, BEDROCK, '$content', content);
  const citations = wire['citations'];
  if (citations !== undefined) {
    part.citations = expectArray(citations, pointer(path, 'citations'), BEDROCK).map((citation, index) =>
      decodeBedrockCitation(citation, pointer(path, 'citations', index)),
    );
  } else hint(part, BEDROCK, '$noCitations', true);
  extend(part, BEDROCK, unknownKeys(wire, CITATIONS_CONTENT_KEYS));
  return part;
}

function decodeReasoning(value: unknown, path: string): ReasoningPart | undefined {
  const wire = expectObject(value, path, BEDROCK);
  if (wire['redactedContent'] !== undefined && Object.keys(wire).length === 1) {
    const data = expectString(wire['redactedContent'], pointer(path, 'redactedContent'), BEDROCK);
    return { type: 'reasoning', text: '', redacted: true, state: { format: BEDROCK, kind: 'redacted', value: data } };
  }
  if (wire['reasoningText'] === undefined || Object.keys(wire).length !== 1) return undefined;
  const textPath = pointer(path, 'reasoningText');
  const reasoning = expectObject(wire['reasoningText'], textPath, BEDROCK);
  const part: ReasoningPart = { type: 'reasoning', text: stringField(reasoning, 'text', textPath) };
  if (reasoning['signature'] !== undefined) {
    part.state = { format: BEDROCK, kind: 'signature', value: expectString(reasoning['signature'], pointer(textPath, 'signature'), BEDROCK) };
  } else hint(part, BEDROCK, '$unsigned', true);
  extend(part, BEDROCK, unknownKeys(reasoning, REASONING_TEXT_KEYS));
  return part;
}

function decodeToolUse(value: unknown, path: string): ToolCallPart {
  const wire = expectObject(value, path, BEDROCK);
  // Named reads (a read by a key passed in is a lookup per call); `required` and stringField only to throw.
  const input = wire['input'] ?? required(wire, 'input', path, BEDROCK);
  const id = wire['toolUseId'];
  const name = wire['name'];
  const part: ToolCallPart = {
    type: 'tool_call',
    id: typeof id === 'string' ? id : stringField(wire, 'toolUseId', path),
    name: typeof name === 'string' ? name : stringField(wire, 'name', path),
    arguments: isObject(input) ? input : undefined,
  };
  if (!isObject(input)) {
    part.rawArguments = JSON.stringify(input);
    hint(part, BEDROCK, '$input', input);
  }
  extend(part, BEDROCK, toolUseExtras(wire));
  return part;
}

function decodeResultItem(item: unknown, path: string, scope: BlockScope): Part {
  const block = expectObject(item, path, BEDROCK);
  const member = memberOf(block);
  let part: Part | undefined;
  switch (member) {
    case 'text':
      part = decodeText(block, path);
      break;
    case 'json':
      part = { type: 'text', text: JSON.stringify(block['json']) };
      hint(part, BEDROCK, '$json', block['json']);
      break;
    case 'image':
    case 'video':
      part = decodeBedrockMedia(member, block[member], pointer(path, member));
      break;
    case 'document':
      part = decodeBedrockDocument(block['document'], pointer(path, 'document'));
      break;
    default:
      break;
  }
  if (part === undefined || member === undefined) return unknownBlock(block, member, path, scope);
  outerFields(part, block, member);
  return part;
}

function decodeToolResult(value: unknown, path: string, scope: BlockScope): ToolResultPart {
  const wire = expectObject(value, path, BEDROCK);
  const content = wire['content'] === undefined ? [] : expectArray(wire['content'], `${path}/content`, BEDROCK);
  const id = wire['toolUseId'];
  const callId = typeof id === 'string' ? id : stringField(wire, 'toolUseId', path);
  const part: ToolResultPart = { type: 'tool_result', callId, content: decodeList(content, `${path}/content`, scope, decodeResultItem, false) };
  const status = wire['status'];
  if (status !== undefined) {
    const text = typeof status === 'string' ? status : expectString(status, `${path}/status`, BEDROCK);
    if (text === 'error') part.isError = true;
    else hint(part, BEDROCK, '$status', text);
  }
  extend(part, BEDROCK, toolResultExtras(wire));
  return part;
}

/** Keys beside the member key (a recorder's `"type": "text"`) travel as `blockFields`. */
function outerFields(part: Part, block: JsonObject, member: string): void {
  let rest: JsonObject | undefined;
  for (const key in block) if (key !== member) (rest ??= {})[key] = block[key];
  if (rest !== undefined) extend(part, BEDROCK, { blockFields: rest });
}

function unknownBlock(block: JsonObject, member: string | undefined, path: string, scope: BlockScope): OpaquePart {
  const name = member ?? Object.keys(block)[0] ?? 'empty';
  if (member === undefined || !OPAQUE_MEMBERS.has(member)) {
    scope.losses.add('unknown_block', path, `Converse block "${name}" has no neutral meaning; kept whole for Converse only`, 'info');
  }
  return opaque(block, name);
}

/** Decode one content block. */
export function decodeBedrockBlock(value: unknown, path: string, scope: BlockScope): Part {
  const block = expectObject(value, path, BEDROCK);
  // memberOf and whether other keys stand beside the member, in one pass.
  let member: string | undefined;
  let keys = 0;
  for (const key in block) {
    keys++;
    if (member === undefined && isMember(key)) member = key;
  }
  let part: Part | undefined;
  switch (member) {
    case 'text':
      part = decodeText(block, path);
      break;
    case 'image':
    case 'video':
    case 'audio':
      part = decodeBedrockMedia(member, block[member], `${path}/${member}`);
      break;
    case 'document':
      part = decodeBedrockDocument(block['document'], `${path}/document`);
      break;
    case 'reasoningContent':
      part = decodeReasoning(block['reasoningContent'], `${path}/reasoningContent`);
      break;
    case 'citationsContent':
      part = decodeCitationsContent(block['citationsContent'], `${path}/citationsContent`);
      break;
    case 'toolUse':
      // A server tool's call (Nova grounding) is the vendor's own business, not a client call.
      if (isObject(block['toolUse']) && block['toolUse']['type'] === 'server_tool_use') return opaque(block, 'toolUse');
      part = decodeToolUse(block['toolUse'], `${path}/toolUse`);
      break;
    case 'toolResult':
      // Tool results in the model's own turn are server tools' results.
      if (scope.role === 'assistant') return opaque(block, 'toolResult');
      part = decodeToolResult(block['toolResult'], `${path}/toolResult`, scope);
      break;
    default:
      break;
  }
  if (part === undefined || member === undefined) return unknownBlock(block, member, path, scope);
  if (keys > 1) outerFields(part, block, member);
  return part;
}

/**
 * Decode `list` (at `path`) with `decode`; each part remembers its block's pointer when origins are recorded.
 * Holes stay holes, as `Array.prototype.map` keeps them. With `cachePoints`, a cache point becomes the
 * breakpoint of the part before it ({@link attachCachePoint}).
 */
function decodeList(list: unknown[], path: string, scope: BlockScope, decode: (value: unknown, path: string, scope: BlockScope) => Part, cachePoints: boolean): Part[] {
  const parts: Part[] = new Array(list.length);
  const losses = scope.losses;
  let count = 0;
  for (let index = 0; index < list.length; index++) {
    const value = list[index];
    if (value === undefined && !(index in list)) {
      count++;
      continue;
    }
    const blockPath = `${path}/${index}`;
    if (cachePoints && count > 0 && attachCachePoint(parts[count - 1], value, blockPath, losses)) continue;
    const part = decode(value, blockPath, scope);
    parts[count++] = losses.recording ? losses.origin(part, blockPath) : part;
  }
  if (count < parts.length) parts.length = count;
  return parts;
}

/** Decode a list of content blocks; each part remembers its block's pointer (for loss paths into the source). */
export function decodeBedrockBlocks(value: unknown, path: string, scope: BlockScope): Part[] {
  return decodeList(Array.isArray(value) ? value : expectArray(value, path, BEDROCK), path, scope, decodeBedrockBlock, true);
}
