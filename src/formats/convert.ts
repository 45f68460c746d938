/**
 * The conversions by format id (`'anthropic'`, `'gemini'`, …) or codec
 * object: look the codecs up in the registry and run the engine
 * (`engine.ts`). Importing this module brings in every codec; a bundle that
 * needs one pair imports `interlingua/core` and the two format subpaths.
 */
import { codecFor } from './registry.ts';
import * as engine from '../core/engine.ts';
import type { Codec } from '../core/codec.ts';
import type { ApiError, FormatId, Request, Response } from '../core/ir.ts';
import * as counting from '../core/token-count.ts';
import type { AnswerIds } from '../core/answer-ids.ts';

export { parseBody, type ConvertResult, type Decoded, type Encoded, type CodecOptions, type CodecConvertOptions } from '../core/engine.ts';

/** A format: its id, or its codec object (from a format subpath such as `interlingua/anthropic`). */
export type FormatRef = FormatId | Codec;

/** Options of {@link convertRequest}, {@link convertResponse} and {@link convertError}. */
export interface ConvertOptions {
  from: FormatRef;
  to: FormatRef;
  /** Throw an `InterlinguaError` (code `strict_loss`) instead of returning losses. */
  strict?: boolean;
  /** The model, for formats that carry it in the URL (Gemini). */
  model?: string;
  /** The dialect of the target format (`openai-chat`: `deepseek`, `openrouter`, `gemini-openai`, `vllm`, `ollama-openai`, `openai`). */
  dialect?: string;
  /** Where the ids and times a response encoder makes up come from (default: fresh random ids and the clock; `fixedAnswerIds` for reproducible output). */
  ids?: AnswerIds;
  /**
   * `convertResponse` only: the request the answer answers, as the caller
   * sent it in the target format. A Responses answer echoes its settings
   * (`tools`, `tool_choice`, `temperature`, `max_output_tokens`, …) as
   * OpenAI does; without it, OpenAI's defaults.
   */
  request?: unknown;
}

/** The codec of `format`: the object itself, or the registry's codec for an id. */
export function resolveCodec(format: FormatRef): Codec {
  return isCodec(format) ? format : codecFor(format);
}

function isCodec(format: FormatRef): format is Codec {
  return typeof format === 'object' && format !== null;
}

/** Convert a request body from one format to another. */
export function convertRequest(body: unknown, options: ConvertOptions): engine.ConvertResult {
  return engine.convertBetween('request', body, resolveCodec(options.from), resolveCodec(options.to), options);
}

/** Convert a whole (non-streamed) response body from one format to another. */
export function convertResponse(body: unknown, options: ConvertOptions): engine.ConvertResult {
  return engine.convertBetween('response', body, resolveCodec(options.from), resolveCodec(options.to), options);
}

/** Convert a vendor error body from one format to another. */
export function convertError(body: unknown, options: ConvertOptions): engine.ConvertResult {
  return engine.convertBetween('error', body, resolveCodec(options.from), resolveCodec(options.to), options);
}

/** Options of {@link convertTokenCountRequest} and {@link convertTokenCountResponse}. */
export interface TokenCountConvertOptions {
  from: FormatRef;
  to: FormatRef;
  /** Throw an `InterlinguaError` (code `strict_loss`) instead of returning losses. */
  strict?: boolean;
  /** The model, where the source's counting body does not name it (Gemini and Bedrock carry it in the URL; Gemini's counting body needs it). */
  model?: string;
}

function countingOptions(options: TokenCountConvertOptions): counting.TokenCountOptions {
  const resolved: counting.TokenCountOptions = { from: resolveCodec(options.from), to: resolveCodec(options.to) };
  if (options.strict !== undefined) resolved.strict = options.strict;
  if (options.model !== undefined) resolved.model = options.model;
  return resolved;
}

/**
 * Convert a token-counting request body (Anthropic `count_tokens`, Gemini
 * `countTokens`, OpenAI Responses `input_tokens`, Bedrock `CountTokens`):
 * the request it counts is converted like `convertRequest` does. OpenAI
 * Chat and Ollama have no counting endpoint: converting to or from them is
 * a `not_implemented` error.
 */
export function convertTokenCountRequest(body: unknown, options: TokenCountConvertOptions): engine.ConvertResult {
  return counting.convertTokenCountRequest(body, countingOptions(options));
}

/** Convert the answer of a token-counting endpoint. */
export function convertTokenCountResponse(body: unknown, options: TokenCountConvertOptions): engine.ConvertResult {
  return counting.convertTokenCountResponse(body, countingOptions(options));
}

/** Decode a request body of `format` into the IR. */
export function decodeRequest(format: FormatRef, body: unknown, options: engine.CodecOptions = {}): engine.Decoded<Request> {
  return engine.decodeRequest(resolveCodec(format), body, options);
}

/** Encode an IR request into a body of `format`. */
export function encodeRequest(format: FormatRef, request: Request, options: engine.CodecOptions = {}): engine.Encoded {
  return engine.encodeRequest(resolveCodec(format), request, options);
}

/** Decode a response body of `format` into the IR. */
export function decodeResponse(format: FormatRef, body: unknown, options: engine.CodecOptions = {}): engine.Decoded<Response> {
  return engine.decodeResponse(resolveCodec(format), body, options);
}

/** Encode an IR response into a body of `format`. */
export function encodeResponse(format: FormatRef, response: Response, options: engine.CodecOptions = {}): engine.Encoded {
  return engine.encodeResponse(resolveCodec(format), response, options);
}

/** Decode a vendor error body of `format` into the IR. */
export function decodeError(format: FormatRef, body: unknown, options: engine.CodecOptions = {}): engine.Decoded<ApiError> {
  return engine.decodeError(resolveCodec(format), body, options);
}

/** Encode an IR error into an error body of `format`. */
export function encodeError(format: FormatRef, error: ApiError, options: engine.CodecOptions = {}): engine.Encoded {
  return engine.encodeError(resolveCodec(format), error, options);
}
