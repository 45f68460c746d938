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
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isInterlinguaError } from '../../src/core/errors.ts';
import { resolveBlobs } from '../../src/normalize/blob-store.ts';
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

test.run();
