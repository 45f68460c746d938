/**
 * Encode IR messages into Anthropic `system` and `messages`.
 *
 * Two modes. For IR decoded from Anthropic (`exact`), every message keeps its
 * own turn and the shape hints rebuild the body as it was. For IR from other
 * formats, the documented policies apply:
 * - leading system messages become `system`;
 * - a later system message is folded into user text with a `System:`
 *   prefix (`moved_content` loss): `MessageParam.role` is `user` or
 *   `assistant` only;
 * - consecutive tool and user messages merge into one user turn, tool
 *   results first; consecutive assistant messages merge too;
 * - empty messages and empty text blocks are never sent.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages
 */
import type { Message } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeAnthropicParts } from './parts-encode.ts';
import { ANTHROPIC, onlyAnthropic } from './shape.ts';

/** The encoded conversation: the `system` field (if any) and the turns. */
export interface EncodedConversation {
  system?: unknown;
  messages: JsonObject[];
}

/** One turn being built: its blocks, or its text while it is one plain text block not built yet (one of the two is set; every turn has the same shape). */
interface Turn {
  role: 'user' | 'assistant' | 'system';
  blocks: JsonObject[] | undefined;
  text: string | undefined;
}

const SYSTEM_PREFIX = 'System: ';

/** A text block with nothing but `type` and `text`, which can be sent as a plain string. */
function isBareText(block: JsonObject | undefined): block is JsonObject {
  if (block === undefined || block['type'] !== 'text') return false;
  let count = 0;
  for (const _key in block) count++;
  return count === 2;
}

function firstText(message: Message): string {
  const first = message.parts[0];
  return first?.type === 'text' ? first.text : '';
}

function interleave(results: JsonObject[], others: JsonObject[], layout: unknown): JsonObject[] {
  if (!Array.isArray(layout)) return [...results, ...others];
  const merged: JsonObject[] = [];
  let result = 0;
  let other = 0;
  for (const isResult of layout) {
    const block = isResult ? results[result++] : others[other++];
    if (block !== undefined) merged.push(block);
  }
  return merged;
}

/**
 * The text of a message whose one part is a plain text part (no extensions,
 * no citations, no cache breakpoint): encoding that part reports nothing and gives at most one
 * bare text block, so a string `content` needs no blocks built. `undefined` otherwise.
 */
function plainText(message: Message): string | undefined {
  const parts = message.parts;
  if (parts.length !== 1) return undefined;
  const part = parts[0] as Message['parts'][number];
  return part.type === 'text' && part.extensions === undefined && part.citations === undefined && part.cache === undefined ? part.text : undefined;
}

/** The blocks `encodeAnthropicParts` gives for a plain text part (see {@link plainText}): none for `""`, else one bare text block. */
function plainBlocks(text: string): JsonObject[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

function encodeExact(messages: readonly Message[], losses: LossCollector): EncodedConversation {
  const conversation: EncodedConversation = { messages: [] };
  // The last turn written (later messages marked `$joinPrevious` join it), and its blocks.
  let lastWire: JsonObject | undefined;
  let lastBlocks: JsonObject[] | undefined;
  // The text of the last turn when it was sent as a string and its blocks are not built yet.
  let lastText: string | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    const extensions = message.extensions;
    if (extensions !== undefined && !onlyAnthropic(extensions)) losses.foreignExtensions(extensions, ANTHROPIC, `/messages/${index}`);
    // The hints are read once per message (what `hasHint` checks: present and not false).
    const hints = extensions?.anthropic;
    const contentString = hints !== undefined && isSet(hints['$contentString']);
    const text = contentString ? plainText(message) : undefined;
    const blocks = text !== undefined ? undefined : encodeAnthropicParts(message.parts, `/messages/${index}/parts`, losses);
    if (hints !== undefined && isSet(hints['$systemField'])) {
      conversation.system = contentString ? (text ?? firstText(message)) : blocks;
      continue;
    }
    if (hints !== undefined && isSet(hints['$joinPrevious']) && lastWire !== undefined) {
      const previous = lastBlocks ?? plainBlocks(lastText as string);
      lastBlocks = interleave(previous, blocks ?? plainBlocks(text as string), hints['$layout']);
      lastText = undefined;
      lastWire['content'] = lastBlocks;
      continue;
    }
    const role = message.role === 'tool' ? 'user' : message.role;
    const wire: JsonObject = { role, content: contentString ? (text ?? firstText(message)) : blocks };
    conversation.messages.push(spreadExtensions(wire, message, ANTHROPIC));
    lastWire = wire;
    lastBlocks = blocks;
    lastText = text;
  }
  return conversation;
}

/** A hint value that counts as set (see `hasHint`). */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== false;
}

function encodeSystemField(messages: readonly Message[], count: number, losses: LossCollector): unknown {
  if (count === 1) {
    // One plain system text (the common case): its one bare block would be written as the string anyway.
    const message = messages[0] as Message;
    const text = plainText(message);
    if (text !== undefined) {
      if (message.extensions !== undefined) losses.foreignExtensions(message.extensions, ANTHROPIC, '/messages/0');
      return text === '' ? undefined : text;
    }
  }
  const blocks: JsonObject[] = [];
  for (let index = 0; index < count; index++) {
    const message = messages[index] as Message;
    const path = `/messages/${index}`;
    losses.foreignExtensions(message.extensions, ANTHROPIC, path);
    for (const block of encodeAnthropicParts(message.parts, `${path}/parts`, losses)) {
      if (block['type'] === 'text') blocks.push(block);
      else losses.add('unsupported_part', path, `Anthropic system prompts hold only text; a ${String(block['type'])} block was dropped`);
    }
  }
  if (blocks.length === 0) return undefined;
  const only = blocks[0];
  // Every block here is a text block.
  return blocks.length === 1 && isBareText(only) ? only['text'] : blocks;
}

function foldSystem(blocks: JsonObject[]): JsonObject[] {
  return blocks.map((block) => (block['type'] === 'text' ? { ...block, text: SYSTEM_PREFIX + String(block['text']) } : block));
}

/** The turn's blocks, built now if the turn is still one plain text (see {@link Turn.text}). */
function turnBlocks(turn: Turn): JsonObject[] {
  if (turn.blocks === undefined) {
    turn.blocks = [{ type: 'text', text: turn.text }];
    turn.text = undefined;
  }
  return turn.blocks;
}

function addToTurn(turn: Turn, blocks: JsonObject[], isToolMessage: boolean): void {
  const existing = turnBlocks(turn);
  if (!isToolMessage) {
    existing.push(...blocks);
    return;
  }
  // Tool results must come before any other block of the user turn.
  const firstOther = existing.findIndex((block) => block['type'] !== 'tool_result');
  if (firstOther < 0) existing.push(...blocks);
  else existing.splice(firstOther, 0, ...blocks);
}

/** The wire message of a turn of {@link encodeForeign}. */
function encodeTurn(turn: Turn): JsonObject {
  const blocks = turn.blocks;
  if (blocks === undefined) return { role: turn.role, content: turn.text };
  const only = blocks[0];
  return { role: turn.role, content: blocks.length === 1 && isBareText(only) ? only['text'] : blocks };
}

function encodeForeign(messages: readonly Message[], losses: LossCollector): EncodedConversation {
  let leading = 0;
  while (leading < messages.length && messages[leading]?.role === 'system') leading++;
  const system = encodeSystemField(messages, leading, losses);
  const turns: Turn[] = [];
  for (let index = leading; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.extensions !== undefined) losses.foreignExtensions(message.extensions, ANTHROPIC, `/messages/${index}`);
    if (message.name !== undefined) losses.add('dropped_field', `/messages/${index}/name`, 'Anthropic messages have no participant name');
    // A plain text part (the common message) is one bare text block, built only if the turn is joined or folded.
    let text = plainText(message);
    let blocks: JsonObject[] | undefined;
    if (text === undefined) {
      blocks = encodeAnthropicParts(message.parts, `/messages/${index}/parts`, losses);
      if (blocks.length === 0) continue;
    } else if (text === '') continue;
    // Not `turns[turns.length - 1]` on an empty list: reading index -1 is a slow named-property lookup.
    const last = turns.length > 0 ? turns[turns.length - 1] : undefined;
    let role: Turn['role'] = message.role === 'assistant' ? 'assistant' : 'user';
    if (message.role === 'system') {
      // The Messages API takes `user` and `assistant` turns only (`MessageParam.role`): a system message
      // mid-conversation (Claude Code and pydantic-ai send them to Chat) is user text, marked as Gemini's is.
      if (blocks !== undefined) blocks = foldSystem(blocks);
      else text = SYSTEM_PREFIX + (text as string);
      losses.add('moved_content', `/messages/${index}`, 'Anthropic has no system turn mid-conversation; sent as user text prefixed "System: "');
    }
    if (last !== undefined && last.role === role) addToTurn(last, blocks ?? [{ type: 'text', text }], message.role === 'tool');
    else turns.push({ role, blocks, text: blocks === undefined ? text : undefined });
  }
  // Mapped, not written into `new Array(length)` (a holey array takes JSON.stringify's slow path, a lookup per element) nor pushed (grown from `[]`, a list gets room for 17).
  const encoded = turns.map(encodeTurn);
  return system === undefined ? { messages: encoded } : { system, messages: encoded };
}

/** Encode IR messages; `exact` for IR decoded from Anthropic (rebuild the wire turns as they were). */
export function encodeAnthropicMessages(messages: readonly Message[], exact: boolean, losses: LossCollector): EncodedConversation {
  return exact ? encodeExact(messages, losses) : encodeForeign(messages, losses);
}
