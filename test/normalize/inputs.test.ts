/**
 * The input kinds of `interlingua normalize` beyond HAR, JSONL and batch
 * files, through the real CLI: VCR cassettes (YAML with string, gzip and
 * SSE bodies, JSON with base64), nock recordings, OTLP traces (GenAI
 * conventions, OpenLLMetry attributes and events, OpenInference), a Langfuse
 * export, a LiteLLM payload and Bedrock invocation logs (whole, streamed,
 * InvokeModel, failed). Each record must hold the IR that decoding the body
 * it was made from gives (test/fixtures/normalize/inputs/build.ts says
 * which). Also: compressed inputs found by magic bytes, and the regressions
 * of issue 38 items 2 (a long or malformed first line) and 15 (a line over
 * the line cap).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeRequest, decodeResponse } from '../../src/formats/convert.ts';
import { LossCollector } from '../../src/core/losses.ts';
import type { FormatId, Message, Request, Response } from '../../src/core/ir.ts';
import type { WireEvent } from '../../src/core/stream-events.ts';
import { accumulateStream, parseSseText } from '../../src/normalize/body.ts';
import { classifyItem, detectLayout } from '../../src/normalize/input-kind.ts';
import { TaskProcessor, type Item } from '../../src/normalize/process.ts';
import { readItems } from '../../src/normalize/read.ts';
import { splitLines } from '../../src/normalize/readers/lines.ts';
import { normalizeFiles } from '../../src/normalize/run.ts';
import type { ErrorRecord, NormalizedRecord, NormalizeSummary } from '../../src/normalize/types.ts';
import { SOURCES } from '../fixtures/normalize/inputs/build.ts';
import { REPO_ROOT } from '../support/fixtures.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'normalize', 'inputs');
const FILES = ['cassette.yaml', 'cassette.json', 'nock.json', 'otlp.jsonl', 'otlp.json', 'langfuse.jsonl', 'litellm.json', 'bedrock-invocation.jsonl'];
const CLI = join(REPO_ROOT, 'dist', 'cli', 'main.js');

interface Run {
  summary: NormalizeSummary;
  records: NormalizedRecord[];
  errors: ErrorRecord[];
}

function lines<T>(file: string): T[] {
  const text = readFileSync(file, 'utf8');
  return text === '' ? [] : text.trimEnd().split('\n').map((line) => JSON.parse(line) as T);
}

function outputs(dir: string): Run {
  return {
    summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as NormalizeSummary,
    records: lines(join(dir, 'records.jsonl')),
    errors: lines(join(dir, 'errors.jsonl')),
  };
}

/** `node dist/cli/main.js normalize FILES --out DIR --keep-hints [...]` (records are compared with the decoders' IR, shape hints included). */
function cli(inputs: string[], extra: string[] = []): Run {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-inputs-'));
  const result = spawnSync(process.execPath, [CLI, 'normalize', ...inputs, '--out', dir, '--keep-hints', ...extra], { encoding: 'utf8', cwd: FIXTURES });
  assert.is(result.status, 0, result.stderr);
  return outputs(dir);
}

async function library(inputs: string[], options: { maxLineBytes?: number; jobs?: number; workerMinBytes?: number } = {}): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-inputs-'));
  // keepHints: records are compared with the decoders' IR, shape hints included.
  await normalizeFiles({ inputs, outDir: dir, keepHints: true, ...options });
  return outputs(dir);
}

const text = (key: keyof typeof SOURCES): string => readFileSync(join(REPO_ROOT, SOURCES[key]), 'utf8');
const json = (key: keyof typeof SOURCES): Record<string, unknown> => JSON.parse(text(key)) as Record<string, unknown>;
const request = (format: FormatId, body: unknown, model?: string): Request => decodeRequest(format, body, model === undefined ? {} : { model }).ir;
const response = (format: FormatId, body: unknown, model?: string): Response => decodeResponse(format, body, model === undefined ? {} : { model }).ir;
const stream = (format: FormatId, events: WireEvent[], model?: string): Response => accumulateStream(format, events, { losses: new LossCollector(), ...(model === undefined ? {} : { model }) });

let run: Run | undefined;
const all = (): Run => (run ??= cli(FILES));

function at(file: string, where: { line?: number; entry?: number }): NormalizedRecord {
  const record = all().records.find((item) => item.source.file === file && item.source.line === where.line && item.source.entry === where.entry);
  if (record === undefined) throw new Error(`no record for ${file} ${JSON.stringify(where)}; errors: ${JSON.stringify(all().errors)}`);
  return record;
}

/** What a conversation says, without the shape hints and ids a format adds: roles, texts, calls, results. */
function meaning(messages: readonly Message[]): unknown[] {
  return messages.map((message) => ({
    role: message.role,
    parts: message.parts.map((part) => {
      switch (part.type) {
        case 'text':
          return { text: part.text };
        case 'tool_call':
          return { call: part.name, id: part.id, arguments: part.arguments };
        case 'tool_result':
          return { result: part.callId, content: part.content.map((inner) => (inner.type === 'text' ? inner.text : inner.type)).join('') };
        default:
          return { type: part.type };
      }
    }),
  }));
}

function toolsOf(ir: Request): unknown {
  return (ir.tools ?? []).map((tool) => (tool.type === 'function' ? { name: tool.name, description: tool.description, parameters: tool.parameters } : tool.type));
}

const test = suite('inputs');

test('every fixture reads without an error; non-LLM interactions, spans and observations are skipped', () => {
  const { summary, errors } = all();
  assert.equal(errors, []);
  assert.is(summary.written, 18);
  assert.is(summary.skipped, 3);
  assert.equal(summary.byInputKind, { 'bedrock-invocation-log': 5, langfuse: 1, litellm: 1, nock: 3, otlp: 4, 'vcr-cassette': 4 });
});

test('VCR YAML cassette: a string body, a gzip body kept as !!binary, and an SSE stream give the IR of their bodies', () => {
  const chat = at('cassette.yaml', { entry: 0 });
  assert.equal(chat.request, request('openai-chat', json('chatRequest')));
  assert.equal(chat.response, response('openai-chat', json('chatResponse')));
  const gzipped = at('cassette.yaml', { entry: 1 });
  assert.equal(gzipped.request, request('anthropic', json('anthropicRequest')));
  assert.equal(gzipped.response, response('anthropic', json('anthropicResponse')));
  const streamed = at('cassette.yaml', { entry: 2 });
  assert.is(streamed.stream, true);
  assert.equal(streamed.request, request('anthropic', { ...json('anthropicPlainRequest'), stream: true }));
  assert.equal(streamed.response, stream('anthropic', parseSseText(text('anthropicSse'))));
  assert.is(streamed.endpoint, '/v1/messages');
  assert.is(streamed.status, 200);
});

test('JSON cassette with a base64 body; nock recordings with JSON, SSE and gzip hex chunks', () => {
  const base64 = at('cassette.json', { entry: 0 });
  assert.equal(base64.response, response('openai-chat', json('chatResponse')));
  assert.equal(at('nock.json', { entry: 0 }).request, request('openai-chat', json('chatRequest')));
  assert.equal(at('nock.json', { entry: 0 }).response, response('openai-chat', json('chatResponse')));
  const sse = at('nock.json', { entry: 1 });
  assert.is(sse.stream, true);
  assert.equal(sse.request, request('openai-chat', json('chatStreamRequest')));
  assert.equal(sse.response, stream('openai-chat', parseSseText(text('chatSse'))));
  assert.equal(at('nock.json', { entry: 2 }).response, response('anthropic', json('anthropicPlainResponse')));
});

test('OTLP, GenAI conventions (gen_ai.input/output.messages, system instructions, tool definitions): the conversation, tools, usage and stop of the bodies', () => {
  const record = at('otlp.jsonl', { line: 1, entry: 0 });
  const source = request('openai-chat', json('toolsRequest'));
  const answer = response('openai-chat', json('toolsResponse'));
  const ir = record.request as Request;
  const out = record.response as Response;
  assert.is(record.format, 'openai-chat');
  assert.is(record.formatEvidence, 'provider');
  assert.equal(meaning(ir.messages), meaning(source.messages));
  assert.equal(toolsOf(ir), toolsOf(source));
  assert.is(ir.model, source.model);
  assert.is(ir.generation?.maxTokens, source.generation?.maxTokens);
  assert.equal(meaning(out.candidates.map((candidate) => candidate.message)), meaning(answer.candidates.map((candidate) => candidate.message)));
  assert.is(out.candidates[0]?.stopReason?.unified, answer.candidates[0]?.stopReason?.unified);
  assert.equal([out.usage?.inputTokens, out.usage?.outputTokens], [answer.usage?.inputTokens, answer.usage?.outputTokens]);
  assert.equal([out.id, out.model], [answer.id, answer.model]);
  assert.equal(record.timing, { startedAt: '2025-11-21T00:00:00.000Z', durationMs: 812 });
});

test('OTLP, OpenLLMetry gen_ai.prompt.N / gen_ai.completion.N attributes and the 1.26 prompt/completion events', () => {
  const attributes = at('otlp.jsonl', { line: 2, entry: 0 });
  const source = request('anthropic', json('anthropicPlainRequest'));
  const answer = response('anthropic', json('anthropicPlainResponse'));
  assert.is(attributes.format, 'anthropic');
  const ir = attributes.request as Request;
  assert.equal(meaning(ir.messages), meaning(source.messages));
  assert.equal(ir.generation, source.generation);
  const out = attributes.response as Response;
  assert.equal(meaning([out.candidates[0]?.message as Message]), meaning([answer.candidates[0]?.message as Message]));
  assert.is(out.candidates[0]?.stopReason?.unified, 'end_turn');
  assert.equal([out.usage?.inputTokens, out.usage?.outputTokens], [answer.usage?.inputTokens, answer.usage?.outputTokens]);
  const events = at('otlp.jsonl', { line: 2, entry: 1 });
  assert.equal(meaning((events.request as Request).messages), meaning(request('openai-chat', json('chatRequest')).messages));
  const eventAnswer = response('openai-chat', json('chatResponse'));
  assert.equal(meaning([(events.response as Response).candidates[0]?.message as Message]), meaning([eventAnswer.candidates[0]?.message as Message]));
  assert.is((events.response as Response).candidates[0]?.stopReason?.unified, eventAnswer.candidates[0]?.stopReason?.unified);
});

test('OTLP document, OpenInference llm.input_messages / llm.output_messages / llm.tools attributes', () => {
  const record = at('otlp.json', { entry: 0 });
  const source = request('openai-chat', json('toolsRequest'));
  const answer = response('openai-chat', json('toolsResponse'));
  const ir = record.request as Request;
  assert.equal(meaning(ir.messages), meaning(source.messages));
  assert.equal(toolsOf(ir), toolsOf(source));
  assert.is(ir.generation?.maxTokens, source.generation?.maxTokens);
  const out = record.response as Response;
  assert.equal(meaning([out.candidates[0]?.message as Message]), meaning([answer.candidates[0]?.message as Message]));
  assert.equal([out.usage?.inputTokens, out.usage?.outputTokens, out.usage?.totalTokens], [answer.usage?.inputTokens, answer.usage?.outputTokens, answer.usage?.totalTokens]);
});

test('Langfuse GENERATION: messages, settings (given as strings), answer, usage and time to first token', () => {
  const record = at('langfuse.jsonl', { line: 1 });
  const source = request('openai-chat', json('chatRequest'));
  assert.equal(record.request, source);
  const out = record.response as Response;
  const answer = response('openai-chat', json('chatResponse'));
  assert.equal(out.candidates[0]?.message, answer.candidates[0]?.message);
  assert.equal([out.usage?.inputTokens, out.usage?.outputTokens, out.usage?.totalTokens], [answer.usage?.inputTokens, answer.usage?.outputTokens, answer.usage?.totalTokens]);
  assert.equal(record.timing, { startedAt: '2025-11-21T00:00:00.000Z', durationMs: 812, timeToFirstTokenMs: 250 });
});

test('LiteLLM StandardLoggingPayload: the request of messages + model_parameters and the response are the bodies', () => {
  const record = at('litellm.json', { entry: 0 });
  assert.equal(record.request, request('openai-chat', json('toolsRequest')));
  assert.equal(record.response, response('openai-chat', json('toolsResponse')));
  assert.equal(record.timing, { startedAt: '2025-11-21T00:00:00.000Z', durationMs: 900, timeToFirstTokenMs: 300 });
});

test('Bedrock invocation logs: Converse whole and streamed, InvokeModel with a Claude body whole and streamed, and a throttled call', () => {
  const model = 'anthropic.claude-3-haiku-20240307-v1:0';
  const whole = at('bedrock-invocation.jsonl', { line: 1 });
  assert.equal([whole.format, whole.model, whole.endpoint], ['bedrock-converse', model, `/model/${encodeURIComponent(model)}/converse`]);
  assert.equal(whole.request, request('bedrock-converse', json('converseRequest'), model));
  assert.equal(whole.response, response('bedrock-converse', json('converseResponse'), model));
  assert.equal(whole.timing, { startedAt: '2025-11-21T00:00:00Z', durationMs: 640 });
  const streamed = at('bedrock-invocation.jsonl', { line: 2 });
  assert.is(streamed.stream, true);
  const events = text('converseStream').trim().split('\n').map((line) => {
    const event = JSON.parse(line) as { event: string; payload: unknown };
    return { event: event.event, data: event.payload };
  });
  assert.equal(streamed.response, stream('bedrock-converse', events, model));
  const invoke = at('bedrock-invocation.jsonl', { line: 3 });
  const { model: _model, ...body } = json('anthropicPlainRequest');
  assert.is(invoke.format, 'anthropic');
  assert.equal(invoke.request, request('anthropic', { anthropic_version: 'bedrock-2023-05-31', ...body }));
  assert.equal(invoke.response, response('anthropic', json('anthropicPlainResponse')));
  const invokeStream = at('bedrock-invocation.jsonl', { line: 4 });
  assert.equal([invokeStream.format, invokeStream.stream, invokeStream.endpoint], ['anthropic', true, `/model/${encodeURIComponent(model)}/invoke-with-response-stream`]);
  assert.equal(invokeStream.response, stream('anthropic', parseSseText(text('anthropicSse'))));
  const throttled = at('bedrock-invocation.jsonl', { line: 5 });
  assert.is(throttled.status, 429);
  assert.is((throttled.error as { type: string }).type, 'rate_limit');
});

test('two worker threads give the same records and errors as one (spans, cassette bytes and stream chunks cross to the workers)', async () => {
  const inputs = FILES.map((file) => join(FIXTURES, file));
  const one = await library(inputs);
  const two = await library(inputs, { jobs: 2, workerMinBytes: 0 });
  assert.is(one.records.length, 18);
  assert.equal(two.records, one.records);
  assert.equal(two.errors, one.errors);
});

test('LiteLLM: a completion without usage takes the payload token counts; a failed call is an error with its status', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-litellm-'));
  const payload = JSON.parse(readFileSync(join(FIXTURES, 'litellm.json'), 'utf8')) as Record<string, unknown>;
  const { usage: _usage, ...bare } = json('toolsResponse');
  const streamed = { ...payload, stream: true, response: bare, prompt_tokens: 70, completion_tokens: 9, total_tokens: 79 };
  const failed = { ...payload, status: 'failure', response: null, error_str: 'litellm.RateLimitError: slow down', error_information: { error_code: '429', error_class: 'RateLimitError' } };
  const file = join(dir, 'payloads.jsonl');
  writeFileSync(file, `${JSON.stringify(streamed)}\n${JSON.stringify(failed)}\n`);
  const result = await library([file]);
  assert.equal(result.errors, []);
  const usage = (result.records[0]?.response as Response).usage;
  assert.equal([usage?.inputTokens, usage?.outputTokens, usage?.totalTokens], [70, 9, 79]);
  assert.is(result.records[1]?.status, 429);
  assert.equal((result.records[1]?.error as { type: string; message: string }).message, 'litellm.RateLimitError: slow down');
});

test('OTLP: messages on the operation-details event; a failed span is an error record; a span naming no known provider is detect_failed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-otlp-'));
  const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const input = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Say hello in French.' }] }]);
  const span = (spanId: string, attributes: unknown[], extra: Record<string, unknown> = {}) => ({ traceId: 't', spanId, name: 'chat', startTimeUnixNano: '1763683200000000000', endTimeUnixNano: '1763683201000000000', attributes, ...extra });
  const spans = [
    span('1', [attribute('gen_ai.operation.name', 'chat'), attribute('gen_ai.provider.name', 'anthropic'), attribute('gen_ai.request.model', 'claude-x')], {
      events: [{ name: 'gen_ai.client.inference.operation.details', attributes: [attribute('gen_ai.input.messages', input), attribute('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Bonjour !' }], finish_reason: 'stop' }]))] }],
    }),
    span('2', [attribute('gen_ai.operation.name', 'chat'), attribute('gen_ai.provider.name', 'openai'), attribute('gen_ai.request.model', 'gpt-x'), attribute('gen_ai.input.messages', input), attribute('error.type', 'rate_limit_exceeded')], { status: { code: 2, message: 'Rate limit reached' } }),
    span('3', [attribute('gen_ai.operation.name', 'chat'), attribute('gen_ai.provider.name', 'cohere'), attribute('gen_ai.request.model', 'command-r'), attribute('gen_ai.input.messages', input)]),
    span('4', [attribute('gen_ai.operation.name', 'chat'), attribute('gen_ai.provider.name', 'openai'), attribute('gen_ai.request.model', 'gpt-x'), attribute('gen_ai.input.messages', '[{"role": "user", "parts": [{"type": "text"}]}]')]),
  ];
  const file = join(dir, 'spans.jsonl');
  writeFileSync(file, `${JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })}\n`);
  const result = await library([file]);
  const events = result.records[0];
  assert.equal(meaning((events?.request as Request).messages), [{ role: 'user', parts: [{ text: 'Say hello in French.' }] }]);
  assert.equal((events?.response as Response).candidates[0]?.stopReason, { unified: 'end_turn', raw: 'stop' });
  assert.equal(events?.timing, { startedAt: '2025-11-21T00:00:00.000Z', durationMs: 1000 });
  assert.equal(result.records[1]?.error, { type: 'other', message: 'Rate limit reached', code: 'rate_limit_exceeded' });
  assert.equal(result.errors.map((error) => [error.source.entry, error.reason.code, error.reason.path]), [[2, 'detect_failed', undefined], [3, 'invalid_type', '/attributes/3/value/stringValue']]);
  assert.match(result.errors[1]?.reason.message ?? '', /at \/0\/parts\/0\/content of its JSON/);
});

test('--to anthropic: spans and exports convert like any record, each body one the anthropic decoder accepts', () => {
  const converted = cli(['otlp.jsonl', 'otlp.json', 'langfuse.jsonl', 'litellm.json'], ['--to', 'anthropic']);
  assert.equal(converted.errors, []);
  assert.is(converted.records.length, 6);
  for (const record of converted.records) {
    decodeRequest('anthropic', record.request);
    if (record.response !== undefined) decodeResponse('anthropic', record.response);
  }
});

test('compressed inputs are found by their magic bytes, not their names: gzip is read; zstd is read or one typed error naming the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-compressed-'));
  const plain = await library(FILES.map((file) => join(FIXTURES, file)));
  const gzipped = FILES.map((file) => {
    const target = join(dir, file);
    writeFileSync(target, zlib.gzipSync(readFileSync(join(FIXTURES, file))));
    return target;
  });
  const read = await library(gzipped);
  const strip = (records: NormalizedRecord[]) => records.map(({ id: _id, source, ...rest }) => ({ ...rest, source: { ...source, file: source.file.split('/').pop() } }));
  assert.equal(strip(read.records), strip(plain.records));
  const zstd = join(dir, 'traffic.jsonl');
  const compress = (zlib as unknown as { zstdCompressSync?: (input: Buffer) => Buffer }).zstdCompressSync;
  if (compress === undefined) writeFileSync(zstd, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00]));
  else writeFileSync(zstd, compress(readFileSync(join(FIXTURES, 'langfuse.jsonl'))));
  const zstdRun = await library([zstd]);
  if (compress === undefined) {
    assert.equal(zstdRun.errors.map((error) => error.reason.code), ['not_implemented']);
    assert.ok(zstdRun.errors[0]?.reason.message.includes(zstd), zstdRun.errors[0]?.reason.message);
  } else assert.is(zstdRun.records.length, 1);
  const cut = join(dir, 'cut.jsonl');
  writeFileSync(cut, zlib.gzipSync(readFileSync(join(FIXTURES, 'bedrock-invocation.jsonl'))).subarray(0, 400));
  const cutRun = await library([cut]);
  assert.is(cutRun.errors.at(-1)?.reason.code, 'invalid_json');
  assert.match(cutRun.errors.at(-1)?.reason.message ?? '', /gzip stream is corrupt or cut off/);
});

/** Every value of `value` down to `depth` levels replaced in turn by each of a few wrong things, and each key deleted (JSON text counted as a value of its own). */
function* mutations(value: unknown, depth: number): Generator<unknown> {
  // JSON text (a span's GenAI attributes) is mutated inside too.
  if (typeof value === 'string' && /^\s*[[{]/.test(value) && value.length < 20_000) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return;
    }
    for (const inner of mutations(parsed, depth)) yield JSON.stringify(inner);
    return;
  }
  if (depth === 0 || value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
  const wrong: unknown[] = [null, 42, 'x', [], {}, [null], true];
  const entries = Array.isArray(value) ? [...value.entries()].map(([key, item]) => [String(key), item] as const) : Object.entries(value);
  for (const [key, item] of entries.slice(0, 24)) {
    const copy = (replacement: unknown, remove = false): unknown => {
      if (Array.isArray(value)) return remove ? value.filter((_, index) => String(index) !== key) : value.map((inner, index) => (String(index) === key ? replacement : inner));
      const object: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      if (remove) delete object[key];
      else object[key] = replacement;
      return object;
    };
    yield copy(undefined, true);
    for (const replacement of wrong) yield copy(replacement);
    for (const inner of mutations(item, depth - 1)) yield copy(inner);
  }
}

test('every reader: items with fields missing or of the wrong type are records or typed errors, never internal ones', async () => {
  const processor = new TaskProcessor({ to: 'ir', blobThreshold: 4096, outDir: mkdtempSync(join(tmpdir(), 'interlingua-mutations-')) });
  let checked = 0;
  const internal: string[] = [];
  for (const file of FILES) {
    const items: Item[] = [];
    for await (const item of readItems(join(FIXTURES, file), { bytesRead: 0 })) items.push(item);
    for (const item of items) {
      const value = item.kind === 'line' ? (JSON.parse(item.text) as unknown) : item.kind === 'entry' ? item.value : undefined;
      if (value === undefined || item.kind === 'unreadable') continue;
      const inputKind = item.kind === 'entry' && item.inputKind !== undefined ? item.inputKind : classifyItem(value);
      for (const mutated of mutations(value, 4)) {
        const task = { sequence: 0, file, baseName: file, items: [] };
        const outcome = processor.outcome(task, { kind: 'entry', entry: 0, value: mutated, har: false, inputKind });
        checked++;
        if (outcome.kind === 'error' && outcome.error.reason.code === 'internal') internal.push(`${file} ${inputKind}: ${outcome.error.reason.message}`);
      }
    }
  }
  assert.ok(checked > 5000, `checked ${checked}`);
  assert.equal([...new Set(internal)], []);
});

/** One JSONL exchange line: a chat request with `padding` characters of user text, and its answer. */
function exchangeLine(padding = 0): string {
  const body = json('chatRequest');
  const messages = padding === 0 ? body['messages'] : [{ role: 'user', content: 'x'.repeat(padding) }];
  return JSON.stringify({ url: 'https://api.openai.com/v1/chat/completions', request: { ...body, messages }, response: json('chatResponse'), status: 200 });
}

test('issue 38 #2: a JSONL file whose first line is over 64 KiB is read line by line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-long-first-'));
  const file = join(dir, 'long.jsonl');
  writeFileSync(file, `${exchangeLine(70_000)}\n${exchangeLine()}\n${exchangeLine()}\n`);
  const result = await library([file]);
  assert.equal([result.summary.read, result.summary.written, result.summary.errored], [3, 3, 0]);
});

test('issue 38 #2: a malformed first line is one error and the rest of the file is read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-bad-first-'));
  for (const first of ['{"log": {"entries": oops', '{', '[1, 2']) {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${first}\n${exchangeLine()}\n${exchangeLine()}\n`);
    const result = await library([file]);
    assert.equal([result.summary.written, result.summary.errored], [2, 1], first);
    assert.equal(result.errors.map((error) => [error.reason.code, error.source.line]), [['invalid_line', 1]], first);
  }
  assert.is(detectLayout('x.json', '[\n{"a": 1},\n{"b": 2}\n]'), 'document');
  assert.is(detectLayout('x.json', '{\n  "resourceSpans": ['), 'document');
  assert.is(detectLayout('x.jsonl', '{"resourceSpans": []}\n'), 'otlp-lines');
  assert.is(detectLayout('x.yaml', '# cassette\ninteractions:\n- request:\n'), 'yaml');
});

test('issue 38 #15: a line over the line cap is one error; the lines before and after it are records', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'interlingua-oversized-'));
  const file = join(dir, 'oversized.jsonl');
  writeFileSync(file, `${exchangeLine()}\n${exchangeLine(3 * 1024 * 1024)}\n${exchangeLine()}\r\n${exchangeLine()}`);
  const result = await library([file], { maxLineBytes: 1024 * 1024 });
  assert.equal([result.summary.read, result.summary.written, result.summary.errored], [4, 3, 1]);
  assert.equal(result.errors.map((error) => [error.reason.code, error.source.line]), [['invalid_line', 2]]);
  assert.match(result.errors[0]?.reason.message ?? '', /over the limit of 1048576/);
  assert.equal(result.records.map((record) => record.source.line), [1, 3, 4]);
});

test('line splitting: every chunk boundary, CRLF, a BOM, and lines at and over the cap', async () => {
  const bytes = Buffer.from('\ufeffa\r\ncdef\n\nghijkl\nlm', 'utf8');
  for (let size = 1; size <= bytes.length; size++) {
    const chunks = async function* () {
      for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
    };
    const got = [];
    for await (const line of splitLines(chunks(), 5)) got.push(line);
    assert.equal(got, [{ number: 1, text: 'a' }, { number: 2, text: 'cdef' }, { number: 3, text: '' }, { number: 4, oversized: 6 }, { number: 5, text: 'lm' }], `chunks of ${size}`);
  }
});

test.run();
