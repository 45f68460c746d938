/**
 * A small, time-boxed timing harness: warm up, calibrate a batch size, then
 * time several functions in interleaved rounds until the budget is spent.
 * Functions may be synchronous or return promises.
 */

/** The result of timing one cell. */
export interface Timing {
  /** Median nanoseconds per operation over the samples. */
  ns: number;
  /** Fastest sample, nanoseconds per operation. */
  min: number;
  /** Operations timed (warm-up excluded). */
  iterations: number;
  samples: number;
}

/** Keeps results alive so the optimiser cannot drop the work. */
export let sink = 0;

/** Record a result in the sink. */
export function consume(value: unknown): void {
  if (typeof value === 'string') sink += value.length;
  else if (typeof value === 'number') sink += value;
  else if (value !== undefined && value !== null) sink += 1;
}

const now = (): number => Number(process.hrtime.bigint());

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function summarise(perOp: number[], iterations: number): Timing {
  return { ns: median(perOp), min: Math.min(...perOp), iterations, samples: perOp.length };
}

/** Human-readable duration from nanoseconds. */
export function formatNs(ns: number): string {
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

/** One function's times in {@link measureRounds}: per-operation time of each round, in ns. */
export interface RoundTiming extends Timing {
  rounds: number[];
  /** The process's CPU time (user + system, every thread) per operation of each round, in ns: unlike {@link rounds}, not counting the moments another process had the core. */
  cpuRounds: number[];
  /** Fewest CPU nanoseconds per operation of any round. */
  cpuMin: number;
}

/** Options of {@link measureRounds}. */
export interface RoundOptions {
  /** Measured time per function, ms (the rounds run until every function has had about this much). */
  budgetMs: number;
  /** Warm-up per function, ms (default a fifth of the budget). */
  warmupMs?: number;
  /** Target duration of one batch, ms (default 5). */
  sampleMs?: number;
  /** Fewest rounds (default 5). */
  minRounds?: number;
  /**
   * Each function's share of a full function's time (default 1 each): its
   * warm-up, its batch and its part of the budget scale by it, so a function
   * timed beside the others for a ratio only adds that share to the run.
   */
  weights?: readonly number[];
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Wall and CPU nanoseconds per operation of one batch. */
async function batch(fn: () => unknown, count: number): Promise<[wall: number, cpu: number]> {
  const cpu = process.cpuUsage();
  const begin = now();
  for (let index = 0; index < count; index++) {
    const value = fn();
    consume(isThenable(value) ? await value : value);
  }
  const wall = (now() - begin) / count;
  const used = process.cpuUsage(cpu);
  return [wall, ((used.user + used.system) * 1e3) / count];
}

/**
 * Time several functions in interleaved rounds: each round runs one batch of
 * every function in turn. On a shared machine a slow phase then hits every
 * function of a round alike, so per-round ratios ({@link pairedRatio}) stay
 * meaningful when absolute times do not.
 */
export async function measureRounds(fns: readonly (() => unknown)[], options: RoundOptions): Promise<RoundTiming[]> {
  const warmup = (options.warmupMs ?? options.budgetMs / 5) * 1e6;
  const sampleTarget = (options.sampleMs ?? 5) * 1e6;
  const weight = (index: number): number => options.weights?.[index] ?? 1;
  const sizes: number[] = [];
  for (const [index, fn] of fns.entries()) {
    const started = now();
    let count = 0;
    let spent = 0;
    do {
      spent += (await batch(fn, 1))[0];
      count++;
    } while (now() - started < warmup * weight(index));
    sizes.push(Math.max(1, Math.round((sampleTarget * weight(index)) / Math.max(spent / count, 1))));
  }
  const rounds: number[][] = fns.map(() => []);
  const cpuRounds: number[][] = fns.map(() => []);
  const iterations: number[] = fns.map(() => 0);
  const budget = options.budgetMs * 1e6 * fns.reduce((sum: number, _fn, index) => sum + weight(index), 0);
  const started = now();
  for (let round = 0; now() - started < budget || round < (options.minRounds ?? 5); round++) {
    for (let index = 0; index < fns.length; index++) {
      const [wall, cpu] = await batch(fns[index]!, sizes[index]!);
      rounds[index]!.push(wall);
      cpuRounds[index]!.push(cpu);
      iterations[index]! += sizes[index]!;
    }
  }
  return rounds.map((perOp, index) => ({
    ...summarise(perOp, iterations[index]!),
    rounds: perOp,
    cpuRounds: cpuRounds[index]!,
    cpuMin: Math.min(...cpuRounds[index]!),
  }));
}

/** The median over rounds of `timing`'s time divided by `base`'s time in the same round. */
export function pairedRatio(timing: RoundTiming, base: RoundTiming): number {
  return median(timing.rounds.map((value, index) => value / base.rounds[index]!));
}
