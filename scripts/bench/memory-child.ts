/**
 * Child process of the memory benchmark: read a body from a file, note the
 * peak RSS so far, run one operation on it (the floor or a conversion), and
 * report the peak RSS after it as one JSON line on stdout.
 *
 * Usage: memory-child.ts FILE floor|FROM:TO
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { convertRequest, isFormatId, stringifyBody } from './lib.ts';

const [file, operation] = process.argv.slice(2);
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
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
resetPeak();
const before = peakRss();
const rssBefore = process.memoryUsage().rss;
let output: string;
if (operation === 'floor') {
  output = JSON.stringify(JSON.parse(text));
} else {
  const [from, to] = operation.split(':');
  if (!isFormatId(from) || !isFormatId(to)) throw new Error(`bad operation ${operation}`);
  // Written with stringifyBody (large base64 spliced in apart; the proxy writes the same pieces one by one, see bodyText).
  output = stringifyBody(convertRequest(text, { from, to, model: 'bench-model' }).body);
}
const after = peakRss();
process.stdout.write(`${JSON.stringify({ bodyBytes: Buffer.byteLength(text), outputBytes: output.length, peakBefore: before, rssBefore, peak: after })}\n`);
