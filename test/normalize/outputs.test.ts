/**
 * The outputs of `interlingua normalize`, through the real CLI: Parquet read
 * back with DuckDB (column types, row counts, the queries docs/NORMALIZE.md
 * documents, Hive partitions), JSONL without shape hints, `--shard K/N`
 * giving one dataset with the ids of one run, replayable request bodies
 * (`--out-format requests`), and the regressions of issue 38: a deeply
 * nested entry (#3), hostile `$blob` references (#10), two runs into one
 * `--out` (#11).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeRequest } from '../../src/formats/convert.ts';
import { detectFormat } from '../../src/core/detect.ts';
import { isInterlinguaError } from '../../src/core/errors.ts';
import type { FormatId } from '../../src/core/ir.ts';
import { resolveBlobs } from '../../src/normalize/blob-store.ts';
import { normalizeFiles } from '../../src/normalize/run.ts';
import type { ErrorRecord, NormalizedRecord, NormalizeSummary } from '../../src/normalize/types.ts';
import { REPO_ROOT } from '../support/fixtures.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'normalize');
const INPUTS = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.jsonl') || name.endsWith('.har'))
  .sort()
  .map((name) => join(FIXTURES, name));
const BIN = join(REPO_ROOT, 'bin', 'interlingua.js');
const golden = (name: string) => readFileSync(join(REPO_ROOT, 'golden', 'cross', 'plain-chat', name), 'utf8');

function cli(args: string[], cwd = REPO_ROOT) {
  const result = spawnSync(process.execPath, [BIN, 'normalize', ...args], { encoding: 'utf8', cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function temp(label: string): string {
  return mkdtempSync(join(tmpdir(), `interlingua-outputs-${label}-`));
}

function readLines<T>(file: string): T[] {
  const text = readFileSync(file, 'utf8');
  return text === '' ? [] : text.trimEnd().split('\n').map((line) => JSON.parse(line) as T);
}

/** A HAR entry of the plain Anthropic call, padded so the file is big enough for worker threads. */
function harEntry(extra: Record<string, unknown> = {}) {
  return {
    startedDateTime: '2026-03-04T05:06:07.000Z',
    time: 120,
    request: { method: 'POST', url: 'https://api.anthropic.com/v1/messages', postData: { mimeType: 'application/json', text: golden('anthropic.request.json') } },
    response: { status: 200, content: { mimeType: 'application/json', text: golden('anthropic.response.json') } },
    _padding: 'x'.repeat(400_000),
    ...extra,
  };
}

function cliAsync(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'normalize', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('close', (code) => done({ code, stderr }));
  });
}

function records(dir: string, name = 'records.jsonl'): NormalizedRecord[] {
  return readLines<NormalizedRecord>(join(dir, name));
}

function summaryOf(dir: string, name = 'summary.json'): NormalizeSummary {
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as NormalizeSummary;
}

/** An Anthropic exchange with a tool result marked as an error, a tool call in the answer and cache usage: what the fixtures lack. */
function toolExchange(day: string, isError: boolean) {
  return {
    url: 'https://api.anthropic.com/v1/messages',
    started_at: `${day}T10:00:00.000Z`,
    duration_ms: 900,
    ttft_ms: 150,
    request: {
      model: 'claude-tools',
      max_tokens: 100,
      stream: false,
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'look it up' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'lookup', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', is_error: isError, content: isError ? 'failed' : 'found' }] },
      ],
    },
    response: {
      id: `msg_${day}_${isError}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-tools-20260101',
      content: [{ type: 'tool_use', id: 'toolu_b', name: 'lookup', input: { again: true } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 12, cache_read_input_tokens: 60, cache_creation_input_tokens: 0 },
    },
  };
}

/** The fixtures plus three tool exchanges on two days, in a temporary folder. */
function analystInputs(): string[] {
  const dir = temp('inputs');
  const file = join(dir, 'tools.jsonl');
  writeFileSync(file, [toolExchange('2026-01-01', true), toolExchange('2026-01-01', false), toolExchange('2026-01-02', false)].map((line) => JSON.stringify(line)).join('\n') + '\n');
  return [...INPUTS, file];
}

const test = suite('normalize outputs');

// DuckDB reads the Parquet back. Where its binding cannot load, the Parquet tests are skipped with a message, never passed.
let duckdb: typeof import('@duckdb/node-api') | undefined;
try {
  duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
} catch (error) {
  process.stderr.write(`outputs.test.ts: @duckdb/node-api cannot load (${(error as Error).message}); the Parquet tests are SKIPPED\n`);
}
const withDuckdb = duckdb === undefined ? test.skip : test;

async function query(sql: string): Promise<Record<string, unknown>[]> {
  if (duckdb === undefined) throw new Error('no DuckDB');
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
  }
}

const DOC = readFileSync(join(REPO_ROOT, 'docs', 'NORMALIZE.md'), 'utf8');

/** The documented queries: each sql block of docs/NORMALIZE.md, by its first comment line. */
function documentedQueries(): Map<string, string> {
  const queries = new Map<string, string>();
  for (const match of DOC.matchAll(/```sql\n-- (.+)\n([\s\S]*?)```/g)) queries.set(match[1] ?? '', match[2] ?? '');
  return queries;
}

/** The documented columns: name and DuckDB type, in order, from the table of docs/NORMALIZE.md. */
function documentedColumns(): [string, string][] {
  const section = DOC.slice(DOC.indexOf('## Parquet columns'), DOC.indexOf('## Queries'));
  return [...section.matchAll(/^\| `([a-z_]+)` \| ([A-Z[\]]+) \|/gm)].map((match) => [match[1] ?? '', match[2] ?? '']);
}

const stringOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value));
const round4 = (value: number) => Math.round(value * 10_000) / 10_000;
type Ir = { messages?: { parts: { type: string; isError?: boolean }[] }[] };
type IrResponse = { model?: string; usage?: { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; cacheReadTokens?: number } };

function sumOrNull(values: (number | undefined)[]): string | null {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? null : String(known.reduce((a, b) => a + b, 0));
}

function groupBy<T>(items: T[], key: (item: T) => (string | null)[]): [(string | null)[], T[]][] {
  const groups = new Map<string, [(string | null)[], T[]]>();
  for (const item of items) {
    const parts = key(item);
    const id = JSON.stringify(parts);
    if (!groups.has(id)) groups.set(id, [parts, []]);
    groups.get(id)?.[1].push(item);
  }
  const order = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return [...groups.values()].sort((a, b) => a[0].map((part, index) => order(part, b[0][index] ?? null)).find((c) => c !== 0) ?? 0);
}

/** What each documented question answers, computed from the JSONL records of the same inputs. */
function expectedAnswers(jsonl: NormalizedRecord[]): Map<string, Record<string, unknown>[]> {
  const answered = (record: NormalizedRecord) => (record.response as IrResponse | undefined)?.model ?? record.model ?? null;
  const usage = (record: NormalizedRecord) => (record.response as IrResponse | undefined)?.usage;
  const results = (record: NormalizedRecord) => ((record.request as Ir | undefined)?.messages ?? []).flatMap((message) => message.parts).filter((part) => part.type === 'tool_result');
  const answers = new Map<string, Record<string, unknown>[]>();
  answers.set('tokens by model and day', groupBy(jsonl, (record) => [record.timing?.startedAt?.slice(0, 10) ?? null, answered(record)]).map(([[day, model], group]) => ({
    day, model, calls: String(group.length),
    input_tokens: sumOrNull(group.map((record) => usage(record)?.inputTokens)),
    output_tokens: sumOrNull(group.map((record) => usage(record)?.outputTokens)),
    reasoning_tokens: sumOrNull(group.map((record) => usage(record)?.reasoningTokens)),
  })));
  const withResults = jsonl.filter((record) => results(record).length > 0);
  answers.set('tool-call error rates by tool-calling model', groupBy(withResults, (record) => [stringOrNull(record.model)]).map(([[model], group]) => {
    const total = group.reduce((sum, record) => sum + results(record).length, 0);
    const failed = group.reduce((sum, record) => sum + results(record).filter((part) => part.isError === true).length, 0);
    return { model, tool_results: String(total), tool_errors: String(failed), tool_error_rate: round4(failed / total) };
  }));
  const withInput = jsonl.filter((record) => (usage(record)?.inputTokens ?? 0) > 0);
  answers.set('cache hit ratio by model', groupBy(withInput, (record) => [answered(record)]).map(([[model], group]) => {
    const read = group.map((record) => usage(record)?.cacheReadTokens);
    const input = group.reduce((sum, record) => sum + (usage(record)?.inputTokens ?? 0), 0);
    return { model, cache_read_tokens: sumOrNull(read), input_tokens: String(input), cache_hit_ratio: round4(read.reduce<number>((sum, value) => sum + (value ?? 0), 0) / input) };
  }));
  return answers;
}

withDuckdb('Parquet: the documented columns and types, one row per record, and each documented query answers as the JSONL records do, partitioned or not', async () => {
  const inputs = analystInputs();
  const dir = temp('parquet');
  const [jsonl, flat, hive] = ['jsonl', 'flat', 'hive'].map((name) => join(dir, name)) as [string, string, string];
  for (const [out, extra] of [[jsonl, []], [flat, ['--out-format', 'parquet']], [hive, ['--out-format', 'parquet', '--partition']]] as const) {
    const run = cli(['--out', out, ...extra, ...inputs]);
    assert.is(run.code, 0, run.stderr);
  }
  const expected = records(jsonl);
  const file = join(flat, 'records.parquet');
  const columns = await query(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  assert.equal(columns.map((column) => [column['column_name'], column['column_type']]), documentedColumns(), 'the file has the columns docs/NORMALIZE.md lists, with its types, in its order');
  assert.ok(documentedColumns().length >= 40);
  const rows = await query(`SELECT id, format, model_requested, tool_names, loss_codes, stream, started_at, time_to_first_token_ms, request_json FROM read_parquet('${file}') ORDER BY id`);
  assert.is(rows.length, summaryOf(flat).written);
  assert.is(rows.length, expected.length);
  const byId = new Map(expected.map((record) => [record.id, record]));
  for (const row of rows) {
    const record = byId.get(String(row['id']));
    assert.ok(record !== undefined, `row ${String(row['id'])} is a record of the JSONL run`);
    assert.is(row['format'], record?.format);
    assert.equal(row['loss_codes'], [...new Set(record?.losses.map((loss) => loss.code))].sort());
    assert.equal(row['request_json'] === null ? undefined : JSON.parse(String(row['request_json'])), record?.request);
  }
  const tools = rows.filter((row) => row['model_requested'] === 'claude-tools').sort((a, b) => String(a['started_at']).localeCompare(String(b['started_at'])));
  assert.equal(tools.map((row) => [row['tool_names'], row['stream'], row['started_at'], row['time_to_first_token_ms']]), [
    [['lookup'], false, '2026-01-01 10:00:00', 150], [['lookup'], false, '2026-01-01 10:00:00', 150], [['lookup'], false, '2026-01-02 10:00:00', 150],
  ]);

  const queries = documentedQueries();
  assert.ok(queries.size >= 4, [...queries.keys()].join(', '));
  const answers = expectedAnswers(expected);
  for (const [question, sql] of queries) {
    const flatRows = await query(sql.replaceAll("'normalized/", `'${flat}/`));
    const hiveRows = await query(sql.replaceAll("'normalized/", `'${hive}/`));
    assert.equal(hiveRows, flatRows, `${question}: the Hive layout answers as the single file`);
    assert.ok(flatRows.length > 0, question);
    const answer = answers.get(question);
    if (answer !== undefined) assert.equal(flatRows, answer, question);
  }
  assert.ok(answers.get('tool-call error rates by tool-calling model')?.some((row) => row['model'] === 'claude-tools' && row['tool_error_rate'] === 0.3333));
  assert.ok(answers.get('cache hit ratio by model')?.some((row) => row['model'] === 'claude-tools-20260101' && row['cache_hit_ratio'] === 0.6));
});

withDuckdb('Parquet --partition: date=YYYY-MM-DD/format=F/part-1-of-1.parquet, format only in the folder name, a missing day as the Hive null', async () => {
  const inputs = analystInputs();
  const out = join(temp('hive'), 'out');
  const run = cli(['--out', out, '--out-format', 'parquet', '--partition', ...inputs]);
  assert.is(run.code, 0, run.stderr);
  const folders = readdirSync(out).filter((name) => name.startsWith('date=')).sort();
  assert.ok(folders.includes('date=2026-01-01') && folders.includes('date=2026-01-02') && folders.includes('date=__HIVE_DEFAULT_PARTITION__'), folders.join(' '));
  assert.equal(readdirSync(join(out, 'date=2026-01-02')), ['format=anthropic']);
  assert.equal(readdirSync(join(out, 'date=2026-01-02', 'format=anthropic')), ['part-1-of-1.parquet']);
  const inFile = await query(`DESCRIBE SELECT * FROM read_parquet('${join(out, 'date=2026-01-02', 'format=anthropic', 'part-1-of-1.parquet')}', hive_partitioning = false)`);
  assert.not.ok(inFile.some((column) => column['column_name'] === 'format'), 'the partition key is not also a column of the file');
  const counts = await query(`SELECT format, date, count(*) AS n FROM read_parquet('${out}/**/*.parquet') GROUP BY ALL ORDER BY format, date NULLS LAST`);
  const summary = summaryOf(out);
  assert.is(counts.reduce((sum, row) => sum + Number(row['n']), 0), summary.written);
  const byFormat: Record<string, number> = {};
  for (const row of counts) byFormat[String(row['format'])] = (byFormat[String(row['format'])] ?? 0) + Number(row['n']);
  assert.equal(byFormat, summary.byFormat);
  assert.ok(counts.some((row) => row['date'] === null), 'rows without a start time have a null day');
  assert.ok(counts.some((row) => row['format'] === 'anthropic' && String(row['date']) === '2026-01-02' && row['n'] === '1'));
});

test('issue 38 #3: an entry nested 20,000 levels deep is one error; the rest is written, with and without --jobs 2', () => {
  const dir = temp('deep');
  const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const har = JSON.stringify({ log: { version: '1.2', entries: [harEntry(), harEntry({ _ignored: 'DEEP' }), harEntry()] } }).replace('"DEEP"', deep);
  writeFileSync(join(dir, 'deep.har'), har);
  for (const jobs of ['1', '2']) {
    const out = join(dir, `out-${jobs}`);
    const run = cli(['--jobs', jobs, '--out', out, join(dir, 'deep.har')]);
    assert.is(run.code, 0, run.stderr);
    const errors = readLines<{ source: { entry: number }; reason: { code: string; message: string; path?: string } }>(join(out, 'errors.jsonl'));
    assert.equal(errors.map((error) => [error.source.entry, error.reason.code]), [[1, 'invalid_value']], `--jobs ${jobs}`);
    assert.match(errors[0]?.reason.message ?? '', 'nests deeper than');
    assert.ok(errors[0]?.reason.path?.startsWith('/_ignored/0/0'), errors[0]?.reason.path);
    assert.equal(readLines<{ source: { entry: number } }>(join(out, 'records.jsonl')).map((record) => record.source.entry), [0, 2]);
    assert.ok(existsSync(join(out, 'summary.json')));
  }
});

test('issue 38 #10: a $blob from the traffic is escaped, never resolved; resolveBlobs takes only sha256 hex names of regular files', () => {
  const dir = temp('blob');
  const image = randomBytes(6000).toString('base64');
  const realHash = createHash('sha256').update(Buffer.from(image, 'base64')).digest('hex');
  const traversal = { $blob: 'sha256:../../../../../../etc/hostname', bytes: 5, mediaType: 'text/plain' };
  const borrowed = { $blob: `sha256:${realHash}`, bytes: 6000, mediaType: 'image/png' };
  const lookalike = { $literal: 'not an escape of ours' };
  const request = {
    model: 'claude-test',
    max_tokens: 64,
    messages: [
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } }, { type: 'text', text: 'read these' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { traversal, borrowed, list: [lookalike] } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
    ],
  };
  writeFileSync(join(dir, 'hostile.jsonl'), `${JSON.stringify({ url: 'https://api.anthropic.com/v1/messages', request })}\n`);
  const out = join(dir, 'out');
  const run = cli(['--out', out, join(dir, 'hostile.jsonl')]);
  assert.is(run.code, 0, run.stderr);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { written: number; blobs: { referenced: number; escaped: number } };
  assert.equal([summary.written, summary.blobs.referenced, summary.blobs.escaped], [1, 1, 3]);
  const text = readFileSync(join(out, 'records.jsonl'), 'utf8');
  const record = JSON.parse(text) as { request: { messages: { parts: { type: string; arguments?: Record<string, unknown> }[] }[] } };
  const call = record.request.messages[1]?.parts[0];
  assert.equal(call?.arguments, { traversal: { $literal: traversal }, borrowed: { $literal: borrowed }, list: [{ $literal: lookalike }] });
  const resolved = resolveBlobs(record, out);
  assert.equal(resolved.request.messages[1]?.parts[0]?.arguments, { traversal, borrowed, list: [lookalike] }, 'escaped objects come back verbatim, not as file contents');
  assert.match(JSON.stringify(resolved.request.messages[0]), image);

  const refused = (value: unknown, pattern: string) => {
    try {
      resolveBlobs(value, out);
    } catch (error) {
      assert.ok(isInterlinguaError(error) && error.code === 'invalid_value', String(error));
      assert.match((error as Error).message, pattern);
      return;
    }
    assert.unreachable(`resolved ${JSON.stringify(value)}`);
  };
  refused({ a: [traversal] }, 'is not a blob name');
  refused({ $blob: 'sha256:/dev/zero' }, 'is not a blob name');
  const zero = 'f'.repeat(64);
  mkdirSync(join(out, 'blobs', 'sha256'), { recursive: true });
  symlinkSync('/dev/zero', join(out, 'blobs', 'sha256', zero));
  refused({ $blob: `sha256:${zero}`, bytes: 10 }, 'cannot be read');
});

/** Every `$` key directly inside an `extensions.<format>` object of `value`. */
function hintKeys(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) hintKeys(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'extensions' && typeof item === 'object' && item !== null) {
        for (const own of Object.values(item)) if (typeof own === 'object' && own !== null) found.push(...Object.keys(own).filter((name) => name.startsWith('$')));
      }
      hintKeys(item, found);
    }
  }
  return found;
}

test('JSONL drops the IR shape hints unless --keep-hints; nothing else changes', () => {
  const dir = temp('hints');
  const plain = cli(['--out', join(dir, 'plain'), ...INPUTS]);
  const kept = cli(['--out', join(dir, 'kept'), '--keep-hints', ...INPUTS]);
  assert.is(plain.code, 0, plain.stderr);
  assert.is(kept.code, 0, kept.stderr);
  const without = records(join(dir, 'plain'));
  const withHints = records(join(dir, 'kept'));
  assert.equal(hintKeys(without), []);
  assert.ok(hintKeys(withHints).includes('$contentString'), hintKeys(withHints).join(' '));
  assert.is(without.length, withHints.length);
  const strip = (value: unknown): unknown => JSON.parse(JSON.stringify(value), function (this: Record<string, unknown>, key, item: unknown) {
    if (key === 'extensions' && typeof item === 'object' && item !== null) {
      const left = Object.fromEntries(Object.entries(item).map(([format, own]) => [format, Object.fromEntries(Object.entries(own as object).filter(([name]) => !name.startsWith('$')))]).filter(([, own]) => Object.keys(own as object).length > 0));
      return Object.keys(left).length === 0 ? undefined : left;
    }
    return item;
  });
  assert.equal(without, strip(withHints) as NormalizedRecord[]);
  const converted = cli(['--out', join(dir, 'chat'), '--to', 'openai-chat', ...INPUTS]);
  assert.is(converted.code, 0, converted.stderr);
});

/** Every id of a run's records and errors, sorted. */
function idsOf(dir: string, suffix = ''): string[] {
  return [...records(dir, `records${suffix}.jsonl`), ...readLines<ErrorRecord>(join(dir, `errors${suffix}.jsonl`))].map((item) => item.id).sort();
}

test('ids: a hash of the exchange, the same across runs, file names and places', () => {
  const dir = temp('ids');
  const exchanges = join(FIXTURES, 'exchanges.jsonl');
  const lines = readFileSync(exchanges, 'utf8').trimEnd().split('\n');
  const renamed = join(dir, 'renamed-and-reversed.jsonl');
  writeFileSync(renamed, `${[...lines].reverse().join('\n')}\n`);
  const first = cli(['--out', join(dir, 'a'), exchanges]);
  const second = cli(['--out', join(dir, 'b'), exchanges]);
  const moved = cli(['--out', join(dir, 'c'), renamed]);
  for (const run of [first, second, moved]) assert.is(run.code, 0, run.stderr);
  assert.equal(idsOf(join(dir, 'b')), idsOf(join(dir, 'a')));
  assert.equal(idsOf(join(dir, 'c')), idsOf(join(dir, 'a')), 'another file name and other line numbers give the same ids');
  assert.is(new Set(idsOf(join(dir, 'a'))).size, idsOf(join(dir, 'a')).length);
});

test('--shard K/N: three shards into one directory give the records and ids of one run, each in its part-K-of-3 files', () => {
  const dir = temp('shard');
  const whole = join(dir, 'whole');
  const shared = join(dir, 'shards');
  assert.is(cli(['--out', whole, ...INPUTS]).code, 0);
  for (const index of [1, 2, 3]) {
    const run = cli(['--out', shared, '--shard', `${index}/3`, ...INPUTS]);
    assert.is(run.code, 0, run.stderr);
  }
  const names = readdirSync(shared).sort();
  for (const index of [1, 2, 3]) for (const file of ['records', 'errors']) assert.ok(names.includes(`${file}-part-${index}-of-3.jsonl`), names.join(' '));
  assert.ok(names.includes('summary-part-1-of-3.json'));
  assert.not.ok(names.includes('records.jsonl'));
  const sharded = [1, 2, 3].flatMap((index) => idsOf(shared, `-part-${index}-of-3`)).sort();
  assert.equal(sharded, idsOf(whole), 'the same set of ids, none twice');
  const key = (record: NormalizedRecord) => JSON.stringify({ ...record, source: { ...record.source, file: '' } });
  const shardRecords = [1, 2, 3].flatMap((index) => records(shared, `records-part-${index}-of-3.jsonl`)).map(key).sort();
  assert.equal(shardRecords, records(whole).map(key).sort(), 'the same records');
  const counts = [1, 2, 3].map((index) => summaryOf(shared, `summary-part-${index}-of-3.json`).read);
  assert.is(counts.reduce((a, b) => a + b, 0), summaryOf(whole).read);
  const again = cli(['--out', shared, '--shard', '2/3', ...INPUTS]);
  assert.is(again.code, 2, 'a shard that already wrote its part is refused like any run');
  assert.is(cli(['--out', shared, '--shard', '2/3', '--overwrite', ...INPUTS]).code, 0);
  assert.equal([1, 2, 3].flatMap((index) => idsOf(shared, `-part-${index}-of-3`)).sort(), idsOf(whole), '--overwrite replaced only its own part');
  assert.is(cli(['--shard', '4/3', INPUTS[0] ?? '']).code, 2);
});

test('--shard over byte ranges of a JSONL file: every line exactly once, cut at line boundaries', async () => {
  const dir = temp('ranges');
  const exchanges = join(FIXTURES, 'exchanges.jsonl');
  const whole = await normalizeFiles({ inputs: [exchanges], outDir: join(dir, 'whole') });
  const parts: NormalizedRecord[] = [];
  const errors: ErrorRecord[] = [];
  for (const index of [1, 2, 3]) {
    const out = join(dir, 'parts');
    await normalizeFiles({ inputs: [exchanges], outDir: out, shard: { index, count: 3 }, shardRangeBytes: 1000 });
    parts.push(...records(out, `records-part-${index}-of-3.jsonl`));
    errors.push(...readLines<ErrorRecord>(join(out, `errors-part-${index}-of-3.jsonl`)));
  }
  assert.ok(readFileSync(exchanges).length > 10_000, 'the file spans many ranges');
  assert.is(parts.length + errors.length, whole.read);
  assert.equal([...parts, ...errors].map((item) => item.id).sort(), idsOf(join(dir, 'whole')));
  const text = readFileSync(exchanges);
  for (const record of parts) {
    const offset = record.source.offset ?? -1;
    assert.ok(offset === 0 || text[offset - 1] === 0x0a, `offset ${offset} starts a line`);
    assert.is(record.source.line, undefined);
  }
  const byLine = new Map(records(join(dir, 'whole')).map((record) => [record.id, record]));
  for (const record of parts) assert.equal({ ...record, source: {} }, { ...byLine.get(record.id), source: {} });
});

test('issue 38 #11: a non-empty --out is refused unless --overwrite or --append; --append adds up; a second run at once is kept out', async () => {
  const dir = temp('outdir');
  const out = join(dir, 'out');
  const input = join(FIXTURES, 'anthropic-batch-results.jsonl');
  assert.is(cli(['--out', out, input]).code, 0);
  const first = readFileSync(join(out, 'records.jsonl'), 'utf8');
  const refused = cli(['--out', out, input]);
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /is not empty \(.*records\.jsonl.*\); pass --overwrite/);
  assert.is(readFileSync(join(out, 'records.jsonl'), 'utf8'), first, 'a refused run writes nothing');
  const stranger = join(dir, 'stranger');
  mkdirSync(stranger);
  writeFileSync(join(stranger, 'notes.txt'), 'mine');
  assert.is(cli(['--out', stranger, input]).code, 2, 'a directory holding anything else is refused too');

  assert.is(cli(['--out', out, '--append', input]).code, 0);
  assert.is(readFileSync(join(out, 'records.jsonl'), 'utf8'), first + first);
  const appended = summaryOf(out);
  assert.equal([appended.read, appended.written, appended.errored, appended.runs, appended.inputs.length], [10, 6, 4, 2, 2]);
  assert.is(cli(['--out', out, '--overwrite', input]).code, 0);
  assert.is(readFileSync(join(out, 'records.jsonl'), 'utf8'), first);
  assert.is(summaryOf(out).runs, 1);
  assert.is(cli(['--out', out, '--overwrite', '--append', input]).code, 2);
  assert.is(cli(['--out', out, '--append', '--out-format', 'parquet', input]).code, 2);
  assert.not.ok(existsSync(join(out, '.normalize.lock')), 'a finished run leaves no lock');

  // Two runs at once into one directory: one writes, the other is refused, and the output is the one run's.
  const big = join(dir, 'big.har');
  writeFileSync(big, JSON.stringify({ log: { version: '1.2', entries: Array.from({ length: 12 }, () => harEntry()) } }));
  const racing = join(dir, 'racing');
  const results = await Promise.all([cliAsync(['--out', racing, big]), cliAsync(['--out', racing, big])]);
  assert.equal(results.map((result) => result.code).sort(), [0, 2], results.map((result) => result.stderr).join('\n'));
  assert.match(results.find((result) => result.code === 2)?.stderr ?? '', /is being written by|is not empty/);
  const summary = summaryOf(racing);
  assert.is(records(racing).length, summary.written);
  assert.is(summary.read, 12);
});

test('issue 38 #11: a run that did not finish leaves its lock; the next run says so and goes on only with --overwrite', () => {
  const dir = temp('interrupted');
  const out = join(dir, 'out');
  const input = join(FIXTURES, 'anthropic-batch-results.jsonl');
  // A run killed before its summary: its lock names a process that is gone (this one exited already).
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  mkdirSync(out);
  writeFileSync(join(out, 'records.jsonl'), '{"partial": true}\n');
  writeFileSync(join(out, '.normalize.lock'), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), startedAt: '2026-12-01T00:00:00.000Z' }));
  const rerun = cli(['--out', out, input]);
  assert.is(rerun.code, 2);
  assert.match(rerun.stderr, 'was interrupted: its outputs are incomplete');
  assert.is(cli(['--out', out, '--append', input]).code, 2, 'appending to an interrupted output is refused too');
  const replaced = cli(['--out', out, '--overwrite', input]);
  assert.is(replaced.code, 0, replaced.stderr);
  assert.is(records(out).length, summaryOf(out).written);
  assert.not.ok(existsSync(join(out, '.normalize.lock')));
  // A live run's lock (this test's own process) keeps everyone out, --overwrite included.
  writeFileSync(join(out, '.normalize.lock'), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
  const locked = cli(['--out', out, '--overwrite', input]);
  assert.is(locked.code, 2);
  assert.match(locked.stderr, `is being written by the run of pid ${process.pid}`);
});

test('--out-format requests: one body per request in the --to format, with its path (and model in the path for Gemini and Bedrock)', () => {
  const dir = temp('replay');
  const ir = join(dir, 'ir');
  assert.is(cli(['--out', ir, ...INPUTS]).code, 0);
  const withRequest = records(ir).filter((record) => record.request !== undefined);
  for (const [to, path] of [['openai-chat', /^\/v1\/chat\/completions$/], ['anthropic', /^\/v1\/messages$/], ['gemini', /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent\?alt=sse)$/], ['bedrock-converse', /^\/model\/[^/]+\/converse(-stream)?$/]] as const) {
    const out = join(dir, to);
    const run = cli(['--out', out, '--to', to, '--out-format', 'requests', ...INPUTS]);
    assert.is(run.code, 0, run.stderr);
    assert.not.ok(existsSync(join(out, 'records.jsonl')));
    const lines = readLines<{ id: string; method: string; path: string; model?: string; stream: boolean; body: unknown }>(join(out, 'requests.jsonl'));
    const summary = summaryOf(out);
    assert.is(lines.length, summary.written, to);
    assert.is(lines.length + (summary.errorsByReason['missing_field'] ?? 0), withRequest.length, `${to}: every request is a line, or an error when its path cannot be written`);
    assert.is(summary.skippedByReason['no request to replay'], records(ir).length - withRequest.length);
    for (const line of lines) {
      assert.is(line.method, 'POST');
      assert.match(line.path, path, line.path);
      const detected = detectFormat(line.body);
      assert.ok(detected?.kind === 'request', `${to}: ${JSON.stringify(line.body).slice(0, 200)}`);
      const decoded = decodeRequest(to as FormatId, line.body, line.model === undefined ? {} : { model: line.model });
      assert.ok(decoded.ir.messages.length > 0, to);
      assert.ok(withRequest.some((record) => record.id === line.id));
      if (to === 'gemini' || to === 'bedrock-converse') assert.ok(line.model !== undefined && line.path.includes(encodeURIComponent(line.model)), line.path);
      assert.not.ok(JSON.stringify(line.body).includes('"$blob"'), 'media inline, ready to send');
    }
    if (to === 'openai-chat') assert.ok(lines.every((line) => detectFormat(line.body)?.format === 'openai-chat'));
  }
  assert.is(cli(['--out', join(dir, 'none'), '--out-format', 'requests', INPUTS[0] ?? '']).code, 2, 'requests need --to');
});

test.run();
