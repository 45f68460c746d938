/**
 * One Amazon Bedrock model invocation log record → an exchange. Records
 * (`schemaType: "ModelInvocationLog"`, in CloudWatch Logs or as JSON lines
 * in S3) hold `modelId`, `operation` (`Converse`, `ConverseStream`,
 * `InvokeModel`, `InvokeModelWithResponseStream`), `input.inputBodyJson`
 * (the request body as sent: Converse, or the model's own InvokeModel body,
 * Claude's being Anthropic Messages) and `output.outputBodyJson` (the
 * answer; for a streamed call, the list of its chunks), or `errorCode` when
 * the call failed. The URL is made from the operation and model id, so the
 * format of a Converse call comes from it and an InvokeModel body says its
 * own.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-invocation-logging.html
 */
import { isObject, type JsonObject } from '../../core/wire.ts';
import type { WireEvent } from '../../core/stream-events.ts';
import { NormalizeFailure } from '../failure.ts';
import { isoTime, numberOf, stringOf } from '../fields.ts';
import type { Exchange, RecordedBody } from '../types.ts';

const PATH_OF_OPERATION: Readonly<Record<string, string>> = {
  Converse: 'converse',
  ConverseStream: 'converse-stream',
  InvokeModel: 'invoke',
  InvokeModelWithResponseStream: 'invoke-with-response-stream',
};

/** HTTP status of Bedrock's error codes (its API reference's "Errors" of each operation). */
const STATUS_OF_ERROR: Readonly<Record<string, number>> = {
  ValidationException: 400,
  AccessDeniedException: 403,
  ResourceNotFoundException: 404,
  ModelTimeoutException: 408,
  ModelNotReadyException: 429,
  ThrottlingException: 429,
  ModelErrorException: 424,
  ServiceQuotaExceededException: 400,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
};

/** True when a JSON value is an invocation log record. */
export function isBedrockInvocationLog(value: JsonObject): boolean {
  return value['schemaType'] === 'ModelInvocationLog' || (typeof value['modelId'] === 'string' && typeof value['operation'] === 'string' && isObject(value['input']));
}

/**
 * A streamed answer's chunks → wire events: a Converse stream chunk is
 * `{eventName: payload}` (the SDK's `ConverseStreamOutput` union), an
 * InvokeModel stream chunk the model's own event (`{type: …}` for Claude),
 * possibly still as `{chunk: {bytes}}` with base64 JSON.
 */
function streamEvents(chunks: unknown[], converse: boolean): WireEvent[] {
  return chunks.map((chunk, index): WireEvent => {
    let value = chunk;
    if (isObject(value) && isObject(value['chunk']) && typeof value['chunk']['bytes'] === 'string') {
      try {
        value = JSON.parse(Buffer.from(value['chunk']['bytes'], 'base64').toString('utf8')) as unknown;
      } catch (error) {
        throw new NormalizeFailure('stream_error', `chunk ${index} of the streamed output holds bytes that are not JSON (${(error as Error).message})`);
      }
    }
    if (!isObject(value)) throw new NormalizeFailure('stream_error', `chunk ${index} of the streamed output is not an object`);
    if (converse) {
      const keys = Object.keys(value);
      const name = keys[0];
      if (keys.length !== 1 || name === undefined) throw new NormalizeFailure('stream_error', `chunk ${index} of the ConverseStream output is not one {event: payload}`);
      return { event: name, data: value[name] };
    }
    return typeof value['type'] === 'string' ? { event: value['type'], data: value } : { data: value };
  });
}

function outputBody(output: JsonObject | undefined, converse: boolean): RecordedBody | undefined {
  const body = output?.['outputBodyJson'] ?? output?.['outputBodyText'];
  if (body === undefined || body === null) return undefined;
  if (Array.isArray(body)) return { value: streamEvents(body, converse), events: true };
  return { value: body };
}

/** The exchange of one invocation log record. */
export function exchangeFromBedrockInvocationLog(record: JsonObject): Exchange {
  const operation = stringOf(record, ['operation']) ?? 'InvokeModel';
  const modelId = stringOf(record, ['modelId']);
  const path = PATH_OF_OPERATION[operation];
  if (path === undefined) throw new NormalizeFailure('not_an_exchange', `Bedrock operation ${operation} is not a generation call (Converse, ConverseStream, InvokeModel, InvokeModelWithResponseStream)`);
  const converse = operation.startsWith('Converse');
  const exchange: Exchange = { method: 'POST' };
  if (modelId !== undefined) exchange.url = `/model/${encodeURIComponent(modelId)}/${path}`;
  const input = isObject(record['input']) ? record['input'] : undefined;
  const output = isObject(record['output']) ? record['output'] : undefined;
  const sent = input?.['inputBodyJson'] ?? input?.['inputBodyText'];
  if (sent !== undefined && sent !== null) exchange.request = { value: sent };
  const received = outputBody(output, converse);
  const errorCode = stringOf(record, ['errorCode']);
  if (received !== undefined) {
    exchange.response = received;
    exchange.status = 200;
  } else if (errorCode !== undefined) {
    exchange.status = STATUS_OF_ERROR[errorCode] ?? 500;
    // The exception's name travels as `__type`, as AWS JSON error bodies spell it, so the error's type is Bedrock's own.
    exchange.response = { value: { __type: errorCode, message: stringOf(record, ['errorMessage']) ?? errorCode } };
  }
  const startedAt = isoTime(record['timestamp']);
  const latency = isObject(received?.value) ? numberOf(isObject(received.value['metrics']) ? received.value['metrics'] : undefined, ['latencyMs']) : undefined;
  if (startedAt !== undefined || latency !== undefined) exchange.timing = { ...(startedAt === undefined ? {} : { startedAt }), ...(latency === undefined ? {} : { durationMs: latency }) };
  return exchange;
}
