/**
 * The neutral intermediate representation (IR) that every codec decodes into
 * and encodes from. See docs/DESIGN.md for the principles.
 *
 * Conventions:
 * - Neutral names (`tool_call`, `reasoning`), never a vendor's spelling.
 * - Anything a format says that the IR has no neutral slot for travels in the
 *   node's `extensions[format]`, which only that format's encoder reads.
 *   Other encoders report those keys as losses, except keys that start with
 *   `$`: those are shape hints (how the source spelled a value, such as "the
 *   content was a bare string") with no meaning outside the format.
 * - Base64 media stays the string it arrived as.
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

// ---------------------------------------------------------------------------
// Messages and requests

/** Who speaks. `tool` messages hold only tool results. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** One turn. System messages may stand anywhere. */
export interface Message extends Extensible {
  role: Role;
  parts: Part[];
  /** Participant name (OpenAI `name`). */
  name?: string;
  /** A system message that OpenAI formats spell `developer`. */
  developer?: boolean;
}

/** A JSON Schema (draft 2020-12 style) as plain JSON. */
export type JsonSchema = Record<string, unknown>;

/** A client function the model may call. */
export interface FunctionTool extends Extensible {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: JsonSchema;
  /** Strict schema adherence (OpenAI `strict`, Anthropic `strict`). */
  strict?: boolean;
  /** A prompt-cache breakpoint after this tool (the tools come first in the cached prefix). */
  cache?: CacheBreakpoint;
}

/** A vendor built-in or server tool (web search, code execution, …), kept whole for its own format. */
export interface OpaqueTool extends Extensible {
  type: 'opaque';
  format: FormatId;
  /** The wire tool's type or name, for loss reports. */
  toolType: string;
  value: unknown;
}

/**
 * A client tool whose input is plain text rather than a JSON object, free
 * or constrained by a grammar (OpenAI Chat and Responses `custom` tools, such
 * as Codex's `apply_patch`); its calls are `tool_call` parts of kind
 * `custom`, their text in `rawArguments`.
 */
export interface CustomTool extends Extensible {
  type: 'custom';
  name: string;
  description?: string;
  format?: CustomToolFormat;
}

/** A custom tool's input: any text, or text a grammar accepts (`syntax` `lark` or `regex`, as OpenAI spells them). */
export type CustomToolFormat = { type: 'text' } | { type: 'grammar'; syntax: string; definition: string };

/**
 * The vendor's own web search, run on its side (Anthropic `web_search_*`,
 * OpenAI Responses `web_search`, Chat `web_search_options`, Gemini
 * `googleSearch`, Amazon Nova's `nova_grounding` on Bedrock). Each encoder
 * writes what its vendor's search takes and reports the rest.
 */
export interface WebSearchTool extends Extensible {
  type: 'web_search';
  /** Search only these domains (Anthropic `allowed_domains`, Responses `filters.allowed_domains`). */
  allowedDomains?: string[];
  /** Never these (Anthropic `blocked_domains`). */
  blockedDomains?: string[];
  /** Where the user is, roughly, to localise results (Anthropic and OpenAI `user_location`). */
  userLocation?: UserLocation;
  /** At most this many searches per request (Anthropic `max_uses`). */
  maxUses?: number;
  /** How much page context to fetch: `low`, `medium`, `high` (OpenAI `search_context_size`). */
  contextSize?: string;
}

/** An approximate location, as Anthropic and OpenAI take it for web search. */
export interface UserLocation {
  city?: string;
  region?: string;
  /** Two-letter ISO country code. */
  country?: string;
  /** IANA time zone, such as `America/Los_Angeles`. */
  timezone?: string;
}

/** A tool offered to the model. */
export type Tool = FunctionTool | CustomTool | WebSearchTool | OpaqueTool;

/** How the model should choose tools. */
export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string }
  /** Restrict to these tools (Gemini `allowedFunctionNames`, OpenAI `allowed_tools`). */
  | { type: 'allowed'; names: string[]; mode: 'auto' | 'required' };

/** Sampling and length settings. */
export interface Generation {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Number of candidates (OpenAI `n`, Gemini `candidateCount`). */
  candidateCount?: number;
  logprobs?: boolean;
  topLogprobs?: number;
}

/** Reasoning settings. */
export interface ReasoningConfig {
  /** `enabled` with a budget, `adaptive` (the model decides), or `disabled`. */
  mode?: 'enabled' | 'adaptive' | 'disabled';
  /** Effort level as the vendor spells it: `minimal`, `low`, `medium`, `high`, `xhigh`, `max`, … */
  effort?: string;
  budgetTokens?: number;
  /** Whether reasoning text (or summaries) should be returned. */
  includeThoughts?: boolean;
  /** Summary style (OpenAI Responses `summary`: `auto`, `concise`, `detailed`). */
  summary?: string;
}

/** The requested output shape. */
export type OutputFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; schema: JsonSchema; name?: string; description?: string; strict?: boolean };

/** A request to generate a response. */
export interface Request extends Extensible {
  model?: string;
  messages: Message[];
  tools?: Tool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  generation?: Generation;
  reasoning?: ReasoningConfig;
  output?: OutputFormat;
  stream?: boolean;
  /** End-user id (OpenAI `user`/`safety_identifier`, Anthropic `metadata.user_id`). */
  user?: string;
  /** String key-value metadata (OpenAI `metadata`, Gemini `labels`). */
  metadata?: Record<string, string>;
  serviceTier?: string;
  /** Whether the vendor keeps the request and its answer for later retrieval (OpenAI Chat and Responses `store`). */
  store?: boolean;
  /** A key that routes requests sharing a long prefix to the same prompt cache (OpenAI `prompt_cache_key`). */
  promptCacheKey?: string;
  /** How long the vendor keeps the request's prompt cache, as it spells it (OpenAI `prompt_cache_retention`: `in-memory`, `24h`). */
  promptCacheRetention?: string;
  /** How long and detailed the answer should be: `low`, `medium`, `high` (OpenAI Chat `verbosity`, Responses `text.verbosity`). */
  verbosity?: string;
  /** Report token usage at the end of a stream (Chat `stream_options.include_usage`); every other format always does. */
  streamUsage?: boolean;
  /** Pad each stream event with random characters against length side channels (OpenAI `stream_options.include_obfuscation`). */
  streamObfuscation?: boolean;
  /**
   * Automatic prompt caching: a breakpoint the vendor puts on the last
   * cacheable block of the request (Anthropic's and OpenRouter's top-level
   * `cache_control`). Formats without the setting get it on that part
   * themselves (Bedrock, OpenAI); the others report it.
   */
  cache?: CacheBreakpoint;
}

// ---------------------------------------------------------------------------
// Responses

/** The neutral reasons a generation stops. */
export type UnifiedStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_calls'
  | 'content_filter'
  | 'refusal'
  | 'pause'
  | 'context_overflow'
  | 'error'
  | 'other';

/** Why generation stopped: the neutral value plus the vendor's own. */
export interface StopReason {
  unified: UnifiedStopReason;
  /** The vendor's value, as it was on the wire. */
  raw?: string;
  /** The format `raw` came from. */
  format?: FormatId;
  /** The stop sequence that matched, where known. */
  sequence?: string;
}

/** What tokens are of, where a vendor counts them apart. */
export type TokenModality = 'text' | 'image' | 'audio' | 'video' | 'document';

/** Token counts by modality, in the order the source listed them. */
export type TokenModalities = Partial<Record<TokenModality, number>>;

/**
 * Token usage. `inputTokens` counts all input, cached included (OpenAI's and
 * Gemini's convention); `outputTokens` counts all output, reasoning included.
 */
export interface Usage extends Extensible {
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens read from the prompt cache (part of `inputTokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache (part of `inputTokens`). */
  cacheWriteTokens?: number;
  /**
   * `cacheWriteTokens` by the lifetime of the entries written, as the vendor
   * spells it (`5m`, `1h`): Anthropic's `cache_creation`, Bedrock's
   * `cacheDetails`. The other formats report a breakdown with writes in it.
   */
  cacheWriteByTtl?: Record<string, number>;
  /** Reasoning tokens (part of `outputTokens`). */
  reasoningTokens?: number;
  /**
   * `inputTokens` by modality, where the vendor counts them apart (Gemini
   * `promptTokensDetails`; OpenAI Chat `prompt_tokens_details` text, audio
   * and image tokens).
   */
  inputTokensByModality?: TokenModalities;
  /**
   * The answer's tokens (`outputTokens` without `reasoningTokens`) by
   * modality (Gemini `candidatesTokensDetails`; OpenAI Chat
   * `completion_tokens_details` text and audio tokens).
   */
  outputTokensByModality?: TokenModalities;
  totalTokens?: number;
  /**
   * The service tier that served the answer, as the vendor named it
   * (Anthropic `usage.service_tier`, OpenAI's `service_tier`, Gemini
   * `usageMetadata.serviceTier`, Converse `serviceTier.type`): it sets the
   * price of these tokens. Encoders map it to their own tiers.
   */
  serviceTier?: string;
  /** The source's usage object, verbatim, for analysis. Encoders do not read it. */
  raw?: { format: FormatId; value: unknown };
}

/** One generated alternative. Formats without candidates have exactly one. */
export interface Candidate extends Extensible {
  index: number;
  message: Message;
  stopReason?: StopReason;
}

/** A whole (non-streamed) response. */
export interface Response extends Extensible {
  id?: string;
  model?: string;
  /** Unix seconds. */
  created?: number;
  candidates: Candidate[];
  usage?: Usage;
}

// ---------------------------------------------------------------------------
// Errors returned by vendors

/** The neutral kinds of API error. */
export type ErrorType =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'timeout'
  | 'other';

/** An API error body, in neutral terms. */
export interface ApiError extends Extensible {
  type: ErrorType;
  message: string;
  /** HTTP status, where known. */
  status?: number;
  /** The vendor's error type or code string. */
  code?: string;
  /** The vendor's parameter name, where given (OpenAI `param`). */
  param?: string;
}

/** Throws at compile time when a switch misses a case; at run time names the value. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

/** Is `part` a tool call or result whose id the decoder made up (`syntheticId`)? */
export function hasMadeUpId(part: Part): boolean {
  return (part.type === 'tool_call' || part.type === 'tool_result') && part.syntheticId === true;
}
