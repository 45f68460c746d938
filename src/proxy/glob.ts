/**
 * Glob patterns over model names (`claude-*`, `gpt-?-mini`), matched in time
 * linear in the name: `*` is any run of characters (line terminators too),
 * `?` any one character, everything else itself. No regular expression is
 * built, so no pattern can make a name backtrack (a `gpt-*-*` rule against a
 * 100 KB name took 12 s as a RegExp).
 */

/** A compiled glob: whether a name matches it. */
export type GlobMatcher = (name: string) => boolean;

/** Whether `piece` (with `?` wildcards) matches `text` at `at`. */
function pieceAt(text: string, at: number, piece: string): boolean {
  if (at + piece.length > text.length) return false;
  for (let index = 0; index < piece.length; index += 1) {
    const expected = piece.charCodeAt(index);
    if (expected !== 63 /* ? */ && expected !== text.charCodeAt(at + index)) return false;
  }
  return true;
}

/** The first place at or after `from` where `piece` matches `text`, or -1. */
function findPiece(text: string, from: number, piece: string): number {
  if (!piece.includes('?')) return text.indexOf(piece, from);
  for (let at = from; at + piece.length <= text.length; at += 1) {
    if (pieceAt(text, at, piece)) return at;
  }
  return -1;
}

/**
 * Compile a glob. The pieces between stars are found left to right, each at
 * its first place after the one before: for patterns whose only variable-length
 * wildcard is `*`, the leftmost place never loses a match a later place would
 * have found, so one scan decides.
 */
export function compileGlob(pattern: string): GlobMatcher {
  const pieces = pattern.split('*');
  if (pieces.length === 1) {
    return pattern.includes('?') ? (name) => name.length === pattern.length && pieceAt(name, 0, pattern) : (name) => name === pattern;
  }
  const head = pieces[0] ?? '';
  const tail = pieces[pieces.length - 1] ?? '';
  const middle = pieces.slice(1, -1).filter((piece) => piece.length > 0);
  const fixed = head.length + tail.length;
  return (name) => {
    if (name.length < fixed || !pieceAt(name, 0, head) || !pieceAt(name, name.length - tail.length, tail)) return false;
    let at = head.length;
    const end = name.length - tail.length;
    for (const piece of middle) {
      const found = findPiece(name, at, piece);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
