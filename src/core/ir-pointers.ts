/**
 * JSON pointers into the IR that encoders pass with their losses
 * (`/messages/<m>`, `/messages/<m>/parts/<p>`). Every encode asks for the
 * same few, so each is made once per process (up to a bound) instead of per
 * body.
 */

const MESSAGE_POINTERS: string[] = [];
const PART_POINTERS: string[][] = [];

/** `/messages/<index>`. */
export function messagePointer(index: number): string {
  if (index >= 1024) return `/messages/${index}`;
  return (MESSAGE_POINTERS[index] ??= `/messages/${index}`);
}

/** `<path>/parts/<part>`, where `path` is {@link messagePointer}`(message)`. */
export function partPointer(path: string, message: number, part: number): string {
  if (message >= 1024 || part >= 16) return `${path}/parts/${part}`;
  const row = (PART_POINTERS[message] ??= []);
  return (row[part] ??= `${path}/parts/${part}`);
}
