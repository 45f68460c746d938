/**
 * Bytes → lines, with a cap on a line's length. `node:readline` holds a
 * whole line as one string, and a line longer than V8's longest string
 * (about 512 MB) throws a `RangeError` out of it, losing the lines around
 * it. Here a line longer than the cap is skipped to its end without being
 * held, and handed out as one oversized line; the lines before and after it
 * are read as usual.
 */

/** The longest line read by default: well under V8's longest string, in bytes. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** One line of a file: its text, or, past the cap, only its length. */
export type Line = { number: number; text: string } | { number: number; oversized: number };

const NEWLINE = 0x0a;

function textOf(pieces: Buffer[], first: boolean): string {
  const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0d) end--;
  // A byte-order mark is not part of the first line.
  const start = first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start, end);
}

/** The lines of `chunks`, numbered from 1; CRLF and LF both end a line. */
export async function* splitLines(chunks: AsyncIterable<Buffer>, maxLineBytes: number = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<Line> {
  let pieces: Buffer[] = [];
  let length = 0;
  let oversized = false;
  let number = 0;
  const take = (): Line => {
    number++;
    const line: Line = oversized ? { number, oversized: length } : { number, text: textOf(pieces, number === 1) };
    pieces = [];
    length = 0;
    oversized = false;
    return line;
  };
  for await (const chunk of chunks) {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const stop = end < 0 ? chunk.length : end;
      length += stop - start;
      if (length > maxLineBytes) {
        oversized = true;
        pieces = [];
      } else if (stop > start) {
        pieces.push(chunk.subarray(start, stop));
      }
      if (end < 0) break;
      yield take();
      start = end + 1;
    }
  }
  if (length > 0 || pieces.length > 0) yield take();
}
