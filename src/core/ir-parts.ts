/**
 * The IR's ground and its content: format ids, extensions, media sources,
 * citations, and the parts a message is made of. The messages, requests,
 * responses and errors built from them are in `ir.ts`, which re-exports
 * this file (import the IR from `ir.ts`). Conventions: see `ir.ts`.
 */

/** The wire formats interlingua speaks. */
export type FormatId = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'ollama' | 'bedrock-converse';

/** Every format id, in a stable order (used by the demo, tests and detection). */
export const FORMAT_IDS: readonly FormatId[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'ollama', 'bedrock-converse'];

/** What a body is: a request, a whole response, or an error body. */
export type BodyKind = 'request' | 'response' | 'error';

/** Per-format data the IR has no neutral slot for, keyed by format id. */
export type Extensions = { [F in FormatId]?: Record<string, unknown> };

/** Any IR node that can carry per-format extensions. */
export interface Extensible {
  extensions?: Extensions;
}

// ---------------------------------------------------------------------------
// Media

/** Base64 data exactly as it arrived (never decoded whole). */
export interface Base64Source {
  kind: 'base64';
  data: string;
  /** IANA media type, such as `image/png`; sniffed from the first bytes when the wire had none. */
  mediaType: string;
}

/** A URL the vendor fetches itself (http(s), gs://, or a data URL kept as given). */
export interface UrlSource {
  kind: 'url';
  url: string;
  mediaType?: string;
}

/** A file uploaded to a vendor's file store; ids are vendor-scoped. */
export interface FileSource {
  kind: 'file';
  id: string;
  /** The format whose file store issued the id, when known. */
  format?: FormatId;
  mediaType?: string;
  filename?: string;
}

/** Inline plain text (an Anthropic plain-text document). */
export interface TextSource {
  kind: 'text';
  text: string;
  mediaType?: string;
}

/** A document made of parts (an Anthropic custom-content document). */
export interface ContentSource {
  kind: 'content';
  parts: Part[];
}

/** Where a media part's bytes come from. */
export type MediaSource = Base64Source | UrlSource | FileSource;

// ---------------------------------------------------------------------------
// Parts

/** A citation attached to a span of text. */
export interface Citation extends Extensible {
  /** The vendor's citation kind, kept raw: `char_location`, `url_citation`, `web_search_result_location`, … */
  kind: string;
  /** The quoted text, where the vendor gives it. */
  citedText?: string;
  url?: string;
  title?: string;
  /** Index of the cited document in the request, where the citation points into one. */
  documentIndex?: number;
  /** Start of the cited range (characters, pages or blocks, as `kind` says). */
  start?: number;
  /** End of the cited range (exclusive for characters and blocks). */
  end?: number;
}

/**
 * A prompt-cache breakpoint: the prompt up to and including the node that
 * carries it may be cached and read back by later requests (Anthropic
 * `cache_control` on a block or tool, a Bedrock `cachePoint` block after
 * one, OpenAI `prompt_cache_breakpoint` on an input content part). `ttl` is
 * the entry's lifetime as the vendor spelled it (Anthropic and Bedrock `5m`,
 * `1h`; OpenAI `30m`, `12h`); absent, the vendor's default.
 */
export interface CacheBreakpoint {
  ttl?: string;
}

/** What every part has: extensions, and an optional prompt-cache breakpoint after it. */
export interface PartBase extends Extensible {
  cache?: CacheBreakpoint;
}

/** Plain text. */
export interface TextPart extends PartBase {
  type: 'text';
  text: string;
  citations?: Citation[];
}

/** An image. `detail` is OpenAI's resolution hint. */
export interface ImagePart extends PartBase {
  type: 'image';
  source: MediaSource;
  detail?: string;
}

/** Audio input or output. */
export interface AudioPart extends PartBase {
  type: 'audio';
  source: MediaSource;
  /** Transcript, where the vendor gives one (OpenAI audio output). */
  transcript?: string;
}

/** Video. */
export interface VideoPart extends PartBase {
  type: 'video';
  source: MediaSource;
}

/** A document: a PDF, plain text, a file, or a set of parts. */
export interface DocumentPart extends PartBase {
  type: 'document';
  source: MediaSource | TextSource | ContentSource;
  title?: string;
  /** Context about the document that the model may use but not cite. */
  context?: string;
  filename?: string;
  /** Whether the model may cite this document. */
  citations?: boolean;
}

/**
 * Opaque reasoning state that only the vendor that made it can check:
 * an Anthropic `signature` or redacted `data`, an OpenAI `encrypted_content`,
 * a Gemini `thoughtSignature`. It goes back to `format` (and, for an
 * OpenAI-compatible dialect, only to that `dialect`) and nowhere else.
 * `text` means the reasoning text itself must go back (DeepSeek
 * `reasoning_content`); `details` is OpenRouter's `reasoning_details` array
 * as JSON text.
 */
export interface ReasoningState {
  format: FormatId;
  kind: 'signature' | 'redacted' | 'encrypted' | 'thought_signature' | 'text' | 'details';
  value: string;
  /** The OpenAI-compatible dialect that owns the state (`deepseek`, `openrouter`, `gemini-openai`, …), for `openai-chat` states. */
  dialect?: string;
}

/** Model reasoning: visible text and/or summary, plus the opaque state a vendor needs back. */
export interface ReasoningPart extends PartBase {
  type: 'reasoning';
  /** Visible reasoning text (may be empty, such as with redacted or omitted thinking). */
  text: string;
  /** Summary texts, where the vendor gives summaries apart from the reasoning (OpenAI Responses). */
  summary?: string[];
  /** Opaque state; only encoded for its own format. */
  state?: ReasoningState;
  /** True when the vendor hid the reasoning entirely (Anthropic `redacted_thinking`). */
  redacted?: boolean;
  /** The vendor's id for the reasoning item (OpenAI Responses `rs_…`). */
  id?: string;
}

/** A model's request to call a client function. */
export interface ToolCallPart extends PartBase {
  type: 'tool_call';
  /** The call id. Always set: synthesised deterministically when the wire had none (see `syntheticId`). */
  id: string;
  /** True when `id` was synthesised by interlingua because the wire had none. */
  syntheticId?: boolean;
  name: string;
  /** The parsed arguments. `undefined` when `rawArguments` is not a JSON object. */
  arguments: Record<string, unknown> | undefined;
  /** The argument JSON text as the wire had it (formats that send a string), kept so a same-format trip does not re-serialise. */
  rawArguments?: string;
  /** `custom` for OpenAI free-form (grammar) tools, whose input is plain text in `rawArguments`. */
  kind?: 'function' | 'custom';
}

/** The client's answer to a tool call. */
export interface ToolResultPart extends PartBase {
  type: 'tool_result';
  /** The id of the call this answers. */
  callId: string;
  /** True when `callId` was synthesised (the wire had none). */
  syntheticId?: boolean;
  /** The tool's name, where the wire or the matching call gives it. */
  name?: string;
  /** The result as parts (text, images, documents, …). */
  content: Part[];
  isError?: boolean;
}

/** A refusal by the model. */
export interface RefusalPart extends PartBase {
  type: 'refusal';
  text: string;
}

/** A vendor block with no neutral meaning (server-tool calls and results, built-in tool items), kept whole for a same-format trip. */
export interface OpaquePart extends PartBase {
  type: 'opaque';
  format: FormatId;
  /** The wire block's type, for messages and loss reports. */
  blockType: string;
  value: unknown;
}

/** Every kind of content. A closed union: switches end in `unreachable`. */
export type Part =
  | TextPart
  | ImagePart
  | AudioPart
  | VideoPart
  | DocumentPart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart
  | RefusalPart
  | OpaquePart;

/** The `type` of a part. */
export type PartType = Part['type'];

/** Throws at compile time when a switch misses a case; at run time names the value. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

/** Is `part` a tool call or result whose id the decoder made up (`syntheticId`)? */
export function hasMadeUpId(part: Part): boolean {
  return (part.type === 'tool_call' || part.type === 'tool_result') && part.syntheticId === true;
}
