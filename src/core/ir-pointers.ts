/**
 * JSON pointers into the IR that encoders pass with their losses
 * (`/messages/<m>`, `/messages/<m>/parts/<p>`). Every encode asks for the
 * same few, so each is made once per process (up to a bound) instead of per
 * body.
 */

import { itemPointers } from './wire.ts';

/** The same strings as the wire's `/messages/<n>` (Anthropic, Chat, Bedrock, Ollama decoders): one table for both. */
const MESSAGE_POINTERS = itemPointers('/messages');
const PART_POINTERS: string[][] = [];

/** `/messages/<index>`. */
export function messagePointer(index: number): string {
  return MESSAGE_POINTERS.at(index);
}

/** `<path>/parts/<part>`, where `path` is {@link messagePointer}`(message)`. */
export function partPointer(path: string, message: number, part: number): string {
  if (message >= 1024 || part >= 16) return `${path}/parts/${part}`;
  const row = (PART_POINTERS[message] ??= []);
  return (row[part] ??= `${path}/parts/${part}`);
}
