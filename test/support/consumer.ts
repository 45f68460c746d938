/**
 * Helpers of the consumer test: build and pack the package once, install the
 * tarball into a throwaway project, find the runtime binaries that the
 * `bun`, `deno` and `workerd` devDependencies installed, run child processes
 * without leaving any behind, and a fake Anthropic upstream on 127.0.0.1 that
 * answers with recorded corpus bodies, byte for byte.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'consumer');

/** esbuild's options for a Worker bundle as wrangler makes it: ESM, platform neutral (no Node built-ins), the worker conditions. */
export const WORKER_BUNDLE: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['browser', 'module', 'main'],
  logLevel: 'silent',
};
export const CORPUS = join(ROOT, 'test', 'corpus');

/** What a finished child process said. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to its end (never rejects; a spawn failure is code null with the reason in stderr). */
export function run(command: string, args: readonly string[], options: SpawnOptions & { timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs ?? 120_000} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}\n${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A failed run as one readable message. */
export function describe(what: string, ran: Ran): string {
  return `${what} exited with ${String(ran.code)}\n--- stdout\n${ran.stdout.slice(-4000)}\n--- stderr\n${ran.stderr.slice(-4000)}`;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The packed and installed package: the throwaway project and what the tarball holds. */
export interface Installed {
  /** The throwaway project: `node_modules/interlingua` from the tarball, and the fixture files. */
  app: string;
  tarball: string;
  /** Paths inside the tarball. */
  files: string[];
  /** Where all temporary files live (removed by `cleanup`). */
  temp: string;
  /** Seconds spent on build, pack and install. */
  timings: Record<string, number>;
}

async function timed<T>(timings: Record<string, number>, name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[name] = Math.round(performance.now() - started) / 1000;
  }
}

async function mtimes(dir: string): Promise<number[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(entries.filter((entry) => entry.isFile()).map(async (entry) => (await stat(join(entry.parentPath, entry.name))).mtimeMs));
}

/** True when every file of dist/ was written after the last change to src/, package.json and the tsconfigs (a build step ran just before). */
async function distIsFresh(): Promise<boolean> {
  if (!existsSync(join(ROOT, 'dist'))) return false;
  const built = await mtimes(join(ROOT, 'dist'));
  if (built.length === 0) return false;
  const configs = (await readdir(ROOT)).filter((name) => name === 'package.json' || /^tsconfig.*\.json$/.test(name));
  const sources = [...(await mtimes(join(ROOT, 'src'))), ...(await Promise.all(configs.map(async (name) => (await stat(join(ROOT, name))).mtimeMs)))];
  return Math.min(...built) > Math.max(...sources);
}

/**
 * `npm run build` (unless dist/ is fresher than everything it is built
 * from), `npm pack` of the checkout, and `npm install <tarball>`
 * into a fresh project in a temp folder, with the fixtures copied beside it.
 * Throws with the command's output when a step fails.
 */
export async function buildPackAndInstall(): Promise<Installed> {
  const timings: Record<string, number> = {};
  const temp = await mkdtemp(join(tmpdir(), 'interlingua-consumer-'));
  const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  if (await distIsFresh()) {
    console.log('consumer: dist/ is newer than src/, package.json and the tsconfigs; packing it as built');
  } else {
    const built = await timed(timings, 'build', () => run(npm, ['run', 'build'], { cwd: ROOT, env, timeoutMs: 300_000 }));
    if (built.code !== 0) throw new Error(describe('npm run build', built));
  }
  // The build ran just above, so the pack skips lifecycle scripts (a `prepack` build would run it twice).
  const packed = await timed(timings, 'pack', () => run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', temp], { cwd: ROOT, env }));
  if (packed.code !== 0) throw new Error(describe('npm pack', packed));
  const [summary] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  if (summary === undefined) throw new Error(`npm pack printed no summary: ${packed.stdout}`);
  const tarball = join(temp, summary.filename);
  const app = join(temp, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', version: '0.0.0', private: true, type: 'module' }, null, 2));
  const installed = await timed(timings, 'install', () =>
    run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-save', tarball], { cwd: app, env, timeoutMs: 300_000 }),
  );
  if (installed.code !== 0) throw new Error(describe('npm install <tarball>', installed));
  await cp(FIXTURES, app, { recursive: true });
  return { app, tarball, files: summary.files.map((file) => file.path), temp, timings };
}

/** A runtime binary, or why there is none. */
export type Binary = { path: string; version: string } | { missing: string };

const ARCH: Record<string, { bun: string; deno: string; workerd: string } | undefined> = {
  x64: { bun: 'x64', deno: 'x64', workerd: '64' },
  arm64: { bun: 'aarch64', deno: 'arm64', workerd: 'arm64' },
};

/**
 * The binary of `bun`, `deno` or `workerd` from the devDependency that ships
 * it: first the platform package (its binary is there whether or not npm ran
 * the wrapper's install script, which npm 11 may hold back for approval),
 * then the wrapper's own copy (where the install script moved it). Each
 * candidate must answer `--version`.
 */
export function findRuntime(name: 'bun' | 'deno' | 'workerd'): Binary {
  const arch = ARCH[process.arch];
  const platform = process.platform;
  const candidates: string[] = [];
  if (arch !== undefined) {
    if (name === 'bun') candidates.push(`@oven/bun-${platform}-${arch.bun}/bin/bun`);
    if (name === 'deno') candidates.push(`@deno/${platform}-${arch.deno}-glibc/deno`, `@deno/${platform}-${arch.deno}/deno`);
    if (name === 'workerd') candidates.push(`@cloudflare/workerd-${platform}-${arch.workerd}/bin/workerd`);
  }
  candidates.push({ bun: 'bun/bin/bun.exe', deno: 'deno/deno', workerd: 'workerd/bin/workerd' }[name]);
  const tried: string[] = [];
  for (const candidate of candidates) {
    const path = join(ROOT, 'node_modules', candidate);
    if (!existsSync(path)) {
      tried.push(`${candidate}: not installed`);
      continue;
    }
    const answer = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    if (answer.status === 0) return { path, version: answer.stdout.trim().split('\n')[0] ?? '' };
    tried.push(`${candidate}: --version failed (${answer.error?.message ?? answer.stderr.trim().slice(0, 200)})`);
  }
  return { missing: `no working ${name} binary for ${platform}-${process.arch} from the ${name} devDependency (npm ci installs it); tried ${tried.join('; ')}` };
}

/** A long-running child that announced itself with one line. */
export interface Started {
  child: ChildProcess;
  /** The first line the child wrote on its announcement stream. */
  line: string;
  stderr: () => string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Spawn a server process and wait for its first line on `announceFd` (1 is
 * stdout; workerd reports its port on a control descriptor). Rejects with its
 * output when it exits or stays silent too long.
 */
export function startServer(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; announceFd?: number; timeoutMs?: number }): Promise<Started> {
  const fd = options.announceFd ?? 1;
  const stdio: SpawnOptions['stdio'] = fd === 1 ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe'];
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio });
  running.add(child);
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      if (fd !== 1) child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
  };
  return new Promise((resolve, reject) => {
    const announce = child.stdio[fd] as NodeJS.ReadableStream | null;
    let buffer = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} ${args.join(' ')} did not announce itself within ${options.timeoutMs ?? 60_000} ms\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    if (fd !== 1) child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    announce?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (fd === 1) stdout += chunk.toString('utf8');
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      resolve({ child, line: buffer.slice(0, end), stderr: () => stderr, stop });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      reject(new Error(`${command} ${args.join(' ')} exited (${String(code ?? signal)}) before announcing itself\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
    });
  });
}

/** One request the fake upstream received. */
export interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** The fake Anthropic upstream: recorded bodies, whole or streamed. */
export interface RecordedUpstream {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Serve `POST /v1/messages` on 127.0.0.1 with a recorded JSON body, or a recorded SSE stream when the request says `stream: true`. */
export async function startRecordedUpstream(wholePath: string, streamPath: string): Promise<RecordedUpstream> {
  const whole = await readFile(wholePath);
  const streamed = await readFile(streamPath);
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      received.push({ url: request.url ?? '', headers: request.headers, body });
      if (request.method !== 'POST' || request.url !== '/v1/messages') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${request.method ?? ''} ${request.url ?? ''}` } }));
        return;
      }
      if (body['stream'] === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // Two writes, so the converter sees an event split across chunks.
        const half = Math.floor(streamed.length / 2);
        response.write(streamed.subarray(0, half));
        setTimeout(() => response.end(streamed.subarray(half)), 5);
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(whole);
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Remove the temp folder (kept when INTERLINGUA_KEEP_CONSUMER is set, for debugging). */
export async function cleanup(installed: Installed | undefined): Promise<void> {
  if (installed === undefined) return;
  if (process.env['INTERLINGUA_KEEP_CONSUMER'] !== undefined) {
    console.log(`consumer projects kept in ${installed.temp}`);
    return;
  }
  await rm(installed.temp, { recursive: true, force: true });
}

/** The data payloads of an SSE text (`[DONE]` dropped). */
export function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as unknown);
}
