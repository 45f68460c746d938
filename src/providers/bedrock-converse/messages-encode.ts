/**
 * IR messages → Converse `system` and `messages`. Leading system messages
 * become `system` blocks; a later one is folded into user text. Tool
 * messages go into user turns, results first; a same-format trip puts the
 * runs the decoder split back into their wire turn (`$turn`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
 */
import type { Message, Part, TextPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { appended, extensionsOf, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeBedrockPart } from './blocks-encode.ts';
import { cachePointBlock, trailingBreakpoint } from './cache-point.ts';
import { BEDROCK } from './shape.ts';
import { messagePointer, partPointer } from '../../core/ir-pointers.ts';

/** The encoded conversation: `system` blocks (when any) and `messages`. */
export interface EncodedConversation {
  system?: JsonObject[];
  messages: JsonObject[];
}

function turnOf(message: Message): unknown {
  return extensionsOf(message, BEDROCK)?.['$turn'];
}

function foldedSystem(message: Message, losses: LossCollector, path: string): Part[] {
  losses.add('moved_content', path, 'Converse has system blocks only before the conversation; this system message was sent as user text prefixed "System: "', 'warning');
  const parts: Part[] = [];
  message.parts.forEach((part, index) => {
    if (part.type === 'text') parts.push(part.cache === undefined ? { type: 'text', text: `System: ${part.text}` } : { type: 'text', text: `System: ${part.text}`, cache: part.cache });
    else losses.add('unsupported_part', pointer(path, 'parts', index), `a ${part.type} part in a mid-conversation system message has no place in Converse; dropped`);
  });
  return parts;
}

/**
 * Is `part` a text Converse refuses ("The text field in the ContentBlock
 * object … is blank": the empty string)? Reported at `path` when it is;
 * such a part (a Chat assistant's `""` beside its tool calls) is left out.
 * Whitespace is not blank to Converse: recorded Converse traffic has
 * answered 200 to `" "` and `"\n"` text blocks (issue 39), so they travel.
 */
function blankText(part: Part | undefined, losses: LossCollector, path: string): boolean {
  if (part?.type !== 'text' || part.text !== '') return false;
  losses.add('dropped_field', path, 'Converse refuses blank text blocks; an empty text was left out', 'info');
  return true;
}

/** A non-blank text with nothing but its text (most parts of other formats): its block is `{ text }`, built without a pointer, since nothing can be lost. */
function plainText(part: Part | undefined): part is TextPart {
  return part !== undefined && part.type === 'text' && part.text !== '' && part.extensions === undefined && part.citations === undefined && part.cache === undefined;
}

/** Encode IR messages as Converse `system` and `messages`. */
export function encodeBedrockMessages(messages: readonly Message[], losses: LossCollector): EncodedConversation {
  const result: EncodedConversation = { messages: [] };
  let index = 0;
  for (; index < messages.length && messages[index]?.role === 'system'; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    losses.foreignExtensions(message.extensions, BEDROCK, path);
    const system = (result.system ??= []);
    for (let partIndex = 0; partIndex < message.parts.length; partIndex++) {
      const part = message.parts[partIndex];
      if (plainText(part)) {
        system.push({ text: part.text });
        continue;
      }
      if (part === undefined && !(partIndex in message.parts)) continue;
      const pointer = partPointer(path, index, partIndex);
      if (blankText(part, losses, pointer)) continue;
      const encoded = encodeBedrockPart(part as Part, losses, pointer);
      if (encoded === undefined) continue;
      system.push(encoded);
      if (part?.cache !== undefined) system.push(cachePointBlock(part.cache, pointer, losses));
    }
  }
  let last: { wire: JsonObject; turn: unknown; role: string; results: number } | undefined;
  for (; index < messages.length; index++) {
    const message = messages[index] as Message;
    const path = messagePointer(index);
    losses.foreignExtensions(message.extensions, BEDROCK, path);
    if (message.name !== undefined) losses.add('dropped_field', path, 'Converse messages have no participant name; dropped', 'info');
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const parts = message.role === 'system' ? foldedSystem(message, losses, path) : message.parts;
    let blocks: JsonObject[] | undefined;
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex];
      if (plainText(part)) {
        blocks = appended(blocks, { text: part.text });
        continue;
      }
      if (part === undefined && !(partIndex in parts)) continue;
      const pointer = partPointer(path, index, partIndex);
      if (blankText(part, losses, pointer)) continue;
      const encoded = encodeBedrockPart(part as Part, losses, pointer);
      if (encoded === undefined) continue;
      blocks = appended(blocks, encoded);
      const cache = trailingBreakpoint(part as Part);
      if (cache !== undefined) blocks.push(cachePointBlock(cache, pointer, losses));
    }
    // Another format's message whose every part was dropped (each with its loss), or that had none: Converse refuses a message with empty content.
    if (blocks === undefined && extensionsOf(message, BEDROCK) === undefined) {
      if (parts.length === 0) losses.add('dropped_field', path, 'Converse refuses a message with empty content; an empty message was left out', 'info');
      continue;
    }
    const content = blocks ?? [];
    const turn = turnOf(message);
    if (last !== undefined && last.role === role && last.turn === turn) {
      const existing = last.wire['content'] as JsonObject[];
      // Results go first in a merged user turn, as Converse expects them right after the calls.
      if (message.role === 'tool' && turn === undefined) {
        // Mostly the turn holds only results so far (one Chat tool message per result): they are appended.
        if (last.results === existing.length) for (let block = 0; block < content.length; block++) existing.push(content[block] as JsonObject);
        else existing.splice(last.results, 0, ...content);
        last.results += content.length;
      } else for (let block = 0; block < content.length; block++) existing.push(content[block] as JsonObject);
      continue;
    }
    const wire: JsonObject = spreadExtensions({ role, content }, message, BEDROCK);
    result.messages.push(wire);
    last = { wire, turn, role, results: message.role === 'tool' ? content.length : 0 };
  }
  return result;
}
