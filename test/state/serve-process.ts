/** `serve` for the state tests: the shared child-process helper, with `STATE_KEY` set for `--api-key-env STATE_KEY`. */
import { startServe as startServeProcess, type ServeProcess } from '../support/serve-process.ts';

export type { ServeProcess };

/** Starts `serve` with `args`, `STATE_KEY` in its environment beside `env`. */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  return startServeProcess(args, { STATE_KEY: 'upstream-secret', ...env });
}
