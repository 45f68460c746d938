/**
 * Output-text annotations ⇄ IR citations: `url_citation`, `file_citation`,
 * `container_file_citation` and `file_path`. Unknown annotation kinds keep
 * every field in the citation's extensions.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-output
 */
import type { Citation } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectNumber, expectObject, expectString, extend, lookupTable, pointer, spreadExtensions, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { FORMAT, own } from './shape.ts';
import { validUri } from '../../core/uri.ts';

/** The annotation kinds this codec maps field by field. */
const NATIVE_KINDS: ReadonlySet<string> = new Set(['url_citation', 'file_citation', 'container_file_citation', 'file_path']);

const KNOWN_KEYS = lookupTable<ReadonlySet<string>>({
  url_citation: new Set(['type', 'url', 'title', 'start_index', 'end_index']),
  file_citation: new Set(['type', 'filename', 'index']),
  container_file_citation: new Set(['type', 'filename', 'start_index', 'end_index']),
  file_path: new Set(['type', 'index']),
});
const TYPE_ONLY: ReadonlySet<string> = new Set(['type']);

function optionalString(object: JsonObject, key: string, path: string): string | undefined {
  const value = object[key];
  return value === undefined ? undefined : expectString(value, pointer(path, key), FORMAT);
}

function optionalNumber(object: JsonObject, key: string, path: string): number | undefined {
  const value = object[key];
  return value === undefined ? undefined : expectNumber(value, pointer(path, key), FORMAT);
}

/** Decode one `output_text` annotation into a citation. */
export function decodeOpenaiResponsesAnnotation(value: unknown, path: string): Citation {
  const annotation = expectObject(value, path, FORMAT);
  const kind = expectString(annotation['type'], pointer(path, 'type'), FORMAT);
  const citation: Citation = { kind };
  const url = kind === 'url_citation' ? optionalString(annotation, 'url', path) : undefined;
  const title = kind === 'url_citation' ? optionalString(annotation, 'title', path) : undefined;
  const filename = kind === 'file_citation' || kind === 'container_file_citation' ? optionalString(annotation, 'filename', path) : undefined;
  const start = kind === 'file_citation' || kind === 'file_path' ? optionalNumber(annotation, 'index', path) : optionalNumber(annotation, 'start_index', path);
  const end = kind === 'url_citation' || kind === 'container_file_citation' ? optionalNumber(annotation, 'end_index', path) : undefined;
  if (url !== undefined) citation.url = url;
  if (title !== undefined) citation.title = title;
  if (filename !== undefined) citation.title = filename;
  if (NATIVE_KINDS.has(kind)) {
    if (start !== undefined) citation.start = start;
    if (end !== undefined) citation.end = end;
  }
  extend(citation, FORMAT, unknownKeys(annotation, KNOWN_KEYS[kind] ?? TYPE_ONLY));
  return citation;
}

/**
 * Encode a citation as an annotation. Citations of other formats become a
 * `url_citation` over the whole text when they have a URL (their ranges do
 * not point into the output text), and are dropped otherwise.
 */
export function encodeOpenaiResponsesAnnotation(
  citation: Citation,
  textLength: number,
  losses: LossCollector,
  path: string,
): JsonObject | undefined {
  if (NATIVE_KINDS.has(citation.kind) || own(citation) !== undefined) return encodeNative(citation, losses, path);
  if (citation.url === undefined) {
    losses.add('dropped_field', path, `a "${citation.kind}" citation without a URL has no OpenAI Responses annotation; dropped`);
    return undefined;
  }
  losses.add('approximated', path, `"${citation.kind}" citation sent as a url_citation over the whole text`, 'info');
  losses.foreignExtensions(citation.extensions, FORMAT, path);
  return { type: 'url_citation', url: validUri(citation.url), title: citation.title ?? '', start_index: 0, end_index: textLength };
}

function encodeNative(citation: Citation, losses: LossCollector, path: string): JsonObject {
  losses.foreignExtensions(citation.extensions, FORMAT, path);
  const annotation: JsonObject = { type: citation.kind };
  switch (citation.kind) {
    case 'url_citation':
      setDefined(annotation, 'url', citation.url === undefined ? undefined : validUri(citation.url));
      setDefined(annotation, 'title', citation.title);
      setDefined(annotation, 'start_index', citation.start);
      setDefined(annotation, 'end_index', citation.end);
      break;
    case 'file_citation':
      setDefined(annotation, 'filename', citation.title);
      setDefined(annotation, 'index', citation.start);
      break;
    case 'container_file_citation':
      setDefined(annotation, 'filename', citation.title);
      setDefined(annotation, 'start_index', citation.start);
      setDefined(annotation, 'end_index', citation.end);
      break;
    case 'file_path':
      setDefined(annotation, 'index', citation.start);
      break;
    default:
      break;
  }
  return spreadExtensions(annotation, citation, FORMAT);
}

function setDefined(target: JsonObject, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}
