/** Input and output for the CLI: read a file or stdin, print JSON, fail with one line. */
import { readFileSync } from 'node:fs';
import { InterlinguaError, isInterlinguaError } from '../core/errors.ts';

/** Read a file, or standard input for `-` or no file. */
export function readInput(file: string | undefined): string {
  if (file === undefined || file === '-') return readFileSync(0, 'utf8');
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Print the one-line reason for a failure and return the exit code. */
export function reportFailure(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`interlingua: ${error.message}\n`);
    return 2;
  }
  if (isInterlinguaError(error)) {
    const typed = error as InterlinguaError;
    process.stderr.write(`interlingua: ${typed.code}: ${typed.message}\n`);
    return 1;
  }
  process.stderr.write(`interlingua: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 70;
}
