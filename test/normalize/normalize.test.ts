/**
 * `interlingua normalize`: every input kind of test/fixtures/normalize (built
 * from the golden payloads by build.ts) becomes records or error lines and
 * nothing is lost; HAR noise is skipped; streams are reassembled and a
 * truncated one is an error; media go to the blob store once and resolve
 * back; `--to openai-chat` yields bodies the openai-chat decoder accepts;
 * `--jobs 2` writes the same bytes as `--jobs 1`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeError, decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import type { Base64Source, Request } from '../../src/core/ir.ts';
import { codecFor } from '../../src/formats/registry.ts';
import { isBlobReference } from '../../src/normalize/blob-refs.ts';
import { resolveBlobs } from '../../src/normalize/blob-store.ts';
import { parseSseText } from '../../src/normalize/body.ts';
import { detectLayout } from '../../src/normalize/input-kind.ts';
import { normalizeFiles, type NormalizeOptions } from '../../src/normalize/run.ts';
import type { ErrorRecord, NormalizedRecord, NormalizeSummary } from '../../src/normalize/types.ts';
import { REPO_ROOT } from '../support/fixtures.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'normalize');
const INPUTS = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.jsonl') || name.endsWith('.har'))
  .sort()
  .map((name) => join(FIXTURES, name));

interface Run {
  dir: string;
  summary: NormalizeSummary;
  records: NormalizedRecord[];
  errors: ErrorRecord[];
  recordsText: string;
  errorsText: string;
}

function readLines<T>(file: string): T[] {
  const text = readFileSync(file, 'utf8');
  return text === '' ? [] : text.trimEnd().split('\n').map((line) => JSON.parse(line) as T);
}

async function normalize(options: Partial<NormalizeOptions> = {}): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-normalize-'));
  // keepHints: these tests compare records with the decoders' IR, shape hints included (test/normalize/outputs.test.ts checks they go by default).
  const summary = await normalizeFiles({ inputs: INPUTS, outDir: dir, keepHints: true, ...options });
  const recordsText = readFileSync(join(dir, 'records.jsonl'), 'utf8');
  const errorsText = readFileSync(join(dir, 'errors.jsonl'), 'utf8');
  return { dir, summary, records: readLines(join(dir, 'records.jsonl')), errors: readLines(join(dir, 'errors.jsonl')), recordsText, errorsText };
}

const runs = new Map<string, Promise<Run>>();
function cached(key: string, options: Partial<NormalizeOptions> = {}): Promise<Run> {
  let run = runs.get(key);
  if (run === undefined) {
    run = normalize(options);
    runs.set(key, run);
  }
  return run;
}

const at = (run: Run, file: string, where: { line?: number; entry?: number }) => {
  const match = (source: { file: string; line?: number; entry?: number }) =>
    source.file.endsWith(file) && source.line === where.line && source.entry === where.entry;
  return { record: run.records.find((record) => match(record.source)), error: run.errors.find((error) => match(error.source)) };
};

const streams = (format: 'anthropic' | 'gemini' | 'openai-chat') => codecFor(format).createStreamDecoder !== undefined;

/** The big base64 PNG the fixture requests share (line 1 of exchanges.jsonl, an Anthropic image block). */
function bigImage(): string {
  const line = readFileSync(join(FIXTURES, 'exchanges.jsonl'), 'utf8').split('\n')[0] ?? '';
  const match = /"data":"([A-Za-z0-9+/=]{4000,})"/.exec(line);
  if (match?.[1] === undefined) throw new Error('the fixture lost its big image; rerun build.ts');
  return match[1];
}

const test = suite('normalize');

test('nothing is lost: read = written + errored, per input and in total; summary.json matches', async () => {
  const run = await cached('ir');
  const { summary } = run;
  assert.is(summary.read, summary.written + summary.errored);
  assert.is(summary.written, run.records.length);
  assert.is(summary.errored, run.errors.length);
  for (const input of summary.inputs) assert.is(input.read, input.written + input.errored, input.file);
  assert.equal(JSON.parse(readFileSync(join(run.dir, 'summary.json'), 'utf8')), summary);
  const ids = new Set([...run.records.map((record) => record.id), ...run.errors.map((error) => error.id)]);
  assert.is(ids.size, summary.read, 'ids are unique');
  const kinds = Object.fromEntries(summary.inputs.map((input) => [input.file.split('/').at(-1), input.kind]));
  assert.equal(kinds, {
    'anthropic-batch-requests.jsonl': 'anthropic-batch-request',
    'anthropic-batch-results.jsonl': 'anthropic-batch-result',
    'bedrock-batch-output.jsonl': 'bedrock-batch',
    'exchanges.jsonl': 'jsonl',
    'gemini-batch-requests.jsonl': 'gemini-batch-request',
    'gemini-batch-responses.jsonl': 'gemini-batch-response',
    'openai-batch-input.jsonl': 'openai-batch-input',
    'openai-batch-output.jsonl': 'openai-batch-output',
    'traffic.har': 'har',
  });
});

test('Gemini and Bedrock batch files: keys and record ids kept, formats from the container or the bodies, failed items are errors', async () => {
  const run = await cached('ir');
  for (const line of [1, 2]) {
    const request = at(run, 'gemini-batch-requests.jsonl', { line }).record;
    const response = at(run, 'gemini-batch-responses.jsonl', { line }).record;
    assert.is(request?.format, 'gemini');
    assert.is(request?.formatEvidence, 'container');
    assert.is(request?.source.customId, `request-${line}`);
    assert.ok(request?.request !== undefined && request.response === undefined);
    assert.is(response?.source.customId, `request-${line}`, 'a response line joins its request by key');
    assert.ok(response?.response !== undefined && response.request === undefined);
  }
  const failed = at(run, 'gemini-batch-responses.jsonl', { line: 3 }).error;
  assert.is(failed?.reason.code, 'batch_failed');
  assert.match(failed?.reason.message ?? '', 'invalid argument');
  // A Claude job's InvokeModel bodies are Anthropic Messages; a Converse job's, Converse: request and answer in one record.
  const claude = at(run, 'bedrock-batch-output.jsonl', { line: 1 }).record;
  assert.is(claude?.format, 'anthropic');
  assert.is(claude?.source.customId, 'CALL0000001');
  assert.ok(claude?.request !== undefined && claude.response !== undefined, 'the record holds the input and the output');
  const converse = at(run, 'bedrock-batch-output.jsonl', { line: 2 }).record;
  assert.is(converse?.format, 'bedrock-converse');
  assert.ok(converse?.request !== undefined && converse.response !== undefined);
  const error = at(run, 'bedrock-batch-output.jsonl', { line: 3 }).error;
  assert.is(error?.reason.code, 'batch_failed');
  assert.is(error?.source.customId, 'CALL0000003');
  assert.match(error?.reason.message ?? '', '400: Malformed input request');
});

test('HAR: LLM entries become records with status and timing; pages, preflights and model lists are skipped', async () => {
  const run = await cached('ir');
  const har = run.summary.inputs.find((input) => input.kind === 'har');
  assert.is(har?.skipped, 3);
  assert.equal(run.summary.skippedByReason, { 'not an LLM API call': 2, 'no body': 1 });
  for (const entry of [1, 2, 9]) {
    const { record, error } = at(run, 'traffic.har', { entry });
    assert.ok(record === undefined && error === undefined, `entry ${entry} is skipped`);
  }
  const first = at(run, 'traffic.har', { entry: 0 }).record;
  assert.is(first?.format, 'anthropic');
  assert.is(first?.formatEvidence, 'url');
  assert.is(first?.status, 200);
  assert.equal(first?.timing, { startedAt: '2025-11-21T09:00:00.000Z', durationMs: 812, timeToFirstByteMs: 811 });
  assert.equal(first?.request, decodeRequest('anthropic', readJsonFixture('cross/plain-chat/anthropic.request.json')).ir);
  assert.equal(first?.response, decodeResponse('anthropic', readJsonFixture('cross/plain-chat/anthropic.response.json')).ir);
  assert.is(at(run, 'traffic.har', { entry: 3 }).record?.format, 'openai-chat', 'a base64-encoded HAR body is read');
  const gemini = at(run, 'traffic.har', { entry: 4 }).record;
  assert.is(gemini?.model, 'gemini-2.5-flash', 'the model comes from the Gemini URL');
  assert.is(gemini?.endpoint, '/v1beta/models/gemini-2.5-flash:generateContent');
  assert.not.match(run.recordsText + run.errorsText, 'AIzaSECRET', 'URL queries (API keys) never reach the output');
  const rateLimited = at(run, 'traffic.har', { entry: 8 }).record;
  assert.is(rateLimited?.status, 429);
  assert.equal(rateLimited?.error, { ...decodeError('anthropic', readJsonFixture('anthropic/error-rate-limit/error.json')).ir, status: 429 });
});

function readJsonFixture(path: string): unknown {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'golden', path), 'utf8'));
}

test('streams are reassembled into whole responses; a truncated stream is an error with the reason', async () => {
  const run = await cached('ir');
  const cases = [
    { file: 'traffic.har', where: { entry: 6 }, format: 'anthropic' as const },
    { file: 'traffic.har', where: { entry: 10 }, format: 'gemini' as const },
    { file: 'exchanges.jsonl', where: { line: 8 }, format: 'openai-chat' as const },
  ];
  for (const { file, where, format } of cases) {
    const { record, error } = at(run, file, where);
    if (!streams(format)) {
      assert.is(error?.reason.code, 'not_implemented', `${format} streams are not decoded yet`);
      continue;
    }
    assert.is(record?.stream, true, format);
    const response = record?.response as { candidates: { message: { parts: { type: string; text?: string }[] }; stopReason?: { unified: string } }[] };
    assert.is(response.candidates[0]?.message.parts.map((part) => part.text).join(''), 'Bonjour !', format);
    assert.is(response.candidates[0]?.stopReason?.unified, 'end_turn', format);
  }
  const truncated = at(run, 'traffic.har', { entry: 7 });
  assert.is(truncated.record, undefined);
  assert.ok(truncated.error !== undefined);
  assert.ok(['stream_error', 'not_implemented'].includes(truncated.error?.reason.code ?? ''), truncated.error?.reason.message);
  assert.is(truncated.error?.format, 'anthropic');
});

test('JSONL: malformed and non-exchange lines are errors with reasons; blank lines are not items', async () => {
  const run = await cached('ir');
  assert.is(at(run, 'exchanges.jsonl', { line: 2 }).error?.reason.code, 'invalid_line');
  assert.is(at(run, 'exchanges.jsonl', { line: 7 }).error?.reason.code, 'invalid_line');
  assert.is(at(run, 'exchanges.jsonl', { line: 5 }).error?.reason.code, 'not_an_exchange');
  assert.equal(at(run, 'exchanges.jsonl', { line: 3 }), { record: undefined, error: undefined });
  const first = at(run, 'exchanges.jsonl', { line: 1 }).record;
  assert.equal(first?.timing, { startedAt: '2025-11-21T09:00:00.000Z', durationMs: 1234 });
  const bare = at(run, 'exchanges.jsonl', { line: 6 }).record;
  assert.is(bare?.format, 'openai-responses', 'a bare request body is a request-only record');
  assert.is(bare?.formatEvidence, 'body');
  assert.is(bare?.response, undefined);
  const gemini = at(run, 'exchanges.jsonl', { line: 9 }).record;
  assert.is(gemini?.model, 'test-model', 'request_body/response_body as JSON text, model from the endpoint');
  assert.is(at(run, 'exchanges.jsonl', { line: 10 }).record?.status, 429);
  const exchanges = run.summary.inputs.find((input) => input.file.endsWith('exchanges.jsonl'));
  assert.equal(exchanges && { read: exchanges.read, errored: exchanges.errored }, { read: 9, errored: 3 });
});

test('batch files: custom ids kept; failed, canceled and expired items are errors; non-generation endpoints are refused', async () => {
  const run = await cached('ir');
  const input = at(run, 'openai-batch-input.jsonl', { line: 1 }).record;
  assert.equal(input?.source.customId, 'request-1');
  assert.is(input?.format, 'openai-chat');
  assert.is(input?.response, undefined);
  assert.is(at(run, 'openai-batch-input.jsonl', { line: 2 }).record?.format, 'openai-responses');
  assert.is(at(run, 'openai-batch-input.jsonl', { line: 3 }).error?.reason.code, 'detect_failed');
  const output = at(run, 'openai-batch-output.jsonl', { line: 1 }).record;
  assert.equal([output?.source.customId, output?.status, output?.request], ['request-1', 200, undefined]);
  assert.is(at(run, 'openai-batch-output.jsonl', { line: 3 }).error?.reason.code, 'batch_failed');
  assert.is(at(run, 'openai-batch-output.jsonl', { line: 3 }).error?.source.customId, 'request-3');
  assert.ok(at(run, 'openai-batch-output.jsonl', { line: 4 }).record?.error !== undefined, 'a 429 body is an error record');
  assert.is(at(run, 'anthropic-batch-requests.jsonl', { line: 1 }).record?.formatEvidence, 'container');
  assert.is(at(run, 'anthropic-batch-requests.jsonl', { line: 3 }).error?.reason.path, '/messages');
  assert.ok(at(run, 'anthropic-batch-results.jsonl', { line: 3 }).record?.error !== undefined, 'an errored result keeps its error body');
  for (const line of [4, 5]) assert.is(at(run, 'anthropic-batch-results.jsonl', { line }).error?.reason.code, 'batch_failed');
});

test('blob store: the same image in three vendors is one blob; records reference it and resolve to the original base64', async () => {
  const run = await cached('ir');
  const image = bigImage();
  const blobs = readdirSync(join(run.dir, 'blobs', 'sha256'));
  assert.is(blobs.length, 1);
  assert.is(readFileSync(join(run.dir, 'blobs', 'sha256', blobs[0] ?? '')).toString('base64'), image);
  assert.is(run.summary.blobs.written, 1);
  assert.is(run.summary.blobs.referenced, 3);
  assert.not.match(run.recordsText, image.slice(0, 200), 'large media are not inline');
  for (const line of [1, 4, 9]) {
    const request = at(run, 'exchanges.jsonl', { line }).record?.request as Request;
    const source = (request.messages[0]?.parts.find((part) => part.type === 'image') as { source: Base64Source } | undefined)?.source;
    assert.equal(source?.data, { $blob: `sha256:${blobs[0]}`, bytes: 6000, mediaType: 'image/png' }, `line ${line}`);
    const resolved = resolveBlobs(request, run.dir);
    const back = (resolved.messages[0]?.parts.find((part) => part.type === 'image') as { source: Base64Source } | undefined)?.source;
    assert.is(back?.data, image, `line ${line}`);
  }
});

test('blob store: data URLs keep their prefix; small media stay inline', async () => {
  const run = await cached('openai-chat', { to: 'openai-chat', inputs: [join(FIXTURES, 'exchanges.jsonl')] });
  const record = at(run, 'exchanges.jsonl', { line: 4 }).record;
  const part = (record?.request as { messages: { content: { type: string; image_url?: { url: unknown } }[] }[] }).messages[0]?.content[1];
  assert.equal(part?.image_url?.url && isBlobReference(part.image_url.url) ? part.image_url.url.prefix : undefined, 'data:image/png;base64,');
  const resolved = resolveBlobs(record?.request, run.dir) as { messages: { content: { image_url?: { url: string } }[] }[] };
  assert.is(resolved.messages[0]?.content[1]?.image_url?.url, `data:image/png;base64,${bigImage()}`);
  const inline = await normalize({ inputs: [join(FIXTURES, 'exchanges.jsonl')], blobThreshold: 100_000 });
  assert.is(inline.summary.blobs.referenced, 0);
  assert.match(inline.recordsText, bigImage());
});

test('--to openai-chat on mixed-vendor input: every body is one the openai-chat decoder accepts', async () => {
  const run = await cached('openai-chat-all', { to: 'openai-chat' });
  const ir = await cached('ir');
  assert.is(run.records.length, ir.records.length);
  const formats = new Set(run.records.map((record) => record.format));
  assert.ok(formats.size >= 4, 'the input mixes every vendor');
  for (const record of run.records) {
    const name = `${record.source.file.split('/').at(-1)} ${record.source.line ?? record.source.entry}`;
    assert.is(record.to, 'openai-chat');
    const resolved = resolveBlobs(record, run.dir);
    if (resolved.request !== undefined) assert.ok(decodeRequest('openai-chat', resolved.request).ir.messages.length > 0, name);
    if (resolved.response !== undefined) decodeResponse('openai-chat', resolved.response);
    if (resolved.error !== undefined) decodeError('openai-chat', resolved.error);
  }
});

test('--to FORMAT: encode losses point into the recorded body, with the IR pointer beside', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-normalize-'));
  const input = join(dir, 'in.jsonl');
  const request = {
    contents: [
      { role: 'user', parts: [{ text: 'weather?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { sky: 'clear' } } }] },
    ],
    generationConfig: { topK: 3 },
  };
  const response = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-test', choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, logprobs: null, finish_reason: 'stop' }], service_tier: 'flex' };
  writeFileSync(
    input,
    [
      { request: { url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-test:generateContent', body: request }, response: { status: 200, body: { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] } } },
      { request: { url: 'https://api.openai.com/v1/chat/completions', body: { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] } }, response: { status: 200, body: response } },
    ].map((line) => JSON.stringify(line)).join('\n') + '\n',
  );
  await normalizeFiles({ inputs: [input], outDir: join(dir, 'out'), to: 'openai-responses' });
  const [gemini, chat] = readLines<NormalizedRecord>(join(dir, 'out', 'records.jsonl'));
  const paths = (record: NormalizedRecord | undefined, side: string) => (record?.losses ?? []).filter((loss) => loss.side === side && loss.irPath !== undefined).map((loss) => [loss.code, loss.irPath, loss.path]);
  assert.equal(paths(gemini, 'request'), [
    ['synthesised_id', '/messages/1/parts/0/id', '/contents/1/parts/0'],
    ['synthesised_id', '/messages/2/parts/0/callId', '/contents/2/parts/0'],
    ['dropped_field', '/generation/topK', '/generationConfig/topK'],
  ]);
  assert.ok(paths(chat, 'response').some(([, irPath, path]) => irPath === '/candidates/0/message/parts/0' && path === '/choices/0/message/content'), JSON.stringify(chat?.losses));
  assert.is(chat?.model, 'gpt-test');
});

test('--jobs 2 writes the same records and errors, in the same order, as --jobs 1', async () => {
  const one = await normalize({ batchSize: 2 });
  const two = await normalize({ batchSize: 2, jobs: 2, workerMinBytes: 0 });
  assert.is(two.recordsText, one.recordsText);
  assert.is(two.errorsText, one.errorsText);
  assert.equal({ ...two.summary, seconds: 0, recordsPerSecond: 0 }, { ...one.summary, seconds: 0, recordsPerSecond: 0 });
});

test('ids are stable across runs', async () => {
  const again = await normalize();
  const first = await cached('ir');
  assert.equal(again.records.map((record) => record.id), first.records.map((record) => record.id));
});

test('a broken HAR document is one error; a gzip-compressed HAR body is unreadable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-normalize-input-'));
  const broken = join(dir, 'broken.har');
  writeFileSync(broken, '{\n  "log": {\n    "entries": [\n');
  const gzipped = join(dir, 'gzipped.har');
  const body = gzipSync(readFileSync(join(REPO_ROOT, 'golden', 'cross', 'plain-chat', 'anthropic.response.json'))).toString('base64');
  const entry = {
    request: { method: 'POST', url: 'https://api.anthropic.com/v1/messages', postData: { mimeType: 'application/json', text: readFileSync(join(REPO_ROOT, 'golden', 'cross', 'plain-chat', 'anthropic.request.json'), 'utf8') } },
    response: { status: 200, content: { mimeType: 'application/json', encoding: 'base64', text: body } },
  };
  writeFileSync(gzipped, JSON.stringify({ log: { version: '1.2', entries: [entry] } }));
  const out = join(dir, 'out');
  const summary = await normalizeFiles({ inputs: [broken, gzipped], outDir: out });
  assert.equal([summary.read, summary.written, summary.errored], [2, 0, 2]);
  const errors = readLines<ErrorRecord>(join(out, 'errors.jsonl'));
  assert.equal(errors.map((error) => error.reason.code), ['invalid_json', 'unreadable_body']);
});

test('SSE text: CRLF framing, comments, [DONE], and a last event without its blank line', () => {
  const events = parseSseText(': comment\r\nevent: a\r\ndata: {"x":1}\r\n\r\ndata: [DONE]\n\ndata: {"y":');
  assert.equal(events, [{ event: 'a', data: { x: 1 } }, { data: '[DONE]' }, { data: '{"y":', invalid: events[2]?.invalid ?? '' }]);
  assert.ok(events[2]?.invalid !== undefined);
});

test('file layout: HAR and pretty-printed JSON are documents; JSON lines are lines', () => {
  assert.is(detectLayout('x.har', ''), 'document');
  assert.is(detectLayout('x.json', '{\n  "log": {'), 'document');
  assert.is(detectLayout('x.json', '[\n  {'), 'document');
  assert.is(detectLayout('x.jsonl', '{"request": {}}\n{"request": {}}\n'), 'lines');
  assert.is(detectLayout('x.jsonl', '{"request": {"url": \n{"ok": 1}\n'), 'lines');
  assert.is(detectLayout('x.jsonl', 'not json\n'), 'lines');
});

const BIN = join(REPO_ROOT, 'bin', 'interlingua.js');
function cli(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: REPO_ROOT });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('CLI: help, usage mistakes exit 2 with one line, a run prints the summary', () => {
  const help = cli(['normalize', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, 'Usage: interlingua normalize');
  for (const args of [['normalize'], ['normalize', '--to', 'cohere', INPUTS[0] ?? ''], ['normalize', '--jobs', '0', INPUTS[0] ?? ''], ['normalize', 'missing.jsonl'], ['normalize', '--bogus']]) {
    const result = cli(args);
    assert.is(result.code, 2, args.join(' '));
    assert.is(result.stderr.trim().split('\n').length, 1, args.join(' '));
  }
  const out = mkdtempSync(join(tmpdir(), 'interlingua-normalize-cli-'));
  const run = cli(['normalize', '--out', out, join(FIXTURES, 'anthropic-batch-results.jsonl')]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, 'normalized 5 records: 3 written, 2 errored');
  assert.match(run.stderr, 'errors: batch_failed 2');
  assert.ok(existsSync(join(out, 'summary.json')));
});

test.run();
