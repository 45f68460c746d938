/**
 * interlingua: convert LLM API bodies between Anthropic Messages, OpenAI Chat
 * Completions (and its OpenAI-compatible dialects), OpenAI Responses, Google
 * Gemini, Ollama and AWS Bedrock Converse through one neutral IR.
 * Every function takes a format id (`'anthropic'`) or a codec object; this
 * entry brings in every codec (`interlingua/core` and the format subpaths
 * bring in only those imported).
 */
export {
  convertRequest,
  convertResponse,
  convertError,
  convertTokenCountRequest,
  convertTokenCountResponse,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  decodeError,
  encodeError,
  parseBody,
  resolveCodec,
  type ConvertOptions,
  type TokenCountConvertOptions,
  type FormatRef,
  type ConvertResult,
  type CodecOptions,
  type Decoded,
  type Encoded,
} from './formats/convert.ts';
export { detectFormat, formatFromPath, type Detection, type DetectOptions } from './core/detect.ts';
export { InterlinguaError, isInterlinguaError, type ErrorCode } from './core/errors.ts';
export { LossCollector, type Loss, type LossCode, type LossSeverity } from './core/losses.ts';
export { implementedFormats, isFormatId, codecFor } from './formats/registry.ts';
export type { Codec, CodecContext } from './core/codec.ts';
export type { TokenCount, TokenCountCodec, CountedRequest } from './core/token-count.ts';
export * from './core/ir.ts';
export { sniffBase64, sniffBytes, parseDataUrl, formatDataUrl, base64Prefix } from './core/media.ts';
export { stringifyBody } from './core/serialize.ts';
export {
  convertStream,
  createTranscoder,
  sseToWireEvents,
  wireToIrEvents,
  irToSseMessages,
  sseMessagesToBytes,
  framedToWireEvents,
  messagesToFramedBytes,
  framingFor,
  streamDecoderFor,
  streamEncoderFor,
  type ConvertStreamOptions,
  type ConvertedStream,
  type Transcoder,
} from './formats/stream.ts';
export { sseFraming, ndjsonFraming, wireEventOf, type StreamFraming, type FrameReader } from './core/framing.ts';
export { accumulate, Accumulator, responseToEvents, type Accumulated } from './core/accumulate.ts';
export type * from './core/stream-events.ts';
export { checkDialect } from './core/dialect.ts';
export { carryReasoningState, carriedReasoningState, carryResponseStates, restoreRequestStates, carryEventState, createEventCarrier } from './core/carried-state.ts';
export { fixedAnswerIds, randomAnswerIds, type AnswerIds } from './core/answer-ids.ts';
export { customToolNames, restoreCustomCalls, CustomCallRestorer } from './core/custom-tools.ts';
