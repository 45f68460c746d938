/**
 * What each format can carry whole (the capability table the random IR is
 * limited to), and the leaf generators of the random IR: text, media,
 * tool arguments.
 */
import fc from 'fast-check';
import type { Base64Source, FormatId, MediaSource, Part, ReasoningState, UnifiedStopReason } from '../../../src/core/ir.ts';
import { EDGE_STRINGS } from './random.ts';

/** What one format carries, as far as the IR generators use it. */
export interface Capability {
  /** Media part types a user message may hold. */
  userMedia: readonly ('image' | 'audio' | 'video' | 'document')[];
  /** Reasoning parts the format round-trips (with its own opaque state kind). */
  reasoning: ReasoningState['kind'] | undefined;
  refusal: boolean;
  /** `isError` on tool results travels as a flag (Chat and Responses approximate it with an `Error: ` prefix). */
  toolResultError: boolean;
  /** Candidates a response may hold. */
  candidates: number;
  /** Stop reasons the format has a value of its own for. */
  stopReasons: readonly UnifiedStopReason[];
  /** Empty text parts travel (Anthropic drops them unless they came from Anthropic). */
  emptyText: boolean;
  /** Usage has a total (Anthropic has none). */
  usageTotal: boolean;
  /** Responses carry a creation time (Gemini has none). */
  created: boolean;
  /** Requests say `stream` in the body (Gemini says it in the URL). */
  streamField: boolean;
  /** Requests carry the model in the body (Gemini carries it in the URL: decoders take the context's model). */
  modelInBody: boolean;
  /** Documents need a filename (OpenAI `file_data`); elsewhere a filename is not carried. */
  documentFilename: boolean;
  /** Image detail the wire always spells (Responses requires `detail`). */
  imageDetail: string | undefined;
  /** Function tools spell `strict` (Responses requires it). */
  toolStrict: boolean;
  /** Tool-call ids the client chose travel (Gemini echoes only ids Gemini made). */
  callIds: boolean;
  /** Parts of a leading system message that stay apart (Responses `instructions` is one string). */
  systemParts: number;
  /** Info-level losses a first encode of neutral IR reports by design (Responses makes up output message item ids). */
  infoLosses: readonly string[];
  /** The stop reason is derived from the content: a refusal part means `refusal` (Responses has no stop reason of its own for a completed response). */
  refusalStops: boolean;
  /** Messages hold one content string (Ollama): a user turn is at most one text, then its images. */
  oneText?: boolean;
  /** Images only as base64 (Ollama has no image URLs). */
  base64Images?: boolean;
  /** Responses have no id (Ollama). */
  noResponseId?: boolean;
  /** A request without `stream` streams (Ollama): the generator always says which. */
  streamDefault?: boolean;
  /** Request parts carry prompt-cache breakpoints (Anthropic `cache_control`, Bedrock `cachePoint`, Chat `prompt_cache_breakpoint`), with these lifetimes. */
  cacheLifetimes?: readonly string[];
  /** Requests carry an automatic breakpoint of their own (Anthropic's top-level `cache_control`); the others put it on a part. */
  automaticCache?: boolean;
  /** Requests carry OpenAI's `store`, prompt-cache key and retention, verbosity and stream obfuscation; `streamUsage` too (Chat's `include_usage`). */
  openaiSettings?: 'chat' | 'responses';
  /** Requests carry the vendor's web search as a tool, with these of its settings (Chat's is a search-model setting, Converse's Nova's). */
  webSearch?: readonly ('allowedDomains' | 'blockedDomains' | 'userLocation' | 'maxUses' | 'contextSize')[];
}

export const CAPABILITIES: Record<FormatId, Capability> = {
  anthropic: {
    webSearch: ['allowedDomains', 'userLocation', 'maxUses'],
    cacheLifetimes: ['5m', '1h'],
    automaticCache: true,
    userMedia: ['image', 'document'],
    reasoning: 'signature',
    refusal: false,
    toolResultError: true,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens', 'stop_sequence', 'refusal', 'pause'],
    emptyText: false,
    usageTotal: false,
    created: false,
    streamField: true,
    modelInBody: true,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: true,
    systemParts: 2,
    infoLosses: [],
    refusalStops: false,
  },
  'openai-chat': {
    openaiSettings: 'chat',
    cacheLifetimes: ['30m', '12h'],
    userMedia: ['image', 'audio', 'document'],
    reasoning: undefined,
    refusal: true,
    toolResultError: false,
    candidates: 3,
    stopReasons: ['end_turn', 'max_tokens', 'content_filter'],
    emptyText: true,
    usageTotal: true,
    created: true,
    streamField: true,
    modelInBody: true,
    documentFilename: true,
    imageDetail: undefined,
    toolStrict: false,
    callIds: true,
    systemParts: 2,
    infoLosses: [],
    refusalStops: true,
  },
  'openai-responses': {
    webSearch: ['allowedDomains', 'userLocation', 'contextSize'],
    openaiSettings: 'responses',
    cacheLifetimes: ['30m', '12h'],
    userMedia: ['image', 'document'],
    reasoning: 'encrypted',
    refusal: true,
    toolResultError: false,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens', 'content_filter'],
    emptyText: true,
    usageTotal: true,
    created: true,
    streamField: true,
    modelInBody: true,
    documentFilename: true,
    imageDetail: 'auto',
    toolStrict: true,
    callIds: true,
    systemParts: 1,
    infoLosses: ['synthesised_id'],
    refusalStops: true,
  },
  gemini: {
    webSearch: [],
    userMedia: ['image', 'audio', 'video', 'document'],
    reasoning: 'thought_signature',
    refusal: false,
    toolResultError: true,
    candidates: 3,
    stopReasons: ['end_turn', 'max_tokens', 'content_filter'],
    emptyText: true,
    usageTotal: true,
    created: false,
    streamField: false,
    modelInBody: false,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: false,
    systemParts: 2,
    infoLosses: [],
    refusalStops: false,
  },
  'bedrock-converse': {
    cacheLifetimes: ['5m', '1h'],
    userMedia: ['image'],
    reasoning: 'signature',
    refusal: false,
    toolResultError: true,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens', 'stop_sequence', 'content_filter', 'context_overflow'],
    emptyText: true,
    usageTotal: true,
    created: false,
    streamField: false,
    modelInBody: false,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: true,
    systemParts: 2,
    infoLosses: ['defaulted'],
    refusalStops: false,
    base64Images: true,
    noResponseId: true,
  },
  ollama: {
    userMedia: ['image'],
    reasoning: undefined,
    refusal: false,
    toolResultError: false,
    candidates: 1,
    stopReasons: ['end_turn', 'max_tokens'],
    emptyText: false,
    usageTotal: false,
    created: true,
    streamField: true,
    modelInBody: true,
    documentFilename: false,
    imageDetail: undefined,
    toolStrict: false,
    callIds: false,
    systemParts: 1,
    infoLosses: [],
    refusalStops: false,
    oneText: true,
    base64Images: true,
    noResponseId: true,
    streamDefault: true,
  },
};

/** The capability table the IR generators use (exported for the DESIGN notes and the tests). */
export function capabilityOf(format: FormatId): Capability {
  return CAPABILITIES[format];
}

/** Text with the edge cases: empty (where allowed), unicode of every plane, lone surrogates, control characters, occasionally 1 MB. */
export function textArbitrary(options: { empty: boolean; huge?: boolean }): fc.Arbitrary<string> {
  // Built once per option set: the IR arbitraries rebuild their conversation inside `chain` on every sample, and fast-check's string arbitraries cost far more to build than to draw from.
  const key = `${options.empty}${options.huge === true}`;
  const known = TEXT_ARBITRARIES.get(key);
  if (known !== undefined) return known;
  const weighted: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.string({ minLength: 1, maxLength: 30 }), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), weight: 3 },
    { arbitrary: fc.string({ unit: fc.constantFrom('\uD800', '\uDFFF', '\uD83D', 'a', '\u0000', '\n', '\r', '"', '\\', '\u2028', '𝄞', '\uFEFF'), minLength: 1, maxLength: 12 }), weight: 2 },
    { arbitrary: fc.constantFrom(...EDGE_STRINGS.filter((text) => text !== '')), weight: 2 },
  ];
  if (options.empty) weighted.push({ arbitrary: fc.constant(''), weight: 1 });
  if (options.huge === true) weighted.push({ arbitrary: fc.constant('h'.repeat(1 << 20)), weight: 1 });
  const arbitrary = fc.oneof(...weighted);
  TEXT_ARBITRARIES.set(key, arbitrary);
  return arbitrary;
}

const TEXT_ARBITRARIES = new Map<string, fc.Arbitrary<string>>();

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const JPEG = '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDA=';
const PDF = 'JVBERi0xLjcKJeLjz9MKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0Y=';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const MP3 = 'SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4LjI5LjEwMAAAAAAAAAAAAAAA';
const MP4 = 'AAAAIGZ0eXBpc29tAAACAGlzb21pc28yYXZjMW1wNDEAAAAIZnJlZQ==';

export function mediaArbitrary(format: FormatId, kind: 'image' | 'audio' | 'video' | 'document'): fc.Arbitrary<Part> {
  const capability = CAPABILITIES[format];
  switch (kind) {
    case 'image': {
      const base64 = fc.constantFrom<Base64Source>({ kind: 'base64', data: PNG, mediaType: 'image/png' }, { kind: 'base64', data: JPEG, mediaType: 'image/jpeg' });
      const url = fc.constantFrom('https://example.com/cat.png', 'https://example.com/a%20b.jpg?x=1&y=%F0%9F%98%80');
      // Gemini keeps a URL's media type (fileData.mimeType); the others guess nothing from a URL.
      const urls = url.map((value): MediaSource => (format === 'gemini' ? { kind: 'url', url: value, mediaType: value.includes('.png') ? 'image/png' : 'image/jpeg' } : { kind: 'url', url: value }));
      const source: fc.Arbitrary<MediaSource> = capability.base64Images === true ? base64 : fc.oneof(base64, urls);
      return source.map((value): Part => (capability.imageDetail === undefined ? { type: 'image', source: value } : { type: 'image', source: value, detail: capability.imageDetail }));
    }
    case 'audio':
      return fc.constantFrom<Base64Source>({ kind: 'base64', data: WAV, mediaType: 'audio/wav' }, { kind: 'base64', data: MP3, mediaType: 'audio/mpeg' }).map((source): Part => ({ type: 'audio', source }));
    case 'video':
      return fc.constant<Part>({ type: 'video', source: { kind: 'base64', data: MP4, mediaType: 'video/mp4' } });
    case 'document':
      return fc.constant<Part>(
        capability.documentFilename
          ? { type: 'document', source: { kind: 'base64', data: PDF, mediaType: 'application/pdf' }, filename: 'report.pdf' }
          : { type: 'document', source: { kind: 'base64', data: PDF, mediaType: 'application/pdf' } },
      );
  }
}

const jsonLeaf: fc.Arbitrary<unknown> = fc.oneof(
  textArbitrary({ empty: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).filter((value) => !Object.is(value, -0)),
  fc.boolean(),
  fc.constant(null),
);

/** Tool-call arguments: a JSON object with unicode keys and values, a few levels deep. */
export const argumentsArbitrary: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonLeaf, fc.array(tie('value'), { maxLength: 3 }), tie('object')),
  object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }).filter((key) => key !== '__proto__'), tie('value'), { maxKeys: 4 }),
})).object;

export const toolName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_-]{0,24}$/);
