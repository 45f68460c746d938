/**
 * Bedrock Runtime `POST /model/{modelId}/count-tokens` ⇄ IR token count. The
 * counting body holds a Converse request (`input.converse`: its messages,
 * system prompt, tools and model fields) or an InvokeModel body, which
 * interlingua does not decode; the answer is `{ inputTokens }`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html
 */
import { InterlinguaError } from '../../core/errors.ts';
import { pickFields, readCount, unreadKeys, type CountedRequest, type TokenCountCodec } from '../../core/token-count.ts';
import { expectObject, type JsonObject } from '../../core/wire.ts';

/** The fields of a Converse request that `input.converse` takes (the SDK's `ConverseTokensRequest`). */
const COUNT_FIELDS: ReadonlySet<string> = new Set(['messages', 'system', 'toolConfig', 'additionalModelRequestFields']);

const ANSWER: ReadonlySet<string> = new Set(['inputTokens']);

function requestOf(body: JsonObject): CountedRequest {
  const input = expectObject(body['input'], '/input', 'bedrock-converse');
  if (input['converse'] === undefined) {
    if (input['invokeModel'] !== undefined) {
      throw new InterlinguaError('not_implemented', 'an InvokeModel body is in the model provider\'s own format, which interlingua does not decode; count with input.converse', { path: '/input/invokeModel', format: 'bedrock-converse' });
    }
    throw new InterlinguaError('missing_field', 'a CountTokens body needs input.converse', { path: '/input', format: 'bedrock-converse' });
  }
  const counted: CountedRequest = { request: expectObject(input['converse'], '/input/converse', 'bedrock-converse'), path: '/input/converse' };
  const unread = [...(unreadKeys(body, '', ['input']) ?? []), ...(unreadKeys(input, '/input', ['converse']) ?? [])];
  if (unread.length > 0) counted.unread = unread;
  return counted;
}

export const bedrockConverseTokenCount: TokenCountCodec = {
  requestOf,
  countBody(request) {
    const { body, dropped } = pickFields(request, COUNT_FIELDS);
    return { body: { input: { converse: body } }, dropped };
  },
  decodeCount: (body) => readCount(body, 'inputTokens', ANSWER, 'bedrock-converse'),
  encodeCount: (count) => ({ inputTokens: count.inputTokens }),
};
