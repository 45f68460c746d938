/**
 * Child process of the stream benchmark: `runStreams` over the stream
 * workload in a process of its own, whose heap holds only that workload,
 * not the benchmark's other workloads (the 10 MB image bodies, the
 * corpus) whose garbage collection would slow every stream measured beside
 * them. Prints the cells as JSON on stdout, progress on stderr.
 *
 * Usage: node --import tsx streams-child.ts EVENTS BUDGET_MS
 */
import { runStreams } from './streams.ts';
import { streamWorkload } from './workloads.ts';

const [events, budgetMs] = process.argv.slice(2).map(Number);
if (events === undefined || budgetMs === undefined || !(events > 0) || !(budgetMs > 0)) throw new Error('usage: streams-child.ts EVENTS BUDGET_MS');
const cells = await runStreams(streamWorkload(events), {
  budgetMs,
  progress: (cell) => process.stderr.write(`  ${cell.from} → ${cell.to}: ${(cell.eventsPerSecond / 1000).toFixed(0)}k events/s\n`),
});
process.stdout.write(JSON.stringify(cells));
