/**
 * The package as its users get it: `npm run build`, `npm pack`, the tarball
 * installed into a throwaway project (no vendor SDK, no TypeScript runner),
 * and a real call with a real assertion in every consumer the README
 * promises: Node ESM, CommonJS `require`, a strict TypeScript consumer
 * (node16 and bundler resolution), Bun and Deno (conversions, and the proxy
 * on the runtime's own server), and the proxy as a Cloudflare Worker in
 * workerd. The proxies sit in front of a fake Anthropic upstream on
 * 127.0.0.1 answering recorded corpus bodies, and the official OpenAI SDK is
 * the client. A runtime whose binary cannot run here is skipped, saying why.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, mkdir, writeFile, copyFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { build, type BuildOptions } from 'esbuild';
import { convertRequest } from '../../src/index.ts';
import {
  CORPUS,
  ROOT,
  buildPackAndInstall,
  cleanup,
  describe,
  findRuntime,
  run,
  sseData,
  startRecordedUpstream,
  startServer,
  WORKER_BUNDLE,
  type Binary,
  type Installed,
  type Ran,
  type RecordedUpstream,
  type Started,
} from '../support/consumer.ts';

/** The recorded payloads every consumer converts or serves. */
const DATA = {
  request: join(CORPUS, 'openai-chat', 'request', 'envoy-ai-gateway--chat-tools.json'),
  stream: join(CORPUS, 'anthropic', 'stream', 'anthropic-sdk-typescript--tool_use_response.sse'),
  whole: join(CORPUS, 'anthropic', 'response', 'anthropic-sdk-typescript--ToolRunner.0.json'),
};
const VENDOR_SDKS = ['openai', '@anthropic-ai/sdk', '@google/genai', '@aws-sdk/client-bedrock-runtime', 'ollama'];
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const runtimes: Record<'bun' | 'deno' | 'workerd', Binary> = { bun: findRuntime('bun'), deno: findRuntime('deno'), workerd: findRuntime('workerd') };
for (const [name, binary] of Object.entries(runtimes)) {
  if ('missing' in binary) console.warn(`consumer: SKIPPING the ${name} consumer: ${binary.missing}`);
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
/** Seconds each consumer took, from set-up done to ready (printed at the end, never asserted). */
const durations: Record<string, number> = {};
function settle<T>(name: string, work: () => Promise<T>): Promise<Settled<T>> {
  const begun = performance.now();
  const done = () => (durations[name] = Math.round(performance.now() - begun) / 1000);
  return work().then(
    (value) => (done(), { ok: true as const, value }),
    (error: unknown) => (done(), { ok: false as const, error }),
  );
}
async function outcome<T>(pending: Promise<Settled<T>> | undefined): Promise<T> {
  if (pending === undefined) throw new Error('the consumer set-up did not run');
  const settled = await pending;
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/** A proxy served by one runtime in front of its own recorded upstream. */
interface Served {
  server: Started;
  upstream: RecordedUpstream;
  /** The runtime's own report (Bun, Deno): conversions done inside it. */
  report: RuntimeReport | undefined;
  baseURL: string;
}

interface RuntimeReport {
  runtime: string;
  body: unknown;
  losses: unknown[];
  stream: string;
  streamLosses: unknown[];
  port: number;
}

let installed: Installed | undefined;
let setup: Promise<Settled<Installed>> | undefined;
const jobs: {
  esm?: Promise<Settled<Ran>>;
  cjs?: Promise<Settled<Ran>>;
  node16?: Promise<Settled<Ran>>;
  bundler?: Promise<Settled<Ran>>;
  negative?: Promise<Settled<{ ran: Ran; line: number }>>;
  bun?: Promise<Settled<Served>>;
  deno?: Promise<Settled<Served>>;
  workerd?: Promise<Settled<Served & { bundleBytes: number }>>;
} = {};
const started: Served[] = [];
const setupStarted = performance.now();

async function serveInRuntime(app: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  const upstream = await startRecordedUpstream(DATA.whole, DATA.stream);
  try {
    const server = await startServer(command, [...args, 'data/request.json', 'data/stream.sse', upstream.url], { cwd: app, env });
    const report = JSON.parse(server.line) as RuntimeReport;
    const served = { server, upstream, report, baseURL: `http://127.0.0.1:${report.port}/v1` };
    started.push(served);
    return served;
  } catch (error) {
    await upstream.close();
    throw error;
  }
}

/** esbuild's build, its failure named as the Worker bundle's (a Node built-in reaching the bundle fails here). */
async function bundle(options: BuildOptions): Promise<void> {
  try {
    await build(options);
  } catch (error) {
    throw new Error(`bundling test/consumer/worker.mjs for workerd failed (platform neutral, conditions workerd/worker/browser, no Node built-ins): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Bundle the worker as wrangler does (esbuild, worker conditions, no Node built-ins) and serve it with workerd. */
async function serveInWorkerd(app: string, workerd: string): Promise<Served & { bundleBytes: number }> {
  const outfile = join(app, 'worker.bundle.js');
  await bundle({
    entryPoints: [join(app, 'worker.mjs')],
    absWorkingDir: app,
    outfile,
    ...WORKER_BUNDLE,
    minify: true,
  });
  const bundleBytes = (await stat(outfile)).size;
  const upstream = await startRecordedUpstream(DATA.whole, DATA.stream);
  try {
    const config = [
      'using Workerd = import "/workerd/workerd.capnp";',
      'const config :Workerd.Config = (',
      '  services = [',
      '    (name = "main", worker = .proxyWorker),',
      '    (name = "internet", network = (allow = ["local", "private", "public"])),',
      '  ],',
      '  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],',
      ');',
      'const proxyWorker :Workerd.Worker = (',
      '  modules = [(name = "worker.js", esModule = embed "worker.bundle.js")],',
      '  compatibilityDate = "2025-09-01",',
      `  bindings = [(name = "UPSTREAM_URL", text = ${JSON.stringify(upstream.url)}), (name = "UPSTREAM_KEY", text = "upstream-key")],`,
      ');',
      '',
    ].join('\n');
    await writeFile(join(app, 'workerd.capnp'), config);
    const server = await startServer(workerd, ['serve', 'workerd.capnp', '--control-fd=3'], { cwd: app, announceFd: 3 });
    const announced = JSON.parse(server.line) as { event: string; socket: string; port: number };
    const served = { server, upstream, report: undefined, baseURL: `http://127.0.0.1:${announced.port}/v1`, bundleBytes };
    started.push(served);
    return served;
  } catch (error) {
    await upstream.close();
    throw error;
  }
}

/** Start everything at once: the consumers are independent, and the runtimes mostly wait on start-up. */
function startJobs(app: string): void {
  const node = process.execPath;
  jobs.esm = settle('esm', () => run(node, ['esm.mjs', 'data/request.json', 'data/stream.sse'], { cwd: app }));
  jobs.cjs = settle('cjs', () => run(node, ['cjs.cjs', 'data/request.json'], { cwd: app }));
  jobs.node16 = settle('node16', () => run(node, [TSC, '-p', 'tsconfig.node16.json'], { cwd: app }));
  jobs.bundler = settle('bundler', () => run(node, [TSC, '-p', 'tsconfig.bundler.json'], { cwd: app }));
  jobs.negative = settle('negative', async () => {
    // The same consumer with its `@ts-expect-error` line removed must fail to type-check, on that call.
    const lines = (await readFile(join(app, 'consumer.ts'), 'utf8')).split('\n');
    const index = lines.findIndex((line) => line.includes('@ts-expect-error'));
    if (index < 0) throw new Error('test/consumer/consumer.ts has no @ts-expect-error line');
    lines.splice(index, 1);
    await mkdir(join(app, 'negative'));
    await writeFile(join(app, 'negative', 'consumer.ts'), lines.join('\n'));
    await writeFile(join(app, 'negative', 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.node16.json', files: ['consumer.ts'] }));
    return { ran: await run(node, [TSC, '-p', 'negative/tsconfig.json'], { cwd: app }), line: index + 1 };
  });
  const { bun, deno, workerd } = runtimes;
  if ('path' in bun) jobs.bun = settle('bun', () => serveInRuntime(app, bun.path, ['runtime.mjs'], process.env));
  if ('path' in deno) {
    const env = { ...process.env, DENO_DIR: join(app, '..', 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
    const permissions = ['--no-prompt', '--no-lock', '--allow-net=127.0.0.1', `--allow-read=${app}`];
    jobs.deno = settle('deno', () => serveInRuntime(app, deno.path, ['run', ...permissions, 'runtime.mjs'], env));
  }
  if ('path' in workerd) jobs.workerd = settle('workerd', () => serveInWorkerd(app, workerd.path));
}

const consumer = suite('consumer: the packed tarball, installed');

consumer.before(async () => {
  setup = settle('setup', async () => {
    const result = await buildPackAndInstall();
    installed = result;
    await mkdir(join(result.app, 'data'));
    await copyFile(DATA.request, join(result.app, 'data', 'request.json'));
    await copyFile(DATA.stream, join(result.app, 'data', 'stream.sse'));
    startJobs(result.app);
    return result;
  });
  await setup;
});

consumer.after(async () => {
  for (const served of started) {
    await served.server.stop();
    await served.upstream.close();
  }
  const seconds = Math.round(performance.now() - setupStarted) / 1000;
  if (installed !== undefined) {
    const steps = Object.entries(installed.timings).map(([step, time]) => `${step} ${time} s`).join(', ');
    const each = Object.entries(durations).map(([job, time]) => `${job} ${time} s`).join(', ');
    console.log(`consumer: ${seconds} s in all (${steps}; then in parallel: ${each})`);
  }
  await cleanup(installed);
});

// What every consumer must get from the same recorded payloads.

const sourceConversion = async () => convertRequest(JSON.parse(await readFile(DATA.request, 'utf8')), { from: 'openai-chat', to: 'anthropic' });

/** The converted request: the installed build agrees with the source, and the body says what it should. */
async function checkRequest(body: unknown, losses: unknown): Promise<void> {
  const expected = await sourceConversion();
  assert.equal(body, expected.body, 'the packed build converts exactly as the source does');
  assert.equal(losses, expected.losses);
  const anthropic = body as { model: string; max_tokens: number; messages: { role: string; content: unknown }[]; tools: { name: string; input_schema: { required: string[] } }[] };
  assert.is(anthropic.model, 'gpt-5-nano');
  assert.type(anthropic.max_tokens, 'number', 'Anthropic requires max_tokens');
  assert.is(anthropic.messages[0]?.role, 'user');
  assert.match(JSON.stringify(anthropic.messages[0]?.content), 'What is the weather like in Boston today?');
  assert.is(anthropic.tools[0]?.name, 'get_current_weather');
  assert.equal(anthropic.tools[0]?.input_schema.required, ['location']);
}

interface ChatChunk {
  object: string;
  choices: { delta: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] }; finish_reason: string | null }[];
}

/** The recorded Anthropic stream converted to Chat Completions chunks: text, one tool call, its arguments, the finish. */
function checkStream(sse: string): void {
  const chunks = sseData(sse) as ChatChunk[];
  assert.ok(chunks.length > 3, `a stream of chunks, got ${sse.slice(0, 200)}`);
  assert.ok(sse.trimEnd().endsWith('data: [DONE]'), 'the Chat Completions stream ends with [DONE]');
  let text = '';
  let name = '';
  let args = '';
  let finish: string | null = null;
  for (const chunk of chunks) {
    assert.is(chunk.object, 'chat.completion.chunk');
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
  }
  assert.is(text, "I'll check the current weather in Paris for you.");
  assert.is(name, 'get_weather');
  assert.is((JSON.parse(args) as { location: string }).location, 'Paris');
  assert.is(finish, 'tool_calls');
}

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

/** The official OpenAI SDK against the served proxy, whole then streamed, with the recorded Anthropic answers behind it. */
async function checkProxy(served: Served): Promise<void> {
  const client = new OpenAI({ baseURL: served.baseURL, apiKey: 'caller-key', maxRetries: 0, timeout: 30_000 });
  const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

  const completion = await client.chat.completions.create({ model: 'gpt-5', messages, tools: [weatherTool] });
  const choice = completion.choices[0];
  assert.is(choice?.finish_reason, 'tool_calls');
  assert.is(choice?.message.content, 'I\'ll use the test_tool with the value "test" as requested, then provide a final response.');
  const call = choice?.message.tool_calls?.[0];
  assert.ok(call?.type === 'function', 'a function tool call');
  assert.is(call.function.name, 'test_tool');
  assert.equal(JSON.parse(call.function.arguments), { value: 'test' });
  assert.is(completion.usage?.prompt_tokens, 415);
  assert.is(completion.usage?.completion_tokens, 76);

  const sent = served.upstream.received[0];
  assert.ok(sent !== undefined, 'the upstream was called');
  assert.is(sent.url, '/v1/messages');
  assert.is(sent.headers['x-api-key'], 'upstream-key');
  assert.ok(!JSON.stringify(sent.headers).includes('caller-key'), "the caller's key stays at the proxy");
  assert.is(sent.body['model'], 'claude-opus-4-8');
  assert.match(JSON.stringify(sent.body['messages']), 'What is the weather in Paris?');
  assert.match(JSON.stringify(sent.body['tools']), 'get_weather');

  const stream = await client.chat.completions.create({ model: 'gpt-5', messages, tools: [weatherTool], stream: true });
  let text = '';
  let name = '';
  let args = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    for (const streamed of chunk.choices) {
      text += streamed.delta.content ?? '';
      for (const delta of streamed.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        args += delta.function?.arguments ?? '';
      }
      finish = streamed.finish_reason ?? finish;
    }
  }
  assert.is(served.upstream.received[1]?.body['stream'], true, 'the streamed call went upstream as a stream');
  assert.is(text, "I'll check the current weather in Paris for you.");
  assert.is(name, 'get_weather');
  assert.is((JSON.parse(args) as { location: string }).location, 'Paris');
  assert.is(finish, 'tool_calls');
}

consumer('the tarball holds the build, README, LICENSE, package.json and the bin, and no sources or tests', async () => {
  const { files } = await outcome(setup);
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  const bins = Object.values(manifest.bin ?? {}).map((path) => path.replace(/^\.\//, ''));
  const stray = files.filter((file) => !/^(dist\/|README\.md$|LICENSE$|package\.json$)/.test(file) && !bins.includes(file));
  assert.equal(stray, [], 'nothing outside dist/, README.md, LICENSE, package.json and the bin');
  for (const required of ['dist/index.js', 'dist/index.d.ts', 'README.md', 'LICENSE', ...bins]) {
    assert.ok(files.includes(required), `the tarball has ${required}`);
  }
  // Every file an export condition names is in the tarball, and every code entry has its types.
  const exported = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
  for (const [subpath, target] of Object.entries(exported.exports)) {
    const conditions = typeof target === 'string' ? { default: target } : target;
    for (const [condition, path] of Object.entries(conditions)) {
      assert.ok(files.includes(path.replace(/^\.\//, '')), `exports["${subpath}"].${condition} (${path}) is in the tarball`);
    }
    if (subpath !== './package.json') assert.ok('types' in conditions, `exports["${subpath}"] names its types`);
  }
});

consumer('Node ESM: convertRequest and convertStream from "interlingua", and one pair from "interlingua/core" with per-format codecs', async () => {
  const ran = await outcome(jobs.esm);
  assert.is(ran.code, 0, describe('node esm.mjs', ran));
  const result = JSON.parse(ran.stdout) as { formats: string[]; body: unknown; losses: unknown[]; lean: { body: unknown; losses: unknown[] }; stream: string; subpaths: Record<string, string[] | string> };
  assert.ok(result.formats.includes('anthropic') && result.formats.includes('openai-chat'), 'implementedFormats() names the codecs');
  for (const [specifier, names] of Object.entries(result.subpaths)) {
    assert.ok(Array.isArray(names) && names.length > 0, `import('${specifier}') loads and exports something: ${JSON.stringify(names)}`);
  }
  assert.ok(result.subpaths['interlingua/proxy']?.includes('createProxy'), 'interlingua/proxy exports createProxy');
  const stores: Record<string, string[]> = {
    'interlingua/store/memory': ['createMemoryStore', 'StoreError'],
    'interlingua/store/file': ['createFileStore', 'StoreError'],
    'interlingua/store/redis': ['createRedisStore', 'StoreError'],
    'interlingua/store/workers': ['createKvStore', 'createDurableObjectStore', 'StateStoreObject', 'StoreError'],
  };
  for (const [specifier, names] of Object.entries(stores)) {
    for (const name of names) assert.ok(result.subpaths[specifier]?.includes(name), `${specifier} exports ${name}: ${JSON.stringify(result.subpaths[specifier])}`);
  }
  await checkRequest(result.body, result.losses);
  await checkRequest(result.lean.body, result.lean.losses);
  checkStream(result.stream);
});

consumer('a Worker importing interlingua/store/workers bundles without Node built-ins, the file database or the Redis client', async () => {
  const { app } = await outcome(setup);
  const outfile = join(app, 'store-worker.bundle.js');
  await bundle({
    entryPoints: [join(app, 'store-worker.mjs')],
    absWorkingDir: app,
    outfile,
    ...WORKER_BUNDLE,
  });
  const source = await readFile(outfile, 'utf8');
  assert.match(source, /StateStoreObject/);
  assert.match(source, /interlingua_parts/, 'the Durable Object store is in the bundle');
  assert.not.match(source, /libsql/i, 'no file database in the Worker bundle');
  assert.not.match(source, /@redis|RESP3/, 'no Redis client in the Worker bundle');
});

consumer('Node CommonJS: require("interlingua") returns the real functions', async () => {
  const ran = await outcome(jobs.cjs);
  assert.is(ran.code, 0, describe('node cjs.cjs', ran));
  const result = JSON.parse(ran.stdout) as { types: Record<string, string>; handler: string; body: unknown; losses: unknown[]; unknown: { isInterlinguaError: boolean; code: string } };
  assert.equal(result.types, { convertRequest: 'function', convertStream: 'function', createProxy: 'function' });
  assert.is(result.handler, 'function', 'createProxy from require("interlingua/proxy") returns a handler');
  await checkRequest(result.body, result.losses);
  assert.equal(result.unknown, { isInterlinguaError: true, code: 'unknown_format' }, 'a wrong format id is a typed InterlinguaError');
});

consumer('TypeScript: no vendor SDK and no Node types in the consumer project', async () => {
  const { app } = await outcome(setup);
  for (const name of [...VENDOR_SDKS, '@types/node', 'typescript', 'tsx']) {
    assert.not.ok(existsSync(join(app, 'node_modules', name)), `${name} is not installed with interlingua`);
  }
  assert.ok(existsSync(join(app, 'node_modules', 'interlingua', 'package.json')));
});

for (const resolution of ['node16', 'bundler'] as const) {
  consumer(`TypeScript: strict, exactOptionalPropertyTypes, moduleResolution ${resolution}, skipLibCheck off: tsc passes`, async () => {
    const ran = await outcome(jobs[resolution]);
    assert.is(ran.code, 0, describe(`tsc -p tsconfig.${resolution}.json`, ran));
  });
}

consumer('TypeScript: without its @ts-expect-error line the consumer fails on the wrong format id', async () => {
  const { ran, line } = await outcome(jobs.negative);
  assert.is.not(ran.code, 0, 'tsc must fail once the expected error is no longer expected');
  const errors = ran.stdout.split('\n').filter((text) => text.includes('error TS'));
  assert.is(errors.length, 1, `exactly one error:\n${ran.stdout}`);
  assert.match(errors[0] ?? '', `consumer.ts(${line},`);
  assert.match(errors[0] ?? '', 'cohere');
});

for (const name of ['bun', 'deno'] as const) {
  const binary = runtimes[name];
  const test = 'path' in binary ? consumer : consumer.skip;
  const label = 'path' in binary ? binary.version : 'not runnable here';
  test(`${name} (${label}): convertRequest, convertStream on a recorded stream, createProxy on ${name === 'bun' ? 'Bun.serve' : 'Deno.serve'} with the OpenAI SDK`, async () => {
    const served = await outcome(jobs[name]);
    const report = served.report;
    assert.ok(report !== undefined);
    assert.match(report.runtime, name);
    await checkRequest(report.body, report.losses);
    checkStream(report.stream);
    await checkProxy(served);
  });
}

{
  const binary = runtimes.workerd;
  const test = 'path' in binary ? consumer : consumer.skip;
  test(`Cloudflare Worker in workerd (${'path' in binary ? binary.version : 'not runnable here'}): bundled without Node built-ins, the OpenAI SDK through createProxy, whole and streamed`, async () => {
    const served = await outcome(jobs.workerd);
    assert.ok(served.bundleBytes > 0);
    await checkProxy(served);
  });
}

consumer.run();
