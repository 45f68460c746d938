/**
 * Child process of the memory benchmark: read a body from a file, note the
 * peak RSS so far, run one operation on it (the floor or a conversion), and
 * report the peak RSS after it as one JSON line on stdout.
 *
 * With `allocated` as a third argument it reports instead the bytes the
 * operation allocated, garbage included (V8's sampling heap profiler, one
 * sample per 4 KiB on average, collected objects kept): the peak RSS
 * counts only what is alive at once, plus a young generation V8 sizes by
 * what survives, so it hides the short-lived copies this figure shows.
 *
 * Usage: memory-child.ts FILE floor|FROM:TO [allocated]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { convertRequest, isFormatId, stringifyBody } from './lib.ts';

const [file, operation, measure] = process.argv.slice(2);
if (file === undefined || operation === undefined) throw new Error('usage: memory-child.ts FILE floor|FROM:TO');

// Load and warm the code on a small body so compiling it is not counted.
const warm = JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
for (let index = 0; index < 50; index++) JSON.stringify(convertRequest(warm, { from: 'anthropic', to: 'openai-chat' }).body);

/**
 * The peak RSS of this process so far, in bytes. On Linux, `VmHWM` of
 * /proc/self/status, which the kernel resets on `5` written to
 * /proc/self/clear_refs; `process.resourceUsage().maxRSS` elsewhere. (Linux
 * carries `maxRSS` over from the parent's memory as it was when this child
 * was forked, so a parent larger than the child's peak hid every
 * operation's peak behind its own.)
 */
function peakRss(): number {
  try {
    const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (found !== null) return Number(found[1]) * 1024;
  } catch {
    // Not Linux: the resource usage below.
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Start the peak over from the RSS of now, where the kernel allows it. */
function resetPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // The peak then includes what came before; `peakBefore` in the output shows it.
  }
}

const text = readFileSync(file, 'utf8');

/** The operation: its output text. */
function run(): string {
  if (operation === 'floor') return JSON.stringify(JSON.parse(text));
  const [from, to] = (operation as string).split(':');
  if (!isFormatId(from) || !isFormatId(to)) throw new Error(`bad operation ${operation}`);
  // Written with stringifyBody (large base64 spliced in apart; the proxy writes the same pieces one by one, see bodyText).
  return stringifyBody(convertRequest(text, { from, to, model: 'bench-model' }).body);
}

if (measure === 'allocated') {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // The two include flags keep what the collector freed (V8 11.3+), so the samples count every allocation.
  await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  const output = run();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  let allocated = 0;
  const pending = [profile.head];
  while (pending.length > 0) {
    const node = pending.pop()!;
    allocated += node.selfSize;
    pending.push(...node.children);
  }
  process.stdout.write(`${JSON.stringify({ bodyBytes: Buffer.byteLength(text), outputBytes: output.length, allocated })}\n`);
  process.exit(0);
}

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
resetPeak();
const before = peakRss();
const rssBefore = process.memoryUsage().rss;
const output = run();
const after = peakRss();
process.stdout.write(`${JSON.stringify({ bodyBytes: Buffer.byteLength(text), outputBytes: output.length, peakBefore: before, rssBefore, peak: after })}\n`);
