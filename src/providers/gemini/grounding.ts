/**
 * A candidate's `groundingMetadata` (Google Search, URL context, Maps,
 * Vertex retrieval) ⇄ IR citations on its text parts.
 *
 * Gemini names the grounded spans of an answer in `groundingSupports`: a
 * `segment` (a part by `partIndex`, default 0; `startIndex` and `endIndex`
 * in UTF-8 bytes of that part's text, end exclusive) backed by
 * `groundingChunkIndices` into `groundingChunks`, each a `web`,
 * `retrievedContext` or `maps` source with a URI and title. Each support
 * and chunk with a URI becomes a `url_citation` on the text part, its range
 * in characters of the part (what OpenAI's `url_citation` counts; where
 * the range does not hold the segment's own `text`, as in recorded URL
 * context answers a character or two off, the text found nearest it), hinted
 * `$grounding`: a trip back to Gemini writes the candidate's own metadata
 * (kept as an extension) and not the citations again. The other way,
 * URL citations of another format become a `groundingMetadata` of their own.
 * @see https://ai.google.dev/api/generate-content#GroundingMetadata
 */
import type { Citation, Message, Part, TextPart } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';

/** The chunk kinds that name a source by URI. */
const SOURCE_KEYS = ['web', 'retrievedContext', 'maps'] as const;

const NON_ASCII = /[^\u0000-\u007f]/;

/** The character index of UTF-8 byte offset `byte` of `text` (the end of the text past it). */
function charIndex(text: string, byte: number): number {
  let bytes = 0;
  let index = 0;
  while (index < text.length && bytes < byte) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      // A surrogate pair: one code point of four bytes.
      bytes += 4;
      index++;
    } else bytes += 3;
    index++;
  }
  return index;
}

/** The UTF-8 byte offset of character index `char` of `text`. */
function byteIndex(text: string, char: number): number {
  let bytes = 0;
  for (let index = 0; index < char && index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < char) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** Where `text` holds `wanted` nearest to index `near`, or -1. */
function nearest(text: string, wanted: string, near: number): number {
  const after = text.indexOf(wanted, near);
  const before = text.lastIndexOf(wanted, near);
  if (after === -1) return before;
  if (before === -1) return after;
  return near - before <= after - near ? before : after;
}

function offset(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A chunk's source: its URI and title, when it has a URI. */
function sourceOf(chunk: unknown): { url: string; title: string | undefined } | undefined {
  if (!isObject(chunk)) return undefined;
  for (const key of SOURCE_KEYS) {
    const source = chunk[key];
    if (isObject(source) && typeof source['uri'] === 'string') {
      return { url: source['uri'], title: typeof source['title'] === 'string' ? source['title'] : undefined };
    }
  }
  return undefined;
}

/**
 * Add the citations `metadata` names to the text parts of `message` (the
 * candidate's decoded message, one IR part per wire part; a support without
 * `partIndex` names part `defaultPart`). Answers whether
 * every support was carried whole (each of its chunks a URL on a text span),
 * so a conversion elsewhere need not report the supports and chunks dropped.
 */
export function decodeGeminiGrounding(metadata: unknown, message: Message, path: string, losses: LossCollector, defaultPart = 0): boolean {
  if (!isObject(metadata)) return false;
  const supports = metadata['groundingSupports'];
  const chunks = metadata['groundingChunks'];
  if (!Array.isArray(supports) || !Array.isArray(chunks)) return false;
  let whole = true;
  // Whether a part's text is ASCII (its bytes are its characters), found once per part.
  const ascii = new Map<TextPart, boolean>();
  for (let position = 0; position < supports.length; position++) {
    const support: unknown = supports[position];
    const segment = isObject(support) ? support['segment'] : undefined;
    const indices = isObject(support) ? support['groundingChunkIndices'] : undefined;
    if (!isObject(segment) || !Array.isArray(indices)) {
      whole = false;
      continue;
    }
    const part = message.parts[segment['partIndex'] === undefined ? defaultPart : (offset(segment['partIndex']) ?? -1)] as Part | undefined;
    const startByte = segment['startIndex'] === undefined ? 0 : offset(segment['startIndex']);
    const endByte = offset(segment['endIndex']);
    if (part === undefined || part.type !== 'text' || startByte === undefined || endByte === undefined || endByte < startByte) {
      whole = false;
      continue;
    }
    let plain = ascii.get(part);
    if (plain === undefined) ascii.set(part, (plain = !NON_ASCII.test(part.text)));
    let start = plain ? Math.min(startByte, part.text.length) : charIndex(part.text, startByte);
    let end = plain ? Math.min(endByte, part.text.length) : charIndex(part.text, endByte);
    const cited = typeof segment['text'] === 'string' ? segment['text'] : undefined;
    if (cited !== undefined && cited !== '' && part.text.slice(start, end) !== cited) {
      // Recorded answers (URL context) have ranges a character or two off their own text: the text, found nearest the range, wins.
      const found = nearest(part.text, cited, start);
      if (found !== -1) {
        start = found;
        end = found + cited.length;
      }
    }
    for (const index of indices) {
      const source = typeof index === 'number' ? sourceOf(chunks[index]) : undefined;
      if (source === undefined) {
        whole = false;
        continue;
      }
      const citation: Citation = { kind: 'url_citation', url: source.url, start, end, extensions: { gemini: { $grounding: true } } };
      if (source.title !== undefined) citation.title = source.title;
      if (cited !== undefined) citation.citedText = cited;
      // A target's loss on the citation points at the support it came from.
      (part.citations ??= []).push(losses.recording ? losses.origin(citation, `${path}/groundingSupports/${position}`) : citation);
    }
  }
  return whole;
}

/**
 * Leave out of a candidate's fields what its citations carry: its
 * `groundingMetadata` without the supports and chunks, or none when nothing
 * else is left. For another target, so that it reports only the rest.
 */
export function dropCarriedGrounding(fields: JsonObject): void {
  const metadata = fields['groundingMetadata'];
  if (!isObject(metadata)) return;
  let rest: JsonObject | undefined;
  for (const key in metadata) if (key !== 'groundingSupports' && key !== 'groundingChunks') (rest ??= {})[key] = metadata[key];
  if (rest === undefined) delete fields['groundingMetadata'];
  else fields['groundingMetadata'] = rest;
}

/**
 * Citations of a candidate's text parts written as a `groundingMetadata`:
 * one chunk per distinct source, one support per distinct span. `own` is
 * set when the candidate kept its own metadata: its `$grounding` citations
 * are carried by it, and any other citation has no place beside it. A
 * stream's writer (`streamed`) skips `$grounding` citations always: a
 * Gemini source's chunks carry their metadata themselves.
 */
export class GroundingWriter {
  /** The wire index the next encoded part takes. */
  at = 0;
  readonly #own: boolean;
  readonly #streamed: boolean;
  readonly #losses: LossCollector;
  readonly #chunks: JsonObject[] = [];
  readonly #chunkIndex = new Map<string, number>();
  readonly #supports: JsonObject[] = [];
  readonly #supportIndex = new Map<string, number[]>();

  constructor(own: boolean, losses: LossCollector, streamed = false) {
    this.#own = own;
    this.#streamed = streamed;
    this.#losses = losses;
  }

  /**
   * Take the citations of text part `part` (IR pointer `path`), which is
   * written at wire index {@link at}; in a stream, `whole` is the
   * candidate's text so far, where the part starts at `base`.
   */
  take(part: TextPart, path: string, whole = part.text, base = 0): void {
    const citations = part.citations as Citation[];
    for (let index = 0; index < citations.length; index++) {
      const citation = citations[index] as Citation;
      const grounding = citation.extensions?.gemini?.['$grounding'] === true;
      if (grounding && (this.#own || this.#streamed)) continue;
      const at = `${path}/citations/${index}`;
      if (this.#own) {
        this.#losses.add('dropped_field', at, 'the candidate keeps its own groundingMetadata; a citation of another format has no place beside it; dropped', 'info');
        continue;
      }
      if (citation.url === undefined) {
        this.#losses.add('dropped_field', at, `a "${citation.kind}" citation without a URL has no Gemini grounding equivalent; dropped`, 'info');
        continue;
      }
      this.#losses.foreignExtensions(citation.extensions, 'gemini', at);
      let start = 0;
      let end = part.text.length;
      if (citation.kind === 'url_citation') {
        start = Math.min(citation.start ?? 0, part.text.length);
        end = Math.max(start, Math.min(citation.end ?? part.text.length, part.text.length));
      } else {
        // Another kind's range is in its cited source (characters, pages or blocks of a document), not in this text: the whole part.
        this.#losses.add('approximated', at, `"${citation.kind}" citation sent as grounding over the whole text part`, 'info');
      }
      this.#add(whole, base + start, base + end, this.#chunk(citation.url, citation.title));
    }
  }

  #chunk(url: string, title: string | undefined): number {
    const key = title === undefined ? url : `${url}\u0000${title}`;
    let index = this.#chunkIndex.get(key);
    if (index === undefined) {
      index = this.#chunks.push({ web: title === undefined ? { uri: url } : { uri: url, title } }) - 1;
      this.#chunkIndex.set(key, index);
    }
    return index;
  }

  #add(text: string, start: number, end: number, chunk: number): void {
    const key = `${this.at}:${start}:${end}`;
    let indices = this.#supportIndex.get(key);
    if (indices === undefined) {
      indices = [];
      this.#supportIndex.set(key, indices);
      const ascii = !NON_ASCII.test(text);
      const segment: JsonObject = {};
      if (this.at > 0) segment['partIndex'] = this.at;
      const startByte = ascii ? start : byteIndex(text, start);
      if (startByte > 0) segment['startIndex'] = startByte;
      segment['endIndex'] = ascii ? end : byteIndex(text, end);
      segment['text'] = text.slice(start, end);
      this.#supports.push({ segment, groundingChunkIndices: indices });
    }
    if (!indices.includes(chunk)) indices.push(chunk);
  }

  /** The metadata to write, or `undefined` when no citation was taken. */
  metadata(): JsonObject | undefined {
    if (this.#supports.length === 0) return undefined;
    return { groundingChunks: this.#chunks, groundingSupports: this.#supports };
  }
}
