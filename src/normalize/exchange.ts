/**
 * One JSONL line (or JSON array element) → an {@link Exchange}: recorded
 * request/response pairs under their common field names, OpenAI Batch input
 * and output lines, Anthropic Message Batches requests and results, Gemini
 * Batch API requests and responses, and Bedrock batch inference records;
 * the other input kinds (cassettes, spans, observability exports, invocation
 * logs) each by their reader in `readers/`.
 */
import { detectFormat } from '../core/detect.ts';
import { isObject, type JsonObject } from '../core/wire.ts';
import { NormalizeFailure } from './failure.ts';
import { bodyOf, firstOf, numberOf, stringOf, timingOf } from './fields.ts';
import { exchangeFromBedrockInvocationLog } from './readers/bedrock-log.ts';
import { exchangeFromLangfuseObservation } from './readers/langfuse.ts';
import { exchangeFromLiteLlmPayload } from './readers/litellm.ts';
import { exchangeFromNockDefinition } from './readers/nock.ts';
import { exchangeFromOtlpSpan } from './readers/otlp.ts';
import { exchangeFromVcrInteraction } from './readers/vcr.ts';
import type { Exchange, InputKind } from './types.ts';

const REQUEST_KEYS = ['request', 'req'] as const;
const RESPONSE_KEYS = ['response', 'res', 'resp'] as const;
const URL_KEYS = ['url', 'endpoint', 'path', 'request_url', 'requestUrl'] as const;
const STATUS_KEYS = ['status', 'status_code', 'statusCode', 'response_status'] as const;

function objectOrUndefined(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

/** A line that is a bare API body (no request/response wrapper). */
function bareBody(value: JsonObject): Exchange | undefined {
  const detection = detectFormat(value);
  if (detection === undefined) return undefined;
  return detection.kind === 'request' ? { request: { value } } : { response: { value } };
}

/** A recorded exchange under common field names. */
export function genericExchange(value: JsonObject): Exchange {
  const requestContainer = firstOf(value, REQUEST_KEYS);
  const responseContainer = firstOf(value, RESPONSE_KEYS);
  const request = bodyOf(requestContainer) ?? bodyOf(firstOf(value, ['request_body', 'requestBody']));
  const response = bodyOf(responseContainer) ?? bodyOf(firstOf(value, ['response_body', 'responseBody']));
  if (request === undefined && response === undefined) {
    const bare = bareBody(value);
    if (bare !== undefined) return bare;
    throw new NormalizeFailure('not_an_exchange', 'the line holds no request or response body (looked for request/response, request_body/response_body, or a bare API body)');
  }
  const requestObject = objectOrUndefined(requestContainer);
  const responseObject = objectOrUndefined(responseContainer);
  const exchange: Exchange = {};
  const url = stringOf(value, URL_KEYS) ?? stringOf(requestObject, URL_KEYS);
  if (url !== undefined) exchange.url = url;
  const method = stringOf(value, ['method']) ?? stringOf(requestObject, ['method']);
  if (method !== undefined) exchange.method = method;
  if (request !== undefined) exchange.request = request;
  if (response !== undefined) exchange.response = response;
  const status = numberOf(responseObject, STATUS_KEYS) ?? numberOf(value, STATUS_KEYS);
  if (status !== undefined) exchange.status = status;
  const timing = timingOf(value, requestObject, responseObject);
  if (timing !== undefined) exchange.timing = timing;
  return exchange;
}

/** `{custom_id, method, url, body}`. */
function openaiBatchInput(value: JsonObject): Exchange {
  const exchange: Exchange = { request: { value: value['body'] } };
  if (typeof value['url'] === 'string') exchange.url = value['url'];
  if (typeof value['method'] === 'string') exchange.method = value['method'];
  return exchange;
}

/** `{id, custom_id, response: {status_code, request_id, body} | null, error: {code, message} | null}`. */
function openaiBatchOutput(value: JsonObject): Exchange {
  const response = value['response'];
  if (isObject(response) && response['body'] !== undefined) {
    const exchange: Exchange = { response: { value: response['body'] } };
    const status = numberOf(response, ['status_code']);
    if (status !== undefined) exchange.status = status;
    return exchange;
  }
  const error = objectOrUndefined(value['error']);
  const detail = error === undefined ? 'no response and no error' : `${stringOf(error, ['code']) ?? 'error'}: ${stringOf(error, ['message']) ?? ''}`;
  throw new NormalizeFailure('batch_failed', `the batch request failed (${detail})`);
}

/** `{custom_id, params}`: params is an Anthropic Messages request. */
function anthropicBatchRequest(value: JsonObject): Exchange {
  return { format: 'anthropic', request: { value: value['params'] } };
}

/** `{custom_id, result: {type: succeeded | errored | canceled | expired, message? error?}}`. */
function anthropicBatchResult(value: JsonObject): Exchange {
  const result = objectOrUndefined(value['result']);
  const type = result?.['type'];
  if (type === 'succeeded') return { format: 'anthropic', response: { value: result?.['message'] } };
  if (type === 'errored') return { format: 'anthropic', response: { value: result?.['error'] } };
  throw new NormalizeFailure('batch_failed', `the batch request has no answer: its result is ${JSON.stringify(type ?? null)}`);
}

/** `{key, request}`: request is a Gemini `GenerateContentRequest`. */
function geminiBatchRequest(value: JsonObject): Exchange {
  return { format: 'gemini', request: { value: value['request'] } };
}

/** `{key, response}`, or `{key, error}` (a `google.rpc.Status`, also spelled `status`) for a request that failed. */
function geminiBatchResponse(value: JsonObject): Exchange {
  if (isObject(value['response'])) return { format: 'gemini', response: { value: value['response'] } };
  const status = objectOrUndefined(value['error']) ?? objectOrUndefined(value['status']);
  throw new NormalizeFailure('batch_failed', `the batch request failed (${numberOf(status, ['code']) ?? 'error'}: ${stringOf(status, ['message']) ?? ''})`);
}

/**
 * `{recordId, modelInput}` of an input file, with `modelOutput` or
 * `error: {errorCode, errorMessage}` in an output file. The bodies are the
 * job's InvokeModel bodies (Claude's are Anthropic Messages) or Converse
 * bodies, so the format comes from them.
 */
function bedrockBatch(value: JsonObject): Exchange {
  const error = objectOrUndefined(value['error']);
  if (error !== undefined) {
    throw new NormalizeFailure('batch_failed', `the batch record failed (${numberOf(error, ['errorCode']) ?? stringOf(error, ['errorCode']) ?? 'error'}: ${stringOf(error, ['errorMessage']) ?? ''})`);
  }
  const exchange: Exchange = { request: { value: value['modelInput'] } };
  if (value['modelOutput'] !== undefined) exchange.response = { value: value['modelOutput'] };
  return exchange;
}

/** The exchange in one parsed line of kind `kind` (see `classifyItem`). */
export function exchangeFromItem(value: unknown, kind: InputKind): Exchange {
  if (!isObject(value)) throw new NormalizeFailure('not_an_exchange', `the line is a JSON ${Array.isArray(value) ? 'array' : typeof value}, not an object holding an exchange`);
  switch (kind) {
    case 'openai-batch-input':
      return openaiBatchInput(value);
    case 'openai-batch-output':
      return openaiBatchOutput(value);
    case 'anthropic-batch-request':
      return anthropicBatchRequest(value);
    case 'anthropic-batch-result':
      return anthropicBatchResult(value);
    case 'gemini-batch-request':
      return geminiBatchRequest(value);
    case 'gemini-batch-response':
      return geminiBatchResponse(value);
    case 'bedrock-batch':
      return bedrockBatch(value);
    case 'vcr-cassette':
      return exchangeFromVcrInteraction(value);
    case 'nock':
      return exchangeFromNockDefinition(value);
    case 'otlp':
      return exchangeFromOtlpSpan(value);
    case 'langfuse':
      return exchangeFromLangfuseObservation(value);
    case 'litellm':
      return exchangeFromLiteLlmPayload(value);
    case 'bedrock-invocation-log':
      return exchangeFromBedrockInvocationLog(value);
    case 'jsonl':
      return genericExchange(value);
    case 'har':
      throw new NormalizeFailure('not_an_exchange', 'a HAR document inside a line; give the HAR as its own file');
  }
}
