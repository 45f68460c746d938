/**
 * Anthropic `POST /v1/messages/count_tokens` ⇄ IR token count. The counting
 * body is a Messages request without the generation settings; the answer is
 * `{ input_tokens }`.
 * @see https://docs.claude.com/en/api/messages-count-tokens
 */
import { pickFields, readCount, type TokenCountCodec } from '../../core/token-count.ts';

/** The fields `count_tokens` takes (the SDK's `MessageCountTokensParams`, beta fields included). */
const COUNT_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'mcp_servers',
  'context_management',
  'compaction',
  'output_config',
  'output_format',
  'cache_control',
  'speed',
  'billing_policy',
  'user_profile_id',
  'workspace_id',
]);

const ANSWER: ReadonlySet<string> = new Set(['input_tokens']);

export const anthropicTokenCount: TokenCountCodec = {
  requestOf: (body) => ({ request: body, path: '' }),
  countBody: (request) => pickFields(request, COUNT_FIELDS),
  // Messages requires max_tokens, so the request encoder writes a default; counting takes none.
  unsent: { max_tokens: '/generation/maxTokens' },
  decodeCount: (body) => readCount(body, 'input_tokens', ANSWER, 'anthropic'),
  encodeCount: (count) => ({ input_tokens: count.inputTokens }),
};
