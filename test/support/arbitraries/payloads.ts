/**
 * Real payloads: the corpus and golden bodies as seeds, and the key and
 * value vocabulary they use (what random wire bodies are built from).
 */
import { statSync } from 'node:fs';
import type { FormatId } from '../../../src/core/ir.ts';
import { corpusFixtures, fixtureBody, goldenFixtures, type Fixture, type FixtureKind } from '../fixtures.ts';

/** One real body to mutate: its format and kind, and its JSON text (parsed afresh for every input). */
export interface Seed {
  format: FormatId;
  kind: FixtureKind;
  name: string;
  text: string;
}

/** Every golden and corpus body of the given formats, smallest first, at most `maxBytes` each. */
export function loadSeeds(formats: readonly FormatId[], maxBytes = 256 * 1024): Seed[] {
  const wanted = new Set(formats);
  const seeds: Seed[] = [];
  const all: Fixture[] = [...goldenFixtures(), ...corpusFixtures()];
  for (const fixture of all) {
    if (!wanted.has(fixture.format)) continue;
    if (statSync(fixture.file).size > maxBytes) continue;
    seeds.push({ format: fixture.format, kind: fixture.kind, name: fixture.name, text: JSON.stringify(fixtureBody(fixture).body) });
  }
  return seeds.sort((a, b) => a.text.length - b.text.length);
}

/** Keys and short string values seen in real bodies: what random bodies and mutations are made of. */
export interface Vocabulary {
  keys: string[];
  /** Short strings seen under each key (`type`, `role`, `finish_reason`, …). */
  values: Map<string, string[]>;
  strings: string[];
}

/** Collect the vocabulary of `seeds` (walks iteratively). */
export function vocabularyOf(seeds: readonly Seed[]): Vocabulary {
  const keys = new Set<string>();
  const values = new Map<string, Set<string>>();
  const strings = new Set<string>();
  for (const seed of seeds) {
    const stack: unknown[] = [JSON.parse(seed.text)];
    while (stack.length > 0) {
      const node = stack.pop();
      if (Array.isArray(node)) {
        stack.push(...node);
      } else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          keys.add(key);
          if (typeof value === 'string' && value.length <= 40) {
            strings.add(value);
            let set = values.get(key);
            if (set === undefined) values.set(key, (set = new Set()));
            if (set.size < 64) set.add(value);
          }
          stack.push(value);
        }
      }
    }
  }
  return {
    keys: [...keys].sort(),
    values: new Map([...values].map(([key, set]) => [key, [...set].sort()])),
    strings: [...strings].sort().slice(0, 4000),
  };
}
