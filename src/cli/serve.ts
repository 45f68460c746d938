/** `interlingua serve`: run the proxy on a Node HTTP server. */
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { createProxy, type ProxyLogEntry } from '../proxy/index.ts';
import { parseModelRule, type ModelRule } from '../proxy/model-map.ts';
import { isFormatId } from '../formats/registry.ts';
import { FORMAT_IDS } from '../core/ir.ts';
import { serve, portOf } from '../node/server.ts';
import { createNodeFetch } from '../node/fetch.ts';
import { UsageError } from './io.ts';
import { dialectOption } from './convert.ts';

export const SERVE_HELP = `Usage: interlingua serve --upstream FORMAT --upstream-url URL [options]
       interlingua serve --upstream bedrock-converse --region REGION [options]

Run the proxy: callers speak any format at its own path (/v1/messages,
/v1/chat/completions, /v1/responses, /v1beta/models/M:generateContent and
/v1beta/models/M:streamGenerateContent?alt=sse (or /v1/…), /api/chat,
/api/generate, /model/M/converse, /model/M/converse-stream); requests go to
the upstream in its format, answers come back in the caller's. Token counts
too (/v1/messages/count_tokens, /v1/responses/input_tokens,
/v1beta/models/M:countTokens, /model/M/count-tokens) between the formats
that have such an endpoint; an openai-chat or ollama upstream has none, and
the caller gets a 404 rather than an estimate. One log line per request on
stderr; keys never appear in logs.

A Bedrock upstream is signed with SigV4 using AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (or sent a Bedrock API key as a
bearer token with --api-key-env); its URL defaults to
https://bedrock-runtime.REGION.amazonaws.com.

With --inbound-token-env, callers present the token in x-interlingua-token
or their SDK's key header; with --pass-through-auth too, that header carries
their own vendor key and the token goes in x-interlingua-token only
(--pass-through-auth with --api-key-env is refused). Redirects from the
upstream are never followed. Limits and what the proxy redacts: docs/SECURITY.md.

Options:
  --port N                 port to listen on (default 8787; 0 picks a free one)
  --host HOST              address to bind (default 127.0.0.1)
  --upstream FORMAT        anthropic, openai-chat, openai-responses, gemini, ollama or bedrock-converse (required)
  --upstream-url URL       API root as the vendor SDK spells it, e.g. https://api.openai.com/v1
                           (required, except for Bedrock)
  --region REGION          Bedrock: the AWS region (default AWS_REGION, then AWS_DEFAULT_REGION, then us-east-1)
  --dialect NAME           the upstream's dialect of openai-chat: deepseek, openrouter, gemini-openai,
                           vllm, ollama-openai (default: plain OpenAI)
  --api-key-env VAR        environment variable holding the upstream API key
  --pass-through-auth      forward the caller's own key upstream instead
  --model-map PATTERN=MODEL  map models by glob, e.g. 'claude-*=gpt-5' (repeatable; first match wins)
  --inbound-token-env VAR  require callers to present the token in this variable
  --timeout MS             time for the upstream to start answering, and the
                           longest silence within an answer (default 120000)
  --max-body BYTES         largest request body (default 33554432)
  --max-answer BYTES       largest whole upstream answer (default 134217728; larger is a 502)
  --max-inflight BYTES     request bytes all requests in flight may hold (default 268435456;
                           beyond it 503 with retry-after)
  --deadline MS            longest a request may take, streams included (default: none)
  -h, --help               show this help
`;

/**
 * The V8 flag the server runs with. V8 allocates the objects of a literal
 * that were mostly alive at its last minor collections straight in the old
 * generation (allocation-site pretenuring). A proxy's objects live for one
 * request or one stream, but a few of its literals are judged long-lived
 * early on (a stream's state objects), and from then on each is old garbage
 * the moment its request ends, keeping every young object it points to
 * alive through each minor collection until the next full one. Measured
 * with a 40-event stream per request at 1,000 req/s (Anthropic caller,
 * OpenAI Chat upstream): 1.6 against 0.75–1.2 MB promoted per minor
 * collection, and in interleaved rounds 600 against 540 µs of CPU per
 * streamed request (Chat caller: 817 against 630); whole answers the same
 * within the rounds' spread. Set before the proxy runs its first request,
 * so no literal of the request path has a site judged yet.
 */
const NO_PRETENURING = '--no-allocation-site-pretenuring';

/** ISO 8601 times in milliseconds, the date and second formatted once per second rather than once per line. */
function isoTimes(): (milliseconds: number) => string {
  let second = Number.NaN;
  let prefix = '';
  return (milliseconds) => {
    const whole = Math.floor(milliseconds / 1000);
    if (whole !== second) {
      second = whole;
      prefix = new Date(whole * 1000).toISOString().slice(0, 20);
    }
    const rest = milliseconds - whole * 1000;
    return `${prefix}${rest < 10 ? '00' : rest < 100 ? '0' : ''}${rest}Z`;
  };
}

function formatLog(time: string, entry: ProxyLogEntry): string {
  const model = entry.model === undefined ? '' : ` model=${entry.model}${entry.upstreamModel !== undefined && entry.upstreamModel !== entry.model ? `→${entry.upstreamModel}` : ''}`;
  const error = entry.error === undefined ? '' : ` error=${JSON.stringify(entry.error)}`;
  return `${time} ${entry.method} ${entry.path} ${entry.ingress ?? '-'}→${entry.upstream}${model}${entry.stream ? ' stream' : ''} ${entry.status} ${entry.durationMs}ms losses=${entry.losses}${error}\n`;
}

/**
 * The access log, written in batches: entries are kept with their time and
 * formatted and written together, one `write` to stderr per 20 ms (or per
 * 512 entries), instead of a line formatted and a system call made per
 * request. `flush` writes what is pending (on shutdown).
 */
function batchedLog(write: (text: string) => void): { entry(entry: ProxyLogEntry): void; flush(): void } {
  let entries: ProxyLogEntry[] = [];
  let times: number[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const iso = isoTimes();
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (entries.length === 0) return;
    const pending = entries;
    const at = times;
    entries = [];
    times = [];
    let text = '';
    for (let index = 0; index < pending.length; index++) text += formatLog(iso(at[index]!), pending[index]!);
    write(text);
  };
  return {
    entry(entry) {
      entries.push(entry);
      times.push(Date.now());
      if (entries.length >= 512) flush();
      else timer ??= setTimeout(flush, 20);
    },
    flush,
  };
}

/** Why the server could not listen, in one line (EADDRINUSE and friends), never a stack. */
function listenFailure(error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is in use (choose another with --port, or 0 for a free one)`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges; choose another with --port)`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `cannot listen on ${where}: no such address on this machine (check --host)`;
    default:
      return `cannot listen on ${where}: ${code ?? (error instanceof Error ? error.message : String(error))}`;
  }
}

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return number;
}

export async function runServe(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        upstream: { type: 'string' },
        'upstream-url': { type: 'string' },
        region: { type: 'string' },
        dialect: { type: 'string' },
        'api-key-env': { type: 'string' },
        'pass-through-auth': { type: 'boolean' },
        'model-map': { type: 'string', multiple: true },
        'inbound-token-env': { type: 'string' },
        timeout: { type: 'string' },
        'max-body': { type: 'string' },
        'max-answer': { type: 'string' },
        'max-inflight': { type: 'string' },
        deadline: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values;
  const format = values.upstream;
  if (format === undefined || !isFormatId(format)) throw new UsageError(`--upstream must be one of ${FORMAT_IDS.join(', ')}`);
  const bedrock = format === 'bedrock-converse';
  const baseUrl = values['upstream-url'] ?? (bedrock ? '' : undefined);
  if (baseUrl === undefined || (baseUrl !== '' && !/^https?:\/\//.test(baseUrl))) throw new UsageError('--upstream-url must be an http(s) URL');
  const region = values.region;
  if (region !== undefined && !bedrock) throw new UsageError('--region is for a bedrock-converse upstream');
  if (bedrock && values['api-key-env'] === undefined && values['pass-through-auth'] !== true && (process.env['AWS_ACCESS_KEY_ID'] === undefined || process.env['AWS_SECRET_ACCESS_KEY'] === undefined)) {
    throw new UsageError('a bedrock-converse upstream needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or --api-key-env with a Bedrock API key)');
  }
  const dialect = dialectOption(values.dialect, format);
  const rules: ModelRule[] = [];
  for (const text of values['model-map'] ?? []) {
    const rule = parseModelRule(text);
    if (rule === undefined) throw new UsageError(`--model-map "${text}" is not PATTERN=MODEL`);
    rules.push(rule);
  }
  const keyEnv = values['api-key-env'];
  if (keyEnv !== undefined && process.env[keyEnv] === undefined) throw new UsageError(`the environment variable ${keyEnv} is not set`);
  const tokenEnv = values['inbound-token-env'];
  const inboundToken = tokenEnv === undefined ? undefined : process.env[tokenEnv];
  if (tokenEnv !== undefined && inboundToken === undefined) throw new UsageError(`the environment variable ${tokenEnv} is not set`);
  const log = batchedLog((text) => process.stderr.write(text));
  setFlagsFromString(NO_PRETENURING);
  const handler = createProxy({
    upstream: {
      format,
      baseUrl,
      ...(keyEnv === undefined ? {} : { apiKeyEnv: keyEnv }),
      ...(values['pass-through-auth'] === true ? { passThroughAuth: true } : {}),
      ...(region === undefined ? {} : { region }),
      ...(dialect === undefined ? {} : { dialect }),
    },
    modelMap: rules,
    timeoutMs: positiveInteger(values.timeout, 'timeout', 120_000),
    maxBodyBytes: positiveInteger(values['max-body'], 'max-body', 32 * 1024 * 1024),
    limits: {
      maxAnswerBytes: positiveInteger(values['max-answer'], 'max-answer', 128 * 1024 * 1024),
      maxInflightBytes: positiveInteger(values['max-inflight'], 'max-inflight', 256 * 1024 * 1024),
      ...(values.deadline === undefined ? {} : { deadlineMs: positiveInteger(values.deadline, 'deadline', 0) }),
    },
    ...(inboundToken === undefined ? {} : { inboundToken }),
    fetch: createNodeFetch(),
    log: (entry) => log.entry(entry),
  });
  const port = positiveInteger(values.port, 'port', 8787);
  if (port > 65_535) throw new UsageError(`--port must be from 0 to 65535, got "${values.port}"`);
  const host = values.host ?? '127.0.0.1';
  const server = await serve(handler, { port, host }).catch((error: unknown) => {
    throw new UsageError(listenFailure(error, host, port));
  });
  process.stderr.write(`interlingua: proxy listening on http://${values.host ?? '127.0.0.1'}:${portOf(server)} → ${format} at ${baseUrl || `Bedrock in ${region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'us-east-1'}`}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      log.flush();
      server.close(() => {
        log.flush();
        resolve();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
