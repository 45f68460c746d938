/**
 * Real recorded requests: every request body of the corpus (`test/corpus/<format>/request`,
 * recorded from the vendors' APIs by other projects) converted to every
 * format. One cell is a whole folder: the floor parses and stringifies each
 * body of the folder once, the output floor parses each body and stringifies
 * its output (parsed beforehand) once, a conversion converts and stringifies
 * each once, timed in interleaved rounds like the generated workloads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertRequest, implementedFormats, stringifyBody } from './lib.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { cellRatios, OUTPUT_FLOOR_WEIGHT, outputFloorOf } from './floors.ts';
import { measureRounds, type Timing } from './timing.ts';
import { BENCH_MODEL } from './workloads.ts';

/** One source folder converted to one target. */
export interface CorpusCell {
  from: FormatId;
  to: FormatId;
  /** Bodies in the source folder. */
  bodies: number;
  /** Bodies that raised a typed error for this target (not timed). */
  refused: number;
  /** Bytes of the source texts timed. */
  bytes: number;
  floor: Timing;
  /** `JSON.parse` of each source + `JSON.stringify` of its output parsed beforehand (floors.ts), in the same rounds. */
  outputFloor: Timing;
  timing: Timing;
  /** interlingua ÷ floor, median over rounds: the verdict's ratio. */
  ratio: number;
  /** Output floor ÷ floor, median over rounds. */
  outputFloorRatio: number;
  /** interlingua ÷ output floor, median over rounds. */
  overOutputFloor: number;
  losses: number;
}

/** Options of {@link runCorpus}. */
export interface CorpusOptions {
  /** Measured time per function, ms. */
  budgetMs: number;
  /** Target duration of one batch, ms (`measureRounds`'s default when absent). */
  sampleMs?: number;
  /**
   * Time each conversion runs before the rounds, ms: a folder holds 24–176
   * different bodies, whose code paths reach the optimising compiler only
   * after many passes over the folder (see the Method).
   */
  warmupMs?: number;
  progress?: (cell: CorpusCell) => void;
}

/** Run `fn` again and again for `ms` milliseconds. */
function warmUp(fn: () => unknown, ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) fn();
}

/** The request texts of one format's corpus folder, in name order. */
export function corpusRequests(root: string, format: FormatId): string[] {
  const directory = join(root, 'test/corpus', format, 'request');
  let files: string[];
  try {
    files = readdirSync(directory).filter((file) => file.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return files.map((file) => readFileSync(join(directory, file), 'utf8'));
}

/** Every corpus request folder to every format: the floor and the conversions of one folder in interleaved rounds. */
export async function runCorpus(root: string, options: CorpusOptions): Promise<CorpusCell[]> {
  const formats = implementedFormats();
  const cells: CorpusCell[] = [];
  for (const from of formats) {
    const texts = corpusRequests(root, from);
    if (texts.length === 0) continue;
    const fns: (() => unknown)[] = [];
    const pending: Omit<CorpusCell, 'floor' | 'outputFloor' | 'timing' | 'ratio' | 'outputFloorRatio' | 'overOutputFloor'>[] = [];
    // The output floors: per target, over the bodies it converts and their outputs.
    const outputFloors: (() => unknown)[] = [];
    // The floor runs over the same bodies as each conversion: those it converts.
    const floors: (() => unknown)[] = [];
    for (const to of formats) {
      const convertible: string[] = [];
      const outputs: string[] = [];
      let losses = 0;
      for (const text of texts) {
        try {
          const result = convertRequest(text, { from, to, model: BENCH_MODEL });
          losses += result.losses.length;
          outputs.push(stringifyBody(result.body));
          convertible.push(text);
        } catch {
          // A body the target refuses with a typed error is counted, not timed.
        }
      }
      const conversionOptions = { from, to, model: BENCH_MODEL };
      fns.push(() => {
        let length = 0;
        for (const text of convertible) length += stringifyBody(convertRequest(text, conversionOptions).body).length;
        return length;
      });
      floors.push(() => {
        let length = 0;
        for (const text of convertible) length += JSON.stringify(JSON.parse(text)).length;
        return length;
      });
      outputFloors.push(outputFloorOf(convertible, outputs));
      pending.push({ from, to, bodies: texts.length, refused: texts.length - convertible.length, bytes: convertible.reduce((sum, text) => sum + text.length, 0), losses });
    }
    // Targets that convert every body share one floor; the rest get their own.
    const floorIndex: number[] = [];
    const all: (() => unknown)[] = [];
    let sharedFloor = -1;
    pending.forEach((cell, index) => {
      if (cell.refused === 0) {
        if (sharedFloor === -1) sharedFloor = all.push(floors[index]!) - 1;
        floorIndex.push(sharedFloor);
      } else floorIndex.push(all.push(floors[index]!) - 1);
    });
    const weights = all.map(() => 1);
    const firstOutputFloor = all.push(...outputFloors) - outputFloors.length;
    weights.push(...outputFloors.map(() => OUTPUT_FLOOR_WEIGHT));
    const firstConversion = all.push(...fns) - fns.length;
    weights.push(...fns.map(() => 1));
    if (options.warmupMs !== undefined) for (const fn of fns) warmUp(fn, options.warmupMs);
    const timings = await measureRounds(all, { budgetMs: options.budgetMs, weights, ...(options.sampleMs === undefined ? {} : { sampleMs: options.sampleMs }) });
    pending.forEach((cell, index) => {
      const floor = timings[floorIndex[index]!]!;
      const outputFloor = timings[firstOutputFloor + index]!;
      const timing = timings[firstConversion + index]!;
      const result: CorpusCell = { ...cell, floor, outputFloor, timing, ...cellRatios(floor, outputFloor, timing) };
      cells.push(result);
      options.progress?.(result);
    });
  }
  return cells;
}
