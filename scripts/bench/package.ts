/**
 * What the package costs a user before it converts anything: the CLI's
 * start-up (`node dist/cli/main.js --help`, the installed bin) beside Node's
 * own start-up, the proxy's (`serve`, from the spawn to its listening
 * line), and the size of esbuild browser bundles of the compiled build
 * (`dist/`) for one pair of formats and for the whole main entry.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { start, stop } from './proxy.ts';

/** One bundle: what it imports, its minified and gzipped size. */
export interface BundleSize {
  name: string;
  source: string;
  bytes: number;
  gzipBytes: number;
}

/** Start-up times in milliseconds, the median of the runs. */
export interface StartupTimes {
  runs: number;
  cliHelpMs: number;
  nodeMs: number;
  /** `serve` with an OpenAI Chat upstream, from the spawn to the line saying it listens. */
  serveMs: number;
}

export interface PackageRun {
  startup: StartupTimes;
  bundles: BundleSize[];
}

/** The bundles measured: what a browser or edge user would write. */
function bundleSources(dist: string): Array<{ name: string; source: string }> {
  const at = (path: string) => JSON.stringify(join(dist, path));
  return [
    {
      name: 'OpenAI Chat → Anthropic request, codec functions (`interlingua/core` + two format subpaths)',
      source: `import { convertRequest } from ${at('core/index.js')};
import { decodeOpenaiChatRequest } from ${at('providers/openai-chat/index.js')};
import { encodeAnthropicRequest } from ${at('providers/anthropic/index.js')};
export const run = (body) => convertRequest(body, { from: { decodeRequest: decodeOpenaiChatRequest }, to: { encodeRequest: encodeAnthropicRequest } });`,
    },
    {
      name: 'OpenAI Chat ⇄ Anthropic, whole codecs with streams (`interlingua/core` + two codec objects)',
      source: `import { convertRequest, convertStream } from ${at('core/index.js')};
import { openaiChatCodec } from ${at('providers/openai-chat/index.js')};
import { anthropicCodec } from ${at('providers/anthropic/index.js')};
export const run = (body) => convertRequest(body, { from: openaiChatCodec, to: anthropicCodec });
export const stream = (readable) => convertStream(readable, { from: openaiChatCodec, to: anthropicCodec });`,
    },
    {
      name: 'every format (`interlingua` main entry: convertRequest, convertStream)',
      source: `import { convertRequest, convertStream } from ${at('index.js')};
export const run = (body) => convertRequest(body, { from: 'openai-chat', to: 'anthropic' });
export const stream = (readable) => convertStream(readable, { from: 'openai-chat', to: 'anthropic' });`,
    },
  ];
}

async function bundleSize(directory: string, name: string, source: string): Promise<BundleSize> {
  const entry = join(directory, `${name.length}-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(entry, source);
  const result = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { name, source, bytes: code.byteLength, gzipBytes: gzipSync(code).byteLength };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function timeMs(command: string, args: string[]): number {
  const start = process.hrtime.bigint();
  execFileSync(command, args, { stdio: 'ignore' });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Milliseconds from spawning `node CLI serve` (an OpenAI Chat upstream; nothing is called) to its listening line; the process is then stopped. */
async function serveStartMs(cli: string, cwd: string): Promise<number> {
  const began = process.hrtime.bigint();
  const { child } = await start([cli, 'serve', '--upstream', 'openai-chat', '--upstream-url', 'http://127.0.0.1:9/v1', '--port', '0'], cwd, /proxy listening on/);
  const elapsed = Number(process.hrtime.bigint() - began) / 1e6;
  await stop(child);
  return elapsed;
}

/** Measure start-up (alternating CLI and bare Node runs, then serve) and bundle sizes of the compiled build in `root/dist`. */
export async function runPackage(root: string, runs = 15): Promise<PackageRun> {
  const dist = join(root, 'dist');
  const cli = join(dist, 'cli/main.js');
  const cliTimes: number[] = [];
  const nodeTimes: number[] = [];
  timeMs(process.execPath, [cli, '--help']);
  for (let index = 0; index < runs; index++) {
    cliTimes.push(timeMs(process.execPath, [cli, '--help']));
    nodeTimes.push(timeMs(process.execPath, ['-e', '0']));
  }
  const serveTimes: number[] = [];
  await serveStartMs(cli, root);
  for (let index = 0; index < runs; index++) serveTimes.push(await serveStartMs(cli, root));
  const directory = mkdtempSync(join(tmpdir(), 'interlingua-bundle-'));
  try {
    const bundles: BundleSize[] = [];
    for (const { name, source } of bundleSources(dist)) bundles.push(await bundleSize(directory, name, source));
    return { startup: { runs, cliHelpMs: median(cliTimes), nodeMs: median(nodeTimes), serveMs: median(serveTimes) }, bundles };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
