/**
 * The contract every provider codec fulfils. A codec is pure: JSON value in,
 * JSON value out, no I/O, no global state, Web APIs only.
 */
import type { LossCollector } from './losses.ts';
import type { ApiError, Extensible, FormatId, Request, Response } from './ir.ts';
import type { StreamDecoder, StreamEncoder } from './stream-events.ts';
import type { StreamFraming } from './framing.ts';
import type { JsonObject } from './wire.ts';
import type { AnswerIds } from './answer-ids.ts';

/** What a codec function receives besides the body. */
export interface CodecContext {
  /** Where losses are reported. */
  losses: LossCollector;
  /**
   * The model, for formats that carry it outside the body (Gemini puts it in
   * the URL). Decoders use it when the body has none.
   */
  model?: string;
  /**
   * The format a decoder's IR is headed for, where the caller knows it
   * (`convertStream`, and `convertRequest`/`convertResponse`/`convertError`
   * given codec objects or ids, do). A decoder may then skip what only an exact
   * round trip to its own format needs (hints for its own encoder) when the
   * target is another format. Unset: keep everything.
   */
  target?: FormatId;
  /**
   * The dialect of the format to write (an OpenAI-compatible vendor for
   * `openai-chat`: `deepseek`, `openrouter`, `gemini-openai`, `vllm`,
   * `ollama-openai`, or `openai` for plain OpenAI). Encoders of formats
   * without dialects ignore it; without it, an encoder keeps the dialect the
   * IR was decoded from, or writes the plain format.
   */
  dialect?: string;
  /** `max_tokens` an encoder whose format requires it (Anthropic) writes when the IR names none, instead of its own default. */
  maxTokensDefault?: number;
  /**
   * Stream encoders of formats that report a stream's usage only when asked
   * (OpenAI Chat: `stream_options.include_usage`): whether to write it. A
   * proxy sets what its caller asked; unset, the usage is written.
   */
  streamUsage?: boolean;
  /** Where the ids and times an encoder makes up come from (`src/core/answer-ids.ts`); unset: fresh random ids and the clock. */
  ids?: AnswerIds;
  /**
   * For a response encoder: the request the answer answers, as the caller
   * sent it, in the format being encoded. A format whose answers restate
   * the request's settings (Responses echoes `tools`, `tool_choice`,
   * `temperature`, …, as OpenAI does) echoes them from it, and its own
   * defaults for what it lacks; without it, the defaults alone.
   */
  request?: unknown;
}

/** Decode and encode one wire format. Every provider exports one. */
export interface Codec {
  readonly format: FormatId;
  decodeRequest(body: unknown, context: CodecContext): Request;
  encodeRequest(request: Request, context: CodecContext): unknown;
  decodeResponse(body: unknown, context: CodecContext): Response;
  encodeResponse(response: Response, context: CodecContext): unknown;
  /** Decode a vendor error body (`{ error: … }` and its variants). */
  decodeError(body: unknown, context: CodecContext): ApiError;
  /** Encode a vendor error body; the HTTP status is `error.status`. */
  encodeError(error: ApiError, context: CodecContext): unknown;
  /** A fresh stream decoder (wire events → IR events), once the format's streaming is implemented. */
  createStreamDecoder?(context: CodecContext): StreamDecoder;
  /** A fresh stream encoder (IR events → SSE messages), once the format's streaming is implemented. */
  createStreamEncoder?(context: CodecContext): StreamEncoder;
  /** How the format frames a stream on the wire (`src/core/framing.ts`); Server-Sent Events when absent. */
  readonly streamFraming?: StreamFraming;
  /** The dialects its encoders can write (`CodecContext.dialect`), for formats that have them (openai-chat). */
  readonly dialects?: readonly string[];
  /** Headers that carry part of an error answer in this format (Bedrock names the exception in `x-amzn-ErrorType`). */
  errorHeaders?(error: ApiError): Record<string, string>;
  /** Complete an error decoded from an answer's body with what the answer's headers and status say. */
  errorFromAnswer?(error: ApiError, headers: { get(name: string): string | null }, status: number): ApiError;
  /** The format's token-counting endpoint (`src/core/token-count.ts`), where it has one. */
  readonly tokenCount?: TokenCountCodec;
}

/** The answer of a counting endpoint. */
export interface TokenCount extends Extensible {
  /** Input tokens the request would take (Gemini's `totalTokens`: cached content included). */
  inputTokens: number;
  /** Of those, tokens of cached content (Gemini `cachedContentTokenCount`). */
  cacheReadTokens?: number;
}

/** The generation request inside a counting request body. */
export interface CountedRequest {
  /** The request, a body of the format's own request decoder. */
  request: unknown;
  /** Its JSON pointer in the counting body (`''` when the counting body is the request). */
  path: string;
  /** The model the counting body names outside the request (Gemini's `generateContentRequest.model`). */
  model?: string;
  /** Pointers of the wrapper's own fields that carry nothing the conversion keeps (reported as dropped). */
  unread?: string[];
}

/** A format's counting endpoint, on its codec (`Codec.tokenCount`). */
export interface TokenCountCodec {
  /** The generation request a counting body holds. */
  requestOf(body: JsonObject): CountedRequest;
  /**
   * A counting body around `request`, a body this format's `encodeRequest`
   * wrote for the model `model`. `dropped` names the request's fields the
   * counting endpoint does not take (generation settings, which change no
   * count).
   */
  countBody(request: JsonObject, model: string | undefined): { body: JsonObject; dropped: string[] };
  /**
   * Fields the request encoder writes with a default when the IR has no
   * value (Anthropic's required `max_tokens`), by the IR pointer of that
   * value: a counting body leaves them out, so neither the default nor the
   * field dropped is reported unless the source gave the value.
   */
  readonly unsent?: Readonly<Record<string, string>>;
  decodeCount(body: unknown, context: CodecContext): TokenCount;
  encodeCount(count: TokenCount, context: CodecContext): unknown;
  /** Whether the answer tells the cached tokens apart (`TokenCount.cacheReadTokens`). */
  readonly carriesCacheReads?: boolean;
}
