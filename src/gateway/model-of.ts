/**
 * The caller's model from a JSON body without parsing it: the string value
 * of the top-level key `model`, found by one scan that steps over nested
 * values and strings (a `"model"` inside a message or a tool schema is not
 * it). SDKs write `model` first, so the scan usually stops within a few
 * bytes; the proxy behind parses the body once, as it does without a
 * gateway.
 */

/** The index just past the string that starts at `at` (a `"`), or -1. */
function stringEnd(text: string, at: number): number {
  let index = at + 1;
  for (;;) {
    const quote = text.indexOf('"', index);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let back = quote - 1; back > at && text.charCodeAt(back) === 92; back--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    index = quote + 1;
  }
}

/** The top-level `model` of a JSON object text, `undefined` where it has none (or is not a string, or the text is no object). */
export function modelOf(text: string): string | undefined {
  const found = scan(text);
  if (found === undefined || text.indexOf('"model"', found.end) === -1) return found?.model;
  try {
    const body = JSON.parse(text) as { model?: unknown } | null;
    return typeof body?.model === 'string' ? body.model : undefined;
  } catch {
    return undefined;
  }
}

/** The first top-level `model` string and where its value ends, by one scan. */
function scan(text: string): { model: string; end: number } | undefined {
  let depth = 0;
  let index = 0;
  const length = text.length;
  // Whether the string just read at depth 1 is in key position (after `{` or `,`).
  let expectKey = false;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 34 /* " */) {
      const end = stringEnd(text, index);
      if (end === -1) return undefined;
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (end - index === 7 && text.startsWith('"model"', index)) {
          let at = end;
          while (at < length && text.charCodeAt(at) <= 32) at++;
          if (text.charCodeAt(at) !== 58 /* : */) return undefined;
          at++;
          while (at < length && text.charCodeAt(at) <= 32) at++;
          if (text.charCodeAt(at) !== 34) return undefined;
          const valueEnd = stringEnd(text, at);
          if (valueEnd === -1) return undefined;
          const raw = text.slice(at, valueEnd);
          if (!raw.includes('\\')) return { model: raw.slice(1, -1), end: valueEnd };
          try {
            return { model: JSON.parse(raw) as string, end: valueEnd };
          } catch {
            return undefined;
          }
        }
      }
      index = end;
      continue;
    }
    if (code === 123 /* { */ || code === 91 /* [ */) {
      depth++;
      if (depth === 1 && code === 123) expectKey = true;
      else if (depth === 1) return undefined;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      depth--;
      if (depth === 0) return undefined;
    } else if (code === 44 /* , */ && depth === 1) expectKey = true;
    index++;
  }
  return undefined;
}
