/**
 * What the Converse stream decoder and encoder share: the wire keys of each
 * event, the `$extra` shape hint (keys such as Bedrock's `"p"` padding that
 * exist only to be written back), and the exception events of
 * `ConverseStreamOutput`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 */
import type { ApiError, ErrorType } from '../../core/ir.ts';
import { lookupTable } from '../../core/wire.ts';

/** The exception events a Converse stream may carry, by neutral error type. */
export const STREAM_EXCEPTION_BY_TYPE: Readonly<Record<ErrorType, string>> = {
  invalid_request: 'validationException',
  request_too_large: 'validationException',
  rate_limit: 'throttlingException',
  overloaded: 'serviceUnavailableException',
  server: 'internalServerException',
  timeout: 'modelStreamErrorException',
  authentication: 'internalServerException',
  permission: 'internalServerException',
  not_found: 'internalServerException',
  other: 'internalServerException',
};

/** The exception events of the SDK's `ConverseStreamOutput` union. */
export const STREAM_EXCEPTIONS: ReadonlySet<string> = new Set([
  'internalServerException',
  'modelStreamErrorException',
  'serviceUnavailableException',
  'throttlingException',
  'validationException',
]);

/** `modelStreamErrorException` → `ModelStreamErrorException`. */
export function exceptionName(event: string): string {
  return `${event.charAt(0).toUpperCase()}${event.slice(1)}`;
}

/** The stream exception event for an IR error: its own when it came from one, else by type. */
export function streamExceptionFor(error: ApiError): string {
  const code = error.code;
  if (code !== undefined) {
    const event = `${code.charAt(0).toLowerCase()}${code.slice(1)}`;
    if (STREAM_EXCEPTIONS.has(event)) return event;
  }
  return STREAM_EXCEPTION_BY_TYPE[error.type];
}

/** Known payload keys per stream event; others travel as `$extra`. */
export const EVENT_KEYS: Readonly<Record<string, ReadonlySet<string>>> = lookupTable({
  messageStart: new Set(['role']),
  contentBlockStart: new Set(['contentBlockIndex', 'start']),
  contentBlockDelta: new Set(['contentBlockIndex', 'delta']),
  contentBlockStop: new Set(['contentBlockIndex']),
  messageStop: new Set(['stopReason', 'additionalModelResponseFields']),
  metadata: new Set(['usage', 'metrics', 'trace', 'performanceConfig', 'serviceTier']),
});
