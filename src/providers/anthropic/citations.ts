/**
 * Text citations: `char_location`, `page_location`, `content_block_location`,
 * `web_search_result_location` and `search_result_location`.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/citations
 */
import type { Citation } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectNumber, expectObject, expectString, extend, pointer, required, spreadExtensions, lookupTable, type JsonObject } from '../../core/wire.ts';
import { ANTHROPIC, hintNull, optionalString, putOptional, wasNull } from './shape.ts';

interface CitationLayout {
  /** Wire keys of the start and end of the cited range. */
  range?: readonly [string, string];
  /** Wire key of the title. */
  title: string;
  /** Wire key of the URL (or search-result source). */
  url?: string;
  /** Whether the kind points into a request document by `document_index`. */
  document: boolean;
}

const LAYOUTS: Readonly<Record<string, CitationLayout>> = lookupTable({
  char_location: { range: ['start_char_index', 'end_char_index'], title: 'document_title', document: true },
  page_location: { range: ['start_page_number', 'end_page_number'], title: 'document_title', document: true },
  content_block_location: { range: ['start_block_index', 'end_block_index'], title: 'document_title', document: true },
  web_search_result_location: { title: 'title', url: 'url', document: false },
  search_result_location: { range: ['start_block_index', 'end_block_index'], title: 'title', url: 'source', document: false },
});

/** Converse's document locations, which Claude on Bedrock gives for Anthropic's: the same request document, range and numbering. */
const DOCUMENT_KINDS: Readonly<Record<string, string>> = lookupTable({
  documentChar: 'char_location',
  documentPage: 'page_location',
  documentChunk: 'content_block_location',
});

/** A Converse document citation as Anthropic's own kind (`document_title` null when unknown; no `file_id`, which a request's citation may not have). */
function documentCitation(kind: string, citation: Citation, [documentIndex, start, end]: readonly [number, number, number], path: string, losses: LossCollector): JsonObject {
  losses.foreignExtensions(citation.extensions, ANTHROPIC, path);
  const [startKey, endKey] = (LAYOUTS[kind] as CitationLayout).range as readonly [string, string];
  return {
    type: kind,
    cited_text: citation.citedText ?? '',
    document_index: documentIndex,
    document_title: citation.title ?? null,
    [startKey]: start,
    [endKey]: end,
  };
}

/** True for the citation kinds Anthropic understands. */
export function isAnthropicCitationKind(kind: string): boolean {
  return kind in LAYOUTS;
}

/**
 * Decode one wire citation. Fields without a neutral slot (`file_id`,
 * `encrypted_index`, `search_result_index`) travel as extensions.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-messages-content-citations
 */
export function decodeAnthropicCitation(value: unknown, path: string): Citation {
  const object = expectObject(value, path, ANTHROPIC);
  const kind = expectString(required(object, 'type', path, ANTHROPIC), pointer(path, 'type'), ANTHROPIC);
  const citation: Citation = { kind };
  const known = new Set(['type']);
  if (object['cited_text'] !== undefined) {
    citation.citedText = expectString(object['cited_text'], pointer(path, 'cited_text'), ANTHROPIC);
    known.add('cited_text');
  }
  const layout = LAYOUTS[kind];
  if (layout !== undefined) {
    if (layout.document && object['document_index'] !== undefined) {
      citation.documentIndex = expectNumber(object['document_index'], pointer(path, 'document_index'), ANTHROPIC);
      known.add('document_index');
    }
    const title = optionalString(object, layout.title, path, citation);
    if (title !== undefined) citation.title = title;
    known.add(layout.title);
    if (layout.url !== undefined && object[layout.url] !== undefined) {
      citation.url = expectString(object[layout.url], pointer(path, layout.url), ANTHROPIC);
      known.add(layout.url);
    }
    if (layout.range !== undefined) {
      const [startKey, endKey] = layout.range;
      if (object[startKey] !== undefined) citation.start = expectNumber(object[startKey], pointer(path, startKey), ANTHROPIC);
      if (object[endKey] !== undefined) citation.end = expectNumber(object[endKey], pointer(path, endKey), ANTHROPIC);
      known.add(startKey).add(endKey);
    }
  }
  const rest: JsonObject = {};
  let hasRest = false;
  for (const key in object) {
    if (known.has(key)) continue;
    // A null (`file_id: null`) says nothing: keep it as a shape hint, not as a field other formats would report.
    if (object[key] === null) {
      hintNull(citation, key);
      continue;
    }
    rest[key] = object[key];
    hasRest = true;
  }
  if (hasRest) extend(citation, ANTHROPIC, rest);
  return citation;
}

/**
 * Encode one citation; `undefined` (and a loss) for a kind Anthropic does not have,
 * such as OpenAI `url_citation`.
 */
export function encodeAnthropicCitation(citation: Citation, path: string, losses: LossCollector): JsonObject | undefined {
  const layout = LAYOUTS[citation.kind];
  if (layout === undefined) {
    const own = DOCUMENT_KINDS[citation.kind];
    const { documentIndex, start, end } = citation;
    if (own !== undefined && documentIndex !== undefined && start !== undefined && end !== undefined) return documentCitation(own, citation, [documentIndex, start, end], path, losses);
    losses.add('dropped_field', path, `citation kind "${citation.kind}" has no Anthropic equivalent; dropped`);
    return undefined;
  }
  losses.foreignExtensions(citation.extensions, ANTHROPIC, path);
  const wire: JsonObject = { type: citation.kind, cited_text: citation.citedText ?? '' };
  if (layout.document && citation.documentIndex !== undefined) wire['document_index'] = citation.documentIndex;
  putOptional(wire, layout.title, citation.title, citation);
  if (layout.url !== undefined && citation.url !== undefined) wire[layout.url] = citation.url;
  if (layout.range !== undefined) {
    if (citation.start !== undefined) wire[layout.range[0]] = citation.start;
    if (citation.end !== undefined) wire[layout.range[1]] = citation.end;
  }
  const nulls = citation.extensions?.anthropic?.['$nulls'];
  if (Array.isArray(nulls)) {
    for (const key of nulls) if (typeof key === 'string' && !(key in wire) && wasNull(citation, key)) wire[key] = null;
  }
  return spreadExtensions(wire, citation, ANTHROPIC);
}
