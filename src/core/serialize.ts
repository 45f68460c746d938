/**
 * Bodies with large base64 `data:` URLs (an OpenAI image or file) or bare
 * base64 (an image or document of the other formats), written without
 * another full copy of the base64. An encoder sets such a URL with
 * {@link setDataUrl} (bare base64 with {@link setData}): the body holds
 * `prefix + data` as usual (a string that shares `data` with the IR), and
 * the holder is remembered. `JSON.stringify`
 * would flatten that string into a new one of the data's size before
 * copying it again into its output; {@link stringifyBody} instead writes the
 * rest of the body with `JSON.stringify` and splices the prefix and the data
 * in apart, so the text shares the data too until it is written out.
 */
import { isObject } from './wire.ts';

/** Below this many characters a data URL is written the ordinary way. */
const LARGE = 64 * 1024;

/** One spliceable value: the string the body holds, and its two pieces. */
interface Pieces {
  full: string;
  prefix: string;
  data: string;
}

/** Holders of large data URLs, by key. */
const holders = new WeakMap<object, Record<string, Pieces>>();
/** How many large data URLs were set so far (bodies compare it before and after encoding). */
let written = 0;
/** Bodies that hold at least one large data URL. */
const pieced = new WeakSet<object>();

/** Set `target[key]` to `prefix + data`, remembering the pieces when the data is large. */
export function setDataUrl(target: Record<string, unknown>, key: string, prefix: string, data: string): void {
  const full = prefix + data;
  target[key] = full;
  if (data.length >= LARGE) remember(target, key, { full, prefix, data });
}

/**
 * {@link setDataUrl} for a field that holds bare base64 (Anthropic's
 * `data`, Gemini's `inlineData.data`, Bedrock's `bytes`, an Ollama image:
 * `key` is then its index in the `images` list): the value is `data` itself.
 */
export function setData(target: object, key: string | number, data: string): void {
  (target as Record<string | number, unknown>)[key] = data;
  if (data.length >= LARGE) remember(target, String(key), { full: data, prefix: '', data });
}

function remember(target: object, key: string, pieces: Pieces): void {
  const entry = holders.get(target);
  if (entry === undefined) holders.set(target, { [key]: pieces });
  else entry[key] = pieces;
  written++;
}

/** A mark to take before encoding a body; pass it to {@link markPieces} with the body. */
export function piecesMark(): number {
  return written;
}

/** Remember that `body` holds large data URLs when its encoder set any since `mark`. Returns `body`. */
export function markPieces<T>(body: T, mark: number): T {
  if (written !== mark && isObject(body)) pieced.add(body);
  return body;
}

/** The characters below U+0020, which JSON text must escape: `\n` and `\r` (of line-wrapped base64) first. */
const CONTROLS = ['\n', '\r'];
for (let code = 0; code < 32; code++) if (code !== 10 && code !== 13) CONTROLS.push(String.fromCharCode(code));
/** Surrogates: a base64 string never has one, and on a one-byte string this test returns at once. */
const SURROGATE = /[\ud800-\udfff]/;
const MARK = '\u0000interlingua-piece-';

/**
 * Can `data` stand between quotes in JSON text as it is: no quote,
 * backslash, control character or surrogate (`JSON.stringify` escapes all
 * but paired surrogates)? One `indexOf` per character, each a native scan
 * many times faster than a regular expression's loop over megabytes of
 * base64 (10 MiB: about 5 ms against 14–24 ms for one character class).
 */
function spliceable(data: string): boolean {
  if (data.indexOf('"') !== -1 || data.indexOf('\\') !== -1) return false;
  for (const control of CONTROLS) if (data.indexOf(control) !== -1) return false;
  return !SURROGATE.test(data);
}

/** `JSON.stringify(body)`, with the large base64 set by {@link setDataUrl} and {@link setData} spliced in without copying it (nor, for a data URL, flattening it) first. */
export function stringifyBody(body: unknown): string {
  return joinedText(bodyText(body));
}

/** The text of {@link bodyText}'s answer as one string: pieces are joined with `+`, which shares them (a rope) rather than copying them as `join` does. */
export function joinedText(text: string | readonly string[]): string {
  if (typeof text === 'string') return text;
  let out = '';
  for (const piece of text) out += piece;
  return out;
}

/**
 * The text of {@link stringifyBody}, in pieces where it splices large
 * base64 in: the data of each stands alone, as the very string the IR holds,
 * between the rest of the text. A writer that takes the pieces one by one
 * (the proxy's upstream call on Node) never makes the flat copy of the
 * whole text that writing the joined string takes (any string → bytes
 * flattens it first: about 7 ms and the body's size again for 10 MiB). One
 * string for any other body.
 */
export function bodyText(body: unknown): string | string[] {
  if (!isObject(body) || !pieced.has(body)) return JSON.stringify(body);
  const found: Pieces[] = [];
  const text = JSON.stringify(body, function (this: object, key: string, value: unknown) {
    if (typeof value !== 'string' || value.length < LARGE) return value;
    const pieces = holders.get(this)?.[key];
    if (pieces === undefined || pieces.full !== value || !spliceable(pieces.data)) return value;
    found.push(pieces);
    return `${MARK}${found.length - 1}\u0000`;
  });
  if (found.length === 0) return text;
  const out: string[] = [];
  let from = 0;
  let closing = '';
  found.forEach((pieces, index) => {
    const marker = JSON.stringify(`${MARK}${index}\u0000`);
    const at = text.indexOf(marker, from);
    out.push(`${closing}${text.slice(from, at)}${JSON.stringify(pieces.prefix).slice(0, -1)}`, pieces.data);
    closing = '"';
    from = at + marker.length;
  });
  out.push(closing + text.slice(from));
  return out;
}
