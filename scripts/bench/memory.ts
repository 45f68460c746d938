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
  /** Bytes the operation allocated, garbage included (sampled; measured where asked, see `memory-child.ts`). */
  allocated?: number;
}

/** One child's JSON line. */
function child(root: string, file: string, operation: string, allocated: boolean): Record<string, number> {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'scripts/bench/memory-child.ts'), file, operation, ...(allocated ? ['allocated'] : [])], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
}

/** Measure the floor and every conversion of `text` (a request of `from`) in child processes; `allocated`: also what each allocated, in a child of its own. */
export function runMemory(root: string, from: FormatId, text: string, allocated = false): MemoryResult[] {
  const file = join(tmpdir(), `interlingua-bench-memory-${process.pid}.json`);
  writeFileSync(file, text);
  const results: MemoryResult[] = [];
  try {
    const operations = ['floor', ...implementedFormats().filter((to) => to !== from).map((to) => `${from}:${to}`)];
    for (const operation of operations) {
      const line = child(root, file, operation, false) as { bodyBytes: number; outputBytes: number; rssBefore: number; peak: number };
      const result: MemoryResult = {
        operation: operation === 'floor' ? 'floor (JSON.parse + JSON.stringify)' : operation.replace(':', ' → '),
        bodyBytes: line.bodyBytes,
        outputBytes: line.outputBytes,
        rssBefore: line.rssBefore,
        peak: line.peak,
        added: line.peak - line.rssBefore,
      };
      if (allocated) result.allocated = child(root, file, operation, true)['allocated'] ?? 0;
      results.push(result);
    }
  } finally {
    rmSync(file, { force: true });
  }
  return results;
}

/**
 * A pathological request: `blocks` one-character text blocks in one Anthropic
 * user turn (a million of them make a 27 MB body). What a conversion costs
 * per MB of such a body measures the per-part memory cost, which the
 * in-flight budget (docs/SECURITY.md) has to allow for.
 */
export function tinyBlocksBody(blocks: number): string {
  return `{"model":"bench-model","max_tokens":16,"messages":[{"role":"user","content":[${Array.from({ length: blocks }, () => '{"type":"text","text":"a"}').join(',')}]}]}`;
}

/** RSS added per MB of body, for the conversions of a {@link tinyBlocksBody} (the floor first). */
export function runMemoryPerPart(root: string, blocks = 200_000): MemoryResult[] {
  return runMemory(root, 'anthropic', tinyBlocksBody(blocks), true).map((result) => ({ ...result, operation: `${blocks.toLocaleString('en-US')} tiny text blocks: ${result.operation}` }));
}

if (process.argv[1]?.endsWith('memory.ts')) {
  // `tsx scripts/bench/memory.ts [BLOCKS]`: the per-part figures alone.
  const blocks = Number(process.argv[2] ?? 200_000);
  for (const result of runMemoryPerPart(join(import.meta.dirname, '..', '..'), blocks)) {
    console.log(`${result.operation}: body ${(result.bodyBytes / 2 ** 20).toFixed(1)} MB, added ${(result.added / 2 ** 20).toFixed(0)} MB at peak, ${(result.added / result.bodyBytes).toFixed(1)} MB of RSS per MB of body, ${((result.allocated ?? 0) / result.bodyBytes).toFixed(1)} MB allocated per MB of body`);
  }
}
