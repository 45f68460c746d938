/**
 * `interlingua normalize` throughput and memory: the compiled CLI in a child
 * process per row, over a JSONL file of recorded exchanges made from the
 * golden cross cases of every format (each line with its own start time),
 * written to a temporary folder and deleted after. Rows: JSONL → JSONL and
 * JSONL → Parquet with `--jobs 1` and `--jobs 2`, OTLP trace lines →
 * Parquet (the inputs fixture repeated), and a large input
 * (about 1 GB in a full run, a 256 KB image every 20 lines) for peak RSS
 * in bounded memory.
 * Peak RSS is the child's own `maxRSS` (worker threads included), written by
 * `normalize-rss.mjs` as the child exits.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One measured run. */
export interface NormalizeBenchRow {
  name: string;
  inputBytes: number;
  records: number;
  seconds: number;
  recordsPerSecond: number;
  megabytesPerSecond: number;
  /** Peak resident set size of the whole process, bytes. */
  peakRss: number;
  /** CPU time of the process (all threads, user + system), seconds: on a shared machine a steadier figure than the wall clock. */
  cpuSeconds: number;
}

const URLS: Record<string, string> = {
  anthropic: 'https://api.anthropic.com/v1/messages',
  'openai-chat': 'https://api.openai.com/v1/chat/completions',
  'openai-responses': 'https://api.openai.com/v1/responses',
  gemini: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
  ollama: 'http://localhost:11434/api/chat',
  'bedrock-converse': 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/converse',
};

/** One exchange per golden cross case and format, as JSONL lines without their start time. */
function templates(root: string): string[] {
  const dir = join(root, 'golden', 'cross');
  const lines: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    for (const [format, url] of Object.entries(URLS)) {
      const request = join(dir, name, `${format}.request.json`);
      const response = join(dir, name, `${format}.response.json`);
      if (!existsSync(request) || !existsSync(response)) continue;
      const body = (file: string) => JSON.stringify(JSON.parse(readFileSync(file, 'utf8')));
      lines.push(`"url":${JSON.stringify(url)},"status":200,"duration_ms":840,"request":${body(request)},"response":${body(response)}}`);
    }
  }
  return lines;
}

/** An Anthropic exchange with a 256 KB base64 image (the same bytes each time: one blob, hashed on every line). */
function mediaTemplate(): string {
  const image = Buffer.alloc(192 * 1024, 0);
  image.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let index = 8; index < image.length; index++) image[index] = index % 251;
  const request = { model: 'claude-media', max_tokens: 64, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.toString('base64') } }, { type: 'text', text: 'Describe it.' }] }] };
  const response = { id: 'msg_media', type: 'message', role: 'assistant', model: 'claude-media', content: [{ type: 'text', text: 'A gradient.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 300, output_tokens: 4 } };
  return `"url":"${URLS['anthropic']}","status":200,"duration_ms":1200,"request":${JSON.stringify(request)},"response":${JSON.stringify(response)}}`;
}

/**
 * Write about `bytes` of JSONL to `file`, in 4 MB writes (never the whole
 * file in memory); with `mediaEvery`, every that-many lines one carries a
 * 256 KB image, as traffic with images does.
 */
function generate(root: string, file: string, bytes: number, mediaEvery = 0): number {
  const lines = templates(root);
  const media = mediaEvery > 0 ? mediaTemplate() : '';
  const handle = openSync(file, 'w');
  let written = 0;
  let count = 0;
  const start = Date.parse('2026-01-01T00:00:00Z');
  try {
    while (written < bytes) {
      let chunk = '';
      while (chunk.length < 4 * 1024 * 1024 && written + chunk.length < bytes) {
        const template = mediaEvery > 0 && count % mediaEvery === mediaEvery - 1 ? media : (lines[count % lines.length] ?? '');
        chunk += `{"started_at":"${new Date(start + count * 1000).toISOString()}",${template}\n`;
        count++;
      }
      written += writeSync(handle, chunk);
    }
  } finally {
    closeSync(handle);
  }
  return count;
}

function measure(root: string, name: string, input: string, out: string, args: string[]): NormalizeBenchRow {
  const rss = pathToFileURL(join(root, 'scripts', 'bench', 'normalize-rss.mjs')).href;
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', rss, join(root, 'dist', 'cli', 'main.js'), 'normalize', '--out', out, ...args, input], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`normalize ${args.join(' ')} exited ${result.status}: ${result.stderr.slice(-500)}`);
  const peak = Number(/bench-rss (\d+)/.exec(result.stderr)?.[1] ?? 0) * 1024;
  const cpuSeconds = Number(/bench-cpu (\d+)/.exec(result.stderr)?.[1] ?? 0) / 1e6;
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { read: number };
  const inputBytes = statSync(input).size;
  rmSync(out, { recursive: true, force: true });
  return { name, inputBytes, records: summary.read, seconds, recordsPerSecond: summary.read / seconds, megabytesPerSecond: inputBytes / 1e6 / seconds, peakRss: peak, cpuSeconds };
}

/** The normalize rows: throughput on `mediumBytes`, RSS on `largeBytes`. */
export function runNormalizeBench(root: string, options: { mediumBytes: number; largeBytes: number; progress: (row: NormalizeBenchRow) => void }): NormalizeBenchRow[] {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-bench-normalize-'));
  const rows: NormalizeBenchRow[] = [];
  try {
    const medium = join(dir, 'medium.jsonl');
    generate(root, medium, options.mediumBytes);
    const cases: [string, string[]][] = [
      ['JSONL → JSONL (IR), --jobs 1', ['--jobs', '1']],
      ['JSONL → JSONL (IR), --jobs 2', ['--jobs', '2']],
      ['JSONL → Parquet, --jobs 1', ['--jobs', '1', '--out-format', 'parquet']],
      ['JSONL → Parquet, --jobs 2', ['--jobs', '2', '--out-format', 'parquet']],
      ['JSONL → JSONL (--to openai-chat), --jobs 1', ['--jobs', '1', '--to', 'openai-chat']],
      ['JSONL → JSONL (--to openai-chat), --jobs 2', ['--jobs', '2', '--to', 'openai-chat']],
    ];
    for (const [name, args] of cases) {
      const row = measure(root, name, medium, join(dir, 'out'), args);
      rows.push(row);
      options.progress(row);
    }
    rmSync(medium, { force: true });
    // OTLP traces (the collector's file exporter, one ExportTraceServiceRequest per line): the inputs fixture's lines, repeated.
    const otlp = join(dir, 'otlp.jsonl');
    const spans = readFileSync(join(root, 'test', 'fixtures', 'normalize', 'inputs', 'otlp.jsonl'), 'utf8').trimEnd();
    const handle = openSync(otlp, 'w');
    try {
      for (let written = 0; written < options.mediumBytes; ) written += writeSync(handle, `${spans}\n`);
    } finally {
      closeSync(handle);
    }
    const otlpRow = measure(root, 'OTLP JSON lines → Parquet, --jobs 1', otlp, join(dir, 'out'), ['--jobs', '1', '--out-format', 'parquet']);
    rows.push(otlpRow);
    options.progress(otlpRow);
    rmSync(otlp, { force: true });
    const large = join(dir, 'large.jsonl');
    generate(root, large, options.largeBytes, 20);
    const row = measure(root, `large input (${(options.largeBytes / 1e9).toFixed(2)} GB, a 256 KB image every 20 lines) → JSONL, --jobs 2`, large, join(dir, 'out'), ['--jobs', '2']);
    rows.push(row);
    options.progress(row);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function cells(row: NormalizeBenchRow): string[] {
  return [
    row.name,
    `${(row.inputBytes / 1e6).toFixed(1)} MB`,
    row.records.toLocaleString('en-US'),
    `${row.seconds.toFixed(1)} s`,
    `${row.cpuSeconds.toFixed(1)} s`,
    Math.round(row.recordsPerSecond).toLocaleString('en-US'),
    row.megabytesPerSecond.toFixed(1),
    mib(row.peakRss),
  ];
}

const HEAD = ['run', 'input', 'records', 'wall', 'CPU (all threads)', 'records/s', 'MB/s', 'peak RSS'];

/** The markdown section of the normalize rows. */
export function normalizeSection(rows: readonly NormalizeBenchRow[], loadAtStart: string): string {
  if (rows.length === 0) return '';
  const lines = [
    '## Normalize',
    '',
    `\`interlingua normalize\` (the compiled CLI, one child process per row) over generated JSONL exchanges of every format (the golden cross cases, each line with its own start time); records/s and MB/s by the wall clock, CPU summed over threads. Load average at the start of the run: ${loadAtStart}: on a shared machine \`--jobs 2\` gains only where a second core is free, and costs the worker threads' start-up (each loads the codecs) and the copy of every task to a thread and back.`,
    '',
    `| ${HEAD.join(' | ')} |`,
    `| ${HEAD.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${cells(row).join(' | ')} |`),
    '',
  ];
  return lines.join('\n');
}

/** The console lines of the normalize rows. */
export function normalizeConsole(rows: readonly NormalizeBenchRow[]): string {
  if (rows.length === 0) return '';
  return ['\nNormalize', ...rows.map((row) => `  ${cells(row).join('  ')}`)].join('\n');
}
