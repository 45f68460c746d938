/** `interlingua serve` (the compiled build) as a child process on a free port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './fixtures.ts';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

/** A running `serve`. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it exited. */
  stop(): Promise<void>;
}

/** Starts `serve` with `args`, its environment only PATH, HOME and `env`; resolves with its URL once it listens. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
