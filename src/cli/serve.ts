/** `interlingua serve`: run the gateway (or, from the flags, its one-upstream case) on a Node HTTP server. */
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { logLineFormatter, type LogFormat } from '../telemetry/log-line.ts';
import { createRequestMetrics } from '../telemetry/request-metrics.ts';
import { createOtelSink } from '../telemetry/otel.ts';
import { combineSinks } from '../telemetry/record.ts';
import type { OtlpExport } from './otlp.ts';
import type { ProxyLogEntry } from '../proxy/index.ts';
import { parseModelRule, type ModelRule } from '../proxy/model-map.ts';
import { isFormatId } from '../formats/registry.ts';
import { isInterlinguaError } from '../core/errors.ts';
import { FORMAT_IDS, type FormatId } from '../core/ir.ts';
import { createGateway } from '../gateway/gateway.ts';
import { gatewayWarnings } from '../gateway/warnings.ts';
import type { GatewayConfig } from '../gateway/config.ts';
import { serve, portOf } from '../node/server.ts';
import { createNodeFetch } from '../node/fetch.ts';
import { UsageError } from './io.ts';
import { dialectOption } from './convert.ts';

export const SERVE_HELP = `Usage: interlingua serve --config FILE [options]
       interlingua serve --upstream FORMAT --upstream-url URL [options]
       interlingua serve --upstream bedrock-converse --region REGION [options]

Run the gateway: callers speak any format at its own path (/v1/messages,
/v1/chat/completions, /v1/responses, /v1beta/models/M:generateContent and
/v1beta/models/M:streamGenerateContent?alt=sse (or /v1/…), /api/chat,
/api/generate, /model/M/converse, /model/M/converse-stream); requests go to
the upstream in its format, answers come back in the caller's. Token counts
too (/v1/messages/count_tokens, /v1/responses/input_tokens,
/v1beta/models/M:countTokens, /model/M/count-tokens) between the formats
that have such an endpoint; an openai-chat or ollama upstream has none, and
the caller gets a 404 rather than an estimate.

One log line per request on stderr, written when the answer has ended (a
stream at its last byte): request id (the caller's x-request-id, or a new
one; echoed back), formats, models before and after mapping, status,
duration, time to first byte, tokens, stop reasons, the losses' codes
(request and answer sides, streams included), the upstream's own request id
(also sent back as x-interlingua-upstream-request-id) and whether a stream
ended with an error event. Every value is escaped; keys never appear in
logs. GET /metrics answers Prometheus text (behind the inbound token when
one is set). With --otlp-endpoint, or the standard OTEL_EXPORTER_OTLP_ENDPOINT
(or _TRACES_ENDPOINT, _METRICS_ENDPOINT) variable, spans and metrics
following the OpenTelemetry GenAI conventions are exported over OTLP/HTTP,
protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL, or its _TRACES_/_METRICS_
form, =http/json for JSON; grpc is refused at start-up);
OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
OTEL_METRIC_EXPORT_INTERVAL, OTEL_TRACES_EXPORTER=none,
OTEL_METRICS_EXPORTER=none, OTEL_PROPAGATORS=none and OTEL_SDK_DISABLED=true
are honoured; message content goes into spans only with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. W3C trace context
goes upstream: the caller's traceparent and tracestate as they came, or,
when exporting, the request span's own (a child of the caller's).

With --config, a YAML or JSON file names many upstreams and routes models to
them, with fallbacks to other vendors (the request converted to each) and
retries before the first byte reaches the caller; every mistake in the file
is refused at start-up with its line. "\${VAR}" in a value reads the
environment. The upstream flags below are the one-upstream case of it: one
upstream, a route per --model-map rule, then every other model, no retry.

  upstreams:
    anthropic: { format: anthropic, url: https://api.anthropic.com, key: "\${ANTHROPIC_API_KEY}" }
    bedrock:   { format: bedrock-converse, region: us-east-1 }
    openai:    { format: openai-chat, url: https://api.openai.com/v1, key: "\${OPENAI_API_KEY}" }
    local:     { format: ollama, url: http://127.0.0.1:11434, models: [llama3.2] }
  routes:
    - match: "claude-*"
      targets:
        - upstream: anthropic
        - upstream: bedrock
          model: us.anthropic.claude-sonnet-4-5-20250929-v1:0
      retry: { attempts: 2, initialDelayMs: 500, maxDelayMs: 8000 }
      deadlineMs: 60000
    - match: "gpt-*"
      targets: [{ upstream: openai }]

Also answered: GET /v1/models (OpenAI's list shape, Anthropic's when
anthropic-version is sent), /v1beta/models (Gemini), /api/tags (Ollama)
with the configured model names; /healthz (the process is up) and /readyz
(every route has a live upstream: each upstream's models list is probed
with its key, Bedrock's endpoint for reachability, at most every 5 s;
503 listing the upstreams that are down otherwise; readiness: { probe:
false } in the config skips the probes); HEAD on any path (client probes)
with 200. Unknown paths get a 404 in their format's shape.
The answer's x-interlingua-upstream header names the upstream that served.

A Bedrock upstream is signed with SigV4 using AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (or sent a Bedrock API key as a
bearer token with --api-key-env); its URL defaults to
https://bedrock-runtime.REGION.amazonaws.com.

With --inbound-token-env, callers present the token in x-interlingua-token
or their SDK's key header; with --pass-through-auth too, that header carries
their own vendor key and the token goes in x-interlingua-token only
(--pass-through-auth with --api-key-env is refused). Redirects from the
upstream are never followed. Limits and what the proxy redacts: docs/SECURITY.md.

With --store, OpenAI Responses callers keep state through the proxy in
front of any upstream: previous_response_id, conversation, store,
GET/DELETE /v1/responses/ID, /v1/responses/ID/input_items and the
Conversations API (/v1/conversations…), each caller's entries under a hash
of the key its SDK sends. The store is shared by all upstreams, so a chain
may cross a fallback to another vendor. Specs: memory (lost at exit; the
only one so far). Without --store no state is kept, and an openai-responses
upstream gets previous_response_id as sent.

Options:
  --config FILE            the gateway's configuration (YAML or JSON); not with the upstream flags
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
  --log-format FORMAT      text (default) or json (one JSON object per line)
  --otlp-endpoint URL      export OpenTelemetry spans and metrics over OTLP/HTTP (protobuf;
                           OTEL_EXPORTER_OTLP_PROTOCOL=http/json for JSON) to this
                           collector (/v1/traces and /v1/metrics are added)
  --max-tokens-default N   max_tokens sent to Anthropic upstreams for requests that name none
                           (default 4096; reported as a "defaulted" loss)
  --strict                 refuse, with a 400 in the caller's format listing them, requests whose
                           conversion reports losses (warnings or worse) instead of converting
  --max-answer BYTES       largest whole upstream answer (default 134217728; larger is a 502)
  --max-inflight BYTES     request bytes all requests in flight, to every upstream, may hold
                           together (default 268435456; beyond it 503 with retry-after)
  --deadline MS            longest a request may take, streams included (default: none)
  --store SPEC             keep stateful Responses and Conversations in this store: memory
  --store-ttl SECONDS      how long stored responses and conversations live (default 2592000, 30 days)
  -h, --help               show this help

At start-up serve warns when it binds a non-loopback address without an
inbound token, when an upstream has no key, and when an upstream URL already
ends in the path its format adds (…/v1 for anthropic).
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

/**
 * The access log, written in batches: entries are kept with their time and
 * formatted and written together, one `write` to stderr per 20 ms (or per
 * 512 entries), instead of a line formatted and a system call made per
 * request. `flush` writes what is pending (on shutdown).
 */
function batchedLog(write: (text: string) => void, format: LogFormat): { entry(entry: ProxyLogEntry): void; flush(): void } {
  const formatLine = logLineFormatter(format);
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
    for (let index = 0; index < pending.length; index++) text += formatLine(iso(at[index]!), pending[index]!);
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

/** Is OTLP export asked for (the flag, or one of the standard endpoint variables), and not turned off (`OTEL_SDK_DISABLED=true`)? */
export function otlpRequested(endpoint: string | undefined, env: Record<string, string | undefined>): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  return endpoint !== undefined || env['OTEL_EXPORTER_OTLP_ENDPOINT'] !== undefined || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] !== undefined || env['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'] !== undefined;
}

/** The OTLP protocols `serve` exports with (gRPC would bring a gRPC stack for what OTLP/HTTP carries as well). */
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/**
 * Each signal's OTLP protocol: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (or
 * `_METRICS_`), else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`, the
 * specification's default. Anything else (`grpc`) is refused at start-up,
 * naming the supported ones.
 * @see https://opentelemetry.io/docs/specs/otel/protocol/exporter/#specify-protocol
 */
export function otlpProtocols(env: Record<string, string | undefined>): { traces: (typeof OTLP_PROTOCOLS)[number]; metrics: (typeof OTLP_PROTOCOLS)[number] } {
  const pick = (signal: 'TRACES' | 'METRICS') => {
    const name = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] === undefined ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
    const value = env[name]?.trim() ?? 'http/protobuf';
    const protocol = OTLP_PROTOCOLS.find((supported) => supported === value);
    if (protocol === undefined) throw new UsageError(`${name}=${JSON.stringify(value)} is not supported; interlingua serve exports OTLP over HTTP: set it to http/protobuf (the default) or http/json`);
    return protocol;
  };
  return { traces: pick('TRACES'), metrics: pick('METRICS') };
}

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return number;
}

/** The flags of the one-upstream case. */
interface UpstreamFlags {
  upstream?: string | undefined;
  'upstream-url'?: string | undefined;
  region?: string | undefined;
  dialect?: string | undefined;
  'api-key-env'?: string | undefined;
  'pass-through-auth'?: boolean | undefined;
  'model-map'?: string[] | undefined;
}

/**
 * The one-upstream flags as a gateway configuration: the upstream named
 * after its format, a route per `--model-map` rule (first match wins, as
 * the model map does), then every other model as the caller named it, and
 * one attempt each (the proxy as it always was: no retry).
 */
function flagConfig(values: UpstreamFlags): { config: GatewayConfig; described: string } {
  const format = values.upstream;
  if (format === undefined || !isFormatId(format)) throw new UsageError(`--upstream must be one of ${FORMAT_IDS.join(', ')} (or give --config FILE)`);
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
  const key = keyEnv === undefined ? undefined : process.env[keyEnv];
  if (keyEnv !== undefined && key === undefined) throw new UsageError(`the environment variable ${keyEnv} is not set`);
  const name: FormatId = format;
  const config: GatewayConfig = {
    upstreams: {
      [name]: {
        format,
        ...(baseUrl === '' ? {} : { url: baseUrl }),
        ...(key === undefined ? {} : { key }),
        ...(values['pass-through-auth'] === true ? { passThroughAuth: true } : {}),
        ...(region === undefined ? {} : { region }),
        ...(dialect === undefined ? {} : { dialect }),
      },
    },
    routes: [...rules.map((rule) => ({ match: rule.pattern, targets: [{ upstream: name, model: rule.model }] })), { match: '*', targets: [{ upstream: name }] }],
    retry: { attempts: 1 },
  };
  return { config, described: `${format} at ${baseUrl || `Bedrock in ${region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'us-east-1'}`}` };
}

/** Opens the store `--store` (or the config's `store:`) names into `config.store`, with `--store-ttl` (or the config's `storeTtlSeconds`). */
async function openConfiguredStore(config: GatewayConfig, flag: string | undefined, ttlFlag: string | undefined): Promise<void> {
  const spec = flag ?? (typeof config.store === 'string' ? config.store : undefined);
  if (ttlFlag !== undefined) {
    const ttl = positiveInteger(ttlFlag, 'store-ttl', 0);
    if (ttl < 1) throw new UsageError('--store-ttl must be at least 1 second');
    config.storeTtlSeconds = ttl;
  }
  if (spec === undefined) {
    if (config.storeTtlSeconds !== undefined) throw new UsageError('--store-ttl (or storeTtlSeconds) needs a store: add --store SPEC');
    return;
  }
  const { openStore } = await import('../node/open-store.ts');
  try {
    config.store = await openStore(spec, config.storeTtlSeconds === undefined ? {} : { ttlSeconds: config.storeTtlSeconds });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.startsWith('--store') ? message : `--store ${spec}: ${message}`);
  }
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
        'log-format': { type: 'string' },
        'otlp-endpoint': { type: 'string' },
        config: { type: 'string' },
        'max-tokens-default': { type: 'string' },
        strict: { type: 'boolean' },
        'max-answer': { type: 'string' },
        'max-inflight': { type: 'string' },
        deadline: { type: 'string' },
        store: { type: 'string' },
        'store-ttl': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values;
  const tokenEnv = values['inbound-token-env'];
  const inboundToken = tokenEnv === undefined ? undefined : process.env[tokenEnv];
  if (tokenEnv !== undefined && inboundToken === undefined) throw new UsageError(`the environment variable ${tokenEnv} is not set`);
  let config: GatewayConfig;
  let described: string;
  if (values.config !== undefined) {
    const flags = ['upstream', 'upstream-url', 'region', 'dialect', 'api-key-env', 'pass-through-auth', 'model-map'] as const;
    const given = flags.filter((flag) => values[flag] !== undefined);
    if (given.length > 0) throw new UsageError(`--config names the upstreams; drop --${given.join(', --')} (or drop --config for the one-upstream case)`);
    const { loadGatewayConfig, ConfigError } = await import('../gateway/load.ts');
    try {
      config = loadGatewayConfig(values.config);
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    const names = Object.keys(config.upstreams);
    described = `${names.length} upstream${names.length === 1 ? '' : 's'} (${names.join(', ')}), ${config.routes?.length ?? 0} route${config.routes?.length === 1 ? '' : 's'}`;
  } else {
    ({ config, described } = flagConfig(values));
  }
  if (values.timeout !== undefined) config.timeoutMs = positiveInteger(values.timeout, 'timeout', 120_000);
  if (values['max-body'] !== undefined) config.maxBodyBytes = positiveInteger(values['max-body'], 'max-body', 32 * 1024 * 1024);
  if (values['max-tokens-default'] !== undefined) {
    const tokens = positiveInteger(values['max-tokens-default'], 'max-tokens-default', 4096);
    if (tokens < 1) throw new UsageError('--max-tokens-default must be at least 1');
    config.maxTokensDefault = tokens;
  }
  if (values.strict === true) config.strict = true;
  config.limits = {
    ...config.limits,
    maxAnswerBytes: positiveInteger(values['max-answer'], 'max-answer', config.limits?.maxAnswerBytes ?? 128 * 1024 * 1024),
    maxInflightBytes: positiveInteger(values['max-inflight'], 'max-inflight', config.limits?.maxInflightBytes ?? 256 * 1024 * 1024),
    ...(values.deadline === undefined ? {} : { deadlineMs: positiveInteger(values.deadline, 'deadline', 0) }),
  };
  if (inboundToken !== undefined) config.inboundToken = inboundToken;
  await openConfiguredStore(config, values.store, values['store-ttl']);
  const host = values.host ?? config.listen?.host ?? '127.0.0.1';
  const port = values.port === undefined ? (config.listen?.port ?? 8787) : positiveInteger(values.port, 'port', 8787);
  if (port > 65_535) throw new UsageError(`--port must be from 0 to 65535, got "${values.port}"`);
  for (const warning of gatewayWarnings(config, host)) process.stderr.write(`interlingua: warning: ${warning}\n`);
  const logFormat = values['log-format'] ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json') throw new UsageError(`--log-format must be text or json, got "${logFormat}"`);
  const otlpEndpoint = values['otlp-endpoint'];
  if (otlpEndpoint !== undefined && !/^https?:\/\/[^/]/.test(otlpEndpoint)) throw new UsageError('--otlp-endpoint must be an http(s) URL');
  const log = batchedLog((text) => process.stderr.write(text), logFormat);
  const metrics = createRequestMetrics();
  // The SDK packages load only when export is asked for; without them the spans' API calls would go nowhere, so the proxy makes none.
  let otlp: OtlpExport | undefined;
  let otlpDescribed = '';
  if (otlpRequested(otlpEndpoint, process.env)) {
    const protocols = otlpProtocols(process.env);
    const { startOtlp } = await import('./otlp.ts');
    otlp = await startOtlp({ ...(otlpEndpoint === undefined ? {} : { endpoint: otlpEndpoint }), protocols, env: process.env });
    otlpDescribed = protocols.traces === protocols.metrics ? protocols.traces : `${protocols.traces} (traces), ${protocols.metrics} (metrics)`;
  }
  setFlagsFromString(NO_PRETENURING);
  config.fetch = createNodeFetch();
  config.log = (entry) => log.entry(entry);
  config.onStoreFailure = (message) => process.stderr.write(`interlingua: warning: ${message}\n`);
  config.telemetry = otlp === undefined ? metrics : combineSinks([metrics, createOtelSink()])!;
  config.metrics = metrics;
  let handler: ReturnType<typeof createGateway>;
  try {
    handler = createGateway(config);
  } catch (error) {
    if (isInterlinguaError(error)) throw new UsageError(`${values.config === undefined ? '' : `${values.config}: `}${(error as Error).message}`);
    throw error;
  }
  const server = await serve(handler, { port, host }).catch((error: unknown) => {
    throw new UsageError(listenFailure(error, host, port));
  });
  process.stderr.write(`interlingua: proxy listening on http://${host}:${portOf(server)} → ${described}\n`);
  if (otlp !== undefined) process.stderr.write(`interlingua: exporting OpenTelemetry spans and metrics over OTLP (${otlpDescribed}) to ${otlpEndpoint ?? 'the OTEL_EXPORTER_OTLP_* endpoints'}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      log.flush();
      server.close(() => {
        log.flush();
        const closed = typeof config.store === 'object' ? (config.store.close?.() ?? Promise.resolve()) : Promise.resolve();
        void closed.catch(() => undefined).then(() => (otlp === undefined ? resolve() : void otlp.shutdown().then(resolve)));
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
