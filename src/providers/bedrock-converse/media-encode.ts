/**
 * IR media and document parts → Converse `image`, `video`, `audio` and
 * `document` blocks. Converse takes bytes or an S3 location: a data URL
 * becomes bytes, an `s3://` URL or a Bedrock file an S3 location; web URLs
 * and other vendors' files cannot travel.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html
 */
import type { AudioPart, DocumentPart, ImagePart, MediaSource, VideoPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { parseDataUrl, standardBase64 } from '../../core/media.ts';
import { setData } from '../../core/serialize.ts';
import { extensionsOf, isObject, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { BEDROCK, formatOf, type MediaKind } from './shape.ts';

/** The wire source of a media source and its media type, or `undefined` when Converse cannot carry it. */
function encodeSource(source: MediaSource, node: ImagePart | AudioPart | VideoPart | DocumentPart): { source: JsonObject; mediaType: string | undefined } | undefined {
  switch (source.kind) {
    case 'base64':
      return { source: bytesSource(standardBase64(source.data)), mediaType: source.mediaType };
    case 'url': {
      const data = parseDataUrl(source.url);
      if (data !== undefined) return { source: bytesSource(standardBase64(data.data)), mediaType: data.mediaType };
      if (source.url.startsWith('s3://')) return { source: { s3Location: { uri: source.url } }, mediaType: source.mediaType };
      return undefined;
    }
    case 'file': {
      if (source.format !== BEDROCK) return undefined;
      const extra = extensionsOf(node, BEDROCK)?.['s3Location'];
      return { source: { s3Location: { uri: source.id, ...(isObject(extra) ? extra : {}) } }, mediaType: source.mediaType };
    }
  }
}

/** A `bytes` source; large data is remembered for `stringifyBody` to write apart. */
function bytesSource(data: string): JsonObject {
  const source: JsonObject = { bytes: '' };
  setData(source, 'bytes', data);
  return source;
}

function whyNot(source: MediaSource): string {
  if (source.kind === 'url') return `Converse takes media as bytes or an S3 location, not a URL (${source.url.slice(0, 80)})`;
  if (source.kind === 'file') return `a ${source.format ?? 'vendor'} file id does not exist on Bedrock`;
  return 'Converse cannot carry this media source';
}

/** An `image`, `video` or `audio` block, or `undefined` with an `unsupported_part` loss. */
export function encodeBedrockMedia(part: ImagePart | AudioPart | VideoPart, losses: LossCollector, path: string): JsonObject | undefined {
  const kind: MediaKind = part.type;
  const encoded = encodeSource(part.source, part);
  if (encoded === undefined) {
    losses.add('unsupported_part', path, `${whyNot(part.source)}; the ${kind} was dropped`);
    return undefined;
  }
  const format = encoded.mediaType === undefined ? undefined : formatOf(kind, encoded.mediaType, extensionsOf(part, BEDROCK)?.['$format']);
  if (format === undefined) {
    losses.add('unsupported_part', path, `Converse has no ${kind} format for ${encoded.mediaType ?? 'an unknown media type'}; the ${kind} was dropped`);
    return undefined;
  }
  if (part.type === 'image' && part.detail !== undefined) losses.add('dropped_field', path, 'Converse has no image detail setting; dropped');
  if (part.type === 'audio' && part.transcript !== undefined) losses.add('dropped_field', path, 'Converse has no audio transcript; dropped');
  return withBlockFields(part, { [kind]: spreadExtensions({ format, source: encoded.source }, withoutBlockFields(part), BEDROCK) });
}

/** The node without the keys that belong to the enclosing block, not the member. */
function withoutBlockFields<T extends { extensions?: unknown }>(part: T): T {
  const bedrock = extensionsOf(part as never, BEDROCK);
  if (bedrock === undefined || (bedrock['blockFields'] === undefined && bedrock['s3Location'] === undefined)) return part;
  const { blockFields: _fields, s3Location: _location, ...rest } = bedrock;
  return { ...part, extensions: { [BEDROCK]: rest } };
}

/** The block with the keys that stood beside its member on the wire. */
function withBlockFields(part: ImagePart | AudioPart | VideoPart | DocumentPart, member: JsonObject): JsonObject {
  const outer = extensionsOf(part, BEDROCK)?.['blockFields'];
  return isObject(outer) ? { ...outer, ...member } : member;
}

/** Document names allow letters, digits, single spaces, hyphens, parentheses and square brackets. */
function documentName(part: DocumentPart, path: string, losses: LossCollector): string {
  const wanted = part.title ?? part.filename;
  if (wanted === undefined) {
    losses.add('defaulted', path, 'Converse documents need a name; sent as "document"', 'info');
    return 'document';
  }
  const clean = wanted.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ').replace(/\s+/g, ' ').trim() || 'document';
  if (clean !== wanted && part.title !== undefined) losses.add('approximated', path, `Converse document names allow letters, digits, spaces, hyphens, parentheses and brackets; "${wanted}" sent as "${clean}"`, 'info');
  return clean;
}

/** A `document` block, or `undefined` with an `unsupported_part` loss. */
export function encodeBedrockDocument(part: DocumentPart, losses: LossCollector, path: string): JsonObject | undefined {
  const hints = extensionsOf(part, BEDROCK);
  const exact = hints?.['$format'] !== undefined || hints?.['$noFormat'] === true;
  const source = part.source;
  let wireSource: JsonObject;
  let format: string | undefined;
  if (source.kind === 'text') {
    wireSource = { text: source.text };
    format = formatOf('document', source.mediaType ?? 'text/plain', hints?.['$format']) ?? 'txt';
  } else if (source.kind === 'content') {
    const texts: JsonObject[] = [];
    source.parts.forEach((inner, index) => {
      if (inner.type === 'text') texts.push({ text: inner.text });
      else losses.add('unsupported_part', `${path}/source/parts/${index}`, `Converse document content holds only text; the ${inner.type} was dropped`);
    });
    wireSource = { content: texts };
    format = formatOf('document', 'text/plain', hints?.['$format']) ?? 'txt';
  } else {
    const encoded = encodeSource(source, part);
    if (encoded === undefined) {
      losses.add('unsupported_part', path, `${whyNot(source)}; the document was dropped`);
      return undefined;
    }
    wireSource = encoded.source;
    format = encoded.mediaType === undefined ? undefined : formatOf('document', encoded.mediaType, hints?.['$format']);
    if (format === undefined) {
      losses.add('unsupported_part', path, `Converse has no document format for ${encoded.mediaType ?? 'an unknown media type'}; the document was dropped`);
      return undefined;
    }
  }
  const document: JsonObject = {};
  if (!(exact && hints?.['$noFormat'] === true)) document['format'] = format;
  if (exact ? part.title !== undefined : true) document['name'] = exact ? part.title : documentName(part, path, losses);
  document['source'] = wireSource;
  if (part.context !== undefined) document['context'] = part.context;
  if (part.citations !== undefined) document['citations'] = { enabled: part.citations };
  if (!exact && part.filename !== undefined && part.title !== undefined) losses.add('dropped_field', path, 'Converse documents have one name; the filename was dropped', 'info');
  return withBlockFields(part, { document: spreadExtensions(document, withoutBlockFields(part), BEDROCK) });
}
