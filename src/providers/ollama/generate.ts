/**
 * `/api/generate` bodies: a `prompt` (plus `system` and `images`) instead of
 * `messages`, and a `response` string instead of a `message`. The IR holds
 * them as a system and a user message; the encoder writes them back in that
 * shape only for IR that came from a generate body (`$generate`), or when
 * the proxy serves `/api/generate`.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-completion
 */
import type { LossCollector } from '../../core/losses.ts';
import type { Message } from '../../core/ir.ts';
import { setData } from '../../core/serialize.ts';
import { expectString, extensionsOf, hint, pointer, type JsonObject } from '../../core/wire.ts';
import { decodeOllamaImages } from './parts-decode.ts';
import { encodeOllamaParts, joinTexts } from './parts-encode.ts';

/** The messages of a generate body: `system`, then the `prompt` with its `images`. */
export function decodeOllamaGeneratePrompt(object: JsonObject, losses: LossCollector): Message[] {
  const messages: Message[] = [];
  const system = object['system'];
  if (system !== undefined) {
    const text = losses.origin({ type: 'text' as const, text: expectString(system, '/system', 'ollama') }, '/system');
    messages.push(losses.origin({ role: 'system', parts: [text] }, '/system'));
  }
  const user: Message = { role: 'user', parts: [] };
  const prompt = object['prompt'];
  if (prompt === undefined) hint(user, 'ollama', '$noPrompt', true);
  else {
    const text = expectString(prompt, '/prompt', 'ollama');
    if (text !== '') user.parts.push(losses.origin({ type: 'text', text }, '/prompt'));
  }
  decodeOllamaImages(object['images'], '/images', user, user.parts);
  let image = 0;
  for (const part of user.parts) if (part.type === 'image') losses.origin(part, pointer('/images', image++));
  messages.push(user);
  return messages;
}

/** `system`, `prompt` and `images` from IR messages: system text, then every other message's text and images. */
export function encodeOllamaGeneratePrompt(messages: readonly Message[], losses: LossCollector): JsonObject {
  const system: string[] = [];
  const prompt: string[] = [];
  const images: string[] = [];
  let noPrompt = false;
  let imagesHint: unknown;
  messages.forEach((message, index) => {
    if (message.role === 'user') {
      noPrompt = extensionsOf(message, 'ollama')?.['$noPrompt'] === true;
      imagesHint = extensionsOf(message, 'ollama')?.['$images'];
    }
    const path = pointer('/messages', index);
    const pieces = encodeOllamaParts(message.role === 'tool' ? [] : message.parts, losses, pointer(path, 'parts'), true);
    if (message.role === 'tool' || pieces.toolCalls.length > 0 || pieces.thinking.length > 0) {
      losses.add('unsupported_part', path, 'a generate prompt holds only text and images; tool calls, results and reasoning were dropped');
    }
    (message.role === 'system' ? system : prompt).push(...pieces.texts);
    // Each image set where it now stands (and only there), so that large base64 is still written apart (see setData).
    for (const data of pieces.images) setData(images, images.length, data);
  });
  const wire: JsonObject = {};
  if (system.length > 0) wire['system'] = joinTexts(system, 'system text', losses, '/messages', '\n\n');
  if (prompt.length > 0 || !noPrompt) wire['prompt'] = prompt.length === 0 ? '' : joinTexts(prompt, 'prompt text', losses, '/messages', '\n\n');
  if (images.length > 0) wire['images'] = images;
  else if (imagesHint === 'empty') wire['images'] = [];
  else if (imagesHint === null) wire['images'] = null;
  return wire;
}
