/**
 * Image, document and search-result blocks, and their sources
 * (`base64`, `url`, `file`, `text`, `content`).
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages-content
 */
import type { FileImageSource, URLImageSource } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ContentSource, DocumentPart, ImagePart, MediaSource, Part, TextSource } from '../../core/ir.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectMediaType, parseDataUrl, standardBase64 } from '../../core/media.ts';
import { setData } from '../../core/serialize.ts';
import {
  expectArray,
  expectBoolean,
  expectObject,
  expectString,
  extend,
  lookupTable,
  isObject,
  pointer,
  required,
  unknownKeys,
  type JsonObject,
} from '../../core/wire.ts';
import { liftCacheControl } from './cache-control.ts';
import { ANTHROPIC, anthropicHint, hasHint, hintNull, optionalString, wasNull } from './shape.ts';

const IMAGE_KEYS: ReadonlySet<string> = new Set(['type', 'source']);
const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['type', 'source', 'title', 'context', 'citations']);
const SEARCH_RESULT_KEYS: ReadonlySet<string> = new Set(['type', 'source', 'title', 'content', 'citations']);

/** Decodes nested blocks (the parts of a `content` document or a search result). */
export type NestedDecoder = (value: unknown, path: string) => Part;

/** The media type at `path`, or an `invalid_value` error naming this format. */
function mediaType(value: string, path: string): string {
  try {
    return expectMediaType(value, path);
  } catch (error) {
    throw new InterlinguaError('invalid_value', `"${value}" is not a media type; use type/subtype, such as image/png`, { path, format: ANTHROPIC, cause: error });
  }
}

function field(object: JsonObject, key: string, path: string): string {
  return expectString(required(object, key, path, ANTHROPIC), pointer(path, key), ANTHROPIC);
}

/** Decode a `base64` / `url` / `file` source; `undefined` for other source types. */
function decodeMediaSource(source: JsonObject, type: string, path: string): MediaSource | undefined {
  switch (type) {
    case 'base64':
      return { kind: 'base64', data: field(source, 'data', path), mediaType: mediaType(field(source, 'media_type', path), pointer(path, 'media_type')) };
    case 'url':
      return { kind: 'url', url: field(source, 'url', path) };
    case 'file':
      return { kind: 'file', id: field(source, 'file_id', path), format: ANTHROPIC };
    default:
      return undefined;
  }
}

function sourceExtras(part: ImagePart | DocumentPart, source: JsonObject, known: ReadonlySet<string>): void {
  const extras = unknownKeys(source, known);
  if (extras !== undefined) extend(part, ANTHROPIC, { source: extras });
}

const MEDIA_SOURCE_KEYS = lookupTable<ReadonlySet<string>>({
  base64: new Set(['type', 'data', 'media_type']),
  url: new Set(['type', 'url']),
  file: new Set(['type', 'file_id']),
  text: new Set(['type', 'data', 'media_type']),
  content: new Set(['type', 'content']),
});

/** Decode an `image` block. */
export function decodeAnthropicImage(object: JsonObject, path: string): ImagePart {
  const sourcePath = pointer(path, 'source');
  const source = expectObject(required(object, 'source', path, ANTHROPIC), sourcePath, ANTHROPIC);
  const type = field(source, 'type', sourcePath);
  const media = decodeMediaSource(source, type, sourcePath);
  if (media === undefined) {
    throw new InterlinguaError('invalid_value', `unknown image source type "${type}"; use base64, url or file`, { path: pointer(sourcePath, 'type'), format: ANTHROPIC });
  }
  const part: ImagePart = { type: 'image', source: media };
  sourceExtras(part, source, MEDIA_SOURCE_KEYS[type] ?? IMAGE_KEYS);
  extend(part, ANTHROPIC, liftCacheControl(part, unknownKeys(object, IMAGE_KEYS)));
  return part;
}

function decodeContentSource(source: JsonObject, path: string, part: DocumentPart, nested: NestedDecoder): ContentSource {
  const content = required(source, 'content', path, ANTHROPIC);
  if (typeof content === 'string') {
    anthropicHint(part, '$sourceContentString', true);
    return { kind: 'content', parts: [{ type: 'text', text: content }] };
  }
  const blocks = expectArray(content, pointer(path, 'content'), ANTHROPIC);
  return { kind: 'content', parts: blocks.map((block, index) => nested(block, pointer(path, 'content', index))) };
}

function decodeCitationsFlag(object: JsonObject, path: string, part: DocumentPart): void {
  const citations = object['citations'];
  if (citations === null) hintNull(part, 'citations');
  else if (citations !== undefined) {
    const config = expectObject(citations, pointer(path, 'citations'), ANTHROPIC);
    if (config['enabled'] !== undefined) part.citations = expectBoolean(config['enabled'], pointer(path, 'citations', 'enabled'), ANTHROPIC);
    else anthropicHint(part, '$citationsEmpty', true);
  }
}

/** Decode a `document` block (PDF, plain text, custom content, URL or file). */
export function decodeAnthropicDocument(object: JsonObject, path: string, nested: NestedDecoder): DocumentPart {
  const sourcePath = pointer(path, 'source');
  const source = expectObject(required(object, 'source', path, ANTHROPIC), sourcePath, ANTHROPIC);
  const type = field(source, 'type', sourcePath);
  const part = { type: 'document' } as DocumentPart;
  let decoded: DocumentPart['source'] | undefined = decodeMediaSource(source, type, sourcePath);
  if (type === 'text') {
    decoded = { kind: 'text', text: field(source, 'data', sourcePath), mediaType: field(source, 'media_type', sourcePath) } satisfies TextSource;
  } else if (type === 'content') {
    decoded = decodeContentSource(source, sourcePath, part, nested);
  }
  if (decoded === undefined) {
    throw new InterlinguaError('invalid_value', `unknown document source type "${type}"; use base64, text, content, url or file`, { path: pointer(sourcePath, 'type'), format: ANTHROPIC });
  }
  part.source = decoded;
  sourceExtras(part, source, MEDIA_SOURCE_KEYS[type] ?? DOCUMENT_KEYS);
  const title = optionalString(object, 'title', path, part);
  if (title !== undefined) part.title = title;
  const context = optionalString(object, 'context', path, part);
  if (context !== undefined) part.context = context;
  decodeCitationsFlag(object, path, part);
  extend(part, ANTHROPIC, liftCacheControl(part, unknownKeys(object, DOCUMENT_KEYS)));
  return part;
}

/** Decode a `search_result` block into a document made of parts whose URL travels as the `source` extension. */
export function decodeAnthropicSearchResult(object: JsonObject, path: string, nested: NestedDecoder): DocumentPart {
  const url = field(object, 'source', path);
  const content = expectArray(required(object, 'content', path, ANTHROPIC), pointer(path, 'content'), ANTHROPIC);
  const part: DocumentPart = {
    type: 'document',
    source: { kind: 'content', parts: content.map((block, index) => nested(block, pointer(path, 'content', index))) },
    title: field(object, 'title', path),
  };
  anthropicHint(part, '$block', 'search_result');
  extend(part, ANTHROPIC, { source: url });
  decodeCitationsFlag(object, path, part);
  extend(part, ANTHROPIC, liftCacheControl(part, unknownKeys(object, SEARCH_RESULT_KEYS)));
  return part;
}

/** The wire source of a media source; `undefined` when it cannot travel to Anthropic. */
export function encodeAnthropicMediaSource(source: MediaSource): JsonObject | undefined {
  switch (source.kind) {
    case 'base64':
      // Images and PDFs share this shape; the media type is whatever the part holds.
      return base64Source(source.mediaType, standardBase64(source.data));
    case 'url': {
      const data = parseDataUrl(source.url);
      if (data?.base64) return base64Source(data.mediaType, standardBase64(data.data));
      return { type: 'url', url: source.url } satisfies URLImageSource;
    }
    case 'file':
      return source.format === undefined || source.format === ANTHROPIC ? ({ type: 'file', file_id: source.id } satisfies FileImageSource) : undefined;
    default:
      return undefined;
  }
}

/** A `base64` source; large data is remembered for `stringifyBody` to write apart. */
function base64Source(mediaType: string, data: string): JsonObject {
  const wire: JsonObject = { type: 'base64', media_type: mediaType, data: '' };
  setData(wire, 'data', data);
  return wire;
}

/** Merge the extra source fields a decoder kept (`extensions.anthropic.source`) back into a wire source. */
export function withSourceExtras(wire: JsonObject, part: ImagePart | DocumentPart): JsonObject {
  const extras = part.extensions?.anthropic?.['source'];
  return isObject(extras) ? Object.assign(wire, extras) : wire;
}

/** Write a document's `title`, `context` and `citations` fields. */
export function encodeDocumentFields(wire: JsonObject, part: DocumentPart): void {
  if (part.title !== undefined) wire['title'] = part.title;
  else if (wasNull(part, 'title')) wire['title'] = null;
  if (part.context !== undefined) wire['context'] = part.context;
  else if (wasNull(part, 'context')) wire['context'] = null;
  if (part.citations !== undefined) wire['citations'] = { enabled: part.citations };
  else if (wasNull(part, 'citations')) wire['citations'] = null;
  else if (hasHint(part, '$citationsEmpty')) wire['citations'] = {};
}
