/**
 * Seeded randomness and edge values: every generator takes a `Rng` (a
 * `() => number` in [0, 1)), so the test run (fast-check seeds) and the fuzz
 * script (a plain counter) share them; strings and values that break naive
 * code (lone surrogates, deep nesting).
 */
import { random } from '../streams.ts';

/** A random source in [0, 1). */
export type Rng = () => number;

/** A seeded PRNG (mulberry32, shared with the stream tests). */
export const seeded = (seed: number): Rng => random(seed);

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)] as T;
}

export function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

/** Strings that break naive text handling: empty, NUL, BOM, RTL, combining marks, astral, lone surrogates. */
export const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  '\uFEFFbom',
  'line\r\nbreak\n',
  'data: [DONE]\n\n',
  'event: error\ndata: {}\n\n',
  '\u202Eright-to-left\u202C',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  '\uD83D\uDE00',
  '\uD800',
  '\uDFFF',
  'lone \uDC00 low',
  'pair then lone \uD83D\uDE00\uD83D',
  '\u2028\u2029',
  '"}]\\',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '$ref',
  '#/$defs/x',
  '%PDF-1.7',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:;base64,',
  'https://example.com/a.png?x=1#y',
  'gs://bucket/file.pdf',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '[]',
  '{}',
  '{"a":',
  'iVBORw0KGgo=',
  '////',
  '=',
];

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** JSON values of every type, including numbers at the edges (frozen: use copies). */
export const EDGE_VALUES: readonly unknown[] = deepFreeze([
  null,
  true,
  false,
  0,
  -0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  4096,
  '',
  'x',
  '\uD800',
  [],
  [null],
  [''],
  [[]],
  {},
  { type: 'text' },
  { type: 'text', text: '' },
  { type: null },
  { '': '' },
  100_000_000,
  4_294_967_294,
]);

/** A string with lone surrogates, built from `text`. */
export function withLoneSurrogates(rng: Rng, text: string): string {
  const at = int(rng, 0, text.length);
  return `${text.slice(0, at)}${pick(rng, ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D'])}${text.slice(at)}`;
}

/** `depth` levels of arrays or objects around `inner`, built without recursion. */
export function deeplyNested(depth: number, kind: 'array' | 'object' | 'mixed', inner: unknown = 1): unknown {
  let value: unknown = inner;
  for (let level = 0; level < depth; level++) {
    const asArray = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    // One reference per level: a shared subtree would make the JSON text exponentially long.
    value = asArray ? [value] : { type: 'object', properties: { a: value } };
  }
  return value;
}
