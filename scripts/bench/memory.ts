/**
 * Peak memory of one 10 MB request, each measured in its own child process
 * (`memory-child.ts`) so nothing else the benchmark holds is counted: the
 * floor (parse + stringify) and the conversion to every other format.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { implementedFormats } from '../../src/formats/registry.ts';
import type { FormatId } from '../../src/core/ir.ts';

/** One child's measurement. */
export interface MemoryResult {
  operation: string;
  bodyBytes: number;
  outputBytes: number;
  /** RSS with the body text loaded, before the operation (after a GC). */
  rssBefore: number;
  /** Peak RSS of the process after the operation (Linux: `VmHWM`, reset just before the operation). */
  peak: number;
  /** `peak - rssBefore`: what the operation added at its peak. */
  added: number;
}

/** Measure the floor and every conversion of `text` (a request of `from`) in child processes. */
export function runMemory(root: string, from: FormatId, text: string): MemoryResult[] {
  const file = join(tmpdir(), `interlingua-bench-memory-${process.pid}.json`);
  writeFileSync(file, text);
  const results: MemoryResult[] = [];
  try {
    const operations = ['floor', ...implementedFormats().filter((to) => to !== from).map((to) => `${from}:${to}`)];
    for (const operation of operations) {
      const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'scripts/bench/memory-child.ts'), file, operation], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 1024 * 1024,
      });
      const line = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { bodyBytes: number; outputBytes: number; rssBefore: number; peak: number };
      results.push({
        operation: operation === 'floor' ? 'floor (JSON.parse + JSON.stringify)' : operation.replace(':', ' → '),
        bodyBytes: line.bodyBytes,
        outputBytes: line.outputBytes,
        rssBefore: line.rssBefore,
        peak: line.peak,
        added: line.peak - line.rssBefore,
      });
    }
  } finally {
    rmSync(file, { force: true });
  }
  return results;
}
