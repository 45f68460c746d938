/**
 * `interlingua/core`: the conversions on codec objects, with no codec of its
 * own. Import the codecs you need from their subpaths, so a bundle holds
 * only those:
 *
 * ```ts
 * import { convertRequest } from 'interlingua/core';
 * import { openaiChatCodec } from 'interlingua/openai-chat';
 * import { anthropicCodec } from 'interlingua/anthropic';
 *
 * const { body, losses } = convertRequest(chatBody, { from: openaiChatCodec, to: anthropicCodec });
 * ```
 *
 * The main entry (`interlingua`) has the same functions, taking format ids
 * as well.
 */
export {
  convertRequest,
  convertResponse,
  convertError,
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  decodeError,
  encodeError,
  parseBody,
  type CodecConvertOptions,
  type ConvertResult,
  type CodecOptions,
  type Decoded,
  type Encoded,
} from './engine.ts';
export {
  transcodeStream as convertStream,
  createTranscoder,
  type Transcoder,
  createDecoder as streamDecoderFor,
  createEncoder as streamEncoderFor,
  framingOf as framingFor,
  sseToWireEvents,
  framedToWireEvents,
  wireToIrEvents,
  irToSseMessages,
  sseMessagesToBytes,
  messagesToFramedBytes,
  type CodecStreamOptions as ConvertStreamOptions,
  type ConvertedStream,
} from './transcode.ts';
export { sseFraming, ndjsonFraming, wireEventOf, DONE, type StreamFraming, type FrameReader } from './framing.ts';
export { InterlinguaError, isInterlinguaError, type ErrorCode } from './errors.ts';
export { LossCollector, type Loss, type LossCode, type LossSeverity } from './losses.ts';
export type { Codec, CodecContext } from './codec.ts';
export { convertTokenCountRequest, convertTokenCountResponse, type TokenCount, type TokenCountCodec, type TokenCountOptions, type CountedRequest } from './token-count.ts';
export * from './ir.ts';
export { sniffBase64, sniffBytes, parseDataUrl, formatDataUrl, base64Prefix } from './media.ts';
export { stringifyBody } from './serialize.ts';
export { accumulate, Accumulator, responseToEvents, type Accumulated } from './accumulate.ts';
export { checkDialect } from './dialect.ts';
export { carryReasoningState, carriedReasoningState, carryResponseStates, restoreRequestStates, carryEventState, createEventCarrier } from './carried-state.ts';
export { fixedAnswerIds, randomAnswerIds, type AnswerIds } from './answer-ids.ts';
export { customToolNames, restoreCustomCalls, CustomCallRestorer } from './custom-tools.ts';
export type * from './stream-events.ts';
