/**
 * Chat `modalities` ⇄ IR `outputModalities`. Chat answers in text and,
 * on its audio models, audio (`["text", "audio"]`, which needs `audio`:
 * a voice and a format); the voice and format stay Chat's own, since no
 * other vendor shares its voices.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-modalities
 */
import type { OutputModality, Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { extensionsOf, type JsonObject } from '../../core/wire.ts';
import { FORMAT } from './shape.ts';

/** Read `modalities` from the body's leftover keys into `request` when every entry is `text` or `audio` (then it leaves `rest`). */
export function decodeOpenaiChatModalities(rest: JsonObject | undefined, request: Request): void {
  const value = rest?.['modalities'];
  if (!Array.isArray(value) || value.length === 0) return;
  const modalities: OutputModality[] = [];
  for (const entry of value) {
    if ((entry !== 'text' && entry !== 'audio') || modalities.includes(entry)) return;
    modalities.push(entry);
  }
  request.outputModalities = modalities;
  delete rest?.['modalities'];
}

/**
 * The voice and format sent when another format asks for audio: Chat
 * refuses audio output without `audio` (`voice` and `format` are required,
 * `ChatCompletionAudioParam`); `pcm16` is what Gemini's audio answers are
 * (24 kHz 16-bit PCM), `alloy` OpenAI's first voice.
 */
const DEFAULT_AUDIO = { voice: 'alloy', format: 'pcm16' } as const;

/** Write `modalities` (and, for another format's audio, `audio`) into `wire`. */
export function encodeOpenaiChatModalities(request: Request, wire: JsonObject, losses: LossCollector): void {
  const modalities = request.outputModalities;
  if (modalities === undefined) return;
  const carried = modalities.filter((modality) => modality !== 'image');
  if (carried.length < modalities.length) losses.add('dropped_field', '/outputModalities', 'Chat Completions answers in text and audio only; the image output asked for was dropped');
  if (carried.length === 0) return;
  wire['modalities'] = carried;
  if (carried.includes('audio') && extensionsOf(request, FORMAT)?.['audio'] === undefined) {
    wire['audio'] = { ...DEFAULT_AUDIO };
    losses.add('defaulted', '/outputModalities', `Chat Completions audio output needs a voice and a format; sent voice "${DEFAULT_AUDIO.voice}", format "${DEFAULT_AUDIO.format}"`);
  }
}
