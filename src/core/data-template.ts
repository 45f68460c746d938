/**
 * Recognising a stream's usual event by its text, so that it need not be
 * parsed. Most events of a stream are the same JSON text with a few tokens
 * changed: a text or argument delta, and maybe a per-event number or string
 * the decoder ignores or copies (`sequence_number`, `obfuscation`,
 * `created_at`). A template is the text of one such event cut at those
 * tokens: literal segments with a slot between each two. A slot is a
 * string the decoder reads, a string it ignores, or a number it ignores or
 * reads (a read number is given as its token's text, a plain integer whose
 * value is `Number` of that text, as `JSON.parse` reads it).
 *
 * A later event whose text is the template's segments, in order, with one
 * token of each slot's kind between them (a string slot: one JSON string
 * token; a number slot: one JSON number token, spelled as a plain integer)
 * parses to the same value as the template with those tokens in its slots:
 * the literal text tokenises the same around a token of the same kind
 * (a string token ends at its closing quote, a plain integer at the first
 * character that is not a digit, which the segment after it starts with
 * because it did when the template was learned), and blanks around a token
 * are blanks between tokens. The template was kept only when the same text
 * with a probe in each slot (a string or number that does not occur by
 * accident) parses, and the decoder says that value is its usual event with
 * each probe where it reads or ignores that slot. A decoder that knows what
 * it makes of its usual event with given strings then decodes a matching
 * event exactly as it would have decoded the parsed text
 * (`StreamDecoder.decodeText`).
 */

/** What a template's slot holds: a string the decoder reads, a string it ignores, a number it ignores, a number it reads. */
export type SlotKind = 'read' | 'string' | 'number' | 'read-number';

/** One slot of an event being learned: its kind and the value the parsed event holds there. */
export interface Slot {
  kind: SlotKind;
  value: string | number;
  /**
   * A number that may stay literal: when its text is not one whole token of
   * `data` (the same count written twice), the template keeps it as text,
   * gives no probe for it (`undefined` in `usual`'s probes) and reads
   * nothing there (its string is `undefined`).
   */
  optional?: boolean;
}

/** The probe of a string slot (numbered by the slot's place in `learn`'s list). */
const STRING_PROBE = '\u0001interlingua-slot-';
/** The probe of a number slot, less the slot's place: a plain integer no stream counts to. */
const NUMBER_PROBE = 8_914_736_205_519_347;

/** Templates kept per stream (the usual event of each kind of delta: text, reasoning, each call's arguments). */
const MAX_TEMPLATES = 4;
/** Templates learned that never matched, past which a stream learns no more (its events differ in more than their slots). */
const MAX_UNUSED = 8;

/** One template: its literal text around the slots, the event name, and what the decoder knows of its shape. */
interface Template<Shape> {
  /** The text before, between and after the slots (one more than the slots), without the blanks next to a slot. */
  segments: string[];
  /** Each slot's kind, in text order. */
  kinds: SlotKind[];
  /** For each slot in text order: where its string (a read number's text) goes among those {@link DataTemplates.read} returns (`-1`: not read). */
  places: number[];
  /** How many slots are read. */
  reads: number;
  /**
   * The last segment holds only closing brackets (its blanks taken out): a
   * later event may have any blanks between them, as Anthropic pads its
   * deltas (`{"type":"content_block_delta",…,"text":"Hi"}     }`).
   */
  closing: boolean;
  event: string | undefined;
  shape: Shape;
  used: boolean;
}

/**
 * The templates of one stream's events. After decoding a parsed event, a
 * decoder offers the tokens of it that later events likely vary in
 * ({@link learn}); {@link read} then gives the read strings of a later
 * event that matches, and {@link shape} what the decoder said of its
 * template.
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
   * The strings of the read slots (in the order they were given to
   * {@link learn}; of a read number slot, its token's text, a plain
   * integer; `undefined` where an optional slot stayed literal) when
   * `data` (an event named `event`) is a learned template with other tokens
   * in its slots; else `undefined`.
   */
  read(data: string, event: string | undefined): (string | undefined)[] | undefined {
    const templates = this.#templates;
    // A stream none of whose templates ever matched, and that learns no more, is not looked at again.
    if (this.#useful === 0 && this.#learned >= MAX_UNUSED) return undefined;
    for (let index = templates.length - 1; index >= 0; index--) {
      const template = templates[index]!;
      if (template.event !== event) continue;
      const strings = match(template, data);
      if (strings === undefined) continue;
      if (!template.used) {
        template.used = true;
        this.#useful++;
      }
      this.#shape = template.shape;
      return strings;
    }
    return undefined;
  }

  /**
   * Learn the template of `data` (an event named `event`) around `slots`,
   * values it holds that later events likely vary in: strings, or
   * non-negative integers. Kept when each slot's JSON occurs once in `data`
   * (a number's, once as a whole token, unless the slot is optional), the
   * slots do not overlap, and `usual`, given the value of the same text
   * with a probe in each slot (`probes`, in the order of `slots`), says it
   * is the decoder's usual event with each probe where it reads or ignores
   * that slot (returning what it needs to know of it). Nothing more is
   * learned once a stream has learned {@link MAX_UNUSED} templates that
   * never matched.
   */
  learn(
    data: string,
    event: string | undefined,
    slots: readonly Slot[],
    usual: (value: unknown, probes: readonly (string | number | undefined)[]) => Shape | undefined,
  ): void {
    if (this.#learned - this.#useful >= MAX_UNUSED || slots.length === 0 || data.includes('interlingua-slot')) return;
    const found: { at: number; end: number; slot: number }[] = [];
    const probes: (string | number | undefined)[] = [];
    for (let slot = 0; slot < slots.length; slot++) {
      const { kind, value, optional } = slots[slot]!;
      if (kind === 'number' || kind === 'read-number') {
        if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return;
        if (data.includes(String(NUMBER_PROBE - slot))) return;
        const token = String(value);
        const at = wholeNumber(data, token);
        if (at === -1) {
          if (optional !== true) return;
          probes.push(undefined);
          continue;
        }
        probes.push(NUMBER_PROBE - slot);
        found.push({ at, end: at + token.length, slot });
      } else {
        if (typeof value !== 'string') return;
        const token = JSON.stringify(value);
        probes.push(`${STRING_PROBE}${slot}`);
        const at = data.indexOf(token);
        if (at === -1 || data.indexOf(token, at + 1) !== -1) return;
        found.push({ at, end: at + token.length, slot });
      }
    }
    found.sort((left, right) => left.at - right.at);
    const segments: string[] = [];
    const kinds: SlotKind[] = [];
    const places: number[] = [];
    const readPlaces = readOrder(slots);
    // The segments are cut from a copy: a slice of `data` would keep the whole chunk it came in alive (see ownText).
    const own = ownText(data);
    let text = '';
    let from = 0;
    for (const { at, end, slot } of found) {
      if (at < from) return;
      const segment = own.slice(from, at);
      segments.push(trimBlanks(segment, from !== 0, true));
      text += `${segment}${JSON.stringify(probes[slot])}`;
      kinds.push(slots[slot]!.kind);
      places.push(readPlaces[slot]!);
      from = end;
    }
    const last = own.slice(from);
    const closing = CLOSING_TAIL.test(last);
    segments.push(closing ? last.replace(BLANKS, '') : trimBlanks(last, true, false));
    text += last;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const shape = usual(value, probes);
    if (shape === undefined) return;
    const templates = this.#templates;
    if (templates.length === MAX_TEMPLATES) templates.shift();
    const reads = readPlaces.filter((place) => place !== -1).length;
    templates.push({ segments, kinds, places, reads, closing, event: event === undefined ? undefined : ownText(event), shape, used: false });
    this.#learned++;
  }
}

/**
 * `text` as a string of its own. V8 keeps a slice of a string of 13
 * characters or more as a view into the whole (a sliced string), and an
 * event's text and name are slices of the network chunk they came in: a
 * template cut from them would keep that chunk (kilobytes) alive as long as
 * itself. And V8 may allocate a template straight in the old generation
 * (pretenuring: a literal whose objects it saw outlive minor collections),
 * where it keeps the young objects it points to alive through every minor
 * collection until the next full one, long after its stream. Short streams
 * converted one after another (40 events in 5 KiB, a few templates each)
 * carried every stream's chunk into the old generation that way: 1.9 MB
 * promoted per minor collection, 0.5–1.0 MB with the copy. Prefixing a
 * character makes V8 copy the text flat when it is sliced back out.
 */
function ownText(text: string): string {
  return ` ${text}`.slice(1);
}

/** A last segment of closing brackets and blanks only. */
const CLOSING_TAIL = /^[ \t\n\r\]}]*$/;
const BLANKS = /[ \t\n\r]/g;

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

/** The characters that may stand before a number token's text. */
const NUMBER_BEFORE: ReadonlySet<number> = new Set([0x3a /* : */, 0x5b /* [ */, 0x2c /* , */, 0x20, 0x09, 0x0a, 0x0d]);
/** The characters that may stand after a number token's text. */
const NUMBER_AFTER: ReadonlySet<number> = new Set([0x2c /* , */, 0x5d /* ] */, 0x7d /* } */, 0x20, 0x09, 0x0a, 0x0d]);

/**
 * Where `token` (a number's text) stands in `data` as a whole token, not
 * part of a longer number nor next to a letter or quote; `-1` unless it does
 * exactly once. (Inside a string it may still look whole: the probe tells.)
 */
function wholeNumber(data: string, token: string): number {
  let found = -1;
  for (let at = data.indexOf(token); at !== -1; at = data.indexOf(token, at + 1)) {
    if (!NUMBER_BEFORE.has(data.charCodeAt(at - 1)) || !NUMBER_AFTER.has(data.charCodeAt(at + token.length))) continue;
    if (found !== -1) return -1;
    found = at;
  }
  return found;
}

/** For each slot, its place among the read slots (`-1` for the others). */
function readOrder(slots: readonly Slot[]): number[] {
  let reads = 0;
  return slots.map((slot) => (slot.kind === 'read' || slot.kind === 'read-number' ? reads++ : -1));
}

/** `text` without the JSON blanks at its start and (or) its end: the ends next to a slot. */
function trimBlanks(text: string, atStart: boolean, atEnd: boolean): string {
  let start = 0;
  let end = text.length;
  if (atStart) while (start < end && isBlank(text.charCodeAt(start))) start++;
  if (atEnd) while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The read strings of `data` when it is `template` with a token of each slot's kind in its slots (blanks around a token allowed). */
function match(template: Template<unknown>, data: string): (string | undefined)[] | undefined {
  const { segments, kinds } = template;
  const first = segments[0]!;
  const last = segments[kinds.length]!;
  if (data.length < first.length + last.length + kinds.length) return undefined;
  // Segments are compared as slices: on V8 `===` of two strings is several times faster than `startsWith`.
  const stop = template.closing ? closingStart(data, last) : data.slice(data.length - last.length) === last ? data.length - last.length : -1;
  if (stop === -1 || data.slice(0, first.length) !== first) return undefined;
  const strings = new Array<string | undefined>(template.reads);
  let at = first.length;
  for (let slot = 0; slot < kinds.length; slot++) {
    while (isBlank(data.charCodeAt(at))) at++;
    const kind = kinds[slot]!;
    let end: number;
    if (kind === 'number' || kind === 'read-number') {
      end = integerEnd(data, at);
      if (end === -1 || end > stop) return undefined;
      if (kind === 'read-number') strings[template.places[slot]!] = data.slice(at, end);
    } else {
      end = stringEnd(data, at);
      if (end === 0) return undefined;
      if (end > 0) {
        if (kind === 'read') strings[template.places[slot]!] = data.slice(at + 1, end - 1);
      } else {
        end = -end;
        const string = escapedString(data.slice(at, end));
        if (string === undefined) return undefined;
        if (kind === 'read') strings[template.places[slot]!] = string;
      }
      if (end > stop) return undefined;
    }
    while (end < stop && isBlank(data.charCodeAt(end))) end++;
    const segment = segments[slot + 1]!;
    if (slot + 1 === kinds.length) return end === stop ? strings : undefined;
    at = end + segment.length;
    if (data.slice(end, at) !== segment) return undefined;
  }
  return undefined;
}

/** Where `data` ends with the closing brackets of `tail`, blanks allowed before and between them: the index of the first; `-1` when it does not. */
function closingStart(data: string, tail: string): number {
  let at = data.length;
  for (let index = tail.length - 1; index >= 0; index--) {
    do at--;
    while (at >= 0 && isBlank(data.charCodeAt(at)));
    if (at < 0 || data.charCodeAt(at) !== tail.charCodeAt(index)) return -1;
  }
  return at;
}

/** The index just past the plain integer (`0`, or digits not starting with `0`) that starts at `start`; `-1` when none does. */
function integerEnd(data: string, start: number): number {
  const code = data.charCodeAt(start);
  if (code === 0x30 /* 0 */) return start + 1;
  if (!(code > 0x30 && code <= 0x39)) return -1;
  let index = start + 1;
  while (index < data.length) {
    const digit = data.charCodeAt(index);
    if (digit < 0x30 || digit > 0x39) break;
    index++;
  }
  return index;
}

/**
 * The index just past the string token that starts at `start` (its first
 * unescaped quote after the opening one), negated when the token has an
 * escape (its string is then {@link escapedString}); `0` when no token
 * starts there, it does not end, or it holds a control character (which
 * JSON does not allow).
 */
function stringEnd(data: string, start: number): number {
  if (data.charCodeAt(start) !== 34 /* " */) return 0;
  let escaped = false;
  for (let index = start + 1; index < data.length; index++) {
    const code = data.charCodeAt(index);
    if (code === 34) return escaped ? -(index + 1) : index + 1;
    if (code === 92 /* \ */) {
      escaped = true;
      index++;
    } else if (code < 0x20) return 0;
  }
  return 0;
}

/** The string that `token` (one JSON string token with escapes) stands for; `undefined` when it is not one. */
function escapedString(token: string): string | undefined {
  try {
    const value: unknown = JSON.parse(token);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
