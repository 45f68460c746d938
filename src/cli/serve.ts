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

export { SERVE_HELP } from './serve-help.ts';

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
