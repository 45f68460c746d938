/**
 * Loaded into each proxy process by `npm run soak` (`node --expose-gc
 * --import`), never by `interlingua serve` itself: on SIGUSR2 it collects
 * garbage until the heap stops shrinking, letting FinalizationRegistry
 * callbacks run in between (undici's Request keeps the caller's AbortSignal
 * until its finalizer has run), and writes one `soak-probe` line with the
 * memory figures to stderr. So memory before and after a run is compared on
 * what is alive, not on garbage V8 has not collected yet.
 *
 * With SOAK_SNAPSHOT=<directory> it also writes a heap snapshot there each
 * time (for diffing two of them when the heap grows).
 */
import { writeHeapSnapshot } from 'node:v8';

const collect = (globalThis as { gc?: () => void }).gc;
const turn = () => new Promise((resolve) => setTimeout(resolve, 20));

process.on('SIGUSR2', async () => {
  let heap = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 10 && collect !== undefined; round++) {
    collect();
    await turn();
    const now = process.memoryUsage().heapUsed;
    if (now >= heap * 0.999) break;
    heap = now;
  }
  const directory = process.env['SOAK_SNAPSHOT'];
  if (directory !== undefined) writeHeapSnapshot(`${directory}/${process.pid}-${Date.now()}.heapsnapshot`);
  const memory = process.memoryUsage();
  process.stderr.write(`soak-probe rss=${memory.rss} heap=${memory.heapUsed} heapTotal=${memory.heapTotal} external=${memory.external} gc=${collect === undefined ? 'no' : 'yes'}\n`);
});
