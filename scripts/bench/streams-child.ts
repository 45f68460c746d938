/**
 * Child process of the stream benchmark: `runStreams` over the stream
 * workload in a process of its own, whose heap holds only that workload,
 * not the benchmark's other workloads (the 10 MB image bodies, the
 * corpus) whose garbage collection would slow every stream measured beside
 * them. Prints the cells as JSON on stdout, progress on stderr.
 *
 * Usage: node --import tsx streams-child.ts EVENTS BUDGET_MS
 */
import { runStreams, warmStreams } from './streams.ts';
import { streamWorkload } from './workloads.ts';

const [events, budgetMs] = process.argv.slice(2).map(Number);
if (events === undefined || budgetMs === undefined || !(events > 0) || !(budgetMs > 0)) throw new Error('usage: streams-child.ts EVENTS BUDGET_MS');
const workload = streamWorkload(events);
// Every pair's pipeline once or twice first: a fresh process would otherwise measure the first pairs with code the compiler has not optimised yet.
await warmStreams(workload, 2);
const cells = await runStreams(workload, {
  budgetMs,
  progress: (cell) => process.stderr.write(`  ${cell.from} → ${cell.to}: ${(cell.eventsPerSecond / 1000).toFixed(0)}k events/s\n`),
});
process.stdout.write(JSON.stringify(cells));
