/** The reasoning-state cell's figures and their paragraph in docs/BENCHMARKS.md (apart from the cell, which loads the proxy). */

/** What the cell measured. */
export interface ReasoningStateCell {
  /** CPU per request without a store, and with a memory store, in µs (medians of the rounds). */
  withoutUs: number;
  withUs: number;
  /** CPU added per request by the store, µs (the median of the rounds' differences). */
  addedUs: number;
  /** Median of the rounds' ratios, with ÷ without. */
  ratio: number;
  /** The keeper alone per request, µs: one keep and one restore of the same answer on the IR (hash, record JSON, memory store) per two requests. */
  keeperUs: number;
  rounds: number;
}

/** The cell as a paragraph of docs/BENCHMARKS.md. */
export function reasoningStateSection(cell: ReasoningStateCell | undefined): string {
  if (cell === undefined) return '';
  return `Reasoning state kept for a Chat caller (\`createProxy({ store })\`, scripts/bench/reasoning-state.ts: the fetch handler in process, an OpenAI Chat caller in front of an in-process Anthropic upstream answering with thinking and a tool call; each cycle the question, whose answer is kept, and the tool result turn, whose thinking is restored): CPU per request ${cell.withoutUs.toFixed(1)} µs without a store, ${cell.withUs.toFixed(1)} µs with a memory store, **${cell.addedUs >= 0 ? '+' : '−'}${Math.abs(cell.addedUs).toFixed(1)} µs** added (the median of ${cell.rounds} interleaved rounds' differences; of their ratios ${cell.ratio.toFixed(2)}×). Of that, the keeper's own work (the message hash, the record's JSON both ways, the memory store; timed alone on the IR in the same rounds) is ${cell.keeperUs.toFixed(1)} µs per request; the rest is the request path around it (the awaits of the store's calls, the restored thinking block and its signature encoded into the upstream request, which without a store goes without thinking, and the collection of the kept records), not attributed further.\n`;
}

