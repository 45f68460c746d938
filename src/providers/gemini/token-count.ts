/**
 * Gemini `models/{model}:countTokens` ⇄ IR token count. The counting body
 * holds either `contents` alone or a whole `generateContentRequest` (with
 * its `model`, and the system instruction and tools, which `contents` alone
 * leaves uncounted); this codec writes the latter. The answer is
 * `{ totalTokens, cachedContentTokenCount?, promptTokensDetails? }`.
 * @see https://ai.google.dev/api/tokens#method:-models.counttokens
 */
import { InterlinguaError } from '../../core/errors.ts';
import { readCount, unreadKeys, type CountedRequest, type TokenCount, type TokenCountCodec } from '../../core/token-count.ts';
import { expectObject, expectString, type JsonObject } from '../../core/wire.ts';

const ANSWER: ReadonlySet<string> = new Set(['totalTokens', 'total_tokens', 'cachedContentTokenCount', 'cached_content_token_count']);

function requestOf(body: JsonObject): CountedRequest {
  const key = body['generateContentRequest'] !== undefined ? 'generateContentRequest' : body['generate_content_request'] !== undefined ? 'generate_content_request' : undefined;
  if (key === undefined) {
    if (body['contents'] === undefined) {
      throw new InterlinguaError('missing_field', 'a countTokens body needs "contents" or "generateContentRequest"', { path: '', format: 'gemini' });
    }
    return { request: body, path: '' };
  }
  if (body['contents'] !== undefined) {
    throw new InterlinguaError('invalid_value', 'a countTokens body takes "contents" or "generateContentRequest", not both', { path: '/contents', format: 'gemini' });
  }
  const inner = expectObject(body[key], `/${key}`, 'gemini');
  const { model, ...request } = inner;
  const counted: CountedRequest = { request, path: `/${key}` };
  const unread = unreadKeys(body, '', [key]);
  if (unread !== undefined) counted.unread = unread;
  if (model === undefined) return counted;
  const name = expectString(model, `/${key}/model`, 'gemini');
  counted.model = name.startsWith('models/') ? name.slice('models/'.length) : name;
  return counted;
}

export const geminiTokenCount: TokenCountCodec = {
  requestOf,
  countBody(request, model) {
    if (model === undefined) {
      throw new InterlinguaError('missing_field', "Gemini's countTokens needs the model of the request it counts; give the model option", { path: '', format: 'gemini' });
    }
    const name = model.includes('/') ? model : `models/${model}`;
    return { body: { generateContentRequest: { model: name, ...request } }, dropped: [] };
  },
  decodeCount(body): TokenCount {
    const object = expectObject(body, '', 'gemini');
    const key = object['totalTokens'] === undefined && object['total_tokens'] !== undefined ? 'total_tokens' : 'totalTokens';
    const count = readCount(object, key, ANSWER, 'gemini');
    const cached = object['cachedContentTokenCount'] ?? object['cached_content_token_count'];
    if (typeof cached === 'number') count.cacheReadTokens = cached;
    return count;
  },
  carriesCacheReads: true,
  encodeCount(count) {
    const answer: JsonObject = { totalTokens: count.inputTokens };
    if (count.cacheReadTokens !== undefined) answer['cachedContentTokenCount'] = count.cacheReadTokens;
    return answer;
  },
};
