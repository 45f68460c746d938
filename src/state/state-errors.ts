/**
 * The errors of the stateful endpoints, in the OpenAI Responses API's own
 * shape and wording (`{ error: { message, type, param, code } }`), so that
 * an SDK raises the same `NotFoundError` or `BadRequestError` it would get
 * from OpenAI. An id another credential stored is answered exactly as an
 * unknown one: the caller learns nothing about ids that are not its own.
 */
import { jsonAnswer, type Answer } from '../proxy/exchange.ts';

function openaiError(status: number, message: string, type: string, param: string | null, code: string | null, headers?: Record<string, string>): Answer {
  return jsonAnswer(status, JSON.stringify({ error: { message, type, param, code } }), headers);
}

/** `GET`, `DELETE` or `input_items` of a response id that is not stored (in this caller's scope). */
export function responseNotFound(id: string): Answer {
  return openaiError(404, `Response with id '${id}' not found.`, 'invalid_request_error', null, null);
}

/** A `previous_response_id` that is not stored: OpenAI answers 400 `previous_response_not_found`. */
export function previousResponseNotFound(id: string): Answer {
  return openaiError(400, `Previous response with id '${id}' not found.`, 'invalid_request_error', 'previous_response_id', 'previous_response_not_found');
}

/** A conversation id that is not stored (in this caller's scope). */
export function conversationNotFound(id: string, param: string | null = null): Answer {
  return openaiError(404, `Conversation with id '${id}' not found.`, 'invalid_request_error', param, null);
}

/** An item id that is not in the conversation. */
export function itemNotFound(id: string): Answer {
  return openaiError(404, `Item with id '${id}' not found.`, 'invalid_request_error', null, null);
}

/** A request the stateful endpoints cannot take (a wrong parameter, both `previous_response_id` and `conversation`). */
export function invalidStateRequest(message: string, param: string | null): Answer {
  return openaiError(400, message, 'invalid_request_error', param, null);
}

/** The store could not be reached for a request that needs it: a 503 the caller may retry, never blamed on the caller. */
export function storeUnavailable(detail: string): Answer {
  return openaiError(503, `the proxy's state store is unavailable (${detail}); retry shortly`, 'server_error', null, 'store_unavailable', { 'retry-after': '1' });
}

/** The wrong or missing proxy token. */
export function unauthorized(message: string): Answer {
  return openaiError(401, message, 'invalid_request_error', null, 'invalid_api_key');
}

/** A method a stateful path does not take. */
export function methodNotAllowed(method: string, path: string): Answer {
  return openaiError(405, `${method} is not supported on ${path}`, 'invalid_request_error', null, null);
}
