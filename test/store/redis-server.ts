/**
 * A real `redis-server` (Debian's package) for the Redis store's tests:
 * started on a free loopback port with a temporary folder, no persistence,
 * and stopped by the test. Where the binary is missing the tests skip,
 * saying how to install it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running server. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** The server's process id. */
  readonly pid: number | undefined;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The path of `redis-server`, or why there is none. */
export function findRedisServer(): { path: string } | { missing: string } {
  for (const path of ['redis-server', '/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    const probe = spawnSync(path, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return { path };
  }
  return { missing: 'redis-server is not installed (apt-get install -y redis-server)' };
}

/** A port no one listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500, () => (socket.destroy(), resolve(false)));
    socket.on('error', () => resolve(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))));
  });
}

/** Starts `redis-server` at `path` on a free port (or `port`) and waits until it answers PING. */
export async function startRedisServer(path: string, port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const folder = mkdtempSync(join(tmpdir(), 'interlingua-redis-'));
  const child: ChildProcess = spawn(path, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder], { stdio: ['ignore', 'ignore', 'pipe'] });
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (!exited) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (exited) break;
    if (await answersPing(chosen)) return { url: `redis://127.0.0.1:${chosen}`, port: chosen, pid: child.pid, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server on port ${chosen} did not answer PING`);
}
