/**
 * Random wire bodies built from the corpus's own key and value vocabulary.
 */
import { type Rng, pick, int, EDGE_STRINGS, EDGE_VALUES } from './random.ts';
import type { Vocabulary } from './payloads.ts';

/** A random JSON value made of the vocabulary's keys and strings (and edge values), at most `depth` deep. */
export function randomWireValue(rng: Rng, vocabulary: Vocabulary, depth: number): unknown {
  const roll = rng();
  if (depth <= 0 || roll < 0.3) {
    const leaf = rng();
    if (leaf < 0.4) return pick(rng, vocabulary.strings);
    if (leaf < 0.6) return pick(rng, EDGE_STRINGS);
    return structuredClone(pick(rng, EDGE_VALUES));
  }
  if (roll < 0.5) return Array.from({ length: int(rng, 0, 3) }, () => randomWireValue(rng, vocabulary, depth - 1));
  const object: Record<string, unknown> = {};
  const count = int(rng, 0, 5);
  for (let index = 0; index < count; index++) {
    const key = pick(rng, vocabulary.keys);
    const known = vocabulary.values.get(key);
    object[key] = known !== undefined && rng() < 0.5 ? pick(rng, known) : randomWireValue(rng, vocabulary, depth - 1);
  }
  return object;
}

/** A random top-level body: an object whose keys a decoder of that format knows, most of the time. */
export function randomWireBody(rng: Rng, vocabulary: Vocabulary): unknown {
  if (rng() < 0.05) return structuredClone(pick(rng, EDGE_VALUES));
  const body: Record<string, unknown> = {};
  const count = int(rng, 1, 6);
  for (let index = 0; index < count; index++) body[pick(rng, vocabulary.keys)] = randomWireValue(rng, vocabulary, 5);
  return body;
}
