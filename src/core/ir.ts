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
import type { CacheBreakpoint, Extensible, FormatId, Part } from './ir-parts.ts';

export * from './ir-parts.ts';

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
   * What the answer may hold besides text: OpenAI Chat `modalities`
   * (`text`, `audio`), Gemini `generationConfig.responseModalities`
   * (`TEXT`, `AUDIO`, `IMAGE`), in the source's order. The voice and audio
   * format stay each format's own (Chat `audio`, Gemini `speechConfig`):
   * the vendors share no voice.
   */
  outputModalities?: OutputModality[];
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

/** A kind of content an answer may hold (see `Request.outputModalities`). */
export type OutputModality = 'text' | 'audio' | 'image';

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
  /** `cacheReadTokens` by modality (Gemini `cacheTokensDetails`). */
  cacheReadTokensByModality?: TokenModalities;
  /**
   * The tokens of tool-use prompts (the results of the vendor's own tools,
   * such as a search, fed back to the model) by modality: Gemini
   * `toolUsePromptTokensDetails`, whose total, `toolUsePromptTokenCount`,
   * stays Gemini's own field.
   */
  toolUseTokensByModality?: TokenModalities;
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
