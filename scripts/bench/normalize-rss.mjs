// Preloaded (node --import) into a benchmarked `interlingua normalize` child:
// on exit, writes the process's peak resident set size (kilobytes, worker
// threads included) and CPU time (microseconds, user + system) to stderr
// for scripts/bench/normalize.ts.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(2, `\nbench-rss ${usage.maxRSS} bench-cpu ${usage.userCPUTime + usage.systemCPUTime}\n`);
});
