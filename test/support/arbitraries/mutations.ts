/**
 * Mutations of real payloads (fields dropped, wrong types, values swapped,
 * deep nesting, lone surrogates, huge strings) driven by a seeded PRNG, so
 * one seed reproduces one input; as plans for fast-check.
 */
import fc from 'fast-check';
import { type Rng, seeded, pick, int, EDGE_STRINGS, EDGE_VALUES, withLoneSurrogates, deeplyNested } from './random.ts';
import type { Vocabulary } from './payloads.ts';

/** The kinds of mutation applied to a real payload. */
export const MUTATIONS = [
  'drop',
  'retype',
  'swap',
  'copy',
  'add_key',
  'enum_swap',
  'edge_string',
  'lone_surrogate',
  'deep_nest',
  'huge_string',
  'empty_container',
  'json_text',
  'null_slot',
  'insert_entry',
  'hole',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** The mutations of one crash class: `null` or a value of the wrong type in any array slot or object field, or inserted into any array, or an array slot emptied (a hole, as a JavaScript caller's `delete list[i]` leaves). */
export const SLOT_MUTATIONS = ['null_slot', 'retype', 'insert_entry', 'hole'] as const satisfies readonly Mutation[];

/** Every array in `root` (breadth-first, at most `limit`). */
function arraysOf(root: unknown, limit = 20_000): unknown[][] {
  const arrays: unknown[][] = [];
  const queue: unknown[] = [root];
  for (let head = 0; head < queue.length && arrays.length < limit; head++) {
    const node = queue[head];
    if (Array.isArray(node)) {
      arrays.push(node);
      queue.push(...node);
    } else if (typeof node === 'object' && node !== null) {
      queue.push(...Object.values(node));
    }
  }
  return arrays;
}

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  path: string;
}

function slotsOf(root: unknown, limit = 20_000): Slot[] {
  const slots: Slot[] = [];
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0 && slots.length < limit) {
    const [node, path] = stack.pop() as [unknown, string];
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        slots.push({ parent: node, key: index, path: `${path}/${index}` });
        stack.push([node[index], `${path}/${index}`]);
      }
    } else if (typeof node === 'object' && node !== null) {
      for (const key of Object.keys(node)) {
        const record = node as Record<string, unknown>;
        slots.push({ parent: record, key, path: `${path}/${key}` });
        stack.push([record[key], `${path}/${key}`]);
      }
    }
  }
  return slots;
}

/** A deep copy through JSON; values too deep to serialise are replaced by an edge value. */
export function jsonCopy(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null');
  } catch {
    return null;
  }
}

export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[[[';
  }
}

function get(slot: Slot): unknown {
  return (slot.parent as Record<string | number, unknown>)[slot.key];
}

function set(slot: Slot, value: unknown): void {
  (slot.parent as Record<string | number, unknown>)[slot.key] = value;
}

/** Options of {@link mutate}. */
export interface MutateOptions {
  vocabulary: Vocabulary;
  /** Length of `huge_string` values (1 MB in the test run, up to 50 MB in the fuzz script). */
  hugeLength: number;
  /** Levels of `deep_nest` (10,000). */
  nestDepth: number;
}

/**
 * Apply one mutation of `kind` to `root` in place (the root itself can be
 * replaced: the result is returned). Returns a description for reports.
 */
export function mutate(root: unknown, kind: Mutation, rng: Rng, options: MutateOptions): { value: unknown; note: string } {
  const slots = slotsOf(root);
  if (slots.length === 0) {
    return { value: structuredClone(pick(rng, EDGE_VALUES)), note: `${kind}: root replaced` };
  }
  const slot = pick(rng, slots);
  const current = get(slot);
  const note = `${kind} at ${slot.path.length > 120 ? `${slot.path.slice(0, 60)}…${slot.path.slice(-40)}` : slot.path}`;
  switch (kind) {
    case 'drop':
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key as string];
      break;
    case 'retype': {
      const candidates = EDGE_VALUES.filter((value) => typeof value !== typeof current || Array.isArray(value) !== Array.isArray(current));
      set(slot, structuredClone(pick(rng, candidates)));
      break;
    }
    case 'swap': {
      const other = pick(rng, slots);
      // Swapping a node with one of its ancestors would make a cycle: copy instead.
      if (other.path.startsWith(`${slot.path}/`) || slot.path.startsWith(`${other.path}/`)) set(slot, jsonCopy(get(other)));
      else {
        const value = get(other);
        set(other, current);
        set(slot, value);
      }
      break;
    }
    case 'copy': {
      const other = pick(rng, slots);
      set(slot, jsonCopy(get(other)));
      break;
    }
    case 'add_key': {
      const target = typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
      const key = rng() < 0.1 ? pick(rng, ['__proto__', 'constructor', 'toString', '$ref', '']) : pick(rng, options.vocabulary.keys);
      const value = rng() < 0.5 ? pick(rng, EDGE_VALUES) : pick(rng, options.vocabulary.strings);
      // JSON.parse makes an own "__proto__" key, as a wire body would.
      const entry = JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Record<string, unknown>;
      if (target !== undefined) Object.assign(target, entry);
      else if (!Array.isArray(slot.parent)) Object.defineProperty(slot.parent, key, { value: structuredClone(value), enumerable: true, writable: true, configurable: true });
      break;
    }
    case 'enum_swap': {
      const known = typeof slot.key === 'string' ? options.vocabulary.values.get(slot.key) : undefined;
      set(slot, known !== undefined && rng() < 0.8 ? pick(rng, known) : pick(rng, options.vocabulary.strings));
      break;
    }
    case 'edge_string':
      set(slot, pick(rng, EDGE_STRINGS));
      break;
    case 'lone_surrogate':
      set(slot, withLoneSurrogates(rng, typeof current === 'string' ? current : pick(rng, options.vocabulary.strings)));
      break;
    case 'deep_nest':
      set(slot, deeplyNested(options.nestDepth, pick(rng, ['array', 'object', 'mixed'] as const), current));
      break;
    case 'huge_string':
      set(slot, typeof current === 'string' && current.length > 0 && rng() < 0.5 ? current.repeat(Math.ceil(options.hugeLength / current.length)).slice(0, options.hugeLength) : 'x'.repeat(options.hugeLength));
      break;
    case 'empty_container':
      set(slot, Array.isArray(current) ? [] : typeof current === 'object' && current !== null ? {} : rng() < 0.5 ? [] : {});
      break;
    case 'json_text':
      // A value replaced by its own JSON text (arguments, schemas and tool outputs travel both ways).
      set(slot, jsonText(current));
      break;
    case 'null_slot':
      set(slot, null);
      break;
    case 'hole': {
      // An empty slot in some array: JSON cannot say it, a JavaScript caller's IR or body can.
      const arrays = arraysOf(root).filter((list) => list.length > 0);
      const target = arrays.length > 0 ? pick(rng, arrays) : undefined;
      if (target === undefined) break;
      const at = int(rng, 0, target.length - 1);
      delete target[at];
      return { value: root, note: `hole at ${at} of an array of ${target.length}` };
    }
    case 'insert_entry': {
      // A null (or a value of another type) as a new entry of some array: `tools: [null, …]`.
      const arrays = arraysOf(root);
      const target = arrays.length > 0 ? pick(rng, arrays) : undefined;
      const value = rng() < 0.5 ? null : structuredClone(pick(rng, EDGE_VALUES));
      if (target !== undefined) {
        const at = int(rng, 0, target.length);
        target.splice(at, 0, value);
        return { value: root, note: `insert_entry ${JSON.stringify(value)} into an array of ${target.length - 1}, at ${at}` };
      }
      set(slot, [value]);
      break;
    }
  }
  return { value: root, note };
}

/** A sequence of mutations: what one fuzz input is, beside its seed body. */
export interface MutationPlan {
  seed: number;
  kinds: Mutation[];
}

/** Apply a plan to a fresh copy of `text`. */
export function applyPlan(text: string, plan: MutationPlan, options: MutateOptions): { body: unknown; notes: string[] } {
  const rng = seeded(plan.seed);
  let body: unknown = JSON.parse(text);
  const notes: string[] = [];
  for (const kind of plan.kinds) {
    const result = mutate(body, kind, rng, options);
    body = result.value;
    notes.push(result.note);
  }
  return { body, notes };
}

/** Mutation kinds weighted for the cheap, high-yield ones; the costly ones are rare. */
export function randomKinds(rng: Rng, count: number): Mutation[] {
  const kinds: Mutation[] = [];
  for (let index = 0; index < count; index++) {
    const roll = rng();
    if (roll < 0.01) kinds.push('huge_string');
    else if (roll < 0.02) kinds.push('deep_nest');
    else kinds.push(pick(rng, MUTATIONS.filter((kind) => kind !== 'huge_string' && kind !== 'deep_nest')));
  }
  return kinds;
}

/** fast-check arbitrary of plans of {@link SLOT_MUTATIONS} only. */
export function slotMutationPlanArbitrary(): fc.Arbitrary<MutationPlan> {
  return fc.record({
    seed: fc.integer({ min: 0, max: 0x7fffffff }),
    kinds: fc.array(fc.constantFrom(...SLOT_MUTATIONS), { minLength: 1, maxLength: 3 }),
  });
}

/** Apply `kinds` to a value in place (an IR tree, say), from `seed`; returns the (maybe replaced) root. */
export function mutateValue(root: unknown, seed: number, kinds: readonly Mutation[], options: MutateOptions): { value: unknown; notes: string[] } {
  const rng = seeded(seed);
  let value = root;
  const notes: string[] = [];
  for (const kind of kinds) {
    const result = mutate(value, kind, rng, options);
    value = result.value;
    notes.push(result.note);
  }
  return { value, notes };
}

/** fast-check arbitrary of mutation plans (shrinks towards fewer mutations). */
export function mutationPlanArbitrary(): fc.Arbitrary<MutationPlan> {
  return fc.record({
    seed: fc.integer({ min: 0, max: 0x7fffffff }),
    kinds: fc.array(fc.constantFrom(...MUTATIONS.filter((kind) => kind !== 'huge_string' && kind !== 'deep_nest')), { minLength: 1, maxLength: 4 }),
  });
}
