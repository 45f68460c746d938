/**
 * How a message's `content` was spelled: a bare string, an array of parts,
 * `null`, or absent. The decoder records a `$content` hint only when the
 * spelling differs from the natural one for the parts it produced, so IR from
 * other formats gets the natural spelling (what OpenAI itself sends).
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Message, Part } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { jsonType } from '../../core/wire.ts';
import { decodeOpenaiChatContentPart } from './parts-decode.ts';
import { FORMAT, chatHint, shapeHint } from './shape.ts';

/** The spellings of `content`. */
export type ContentShape = 'string' | 'array' | 'null' | 'absent';

/** The natural spelling for these content parts: one text → string; none → `empty`; else array. */
export function naturalShape(parts: readonly Part[], empty: ContentShape): ContentShape {
  return naturalShapeFrom(parts, 0, empty);
}

/** {@link naturalShape} of `parts` from index `start` on. */
function naturalShapeFrom(parts: readonly Part[], start: number, empty: ContentShape): ContentShape {
  const count = parts.length - start;
  if (count === 0) return empty;
  return count === 1 && parts[start]?.type === 'text' ? 'string' : 'array';
}

/** The spelling to encode: the decoder's hint when it still fits the parts, else the natural one. */
export function contentShape(node: Message | Part, parts: readonly Part[], empty: ContentShape): ContentShape {
  return hintedContentShape(shapeHint(node, '$content'), parts, empty);
}

/** {@link contentShape} for a node whose `$content` hint the caller has read (`undefined`: none). */
export function hintedContentShape(hinted: unknown, parts: readonly Part[], empty: ContentShape): ContentShape {
  const natural = naturalShape(parts, empty);
  switch (hinted) {
    case 'array':
      return 'array';
    case 'string':
      return parts.every((part) => part.type === 'text') ? 'string' : natural;
    case 'null':
    case 'absent':
      return parts.length === 0 ? hinted : natural;
    default:
      return natural;
  }
}

/** {@link contentShape} of `count` parts of which `texts` are text parts: what an encoder that kept no list of its parts spells. */
export function countedContentShape(node: Message | Part, count: number, texts: number, empty: ContentShape): ContentShape {
  const natural = count === 0 ? empty : count === 1 && texts === 1 ? 'string' : 'array';
  const hinted = shapeHint(node, '$content');
  switch (hinted) {
    case 'array':
      return 'array';
    case 'string':
      return texts === count ? 'string' : natural;
    case 'null':
    case 'absent':
      return count === 0 ? hinted : natural;
    default:
      return natural;
  }
}

/**
 * Decode `content` (string, parts array, `null` or absent) of the wire
 * object at `parent` into parts, appending to `parts`, and record the
 * spelling on `node` when it is not the natural one (unless `hints` is
 * false: the IR is headed for another format). The pointer of `content` is
 * built only when needed (origins recorded, an array, an error).
 */
export function decodeOpenaiChatContent(
  content: unknown,
  parent: string,
  node: Message | Part,
  parts: Part[],
  empty: ContentShape,
  losses: LossCollector,
  hints = true,
): void {
  const start = parts.length;
  let shape: ContentShape;
  if (typeof content === 'string') {
    const part: Part = { type: 'text', text: content };
    parts.push(losses.recording ? losses.origin(part, `${parent}/content`) : part);
    shape = 'string';
  } else if (Array.isArray(content)) {
    const path = `${parent}/content`;
    for (let index = 0; index < content.length; index++) {
      const part = decodeOpenaiChatContentPart(content[index], path, index, losses);
      if (losses.recording) losses.origin(part, `${path}/${index}`);
      // Fields of its own (`cache_control`) are reported by every other target: anchored, so placing them needs no recording decode.
      else if (part.extensions !== undefined) losses.anchorExtensions(part.extensions, `${path}/${index}`);
      parts.push(part);
    }
    shape = 'array';
  } else if (content === null) {
    shape = 'null';
  } else if (content === undefined) {
    shape = 'absent';
  } else {
    throw new InterlinguaError('invalid_type', `expected a string or an array of content parts, got ${jsonType(content)}; fix the value`, {
      path: `${parent}/content`,
      format: FORMAT,
    });
  }
  if (hints && shape !== naturalShapeFrom(parts, start, empty)) chatHint(node, '$content', shape);
}
