/**
 * Encode IR parts as Converse content blocks: one flat switch over the part
 * type, each case a named function. What Converse cannot carry is dropped
 * with a loss.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
 */
import type { Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { argumentsAsObject } from '../../core/tools.ts';
import { appended, extensionsOf, isObject, type JsonObject } from '../../core/wire.ts';
import { encodeBedrockCitation } from './citations.ts';
import { encodeBedrockDocument, encodeBedrockMedia } from './media-encode.ts';
import { cachePointBlock, trailingBreakpoint } from './cache-point.ts';
import { BEDROCK, hasHint } from './shape.ts';

/** Member-level extension fields: everything but the block-level `blockFields`. */
function memberFields(target: JsonObject, part: Part): JsonObject {
  const fields = extensionsOf(part, BEDROCK);
  if (fields === undefined) return target;
  for (const key in fields) {
    if (key.charCodeAt(0) === 36 || key === 'blockFields' || key in target) continue;
    target[key] = fields[key];
  }
  return target;
}

/** The block with its block-level fields (`blockFields`) around the member. */
function block(part: Part, member: JsonObject): JsonObject {
  const outer = extensionsOf(part, BEDROCK)?.['blockFields'];
  return isObject(outer) ? { ...outer, ...member } : member;
}

function encodeText(part: TextPart, losses: LossCollector, path: string): JsonObject {
  if (part.citations === undefined && part.extensions === undefined) return { text: part.text };
  if (part.citations === undefined && !hasHint(part, '$citationsContent')) return block(part, memberFields({ text: part.text }, part));
  const hints = extensionsOf(part, BEDROCK);
  const content = Array.isArray(hints?.['$content']) ? hints['$content'] : [{ text: part.text }];
  const wire: JsonObject = hasHint(part, '$noContent') && part.text === '' ? {} : { content };
  if (part.citations !== undefined) {
    const citations: JsonObject[] = [];
    part.citations.forEach((citation, index) => {
      const encoded = encodeBedrockCitation(citation, losses, `${path}/citations/${index}`);
      if (encoded !== undefined) citations.push(encoded);
    });
    wire['citations'] = citations;
  } else if (!hasHint(part, '$noCitations')) wire['citations'] = [];
  return block(part, { citationsContent: memberFields(wire, part) });
}

/** Whether parts go into a request (reasoning must carry Bedrock's own signature) or a response. */
export type PartTarget = 'request' | 'response';

function encodeReasoning(part: ReasoningPart, losses: LossCollector, path: string, target: PartTarget): JsonObject | undefined {
  const state = part.state;
  if (state !== undefined && state.format !== BEDROCK) {
    losses.addAt(part, 'reasoning_state_dropped', path, `${state.format} reasoning state only goes back to ${state.format}; dropped for Converse`);
  }
  const own = state?.format === BEDROCK ? state : undefined;
  if (part.summary !== undefined) losses.addAt(part, 'dropped_field', `${path}/summary`, 'Converse reasoning has no summaries; the reasoning summary was dropped');
  if (own?.kind === 'redacted') return block(part, { reasoningContent: { redactedContent: own.value } });
  if (own === undefined && !hasHint(part, '$unsigned') && target === 'request') {
    losses.addAt(part, 'unsupported_part', path, 'reasoning without a Bedrock signature cannot go back to Bedrock (no signature may be made up); dropped');
    return undefined;
  }
  const text: JsonObject = { text: part.text };
  if (own !== undefined) text['signature'] = own.value;
  return block(part, { reasoningContent: { reasoningText: memberFields(text, part) } });
}

function encodeToolCall(part: ToolCallPart, losses: LossCollector, path: string): JsonObject {
  const hints = extensionsOf(part, BEDROCK);
  const input = part.arguments === undefined && hints?.['$input'] !== undefined ? hints['$input'] : argumentsAsObject(part, losses, path);
  if (part.syntheticId === true) losses.addAt(part, 'synthesised_id', `${path}/id`, `tool call "${part.name}" had no id; sent the synthesised toolUseId "${part.id}"`, 'info');
  return block(part, { toolUse: memberFields({ toolUseId: part.id, name: part.name, input }, part) });
}

/** Encode item `index` of the tool result at `resultPath` (its pointer is made only where it is used). */
function encodeResultItem(item: Part, losses: LossCollector, resultPath: string, index: number, trailing: boolean): JsonObject | undefined {
  // The last item's breakpoint, in a result without one of its own, goes after the tool result (`trailingBreakpoint`).
  if (item.cache !== undefined && !trailing) {
    losses.addAt(item.cache, 'dropped_field', `${resultPath}/content/${index}/cache`, 'a Converse tool result holds no cache point, and only its last item\'s breakpoint moves after it; dropped');
  }
  if (item.type === 'text') {
    if (item.extensions === undefined) return { text: item.text };
    const json = extensionsOf(item, BEDROCK)?.['$json'];
    if (json !== undefined && JSON.stringify(json) === item.text) return block(item, memberFields({ json }, item));
    return block(item, memberFields({ text: item.text }, item));
  }
  const path = `${resultPath}/content/${index}`;
  if (item.type === 'image' || item.type === 'video') return encodeBedrockMedia(item, losses, path);
  if (item.type === 'document') return encodeBedrockDocument(item, losses, path);
  if (item.type === 'opaque' && item.format === BEDROCK && isObject(item.value)) return item.value;
  losses.add('unsupported_part', path, `a Converse tool result holds text, JSON, images, documents and videos; the ${item.type} was dropped`);
  return undefined;
}

function encodeToolResult(part: ToolResultPart, losses: LossCollector, path: string): JsonObject {
  if (part.syntheticId === true) losses.addAt(part, 'synthesised_id', `${path}/callId`, `tool result had no call id; sent the synthesised toolUseId "${part.callId}"`, 'info');
  let content: JsonObject[] | undefined;
  const items = part.content;
  for (let index = 0; index < items.length; index++) {
    // Holes are skipped, as forEach skips them.
    if (!(index in items)) continue;
    const encoded = encodeResultItem(items[index] as Part, losses, path, index, part.cache === undefined && index === items.length - 1);
    if (encoded !== undefined) content = appended(content, encoded);
  }
  const wire: JsonObject = { toolUseId: part.callId, content: content ?? [] };
  const status = extensionsOf(part, BEDROCK)?.['$status'];
  if (part.isError === true) wire['status'] = 'error';
  else if (typeof status === 'string') wire['status'] = status;
  return block(part, { toolResult: memberFields(wire, part) });
}

/** Encode one part, or `undefined` (with a loss) when Converse cannot carry it. */
export function encodeBedrockPart(part: Part, losses: LossCollector, path: string, target: PartTarget = 'request'): JsonObject | undefined {
  losses.foreignExtensions(part.extensions, BEDROCK, path);
  switch (part.type) {
    case 'text':
      return encodeText(part, losses, path);
    case 'image':
    case 'audio':
    case 'video':
      return encodeBedrockMedia(part, losses, path);
    case 'document':
      return encodeBedrockDocument(part, losses, path);
    case 'reasoning':
      return encodeReasoning(part, losses, path, target);
    case 'tool_call':
      return encodeToolCall(part, losses, path);
    case 'tool_result':
      return encodeToolResult(part, losses, path);
    case 'refusal':
      losses.add('approximated', path, 'Converse has no refusal block; the refusal was sent as text', 'info');
      return { text: part.text };
    case 'opaque':
      if (part.format === BEDROCK && isObject(part.value)) return part.value;
      losses.addAt(part, 'unsupported_part', path, `${part.format} block "${part.blockType}" means nothing to Converse; dropped`);
      return undefined;
    default:
      return unreachable(part);
  }
}

/** Encode parts, dropping those Converse cannot carry. */
export function encodeBedrockParts(parts: readonly Part[], losses: LossCollector, path: string, target: PartTarget = 'request'): JsonObject[] {
  const out: JsonObject[] = [];
  parts.forEach((part, index) => {
    const encoded = encodeBedrockPart(part, losses, `${path}/${index}`, target);
    if (encoded === undefined) return;
    out.push(encoded);
    const cache = trailingBreakpoint(part);
    if (cache !== undefined) out.push(cachePointBlock(cache, `${path}/${index}`, losses));
  });
  return out;
}


