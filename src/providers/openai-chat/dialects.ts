/**
 * OpenAI-compatible dialects: vendors that accept `/v1/chat/completions`
 * with additions of their own, which agent loops break on when a translator
 * drops them.
 *
 * - `deepseek` (and SGLang, many Chinese providers): `reasoning_content` on
 *   assistant messages and stream deltas; DeepSeek wants it back on later
 *   turns when tools were used.
 * - `vllm`, `ollama-openai`: `reasoning` text (vLLM also still accepts
 *   `reasoning_content`).
 * - `openrouter`: `reasoning` text and `reasoning_details` (typed items, some
 *   encrypted) that must go back unmodified; `usage.cost`, `provider`.
 * - `gemini-openai`: `tool_calls[].extra_content.google.thought_signature`,
 *   which must come back on the next turn.
 * - `openai`: plain OpenAI, none of the above.
 *
 * Decoders detect the dialect from the fields present and note it on the
 * request or response (`$dialect`); encoders write `context.dialect` if the
 * caller named one, else the noted one, else plain OpenAI.
 */
import type { Extensible, ReasoningState } from '../../core/ir.ts';
import { extensionsOf } from '../../core/wire.ts';
import { FORMAT, chatHint } from './shape.ts';

/** The dialects of openai-chat. */
export const OPENAI_CHAT_DIALECTS = ['openai', 'deepseek', 'openrouter', 'gemini-openai', 'vllm', 'ollama-openai'] as const;

/** One OpenAI-compatible dialect. */
export type OpenaiChatDialect = (typeof OPENAI_CHAT_DIALECTS)[number];

/** True for a dialect name openai-chat knows. */
export function isOpenaiChatDialect(value: unknown): value is OpenaiChatDialect {
  return typeof value === 'string' && (OPENAI_CHAT_DIALECTS as readonly string[]).includes(value);
}

/** The assistant field that carries reasoning text in `dialect`, if any. */
export function reasoningField(dialect: OpenaiChatDialect): 'reasoning_content' | 'reasoning' | undefined {
  switch (dialect) {
    case 'deepseek':
      return 'reasoning_content';
    case 'vllm':
    case 'ollama-openai':
    case 'openrouter':
      return 'reasoning';
    case 'openai':
    case 'gemini-openai':
      return undefined;
  }
}

/** The dialect to write: the caller's, else the one the IR was decoded from, else plain OpenAI. */
export function activeDialect(node: Extensible, requested: string | undefined): OpenaiChatDialect {
  if (isOpenaiChatDialect(requested)) return requested;
  const noted = extensionsOf(node, FORMAT)?.['$dialect'];
  return isOpenaiChatDialect(noted) ? noted : 'openai';
}

/** Note the dialect a body was written in (the first one found wins). */
export function noteDialect(node: Extensible, dialect: OpenaiChatDialect | undefined): void {
  if (dialect === undefined || extensionsOf(node, FORMAT)?.['$dialect'] !== undefined) return;
  chatHint(node, '$dialect', dialect);
}

/** True when `dialect` may receive `state` back: its own opaque state, or reasoning text where the dialect has a reasoning field. */
export function dialectOwns(dialect: OpenaiChatDialect, state: ReasoningState): boolean {
  if (state.format !== FORMAT) return false;
  if (state.kind === 'text') return reasoningField(dialect) !== undefined;
  return state.dialect === dialect;
}
