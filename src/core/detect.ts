/**
 * Format detection: from the URL path when there is one (certain), otherwise
 * from the body's shape (Ollama: `done` on responses; `options`, `keep_alive`,
 * `think`, `format`, bare base64 `images`, `tool_name` on requests). Ambiguous bodies (a plain `messages` request that
 * both Anthropic and OpenAI Chat accept) are reported as not certain.
 */
import type { BodyKind, FormatId } from './ir.ts';
import { isObject, type JsonObject } from './wire.ts';

/** What {@link detectFormat} found. */
export interface Detection {
  format: FormatId;
  kind: BodyKind;
  /** False when another format would accept the same body. */
  certain: boolean;
}

/** Options of {@link detectFormat}. */
export interface DetectOptions {
  /** The request URL or its path, such as `/v1/messages` or `/v1beta/models/gemini-2.5-pro:generateContent`. */
  path?: string;
}

/** The format an endpoint path belongs to, if it is one interlingua speaks. */
export function formatFromPath(path: string): FormatId | undefined {
  const clean = path.split('?')[0] ?? '';
  if (/\/api\/(chat|generate)$/.test(clean)) return 'ollama';
  if (/\/messages$/.test(clean)) return 'anthropic';
  if (/\/chat\/completions$/.test(clean)) return 'openai-chat';
  if (/\/responses$/.test(clean)) return 'openai-responses';
  if (/:(stream)?[gG]enerateContent$/.test(clean)) return 'gemini';
  return undefined;
}

const ANTHROPIC_BLOCKS = new Set([
  'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'search_result',
  'server_tool_use', 'web_search_tool_result', 'container_upload',
]);
const CHAT_PARTS = new Set(['image_url', 'input_audio', 'file']);
const ANTHROPIC_ONLY_FIELDS = ['system', 'stop_sequences', 'top_k', 'thinking', 'anthropic_version', 'output_config'];
const CHAT_ONLY_FIELDS = [
  'max_completion_tokens', 'n', 'seed', 'response_format', 'frequency_penalty', 'presence_penalty',
  'logit_bias', 'logprobs', 'stop', 'stream_options', 'parallel_tool_calls', 'reasoning_effort', 'modalities',
];

function messageVotes(messages: unknown[]): { anthropic: boolean; chat: boolean } {
  let anthropic = false;
  let chat = false;
  for (const message of messages) {
    if (!isObject(message)) continue;
    const role = message['role'];
    if (role === 'tool' || role === 'developer' || role === 'function' || 'tool_calls' in message || 'tool_call_id' in message) chat = true;
    const content = message['content'];
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (!isObject(block)) continue;
      const type = block['type'];
      if (typeof type !== 'string') continue;
      if (ANTHROPIC_BLOCKS.has(type) || (type === 'image' && 'source' in block)) anthropic = true;
      if (CHAT_PARTS.has(type)) chat = true;
    }
  }
  return { anthropic, chat };
}

/** Top-level request fields only Ollama has (Chat puts sampling at the top level, Ollama in `options`). */
const OLLAMA_ONLY_FIELDS = ['options', 'keep_alive', 'think', 'format'];

/** True when a message is spelled the Ollama way: bare base64 `images`, `tool_name`, `thinking` text, object tool arguments without ids. */
function ollamaMessage(message: unknown): boolean {
  if (!isObject(message)) return false;
  const images = message['images'];
  if (Array.isArray(images) && images.length > 0 && images.every((image) => typeof image === 'string')) return true;
  if (typeof message['tool_name'] === 'string' || typeof message['thinking'] === 'string') return true;
  const calls = message['tool_calls'];
  return Array.isArray(calls) && calls.some((call) => isObject(call) && !('id' in call) && isObject(call['function']) && isObject(call['function']['arguments']));
}

function ollamaRequest(body: JsonObject, messages: unknown[]): boolean {
  if (CHAT_ONLY_FIELDS.some((field) => field in body) || ANTHROPIC_ONLY_FIELDS.some((field) => field in body)) return false;
  if (messages.some((message) => isObject(message) && Array.isArray(message['content']))) return false;
  return OLLAMA_ONLY_FIELDS.some((field) => field in body) || messages.some(ollamaMessage);
}

function detectMessagesRequest(body: JsonObject, messages: unknown[]): Detection {
  if (ollamaRequest(body, messages)) return { format: 'ollama', kind: 'request', certain: true };
  const votes = messageVotes(messages);
  const anthropic = votes.anthropic || ANTHROPIC_ONLY_FIELDS.some((field) => field in body) ||
    (isObject(body['metadata']) && 'user_id' in body['metadata']) || (isObject(body['tool_choice']) && body['tool_choice']['type'] !== 'function');
  const chat = votes.chat || CHAT_ONLY_FIELDS.some((field) => field in body) || typeof body['tool_choice'] === 'string' ||
    (Array.isArray(body['tools']) && body['tools'].some((tool) => isObject(tool) && tool['type'] === 'function'));
  if (anthropic && !chat) return { format: 'anthropic', kind: 'request', certain: true };
  if (chat && !anthropic) return { format: 'openai-chat', kind: 'request', certain: true };
  // Both or neither: Anthropic requires max_tokens, Chat deprecated it.
  return { format: 'max_tokens' in body && !chat ? 'anthropic' : 'openai-chat', kind: 'request', certain: false };
}

function detectError(body: JsonObject): Detection | undefined {
  const error = body['error'];
  if (body['type'] === 'error' && isObject(error)) return { format: 'anthropic', kind: 'error', certain: true };
  // Ollama answers `{"error": "<text>"}` and nothing else; a few OpenAI-compatible servers do too.
  if (typeof error === 'string' && Object.keys(body).length === 1) return { format: 'ollama', kind: 'error', certain: false };
  if (!isObject(error)) return undefined;
  if ('status' in error && typeof error['code'] === 'number') return { format: 'gemini', kind: 'error', certain: true };
  if ('message' in error) return { format: 'openai-chat', kind: 'error', certain: false };
  return undefined;
}

function detectResponse(body: JsonObject): Detection | undefined {
  if (typeof body['done'] === 'boolean' && (isObject(body['message']) || typeof body['response'] === 'string')) {
    return { format: 'ollama', kind: 'response', certain: true };
  }
  if (body['type'] === 'message' && Array.isArray(body['content'])) return { format: 'anthropic', kind: 'response', certain: true };
  if (body['object'] === 'chat.completion' || (Array.isArray(body['choices']) && !('output' in body))) {
    return { format: 'openai-chat', kind: 'response', certain: true };
  }
  if (body['object'] === 'response' || (Array.isArray(body['output']) && 'status' in body)) {
    return { format: 'openai-responses', kind: 'response', certain: true };
  }
  if (Array.isArray(body['candidates']) || ('usageMetadata' in body && !('contents' in body)) || 'promptFeedback' in body) {
    return { format: 'gemini', kind: 'response', certain: true };
  }
  return undefined;
}

function detectRequest(body: JsonObject): Detection | undefined {
  if (Array.isArray(body['contents']) || 'systemInstruction' in body || 'generationConfig' in body || 'system_instruction' in body) {
    return { format: 'gemini', kind: 'request', certain: true };
  }
  if ('input' in body || ('instructions' in body && !('messages' in body))) return { format: 'openai-responses', kind: 'request', certain: true };
  const messages = body['messages'];
  if (Array.isArray(messages)) return detectMessagesRequest(body, messages);
  // Ollama /api/generate: a prompt string and a model.
  if (typeof body['prompt'] === 'string' && typeof body['model'] === 'string') return { format: 'ollama', kind: 'request', certain: true };
  return undefined;
}

/** The kind of a body already known to be of `format`. */
function kindFor(format: FormatId, body: JsonObject): BodyKind {
  const shape = detectError(body) ?? detectResponse(body);
  if (shape !== undefined && (shape.kind === 'error' || shape.format === format)) return shape.kind;
  return 'request';
}

/**
 * Find the format and kind of a body. With a path, the format is certain and
 * only the kind comes from the body. `undefined` when nothing matches.
 */
export function detectFormat(body: unknown, options: DetectOptions = {}): Detection | undefined {
  if (!isObject(body)) return undefined;
  const fromPath = options.path === undefined ? undefined : formatFromPath(options.path);
  if (fromPath !== undefined) return { format: fromPath, kind: kindFor(fromPath, body), certain: true };
  return detectError(body) ?? detectResponse(body) ?? detectRequest(body);
}
