/**
 * Assistant `annotations` (`url_citation` from web search) ↔ IR citations.
 * Chat offsets count characters of the message `content`.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
import type { ChatCompletionMessage } from 'openai/resources/chat/completions/completions';
import type { LossCollector } from '../../core/losses.ts';
import type { Citation } from '../../core/ir.ts';
import { expectObject, expectString, pointer, required, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { FORMAT, keepNestedUnknown, keepUnknown, keys, nestedExtras } from './shape.ts';
import { validUri } from '../../core/uri.ts';

type UrlCitation = ChatCompletionMessage.Annotation['url_citation'];

const ANNOTATION_KNOWN = keys('type', 'url_citation');

/** Decode one annotation. Types other than `url_citation` keep their fields as extensions. */
export function decodeOpenaiChatAnnotation(value: unknown, path: string): Citation {
  const annotation = expectObject(value, path, FORMAT);
  const type = expectString(required(annotation, 'type', path, FORMAT), pointer(path, 'type'), FORMAT);
  const citation: Citation = { kind: type };
  const inner = annotation['url_citation'];
  if (type !== 'url_citation' || inner === undefined || inner === null) {
    keepUnknown(citation, annotation, keys('type'));
    return citation;
  }
  const innerPath = pointer(path, 'url_citation');
  const fields = expectObject(inner, innerPath, FORMAT);
  let rest: JsonObject | undefined;
  for (const key in fields) {
    const field = fields[key];
    if ((key === 'url' || key === 'title') && typeof field === 'string') {
      citation[key] = field;
    } else if (key === 'start_index' && typeof field === 'number') {
      citation.start = field;
    } else if (key === 'end_index' && typeof field === 'number') {
      citation.end = field;
    } else {
      (rest ??= {})[key] = field;
    }
  }
  if (rest !== undefined) keepNestedUnknown(citation, 'url_citation', rest, keys());
  keepUnknown(citation, annotation, ANNOTATION_KNOWN);
  return citation;
}

/**
 * Encode one citation of a text part whose text starts at `offset` of the
 * content (its range, within the part, moved by `offset`). Citations with a
 * URL become `url_citation`s (the part's span when the source gave no output
 * offsets); others cannot travel.
 */
export function encodeOpenaiChatAnnotation(
  citation: Citation,
  span: { offset: number; length: number },
  losses: LossCollector,
  path: string,
): JsonObject | undefined {
  losses.foreignExtensions(citation.extensions, FORMAT, path);
  const own = citation.extensions?.[FORMAT] !== undefined;
  if (citation.kind !== 'url_citation' && own) return spreadExtensions({ type: citation.kind }, citation, FORMAT);
  if (citation.url === undefined) {
    losses.add('dropped_field', path, `a "${citation.kind}" citation without a URL has no Chat Completions equivalent`);
    return undefined;
  }
  const foreign = citation.kind !== 'url_citation';
  let inner: JsonObject;
  if (foreign) {
    const built: UrlCitation = {
      url: validUri(citation.url),
      title: citation.title ?? '',
      // Another kind's range is in its cited source (characters, pages or blocks of a document), not in this text: the whole part.
      start_index: span.offset,
      end_index: span.offset + span.length,
    };
    inner = { ...built };
    losses.add('approximated', path, `"${citation.kind}" citation sent as a url_citation over the whole text part`, 'info');
  } else {
    inner = { url: validUri(citation.url) };
    if (citation.title !== undefined) inner['title'] = citation.title;
    // A citation's range is within its text part; Chat's indices are within the message's whole content.
    if (citation.start !== undefined) inner['start_index'] = span.offset + citation.start;
    if (citation.end !== undefined) inner['end_index'] = span.offset + citation.end;
  }
  return spreadExtensions({ type: 'url_citation', url_citation: nestedExtras(inner, citation, 'url_citation') }, citation, FORMAT);
}
