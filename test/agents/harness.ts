/**
 * The agent-CLI cells: a real agent client, headless, through the real
 * compiled proxy (`node dist/cli/main.js serve`) to a strict emulator of
 * one upstream format (test/support/strict), answering a scripted tool
 * loop: one call, then two parallel calls, then a final text with a marker.
 * Each tool call reads a file in the cell's temporary workdir whose content
 * is a token only that file holds, so the upstream can tell which result
 * answers which call. The client's home and config live in the same
 * temporary folder; every proxy variable points at a closed local port, so
 * nothing leaves 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FormatId, Message, Part, Request } from '../../src/core/ir.ts';
import { decodeRequest } from '../../src/formats/convert.ts';
import { startStrictUpstream, type Behaviour, type StrictRequest, type StrictUpstream } from '../support/strict/index.ts';

export const UPSTREAMS: FormatId[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'bedrock-converse', 'ollama'];
export const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

/** How a client's tool reads one file: its tool name and the arguments for an absolute path. */
export interface ReadTool {
  name: string;
  args: (path: string) => Record<string, unknown>;
}

/** One run of a client: the command, its environment and a workdir set up by `prepare`. */
export interface ClientRun {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Extra time (ms) this client needs beyond the default. */
  timeoutMs?: number;
}

/** What a cell tells the client: the proxy's root URL, the temp folder, the prompt, whether reasoning is asked for. */
export interface CellSetup {
  proxy: string;
  home: string;
  work: string;
  prompt: string;
  reasoning: boolean;
}

export interface CellResult {
  stdout: string;
  stderr: string;
  code: number | null;
  timedOut: boolean;
  upstream: StrictUpstream;
  proxyLog: string;
  files: { a: string; b: string; c: string; marker: string };
}

/** The environment every client runs with: no proxy but a dead one, telemetry off. */
export function isolatedEnv(home: string): Record<string, string> {
  const dead = 'http://127.0.0.1:9';
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    TMPDIR: join(home, 'tmp'),
    LANG: 'C.UTF-8',
    HTTP_PROXY: dead,
    HTTPS_PROXY: dead,
    http_proxy: dead,
    https_proxy: dead,
    ALL_PROXY: dead,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    DO_NOT_TRACK: '1',
    CI: '1',
    TERM: 'dumb',
    NO_COLOR: '1',
  };
}

/**
 * The scripted answer to a request, by where the conversation stands: no
 * tool result yet, one call; one result, two parallel calls; three, the
 * final text. Requests without tools (titles, summaries, probes) get a
 * short text and do not advance the loop.
 */
export function loopAnswer(format: FormatId, tool: ReadTool, files: CellResult['files'], wanted: boolean, counter: { tooled: number }) {
  return (request: StrictRequest): Behaviour | undefined => {
    let reasoning = wanted;
    let ir: Request;
    try {
      ir = decodeRequest(format, request.body).ir;
    } catch {
      return undefined;
    }
    if ((ir.tools ?? []).length === 0) return { kind: 'text', text: 'Reading files' };
    const results = ir.messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool_result')).length;
    const turn = typeof request.body['previous_response_id'] === 'string' ? counter.tooled : results === 0 ? 0 : results < 3 ? 1 : 2;
    counter.tooled = turn + 1;
    // A vendor asked to reason answers with reasoning, whatever the cell says.
    const asked = ir.reasoning !== undefined && ir.reasoning.mode !== 'disabled' && ir.reasoning.effort !== 'none';
    reasoning ||= asked;
    const thought = reasoning ? { reasoning: 'Checking the first file.' } : {};
    if (turn === 0) return { kind: 'tool_calls', calls: [{ name: tool.name, arguments: tool.args(files.a) }], ...thought };
    if (turn === 1) return { kind: 'tool_calls', calls: [{ name: tool.name, arguments: tool.args(files.b) }, { name: tool.name, arguments: tool.args(files.c) }], ...(reasoning ? { reasoning: 'Now the other two, at once.' } : {}) };
    return { kind: 'text', text: `All three read. ${files.marker}`, ...(reasoning ? { reasoning: 'Done reading.' } : {}) };
  };
}

/** Start `node dist/cli/main.js serve` in front of `upstream`; resolves with its root URL once it listens. */
export async function startServe(upstream: StrictUpstream): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const args = [CLI, 'serve', '--upstream', upstream.format, '--upstream-url', upstream.url, '--port', '0', '--model-map', '*=test-model', '--api-key-env', 'INTERLINGUA_TEST_UPSTREAM_KEY'];
  if (upstream.format === 'bedrock-converse') args.push('--region', 'us-east-1');
  const env = { PATH: process.env['PATH'] ?? '', INTERLINGUA_TEST_UPSTREAM_KEY: 'upstream-secret', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret-example', NO_PROXY: '*' };
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${log}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^ ]+)/.exec(log);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${log}`)));
  });
  return { url, child, log: () => log };
}

/** The process groups of the clients still running, killed if this process ends first (they run detached). */
const live = new Set<number>();
const killLive = () => {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};
process.once('exit', killLive);
process.once('SIGTERM', () => {
  killLive();
  process.exit(143);
});

/** Run `command` with `env`, killed (process group) after `timeoutMs`. */
export function runProcess(run: ClientRun, timeoutMs: number): Promise<{ stdout: string; stderr: string; code: number | null; timedOut: boolean }> {
  return new Promise((done) => {
    const child = spawn(run.command, run.args, { env: run.env, cwd: run.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) live.add(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      kill();
      if (child.pid !== undefined) live.delete(child.pid);
      done({ stdout, stderr, code, timedOut });
    });
  });
}

/** Run one cell: strict `format` upstream, the proxy, and the client `build` makes. */
export async function runCell(format: FormatId, tool: ReadTool, reasoning: boolean, build: (setup: CellSetup) => ClientRun, timeoutMs = 150_000): Promise<CellResult> {
  const home = mkdtempSync(join(tmpdir(), 'interlingua-agent-'));
  const work = join(home, 'work');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(home, 'tmp'), { recursive: true });
  const token = Math.random().toString(36).slice(2, 8);
  const files = { a: join(work, 'alpha.txt'), b: join(work, 'bravo.txt'), c: join(work, 'charlie.txt'), marker: `MARKER-${token}-DONE` };
  writeFileSync(files.a, `ALPHA-${token}\n`);
  writeFileSync(files.b, `BRAVO-${token}\n`);
  writeFileSync(files.c, `CHARLIE-${token}\n`);
  const upstream = await startStrictUpstream({ format, choose: loopAnswer(format, tool, files, reasoning, { tooled: 0 }) });
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    serve = await startServe(upstream);
    const prompt = `Read alpha.txt, then bravo.txt and charlie.txt, with your file reading tool, and then reply with what they say.`;
    const run = build({ proxy: serve.url, home, work, prompt, reasoning });
    const outcome = await runProcess(run, run.timeoutMs ?? timeoutMs);
    return { ...outcome, upstream, proxyLog: serve.log(), files };
  } finally {
    serve?.child.kill('SIGTERM');
    await upstream.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Text of the parts of a tool result. */
function resultText(parts: Part[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * What went wrong with a cell, `[]` when it held: no refusal, the loop
 * reached the final answer, every tool result answers the call that asked
 * for its file, and the client printed the marker.
 */
export function cellProblems(result: CellResult, tool: ReadTool): string[] {
  const problems: string[] = [];
  const { upstream, files } = result;
  for (const refusal of upstream.refusals()) problems.push(`upstream refused (${refusal.rule}) ${refusal.status}: ${JSON.stringify(refusal.body).slice(0, 400)}`);
  const tooled = upstream.received.filter((received) => received.refusal === undefined && /tools|toolConfig/.test(JSON.stringify(Object.keys(received.body))));
  const last = tooled.at(-1);
  if (last === undefined) problems.push('no request with tools reached the upstream');
  else {
    const ir = decodeRequest(upstream.format, last.body).ir;
    const calls = new Map<string, Record<string, unknown> | undefined>();
    for (const message of ir.messages) for (const part of message.parts) if (part.type === 'tool_call') calls.set(part.id, part.arguments);
    const results = ir.messages.flatMap((message: Message) => message.parts.flatMap((part) => (part.type === 'tool_result' ? [part] : [])));
    if (results.length < 3 && typeof last.body['previous_response_id'] !== 'string') problems.push(`the last request carried ${results.length} tool results, not 3`);
    for (const part of results) {
      const args = calls.get(part.callId);
      if (args === undefined) {
        if (typeof last.body['previous_response_id'] !== 'string') problems.push(`a tool result answers no call: ${part.callId}`);
        continue;
      }
      const path = JSON.stringify(args);
      const expected = [files.a, files.b, files.c].find((file) => path.includes(file.split('/').at(-1) ?? ''));
      const token = expected === undefined ? undefined : expected.split('/').at(-1)?.split('.')[0]?.toUpperCase();
      if (token !== undefined && !resultText(part.content).includes(token)) problems.push(`the result of the call for ${token.toLowerCase()}.txt does not hold its content: ${resultText(part.content).slice(0, 200)}`);
    }
  }
  void tool;
  if (!result.stdout.includes(files.marker)) problems.push(`the client did not print the marker (exit ${result.code}${result.timedOut ? ', timed out' : ''}); stdout: ${result.stdout.slice(-600)} stderr: ${result.stderr.slice(-600)}`);
  return [...new Set(problems)];
}

/** Run `tasks` at most `limit` at a time. */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** One cell of a client's table: its name, and either why it is skipped or how to run it (the problems it found, `[]` when it held). */
export interface Cell {
  name: string;
  skip?: string;
  run?: () => Promise<string[]>;
}

/** How many cells run at once (the machine has 2 cores; the clients mostly wait on each other). */
export const CONCURRENCY = Number(process.env['INTERLINGUA_AGENT_CONCURRENCY'] ?? 3);

/**
 * Register `cells` as a uvu suite: they run `CONCURRENCY` at a time before
 * the first test, and each test then reports its own cell. A skipped cell
 * is a uvu skip, with its reason printed, never a pass.
 */
export function agentSuite(test: { before: (fn: () => Promise<void>) => void; skip: (name: string, fn: () => void) => void } & ((name: string, fn: () => void) => void), cells: Cell[]): void {
  const outcomes = new Map<string, string[]>();
  test.before(async () => {
    const runnable = cells.filter((cell) => cell.skip === undefined && cell.run !== undefined);
    await pool(
      runnable.map((cell) => async () => {
        try {
          outcomes.set(cell.name, await cell.run!());
        } catch (error) {
          outcomes.set(cell.name, [`the cell threw: ${(error as Error).stack ?? String(error)}`]);
        }
      }),
      CONCURRENCY,
    );
  });
  for (const cell of cells) {
    if (cell.skip !== undefined) {
      console.log(`SKIP ${cell.name}: ${cell.skip}`);
      test.skip(`${cell.name} (skipped: ${cell.skip})`, () => {});
      continue;
    }
    test(cell.name, () => {
      const problems = outcomes.get(cell.name) ?? ['the cell did not run'];
      if (problems.length > 0) throw new Error(`${cell.name}:\n  - ${problems.join('\n  - ')}`);
    });
  }
}
