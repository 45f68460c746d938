/**
 * Encode IR parts into Anthropic content blocks: one flat switch over the
 * part type. Parts Anthropic cannot carry are dropped and reported.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages-content
 */
import type {
  PlainTextSource,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { CacheBreakpoint, DocumentPart, ImagePart, MediaSource, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { parseDataUrl } from '../../core/media.ts';
import { argumentsAsObject } from '../../core/tools.ts';
import { appended, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeAnthropicCitation } from './citations.ts';
import { encodeAnthropicMediaSource, encodeDocumentFields, withSourceExtras } from './media-blocks.ts';
import { cacheControlOf } from './cache-control.ts';
import { ANTHROPIC, hasHint, onlyAnthropic, wasNull } from './shape.ts';
import { anthropicToolId, isAnthropicToolId } from './tool-ids-encode.ts';

function encodeText(part: TextPart, path: string, losses: LossCollector): JsonObject | undefined {
  // Anthropic rejects empty text blocks; keep one only when it came from Anthropic as such.
  if (part.text === '' && !hasHint(part, '$empty')) return undefined;
  const wire: JsonObject = { type: 'text', text: part.text } satisfies TextBlockParam;
  if (part.citations !== undefined) {
    const citations: JsonObject[] = [];
    for (let index = 0; index < part.citations.length; index++) {
      const citation = part.citations[index];
      if (citation === undefined) continue;
      const encoded = encodeAnthropicCitation(citation, pointer(path, 'citations', index), losses);
      if (encoded !== undefined) citations.push(encoded);
    }
    if (citations.length > 0 || part.citations.length === 0) wire['citations'] = citations;
  } else if (wasNull(part, 'citations')) wire['citations'] = null;
  return spreadExtensions(wire, part, ANTHROPIC);
}

function encodeImage(part: ImagePart, path: string, losses: LossCollector): JsonObject | undefined {
  const source = encodeAnthropicMediaSource(part.source);
  if (source === undefined) {
    losses.add('unsupported_part', path, `an image from a ${part.source.kind === 'file' ? part.source.format : ''} file store cannot be sent to Anthropic; dropped`);
    return undefined;
  }
  if (part.detail !== undefined) losses.add('dropped_field', pointer(path, 'detail'), 'Anthropic has no image detail setting', 'info');
  return spreadExtensions({ type: 'image', source: withSourceExtras(source, part) }, part, ANTHROPIC);
}

/** A document's Anthropic source; `undefined` for another vendor's file, `null` for a type Anthropic takes none for (reported). */
function encodeDocumentSource(part: DocumentPart, path: string, losses: LossCollector): JsonObject | undefined | null {
  const source = part.source;
  switch (source.kind) {
    case 'text':
      // The SDK types only text/plain; keep any other value the source sent.
      return { type: 'text', media_type: (source.mediaType ?? 'text/plain') as PlainTextSource['media_type'], data: source.text } satisfies PlainTextSource;
    case 'content': {
      if (hasHint(part, '$sourceContentString') && source.parts[0]?.type === 'text') return { type: 'content', content: source.parts[0].text };
      return { type: 'content', content: encodeAnthropicParts(source.parts, pointer(path, 'source', 'parts'), losses) };
    }
    default:
      return binaryDocumentSource(source, path, losses);
  }
}

const fromUtf8 = new TextDecoder();

/** The UTF-8 text of base64 `data` (a plain-text document's bytes). */
function base64Text(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return fromUtf8.decode(bytes);
}

/**
 * A document's bytes as Anthropic takes them: a PDF as a base64 source;
 * text of any `text/*` type (a Converse `txt`, `csv`, `md` or `html`
 * document) as a plain-text source, its bytes decoded, reported as info;
 * `null` for any other type (Word, Excel), reported.
 */
function binaryDocumentSource(source: MediaSource, path: string, losses: LossCollector): JsonObject | undefined | null {
  let mediaType: string | undefined;
  let data: string | undefined;
  if (source.kind === 'base64') ({ mediaType, data } = source);
  else if (source.kind === 'url') {
    const parsed = parseDataUrl(source.url);
    if (parsed?.base64 === true) ({ mediaType, data } = parsed);
  }
  if (data === undefined || mediaType === undefined || mediaType === 'application/pdf') return encodeAnthropicMediaSource(source);
  if (mediaType.startsWith('text/')) {
    try {
      const text = base64Text(data);
      losses.add('approximated', path, `Anthropic takes text documents as plain text; the ${mediaType} document was sent as text/plain`, 'info');
      return { type: 'text', media_type: 'text/plain', data: text } satisfies PlainTextSource;
    } catch {
      // Not base64 after all: no source Anthropic takes.
    }
  }
  losses.add('unsupported_part', path, `Anthropic takes PDF and plain-text documents; the ${mediaType} document was dropped`);
  return null;
}

function encodeSearchResult(part: DocumentPart, path: string, losses: LossCollector): JsonObject {
  const parts = part.source.kind === 'content' ? part.source.parts : [];
  const wire: JsonObject = {
    type: 'search_result',
    source: part.extensions?.anthropic?.['source'],
    title: part.title ?? '',
    content: encodeAnthropicParts(parts, pointer(path, 'source', 'parts'), losses),
  };
  encodeDocumentFields(wire, part);
  return spreadExtensions(wire, part, ANTHROPIC);
}

function encodeDocument(part: DocumentPart, path: string, losses: LossCollector): JsonObject | undefined {
  if (hasHint(part, '$block')) return encodeSearchResult(part, path, losses);
  const source = encodeDocumentSource(part, path, losses);
  // A type Anthropic takes no source for, reported already.
  if (source === null) return undefined;
  if (source === undefined) {
    losses.add('unsupported_part', path, 'a document from another vendor\'s file store cannot be sent to Anthropic; dropped');
    return undefined;
  }
  const wire: JsonObject = { type: 'document', source: withSourceExtras(source, part) };
  encodeDocumentFields(wire, part);
  if (part.filename !== undefined) {
    if (part.title === undefined) {
      wire['title'] = part.filename;
      losses.add('approximated', pointer(path, 'filename'), 'Anthropic documents have no filename; sent as the title', 'info');
    } else losses.add('dropped_field', pointer(path, 'filename'), 'Anthropic documents have no filename', 'info');
  }
  return spreadExtensions(wire, part, ANTHROPIC);
}

function encodeReasoning(part: ReasoningPart, path: string, losses: LossCollector): JsonObject | undefined {
  const state = part.state;
  if (state?.format === ANTHROPIC) {
    const wire: JsonObject =
      state.kind === 'redacted'
        ? ({ type: 'redacted_thinking', data: state.value } satisfies RedactedThinkingBlockParam)
        : ({ type: 'thinking', thinking: part.text, signature: state.value } satisfies ThinkingBlockParam);
    return spreadExtensions(wire, part, ANTHROPIC);
  }
  if (state === undefined && hasHint(part, '$unsigned')) return spreadExtensions({ type: 'thinking', thinking: part.text }, part, ANTHROPIC);
  // Never fabricate a signature: reasoning without Anthropic's own state cannot be a thinking block.
  if (state !== undefined) {
    losses.addAt(part, 'reasoning_state_dropped', path, `${state.format} reasoning state only goes back to ${state.format}; the reasoning part was dropped for Anthropic`);
  } else {
    losses.addAt(part, 'unsupported_part', path, 'reasoning without an Anthropic signature cannot be sent as a thinking block; dropped');
  }
  return undefined;
}

function encodeToolCall(part: ToolCallPart, path: string, losses: LossCollector): JsonObject {
  if (part.syntheticId) losses.addAt(part, 'synthesised_id', `${path}/id`, `the tool call "${part.name}" had no id; sent the synthesised id "${part.id}"`, 'info');
  const wire: JsonObject = {
    type: 'tool_use',
    id: isAnthropicToolId(part.id) ? part.id : anthropicToolId(part.id, `${path}/id`, losses),
    name: part.name,
    input: part.arguments !== undefined ? part.arguments : argumentsAsObject(part, losses, `${path}/arguments`),
  } satisfies ToolUseBlockParam;
  return spreadExtensions(wire, part, ANTHROPIC);
}

/** What {@link plainResultContent} gives for a result whose content needs its blocks encoded. */
const BLOCKS: unique symbol = Symbol('blocks');

/**
 * The `content` of a tool result that needs no blocks encoded (the string
 * and absent spellings of an Anthropic result, one plain text from another
 * format; `undefined` leaves it out), else {@link BLOCKS}. Nothing here is
 * reported.
 */
function plainResultContent(part: ToolResultPart): unknown {
  // The hints are read once (what `hasHint` checks: present and not false); IR from other formats has none.
  const hints = part.extensions?.anthropic;
  if (hints !== undefined && isSet(hints['$contentString'])) {
    const first = part.content[0];
    return first?.type === 'text' ? first.text : '';
  }
  if (hints !== undefined && isSet(hints['$contentAbsent'])) return undefined;
  const content = part.content;
  const single = content.length === 1 ? (content[0] as Part) : undefined;
  if (hints === undefined && single !== undefined && single.type === 'text' && single.extensions === undefined && single.citations === undefined && single.cache === undefined) {
    // One plain text (the common result from another format): the bare block it would encode to is written as its string.
    return single.text === '' ? undefined : single.text;
  }
  return BLOCKS;
}

function encodeToolResultContent(part: ToolResultPart, path: string, losses: LossCollector): unknown {
  const plain = plainResultContent(part);
  if (plain !== BLOCKS) return plain;
  const blocks = encodeAnthropicParts(part.content, `${path}/content`, losses);
  const hints = part.extensions?.anthropic;
  if (hints !== undefined && isSet(hints['$contentArray'])) return blocks;
  // From another format: the plainest Anthropic shape for the same content.
  if (blocks.length === 0) return undefined;
  const only = blocks[0];
  if (blocks.length === 1 && only !== undefined && only['type'] === 'text' && Object.keys(only).length === 2) return only['text'];
  return blocks;
}

/** A hint value that counts as set (see `hasHint`). */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== false;
}

/** The `tool_result` block of `part`, its id and content encoded. */
function toolResultBlock(part: ToolResultPart, callId: string, content: unknown): JsonObject {
  const wire: JsonObject = { type: 'tool_result', tool_use_id: callId } satisfies ToolResultBlockParam;
  if (content !== undefined) wire['content'] = content;
  if (part.isError !== undefined) wire['is_error'] = part.isError;
  else if (part.extensions?.[ANTHROPIC]?.['$isErrorNull'] === true) wire['is_error'] = null;
  return spreadExtensions(wire, part, ANTHROPIC);
}

function encodeToolResult(part: ToolResultPart, path: string, losses: LossCollector): JsonObject {
  const callId = isAnthropicToolId(part.callId) ? part.callId : anthropicToolId(part.callId, `${path}/callId`, losses);
  return toolResultBlock(part, callId, encodeToolResultContent(part, path, losses));
}

/** What {@link directBlock} gives for a part that takes {@link encodeAnthropicPart}. */
const GENERAL: unique symbol = Symbol('general');

/**
 * The block of a part whose encoding reports nothing, so that it needs no
 * pointer (a plain text, a tool call with a valid id and object arguments,
 * a tool result with a valid id and content that needs no blocks):
 * `undefined` when it is dropped, {@link GENERAL} for any other part. The
 * caller has checked that the part carries no other format's extensions.
 */
function directBlock(part: Part): JsonObject | undefined | typeof GENERAL {
  switch (part.type) {
    case 'text':
      if (part.extensions !== undefined || part.citations !== undefined) return GENERAL;
      // Anthropic rejects empty text blocks (what `encodeText` does without a `$empty` hint).
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'tool_call':
      if (part.syntheticId === true || part.arguments === undefined || !isAnthropicToolId(part.id)) return GENERAL;
      return spreadExtensions({ type: 'tool_use', id: part.id, name: part.name, input: part.arguments } satisfies ToolUseBlockParam, part, ANTHROPIC);
    case 'tool_result': {
      if (!isAnthropicToolId(part.callId)) return GENERAL;
      const content = plainResultContent(part);
      return content === BLOCKS ? GENERAL : toolResultBlock(part, part.callId, content);
    }
    default:
      return GENERAL;
  }
}

/** Encode one IR part; `undefined` (with a loss, where something was lost) when Anthropic cannot carry it. */
export function encodeAnthropicPart(part: Part, path: string, losses: LossCollector): JsonObject | undefined {
  losses.foreignExtensions(part.extensions, ANTHROPIC, path);
  switch (part.type) {
    case 'text':
      return encodeText(part, path, losses);
    case 'image':
      return encodeImage(part, path, losses);
    case 'audio':
    case 'video':
      losses.add('unsupported_part', path, `Anthropic has no ${part.type} input; the ${part.type} part was dropped`);
      return undefined;
    case 'document':
      return encodeDocument(part, path, losses);
    case 'reasoning':
      return encodeReasoning(part, path, losses);
    case 'tool_call':
      return encodeToolCall(part, path, losses);
    case 'tool_result':
      return encodeToolResult(part, path, losses);
    case 'refusal':
      losses.add('approximated', path, 'Anthropic has no refusal block; the refusal was sent as text');
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'opaque':
      if (part.format === ANTHROPIC) return part.value as JsonObject;
      losses.addAt(part, 'unsupported_part', path, `${part.format} block "${part.blockType}" has no Anthropic equivalent; dropped`);
      return undefined;
    default:
      return unreachable(part);
  }
}

/**
 * `block` with the `cache_control` of `part`'s breakpoint. A thinking block
 * takes none (Anthropic refuses it), nor does an answer's content: each
 * reported. An opaque block, which is the source's own object, is copied.
 */
function withCacheControl(block: JsonObject, part: Part, path: string, losses: LossCollector, answer: boolean): JsonObject {
  const cache = part.cache as CacheBreakpoint;
  const type = block['type'];
  if (answer || type === 'thinking' || type === 'redacted_thinking') {
    const where = answer ? 'the content of an answer' : 'a thinking block';
    losses.addAt(cache, 'dropped_field', `${path}/cache`, `Anthropic takes no prompt-cache breakpoint (cache_control) on ${where}; dropped`);
    return block;
  }
  const control = cacheControlOf(cache, path, losses);
  if (part.type === 'opaque') return { ...block, cache_control: control };
  block['cache_control'] = control;
  return block;
}

/** Media part types, which an Anthropic answer cannot hold. */
const MEDIA_PART_TYPES: ReadonlySet<string> = new Set(['image', 'audio', 'video', 'document']);

/** Encode IR parts as content blocks; `answer` for a response's content, where media cannot stand. */
export function encodeAnthropicParts(parts: readonly Part[], path: string, losses: LossCollector, answer = false): JsonObject[] {
  let blocks: JsonObject[] | undefined;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index];
    if (part === undefined) continue;
    if (answer && MEDIA_PART_TYPES.has(part.type)) {
      // A Message's content has no media blocks: Claude answers in text (a Gemini image or audio output has nowhere to go).
      losses.add('unsupported_part', `${path}/${index}`, `an Anthropic response cannot carry a generated ${part.type}; dropped`);
      continue;
    }
    // Most parts report nothing: their pointer is built only for those that may.
    const direct = part.extensions === undefined || onlyAnthropic(part.extensions) ? directBlock(part) : GENERAL;
    let block = direct === GENERAL ? encodeAnthropicPart(part, `${path}/${index}`, losses) : direct;
    if (block !== undefined && part.cache !== undefined) block = withCacheControl(block, part, `${path}/${index}`, losses, answer);
    if (block !== undefined) blocks = appended(blocks, block);
  }
  return blocks ?? [];
}
