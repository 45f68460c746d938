/**
 * Converse media blocks (`image`, `document`, `video`, `audio`) → IR parts.
 * Bytes stay the base64 text they arrived as; an `s3Location` becomes a
 * file source scoped to Bedrock.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html
 */
import type { DocumentPart, FileSource, MediaSource, Part } from '../../core/ir.ts';
import { expectArray, expectBoolean, expectObject, expectString, extend, hint, pointer, required, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { BEDROCK, mediaTypeOf, stringField, type MediaKind } from './shape.ts';

const MEDIA_KEYS: ReadonlySet<string> = new Set(['format', 'source']);
const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['format', 'name', 'source', 'context', 'citations']);
const S3_KEYS: ReadonlySet<string> = new Set(['uri']);

/** A `source` of bytes or an S3 location; `undefined` for a source of another kind. */
function decodeSource(source: JsonObject, kind: MediaKind, format: string | undefined, path: string, node: Part): MediaSource | undefined {
  const mediaType = format === undefined ? undefined : mediaTypeOf(kind, format);
  if (source['bytes'] !== undefined && Object.keys(source).length === 1) {
    const data = expectString(source['bytes'], pointer(path, 'bytes'), BEDROCK);
    return { kind: 'base64', data, mediaType: mediaType ?? 'application/octet-stream' };
  }
  if (source['s3Location'] !== undefined && Object.keys(source).length === 1) {
    const location = expectObject(source['s3Location'], pointer(path, 's3Location'), BEDROCK);
    const file: FileSource = { kind: 'file', id: stringField(location, 'uri', pointer(path, 's3Location')), format: BEDROCK };
    if (mediaType !== undefined) file.mediaType = mediaType;
    const rest = unknownKeys(location, S3_KEYS);
    if (rest !== undefined) extend(node, BEDROCK, { s3Location: rest });
    return file;
  }
  return undefined;
}

/** An `image`, `video` or `audio` block; `undefined` when its source is of a kind the IR has no slot for. */
export function decodeBedrockMedia(kind: 'image' | 'video' | 'audio', value: unknown, path: string): Part | undefined {
  const block = expectObject(value, path, BEDROCK);
  const format = stringField(block, 'format', path);
  const sourcePath = pointer(path, 'source');
  const part = { type: kind } as Part;
  const source = decodeSource(expectObject(required(block, 'source', path, BEDROCK), sourcePath, BEDROCK), kind, format, sourcePath, part);
  if (source === undefined) return undefined;
  Object.assign(part, { source });
  hint(part, BEDROCK, '$format', format);
  extend(part, BEDROCK, unknownKeys(block, MEDIA_KEYS));
  return part;
}

/** A `document` block: bytes, S3, plain text, or text parts. */
export function decodeBedrockDocument(value: unknown, path: string): DocumentPart | undefined {
  const block = expectObject(value, path, BEDROCK);
  const format = block['format'] === undefined ? undefined : expectString(block['format'], pointer(path, 'format'), BEDROCK);
  const sourcePath = pointer(path, 'source');
  const wire = expectObject(required(block, 'source', path, BEDROCK), sourcePath, BEDROCK);
  const part = { type: 'document' } as DocumentPart;
  let source: DocumentPart['source'] | undefined = decodeSource(wire, 'document', format, sourcePath, part);
  if (source === undefined && typeof wire['text'] === 'string' && Object.keys(wire).length === 1) {
    source = { kind: 'text', text: wire['text'] };
    if (format !== undefined) source.mediaType = mediaTypeOf('document', format);
  } else if (source === undefined && wire['content'] !== undefined && Object.keys(wire).length === 1) {
    const items = expectArray(wire['content'], pointer(sourcePath, 'content'), BEDROCK);
    const parts = items.map((item, index) => {
      const itemPath = pointer(sourcePath, 'content', index);
      const text = expectObject(item, itemPath, BEDROCK);
      if (Object.keys(text).length !== 1) return undefined;
      return { type: 'text' as const, text: stringField(text, 'text', itemPath) };
    });
    if (parts.every((text) => text !== undefined)) source = { kind: 'content', parts };
  }
  if (source === undefined) return undefined;
  part.source = source;
  if (format !== undefined) hint(part, BEDROCK, '$format', format);
  else hint(part, BEDROCK, '$noFormat', true);
  if (block['name'] !== undefined) part.title = expectString(block['name'], pointer(path, 'name'), BEDROCK);
  if (block['context'] !== undefined) part.context = expectString(block['context'], pointer(path, 'context'), BEDROCK);
  if (block['citations'] !== undefined) {
    const citations = expectObject(block['citations'], pointer(path, 'citations'), BEDROCK);
    if (Object.keys(citations).length === 1 && citations['enabled'] !== undefined) {
      part.citations = expectBoolean(citations['enabled'], pointer(path, 'citations', 'enabled'), BEDROCK);
    } else extend(part, BEDROCK, { citations });
  }
  extend(part, BEDROCK, unknownKeys(block, DOCUMENT_KEYS));
  return part;
}
