/**
 * The floors a conversion cell is measured against, and its ratios to them.
 * The floor is `JSON.stringify(JSON.parse(source text))`; the output floor is
 * `JSON.parse(source text)` + `JSON.stringify` of the output parsed
 * beforehand: the text work any translator that writes this same output must
 * do, so a target body bigger or more nested than the source's shows as an
 * output floor over 1× the floor. The verdict stays conversion ÷ floor.
 */
import { pairedRatio, type RoundTiming } from './timing.ts';

/** The ratios of one conversion cell, each from the same rounds. */
export interface CellRatios {
  /** Conversion ÷ floor: the verdict's ratio. */
  ratio: number;
  /** Output floor ÷ floor: what writing the target's own text costs beside the source's. */
  outputFloorRatio: number;
  /** Conversion ÷ output floor: what the conversion costs beyond that text work. */
  overOutputFloor: number;
}

/**
 * A cell's ratios from its three timings of the same interleaved rounds: the
 * floor (parse + stringify of the source), the output floor (parse of the
 * source + stringify of the parsed output) and the conversion.
 */
export function cellRatios(floor: RoundTiming, outputFloor: RoundTiming, conversion: RoundTiming): CellRatios {
  return { ratio: pairedRatio(conversion, floor), outputFloorRatio: pairedRatio(outputFloor, floor), overOutputFloor: pairedRatio(conversion, outputFloor) };
}

/**
 * The output floor of one source text and one output: `JSON.parse` of the
 * source and `JSON.stringify` of the output parsed once beforehand, the text
 * work of any translator that writes this output from this source.
 */
export function outputFloorOf(sourceTexts: readonly string[], outputTexts: readonly string[]): () => number {
  const outputs: unknown[] = outputTexts.map((text) => JSON.parse(text));
  return () => {
    let length = 0;
    for (let index = 0; index < sourceTexts.length; index++) {
      const source: unknown = JSON.parse(sourceTexts[index]!);
      length += JSON.stringify(outputs[index]).length + (source === undefined ? 1 : 0);
    }
    return length;
  };
}

/**
 * An output floor's weight in `measureRounds` (`RoundOptions.weights`): it is
 * timed for its ratios only, so it gets half a full function's warm-up,
 * batch and budget. (A copy of the floor timed so reads 0.98–1.01× the floor.)
 */
export const OUTPUT_FLOOR_WEIGHT = 0.5;
