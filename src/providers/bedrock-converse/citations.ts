/**
 * Converse citations ↔ IR citations. A wire citation names its location by
 * one key (`documentChar`, `documentPage`, `documentChunk`,
 * `searchResultLocation`, `web`), which becomes the IR citation's `kind`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Citation.html
 */
import type { Citation } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectObject, hint, isObject, type JsonObject } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';

const RANGE_KINDS: ReadonlySet<string> = new Set(['documentChar', 'documentPage', 'documentChunk', 'searchResultLocation']);

/** Where another format's citation kinds land in Converse. */
const FOREIGN_KINDS: Readonly<Record<string, string>> = Object.freeze(Object.assign(Object.create(null) as Record<string, string>, {
  char_location: 'documentChar',
  page_location: 'documentPage',
  content_block_location: 'documentChunk',
  search_result_location: 'searchResultLocation',
  url_citation: 'web',
  web_search_result_location: 'web',
}));

function number(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** Decode one wire citation; the wire value rides along as a shape hint for an exact trip. */
export function decodeBedrockCitation(value: unknown, path: string): Citation {
  const wire = expectObject(value, path, BEDROCK);
  const location = isObject(wire['location']) ? wire['location'] : {};
  const kind = Object.keys(location)[0] ?? 'unknown';
  const citation: Citation = { kind };
  const inner = location[kind];
  if (isObject(inner)) {
    const index = number(inner['documentIndex']) ?? number(inner['searchResultIndex']);
    if (index !== undefined) citation.documentIndex = index;
    const start = number(inner['start']);
    if (start !== undefined) citation.start = start;
    const end = number(inner['end']);
    if (end !== undefined) citation.end = end;
    if (typeof inner['url'] === 'string') citation.url = inner['url'];
    if (typeof inner['title'] === 'string') citation.title = inner['title'];
  }
  if (typeof wire['title'] === 'string') citation.title = wire['title'];
  if (Array.isArray(wire['sourceContent'])) {
    const texts = wire['sourceContent'].map((item) => (isObject(item) && typeof item['text'] === 'string' ? item['text'] : ''));
    citation.citedText = texts.join('');
  }
  hint(citation, BEDROCK, '$wire', wire);
  return citation;
}

/** The site a URL names, as Converse's web locations give it (`ruby-lang.org` for `https://www.ruby-lang.org/en/`). */
function domainOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    // Not a URL: no domain to name.
    return undefined;
  }
  return host.startsWith('www.') ? host.slice(4) : host || undefined;
}

/** Encode one IR citation, or `undefined` (with a loss) when Converse has no location for its kind. */
export function encodeBedrockCitation(citation: Citation, losses: LossCollector, path: string): JsonObject | undefined {
  const wire = citation.extensions?.['bedrock-converse']?.['$wire'];
  if (isObject(wire)) return wire;
  losses.foreignExtensions(citation.extensions, BEDROCK, path);
  const kind = RANGE_KINDS.has(citation.kind) || citation.kind === 'web' ? citation.kind : FOREIGN_KINDS[citation.kind];
  if (kind === undefined) {
    losses.add('dropped_field', path, `Converse has no citation location for "${citation.kind}"; the citation was dropped`);
    return undefined;
  }
  const location: JsonObject = {};
  if (kind === 'web') {
    // A web location is a URL and its domain (the citation's title goes beside the location).
    if (citation.url !== undefined) {
      location['url'] = citation.url;
      const domain = domainOf(citation.url);
      if (domain !== undefined) location['domain'] = domain;
    }
  } else {
    if (citation.documentIndex !== undefined) location[kind === 'searchResultLocation' ? 'searchResultIndex' : 'documentIndex'] = citation.documentIndex;
    if (citation.start !== undefined) location['start'] = citation.start;
    if (citation.end !== undefined) location['end'] = citation.end;
  }
  const out: JsonObject = { location: { [kind]: location } };
  if (citation.title !== undefined) out['title'] = citation.title;
  if (citation.citedText !== undefined) out['sourceContent'] = [{ text: citation.citedText }];
  return out;
}
