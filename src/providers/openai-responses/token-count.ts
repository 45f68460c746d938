/**
 * OpenAI Responses `POST /v1/responses/input_tokens` ⇄ IR token count. The
 * counting body is a Responses request without the generation settings; the
 * answer is `{ object: "response.input_tokens", input_tokens }`.
 * @see https://platform.openai.com/docs/api-reference/responses/input-tokens
 */
import { pickFields, readCount, type TokenCountCodec } from '../../core/token-count.ts';

/** The fields `input_tokens` takes (the SDK's `InputTokenCountParams`). */
const COUNT_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'text',
  'conversation',
  'previous_response_id',
  'truncation',
]);

const ANSWER: ReadonlySet<string> = new Set(['input_tokens', 'object']);

export const openaiResponsesTokenCount: TokenCountCodec = {
  requestOf: (body) => ({ request: body, path: '' }),
  countBody: (request) => pickFields(request, COUNT_FIELDS),
  decodeCount: (body) => readCount(body, 'input_tokens', ANSWER, 'openai-responses'),
  encodeCount: (count) => ({ object: 'response.input_tokens', input_tokens: count.inputTokens }),
};
