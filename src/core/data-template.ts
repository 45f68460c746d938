/**
 * Recognising a stream's usual event by its text, so that it need not be
 * parsed. Most events of a stream are the same JSON text with one string
 * changed (a text or argument delta): `{"type":"content_block_delta",
 * "index":1,"delta":{"type":"text_delta","text":"…"}}`. A template is the
 * text of one such event before and after that string. A later event whose
 * text starts and ends the same, with one JSON string token between, parses
 * to the same value with that string in its place: the tokens before the
 * slot are the same, the slot is one string token, and the tokens after it
 * are the same. A decoder that knows what it makes of its usual event with
 * a given string then decodes such an event exactly as it would have
 * decoded the parsed text (`StreamDecoder.decodeText`).
 */

/** The string a template holds in its slot while it is checked. */
const PROBE = '\u0001interlingua-slot';
const PROBE_JSON = JSON.stringify(PROBE);
/** The probe of the second, ignored slot. */
const OTHER_PROBE = '\u0001interlingua-other';
const OTHER_PROBE_JSON = JSON.stringify(OTHER_PROBE);

/** Templates kept per stream (the usual event of each kind of delta: text, reasoning, each call's arguments). */
const MAX_TEMPLATES = 4;
/** Templates learned that never matched, past which a stream learns no more (its events differ in more than one string). */
const MAX_UNUSED = 8;

/** One template: the text around the slot, the event name, and what the decoder knows of its shape. */
interface Template<Shape> {
  before: string;
  after: string;
  /** With a second, ignored slot after the first: the text between the two (`after` then follows the second). */
  between?: string | undefined;
  event: string | undefined;
  shape: Shape;
  used: boolean;
}

/**
 * The templates of one stream's events. After decoding a parsed event, a
 * decoder offers the string of it that later events likely vary in
 * ({@link learn}); {@link read} then gives that string of a later event
 * that matches, and {@link shape} what the decoder said of its template.
 */
export class DataTemplates<Shape> {
  readonly #templates: Template<Shape>[] = [];
  /** Templates learned, and how many of them matched at least once. */
  #learned = 0;
  #useful = 0;
  #shape: Shape | undefined;

  /** False once the stream has learned {@link MAX_UNUSED} templates that never matched: {@link learn} would do nothing. */
  get learning(): boolean {
    return this.#learned - this.#useful < MAX_UNUSED;
  }

  /** The shape of the template the last {@link read} matched. */
  get shape(): Shape {
    return this.#shape as Shape;
  }

  /**
   * The slot's string when `data` (an event named `event`) is a learned
   * template with another string in its slot; else `undefined`.
   */
  read(data: string, event: string | undefined): string | undefined {
    const templates = this.#templates;
    // A stream none of whose templates ever matched, and that learns no more, is not looked at again.
    if (this.#useful === 0 && this.#learned >= MAX_UNUSED) return undefined;
    for (let index = templates.length - 1; index >= 0; index--) {
      const template = templates[index]!;
      const { before, after, between } = template;
      // Slices compared with `===` (a memory compare): V8's `startsWith` and `endsWith` compare character by character, five times slower here.
      if (template.event !== event || data.length < before.length + after.length + 2 || data.slice(data.length - after.length) !== after || data.slice(0, before.length) !== before) continue;
      let slot: string | undefined;
      if (between === undefined) slot = stringToken(data.slice(before.length, data.length - after.length));
      else {
        // The first slot ends at its closing quote; the text between follows, then the second slot up to `after`.
        const end = tokenEnd(data, before.length);
        if (end === -1 || data.slice(end, end + between.length) !== between || end + between.length > data.length - after.length) continue;
        if (stringToken(data.slice(end + between.length, data.length - after.length)) === undefined) continue;
        slot = stringToken(data.slice(before.length, end));
      }
      if (slot === undefined) continue;
      if (!template.used) {
        template.used = true;
        this.#useful++;
      }
      this.#shape = template.shape;
      return slot;
    }
    return undefined;
  }

  /**
   * Learn the template of `data` (an event named `event`) around `slot`, a
   * string it holds that later events likely vary in. Kept when that
   * string's JSON occurs once in `data` and `usual`, given the value of the
   * same text with a probe string in that place, says it is the decoder's
   * usual event with the probe in its slot (returning what it needs to know
   * of it). `other`, when given, is a second string after the first whose
   * value the decoder ignores (it checks that the second probe lands where
   * it ignores it); its slot is matched as one string token and not read.
   * Nothing more is learned once a stream has learned
   * {@link MAX_UNUSED} templates that never matched.
   */
  learn(
    data: string,
    event: string | undefined,
    slot: string,
    usual: (value: unknown, probe: string, otherProbe: string) => Shape | undefined,
    other?: string,
  ): void {
    if (this.#learned - this.#useful >= MAX_UNUSED) return;
    const token = JSON.stringify(slot);
    const at = data.indexOf(token);
    if (at === -1 || data.indexOf(token, at + 1) !== -1) return;
    const before = data.slice(0, at);
    let after = data.slice(at + token.length);
    let between: string | undefined;
    let text = `${before}${PROBE_JSON}${after}`;
    if (other !== undefined) {
      // A second string the decoder ignores (a per-event `obfuscation`), after the first.
      const otherToken = JSON.stringify(other);
      const otherAt = data.indexOf(otherToken);
      if (otherAt < at + token.length || data.indexOf(otherToken, otherAt + 1) !== -1) return;
      between = data.slice(at + token.length, otherAt);
      after = data.slice(otherAt + otherToken.length);
      text = `${before}${PROBE_JSON}${between}${OTHER_PROBE_JSON}${after}`;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const shape = usual(value, PROBE, OTHER_PROBE);
    if (shape === undefined) return;
    const templates = this.#templates;
    if (templates.length === MAX_TEMPLATES) templates.shift();
    templates.push({ before, after, between, event, shape, used: false });
    this.#learned++;
  }
}

/** `object` is a plain object whose own keys are exactly `keys` (in any order). */
export function hasExactKeys(object: unknown, ...keys: string[]): object is Record<string, unknown> {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return false;
  let count = 0;
  for (const key in object) {
    if (!keys.includes(key)) return false;
    count++;
  }
  return count === keys.length;
}

/** The index just past the string token that starts at `start` (its first unescaped quote after the opening one); `-1` when none starts or ends there. */
function tokenEnd(data: string, start: number): number {
  if (data.charCodeAt(start) !== 34 /* " */) return -1;
  for (let index = start + 1; index < data.length; index++) {
    const code = data.charCodeAt(index);
    if (code === 92 /* \ */) index++;
    else if (code === 34) return index + 1;
  }
  return -1;
}

/** The string that `text` (one JSON string token, maybe with blanks around it) stands for; `undefined` when it is not one. */
function stringToken(text: string): string | undefined {
  const last = text.length - 1;
  if (last > 0 && text.charCodeAt(0) === 34 /* " */ && text.charCodeAt(last) === 34) {
    // The usual token: no escape, no quote inside, no control character.
    let plain = true;
    for (let index = 1; index < last; index++) {
      const code = text.charCodeAt(index);
      if (code === 34 || code === 92 /* \ */ || code < 0x20) {
        plain = false;
        break;
      }
    }
    if (plain) return text.slice(1, last);
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
