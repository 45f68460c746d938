/**
 * One LiteLLM `StandardLoggingPayload` (what its logging callbacks, the
 * proxy's spend logs and custom loggers receive) → an exchange. LiteLLM
 * speaks OpenAI's shape whatever provider it called (`custom_llm_provider`):
 * `messages` and `model_parameters` are the Chat Completions request,
 * `response` the completion (a streamed call's assembled one, given the
 * payload's `prompt_tokens`/`completion_tokens` when it has no `usage`); a Responses
 * call (`call_type` `responses`) has its input and response, an Anthropic
 * pass-through (`anthropic_messages`) Anthropic's. A failed call has
 * `status: "failure"` with `error_str` and `error_information`. Times are
 * epoch seconds.
 * @see https://docs.litellm.ai/docs/proxy/logging_spec
 */
import type { FormatId } from '../../core/ir.ts';
import { isObject, type JsonObject } from '../../core/wire.ts';
import { NormalizeFailure } from '../failure.ts';
import { isoTime } from '../fields.ts';
import type { Exchange, Timing } from '../types.ts';

/** The format of each generation `call_type` (with and without its `a` for async). */
const FORMAT_OF_CALL: Readonly<Record<string, FormatId>> = {
  completion: 'openai-chat',
  acompletion: 'openai-chat',
  text_completion: 'openai-chat',
  responses: 'openai-responses',
  aresponses: 'openai-responses',
  anthropic_messages: 'anthropic',
};

/** True when a JSON value is a StandardLoggingPayload. */
export function isLiteLlmPayload(value: JsonObject): boolean {
  return typeof value['call_type'] === 'string' && 'messages' in value && ('model_parameters' in value || 'custom_llm_provider' in value || 'response_cost' in value);
}

/** Start, duration and time to first token from epoch-second `startTime`, `endTime`, `completionStartTime`. */
export function secondsTiming(start: unknown, end: unknown, firstToken: unknown): Timing | undefined {
  const timing: Timing = {};
  const startedAt = isoTime(start);
  if (startedAt !== undefined) timing.startedAt = startedAt;
  const ms = (value: unknown): number | undefined => (typeof value === 'number' && typeof start === 'number' && value >= start ? Math.round((value - start) * 1000) : undefined);
  const duration = ms(end);
  if (duration !== undefined) timing.durationMs = duration;
  const first = ms(firstToken);
  if (first !== undefined) timing.timeToFirstTokenMs = first;
  return Object.keys(timing).length === 0 ? undefined : timing;
}

function requestBody(format: FormatId, payload: JsonObject): JsonObject {
  const parameters = isObject(payload['model_parameters']) ? payload['model_parameters'] : {};
  const model = payload['model'];
  if (format === 'openai-responses') return { model, input: payload['messages'], ...parameters };
  return { model, messages: payload['messages'], ...parameters };
}

function failure(payload: JsonObject): { status: number; body: JsonObject } {
  const information = isObject(payload['error_information']) ? payload['error_information'] : {};
  const code = Number(information['error_code']);
  const message = typeof payload['error_str'] === 'string' ? payload['error_str'] : String(information['error_message'] ?? 'the call failed');
  const type = typeof information['error_class'] === 'string' ? information['error_class'] : 'error';
  return { status: Number.isInteger(code) && code >= 400 && code < 600 ? code : 500, body: { error: { message, type } } };
}

/** A Chat completion without `usage` (some streamed calls) gets the payload's own token counts. */
function withUsage(format: FormatId, response: unknown, payload: JsonObject): unknown {
  if (format !== 'openai-chat' || !isObject(response) || response['usage'] !== undefined) return response;
  const prompt = payload['prompt_tokens'];
  const completion = payload['completion_tokens'];
  if (typeof prompt !== 'number' || typeof completion !== 'number' || prompt + completion === 0) return response;
  const total = typeof payload['total_tokens'] === 'number' ? payload['total_tokens'] : prompt + completion;
  return { ...response, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total } };
}

/** The exchange of one payload; a call that is not a generation (embedding, image, transcription) is `not_an_exchange`. */
export function exchangeFromLiteLlmPayload(payload: JsonObject): Exchange {
  const callType = String(payload['call_type']);
  const format = FORMAT_OF_CALL[callType];
  if (format === undefined) throw new NormalizeFailure('not_an_exchange', `LiteLLM call_type ${callType} is not a generation call (completion, responses, anthropic_messages)`);
  const exchange: Exchange = { format, request: { value: requestBody(format, payload) } };
  if (payload['status'] === 'failure') {
    const { status, body } = failure(payload);
    exchange.status = status;
    if (format !== 'anthropic') exchange.response = { value: body };
  } else if (payload['response'] !== undefined && payload['response'] !== null) {
    exchange.status = 200;
    exchange.response = { value: withUsage(format, payload['response'], payload) };
  }
  const timing = secondsTiming(payload['startTime'], payload['endTime'], payload['completionStartTime']);
  if (timing !== undefined) exchange.timing = timing;
  return exchange;
}
