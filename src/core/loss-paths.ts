/**
 * Loss-path resolution: how an IR pointer a loss was reported at becomes a
 * pointer into the source body, through the origins a decoder recorded
 * (`LossCollector.origin`, `originField`, `originFields`). The collector
 * (`losses.ts`) keeps the origins; these functions walk them.
 */
import { isObject, pointerSegment } from './wire.ts';

/** No origins: what a walk reads when only field origins were recorded. */
export const NO_ORIGINS: ReadonlyMap<object, string> = new Map();

/** IR field → wire key(s) of one settings object, for {@link LossCollector.originFields}. */
export type FieldTable = Readonly<Record<string, string | readonly string[]>>;

/** The last walk of `sourceOf`: its root and pointer, and per level (up to `depth`) the end of the segment, the node reached and the deepest origin so far. */
export interface Walk {
  root: object | undefined;
  path: string;
  depth: number;
  ends: number[];
  nodes: unknown[];
  bests: string[];
}

function firstPresent(wire: Readonly<Record<string, unknown>>, keys: readonly string[]): string | undefined {
  for (const key of keys) if (wire[key] !== undefined) return key;
  return undefined;
}

/** The origin of field `key` of `node`: from the last `LossCollector.originField` or `originFields` entry that places it (entries of four slots: node, key or wire object, pointer, table). */
function fieldOrigin(fields: readonly unknown[], node: object, key: string): string | undefined {
  for (let at = fields.length - 4; at >= 0; at -= 4) {
    if (fields[at] !== node) continue;
    const second = fields[at + 1];
    if (typeof second === 'string') {
      if (second === key) return fields[at + 2] as string;
      continue;
    }
    const wire = second as Readonly<Record<string, unknown>>;
    const table = fields[at + 3] as FieldTable;
    if (!Object.hasOwn(table, key) || (node as Record<string, unknown>)[key] === undefined) continue;
    const candidates = table[key] as string | readonly string[];
    const wireKey = typeof candidates === 'string' ? (wire[candidates] === undefined ? undefined : candidates) : firstPresent(wire, candidates);
    if (wireKey !== undefined) return `${fields[at + 2] as string}/${pointerSegment(wireKey)}`;
  }
  return undefined;
}

/** The pointer paired with the last entry of `node` in a node, pointer, … list (the last origin of a node wins, as in a map). */
export function lastPaired(list: readonly unknown[], node: object): string | undefined {
  for (let at = list.length - 2; at >= 0; at -= 2) if (list[at] === node) return list[at + 1] as string;
  return undefined;
}

/**
 * The unescaped segments of IR pointers on settings, split once: the same
 * few pointers (`/generation/maxTokens`) come back conversion after
 * conversion, and property lookups by a string made per call cost more than
 * the walk itself.
 */
const SEGMENTS = new Map<string, readonly string[]>();

function segmentsOf(irPath: string): readonly string[] {
  let segments = SEGMENTS.get(irPath);
  if (segments === undefined) {
    segments = irPath === '' ? [] : irPath.slice(1).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    if (SEGMENTS.size < 512) SEGMENTS.set(irPath, segments);
  }
  return segments;
}

/** The array index a pointer segment (`irPath[start, end)`) names: its value for canonical digits (`0`, `12`), else past any array's end. */
function arrayIndex(irPath: string, start: number, end: number): number {
  if (end === start || end - start > 15 || (irPath.charCodeAt(start) === 48 /* 0 */ && end - start > 1)) return Number.MAX_SAFE_INTEGER;
  let index = 0;
  for (let at = start; at < end; at++) {
    const digit = irPath.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) return Number.MAX_SAFE_INTEGER;
    index = index * 10 + digit;
  }
  return index;
}

/**
 * The source pointer of `irPath` walked from `root` alone (see `LossCollector.sourceOfOne`):
 * `listed` is a listing collector's node, pointer, … list when its origins
 * are read from it rather than from `origins`.
 */
export function resolveOne(origins: ReadonlyMap<object, string> | undefined, fields: readonly unknown[] | undefined, listed: readonly unknown[] | undefined, root: object, irPath: string): string {
  // Without origins (most conversions: only settings losses), no Map lookups: each would give the node an identity hash.
  let node: unknown = root;
  let best = (listed === undefined ? undefined : lastPaired(listed, root)) ?? origins?.get(root) ?? '';
  const segments = segmentsOf(irPath);
  for (let index = 0; index < segments.length && typeof node === 'object' && node !== null; index++) {
    const segment = segments[index] as string;
    if (Array.isArray(node)) {
      const at = arrayIndex(segment, 0, segment.length);
      node = at < node.length ? node[at] : undefined;
    } else {
      if (fields !== undefined) best = fieldOrigin(fields, node, segment) ?? best;
      node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (listed !== undefined) {
      const found = lastPaired(listed, node);
      if (found !== undefined) {
        best = found;
        continue;
      }
    }
    if (origins !== undefined) best = origins.get(node) ?? best;
  }
  return best;
}

/**
 * The source pointer of `irPath` (see `LossCollector.sourceOf`), resuming
 * `walk`, the walk of the previous pointer, after the segments they share.
 */
export function resolveWalk(walk: Walk, origins: ReadonlyMap<object, string>, fields: readonly unknown[] | undefined, root: object, irPath: string): string {
  const { ends, nodes, bests } = walk;
  let level = 0;
  let node: unknown = root;
  let best = origins.get(root) ?? '';
  if (walk.root === root) {
    // The deepest level of the last walk whose prefix (up to a segment boundary) this pointer shares.
    const last = walk.path;
    const limit = Math.min(last.length, irPath.length);
    let same = 0;
    while (same < limit && last.charCodeAt(same) === irPath.charCodeAt(same)) same++;
    while (level < walk.depth) {
      const at = ends[level] as number;
      if (at > same || (at < irPath.length && irPath.charCodeAt(at) !== 47 /* / */)) break;
      level++;
    }
    if (level > 0) {
      node = nodes[level - 1];
      best = bests[level - 1] as string;
    }
  }
  let start = level === 0 ? 1 : (ends[level - 1] as number) + 1;
  while (start <= irPath.length && typeof node === 'object' && node !== null) {
    let end = irPath.indexOf('/', start);
    if (end === -1) end = irPath.length;
    if (Array.isArray(node)) {
      // IR arrays (messages, parts, tools, candidates) are read by index; field origins live on objects.
      const index = arrayIndex(irPath, start, end);
      node = index < node.length ? node[index] : undefined;
    } else {
      let segment = irPath.slice(start, end);
      if (segment.includes('~')) segment = segment.replaceAll('~1', '/').replaceAll('~0', '~');
      if (fields !== undefined) best = fieldOrigin(fields, node, segment) ?? best;
      node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
    if (typeof node === 'object' && node !== null) best = origins.get(node) ?? best;
    ends[level] = end;
    nodes[level] = node;
    bests[level] = best;
    level++;
    start = end + 1;
  }
  walk.depth = level;
  walk.root = root;
  walk.path = irPath;
  return best;
}

/** `child/key` (escaped) when exactly one object field `child` of `node` has `key`; otherwise `undefined`. */
export function nestedField(node: Record<string, unknown>, key: string): string | undefined {
  let found: string | undefined;
  for (const child in node) {
    const value = node[child];
    if (!isObject(value) || !Object.hasOwn(value, key)) continue;
    if (found !== undefined) return undefined;
    found = `${pointerSegment(child)}/${pointerSegment(key)}`;
  }
  return found;
}
