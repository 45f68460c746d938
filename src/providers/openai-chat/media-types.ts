/**
 * Chat Completions names audio by a short format (`wav`, `mp3`); the IR uses
 * media types. Known formats map to their registered types; any other format
 * string maps to `audio/<format>` and back, so it survives a round trip.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import { lookupTable } from '../../core/wire.ts';

const TO_MEDIA_TYPE: Readonly<Record<string, string>> = lookupTable({ wav: 'audio/wav', mp3: 'audio/mpeg' });

const TO_FORMAT: Readonly<Record<string, string>> = lookupTable({
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
});

/** The IR media type of a Chat audio `format`. */
export function audioMediaType(format: string): string {
  return TO_MEDIA_TYPE[format] ?? `audio/${format}`;
}

/** The Chat audio `format` of a media type, and whether Chat accepts it as input (`wav`/`mp3`). */
export function audioFormat(mediaType: string): { format: string; accepted: boolean } {
  const known = TO_FORMAT[mediaType];
  if (known !== undefined) return { format: known, accepted: true };
  const slash = mediaType.indexOf('/');
  return { format: slash < 0 ? mediaType : mediaType.slice(slash + 1), accepted: false };
}
