/**
 * The proxy: a fetch handler `(Request) => Promise<Response>` that accepts any
 * of the four wire formats at its own path, converts to the configured
 * upstream format (streams included), and converts the answer back. Web
 * APIs only, so it runs in Node, Bun, Deno and Workers.
 */
import { codecFor } from '../formats/registry.ts';
import { checkDialect } from '../core/dialect.ts';
import { InterlinguaError, isInterlinguaError } from '../core/errors.ts';
import { LossCollector } from '../core/losses.ts';
import type { ApiError, FormatId } from '../core/ir.ts';
import { callerCredential, constantTimeEqual, headerSafeCredential, redact, sanitizeHeaderValue, TOKEN_HEADER, upstreamAuthHeaders } from './auth.ts';
import { errorAnswer, unknownPath } from './errors.ts';
import { InflightBudget } from './budget.ts';
import { Deadline, fetchCall, jsonAnswer, PROXY_EXCHANGE, webInbound, webResponse, type Answer, type Exchange, type Inbound } from './exchange.ts';
import { createModelMap, type ModelRule } from './model-map.ts';
import { countUrl, routeFor, upstreamUrl, type Route } from './routes.ts';
import { forwardToUpstream } from './forward.ts';
import { forwardCount } from './forward-count.ts';
import type { ForwardOptions, ProxyLogEntry } from './forward-options.ts';
import { vendorHeaders, type VendorHeaders } from './vendor-headers.ts';
import { createSigV4Signer, type AwsCredentials, type RequestSigner } from './sigv4.ts';
import { eventTap, watchedBody, type BodyEnd } from './answer-watch.ts';
import { callerTraceHeaders, combineSinks, noteLosses, noteStreamEvent, requestIdOf, type AttemptRecord, type TelemetrySink } from '../telemetry/record.ts';
import { operationName } from '../telemetry/semconv.ts';
import { createOtelSink } from '../telemetry/otel.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../telemetry/metrics.ts';
import { captureRequested, type CapturedContent } from '../telemetry/content.ts';
import { parseBody } from '../formats/convert.ts';
import type { StateStore } from '../store/store.ts';
import { createReasoningKeeper } from '../state/reasoning-keeper.ts';
import { statefulExchange } from '../state/responses-exchange.ts';
import { tokenAdmitter } from '../state/admit.ts';

/** The upstream the proxy talks to. */
export interface UpstreamConfig {
  format: FormatId;
  /**
   * The API root as the vendor SDK spells it: `https://api.anthropic.com`,
   * `https://api.openai.com/v1`, `https://generativelanguage.googleapis.com`,
   * `https://bedrock-runtime.{region}.amazonaws.com` (the default for
   * Bedrock when empty).
   */
  baseUrl: string;
  /** Bedrock: the AWS region to sign for (default `AWS_REGION`, then `AWS_DEFAULT_REGION`, then `us-east-1`). */
  region?: string;
  /** Bedrock: AWS credentials for SigV4 (default `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`). An `apiKey` (a Bedrock API key) is sent as a bearer token instead. */
  aws?: AwsCredentials;
  /** The upstream API key. */
  apiKey?: string;
  /** Name of the environment variable holding the key (read through `ProxyConfig.env`); unset or empty, `createProxy` throws. */
  apiKeyEnv?: string;
  /** Forward the caller's own credential upstream instead of a configured key. Off unless set. */
  passThroughAuth?: boolean;
  /** Extra headers sent upstream (sanitised). */
  headers?: Record<string, string>;
  /** The upstream's dialect of its format (`openai-chat`: `deepseek`, `openrouter`, `gemini-openai`, `vllm`, `ollama-openai`). */
  dialect?: string;
}

/** Configuration of {@link createProxy}. */
export interface ProxyConfig {
  upstream: UpstreamConfig;
  /** Model mapping, e.g. `{ 'claude-*': 'gpt-5' }` or a rule list; first match wins. */
  modelMap?: readonly ModelRule[] | Record<string, string>;
  /** Time allowed for the upstream to start answering, and the longest silence within an answer, in ms (default 120,000). */
  timeoutMs?: number;
  /** Largest request body accepted, in bytes (default 32 MiB); larger gets 413 in the caller's format. */
  maxBodyBytes?: number;
  /**
   * When set, callers must present this token: in `x-interlingua-token`, or
   * (without `passThroughAuth`) in the header their SDK sends its key in
   * (Bearer, x-api-key, x-goog-api-key or ?key=). With `passThroughAuth`
   * that header carries the caller's vendor key, so the token goes in
   * `x-interlingua-token` only.
   */
  inboundToken?: string;
  /** The `fetch` used upstream (default: the global one). */
  fetch?: typeof fetch;
  /** Environment for `apiKeyEnv` (default: `process.env` where it exists). */
  env?: Record<string, string | undefined>;
  /** Called once per request, at its end (a stream's at its last byte), with a summary line's fields. */
  log?: (entry: ProxyLogEntry) => void;
  /**
   * Where finished requests go besides `log`. Default: spans and metrics
   * through `@opentelemetry/api` (a no-op until an OpenTelemetry SDK is
   * registered); `false` for none.
   */
  telemetry?: TelemetrySink | false;
  /** Served as Prometheus text at `GET /metrics` (behind the inbound token when one is set); the sink `createRequestMetrics` makes, also given in `telemetry`. */
  metrics?: { render(): string };
  /**
   * Refuse a request whose conversion to the upstream's format reports
   * losses (warnings or worse; `info` ones pass): a 400 in the caller's
   * format that lists them, instead of a converted request. Off by default.
   */
  strict?: boolean;
  /** `max_tokens` sent to an Anthropic upstream for a request that names none (default 4096, reported as `defaulted`). */
  maxTokensDefault?: number;
  /** Bounds on what one request, or all of them together, may hold (see docs/SECURITY.md). */
  limits?: ProxyLimits;
  /**
   * The in-flight budget this proxy shares with others (a gateway hands one
   * to every upstream's proxy, so the bound is one per gateway). Default: a
   * budget of its own, of `limits.maxInflightBytes`, which is then ignored.
   */
  budget?: InflightBudget;
  /**
   * Where stateful Responses and Conversations live (`createMemoryStore()`,
   * or another `StateStore`): with a store, `previous_response_id`,
   * `conversation`, `store`, `GET`/`DELETE /v1/responses/{id}`,
   * `…/input_items` and `/v1/conversations…` work in front of any upstream,
   * each caller's entries under a hash of the credential its SDK sends
   * (docs/DESIGN.md, "State"). Without one, a Responses upstream gets
   * `previous_response_id` as sent and other upstreams report it lost.
   * It also keeps the reasoning state Chat and Ollama callers cannot carry.
   */
  store?: StateStore;
  /** The store of kept reasoning state alone (default: `store`): a gateway sets it for its upstreams' proxies, whose stateful Responses its own layer holds. */
  reasoningStore?: StateStore;
  /** Seconds a stored response, conversation or kept reasoning state lives (default: the store's own, 30 days for the memory store). */
  storeTtlSeconds?: number;
  /** Told when a response or conversation could not be stored (the answer still reaches the caller, with `x-interlingua-state` or an SSE comment saying so). */
  onStoreFailure?: (message: string) => void;
}

/** The proxy's resource limits beside `timeoutMs` and `maxBodyBytes`; each has a default. */
export interface ProxyLimits {
  /** Largest whole (non-streamed) upstream answer read, in bytes (default 128 MiB); a larger one is a 502 in the caller's format. */
  maxAnswerBytes?: number;
  /**
   * Request body bytes all requests in flight may hold together (default
   * 256 MiB, eight bodies of the largest size): a request beyond it is
   * refused with 503 (Anthropic: 529) and `retry-after` in the caller's format.
   * Bounds this proxy's requests, or with `budget` those of every proxy sharing it.
   */
  maxInflightBytes?: number;
  /** Longest a request may take from start to the end of its answer, streams included, in ms (default: none; `timeoutMs` still bounds every silence). */
  deadlineMs?: number;
  /** Longest a caller may stop reading a stream before the upstream stream is ended, in ms (default 300,000; a slow reader is not a stopped one). */
  stalledReaderMs?: number;
}

/** Header carrying how many losses the conversion reported (those known when the answer's headers go: a stream's own come later, in the log). */
export const LOSSES_HEADER = 'x-interlingua-losses';

/** Header carrying the request id: the caller's `x-request-id` when usable, else a new one. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Header carrying the upstream's own request id (its `x-request-id`, `request-id` or `x-amzn-requestid`). */
export const UPSTREAM_REQUEST_ID_HEADER = 'x-interlingua-upstream-request-id';

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_ANSWER_BYTES = 128 * 1024 * 1024;
const DEFAULT_STALLED_READER_MS = 300_000;

function processEnv(): Record<string, string | undefined> {
  const global = globalThis as { process?: { env?: Record<string, string | undefined> } };
  return global.process?.env ?? {};
}

/**
 * The upstream key as it goes on the wire: surrounding whitespace trimmed (a
 * key read from a file often ends in a newline); a key that still holds a
 * control character could split headers, and is refused up front rather than
 * failing every request.
 */
function checkedKey(key: string | undefined, source: string): string | undefined {
  if (key === undefined) return undefined;
  const trimmed = key.trim();
  if (sanitizeHeaderValue(trimmed) !== trimmed) {
    throw new InterlinguaError('invalid_value', `the upstream API key from ${source} contains control characters (CR, LF, NUL…); set it to the bare key`, { path: '/upstream/apiKey' });
  }
  return trimmed;
}

/** Where a Bedrock upstream is and how its requests are signed; nothing for other formats. */
interface AwsSetup {
  baseUrl: string;
  sign?: RequestSigner;
  secrets: (string | undefined)[];
}

function awsSetup(upstream: UpstreamConfig, env: Record<string, string | undefined>, apiKey: string | undefined): AwsSetup {
  if (upstream.format !== 'bedrock-converse') return { baseUrl: upstream.baseUrl, secrets: [] };
  const region = upstream.region ?? env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region)) throw new InterlinguaError('invalid_value', `"${region}" is not an AWS region name (like us-east-1)`, { path: '/upstream/region' });
  const baseUrl = upstream.baseUrl === '' ? `https://bedrock-runtime.${region}.amazonaws.com` : upstream.baseUrl;
  if (apiKey !== undefined || upstream.passThroughAuth === true) return { baseUrl, secrets: [] };
  const sessionToken = upstream.aws?.sessionToken ?? env['AWS_SESSION_TOKEN'];
  const credentials: AwsCredentials = {
    accessKeyId: checkedKey(upstream.aws?.accessKeyId ?? env['AWS_ACCESS_KEY_ID'], 'AWS_ACCESS_KEY_ID') ?? '',
    secretAccessKey: checkedKey(upstream.aws?.secretAccessKey ?? env['AWS_SECRET_ACCESS_KEY'], 'AWS_SECRET_ACCESS_KEY') ?? '',
    ...(sessionToken === undefined || sessionToken === '' ? {} : { sessionToken: checkedKey(sessionToken, 'AWS_SESSION_TOKEN') as string }),
  };
  if (credentials.accessKeyId === '' || credentials.secretAccessKey === '') {
    throw new InterlinguaError('missing_field', 'a Bedrock upstream needs AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or give a Bedrock API key', { path: '/upstream/aws' });
  }
  return { baseUrl, sign: createSigV4Signer(credentials, region), secrets: [credentials.secretAccessKey, credentials.sessionToken] };
}

/** The model map of a request whose upstream model is already chosen. */
function fixedModel(model: string): (model: string | undefined) => string {
  return () => model;
}

/** Create the proxy's transport-neutral exchange (what the fetch handler and the Node adapter both run). */
export function createExchange(config: ProxyConfig): Exchange {
  const upstream = config.upstream;
  checkDialect(codecFor(upstream.format), upstream.dialect);
  const mapModel = createModelMap(config.modelMap);
  const env = config.env ?? processEnv();
  const rawKey = upstream.apiKey ?? (upstream.apiKeyEnv === undefined ? undefined : env[upstream.apiKeyEnv]);
  if (upstream.apiKey === undefined && upstream.apiKeyEnv !== undefined && (rawKey === undefined || rawKey.trim() === '')) {
    // Requests without the key would reach the vendor as the caller's 401s; say so once, here.
    throw new InterlinguaError('missing_field', `upstream.apiKeyEnv names ${upstream.apiKeyEnv}, which is ${rawKey === undefined ? 'not set' : 'empty'} in the environment; set it to the upstream API key, or pass upstream.apiKey`, { path: '/upstream/apiKeyEnv' });
  }
  if (upstream.passThroughAuth === true && (upstream.apiKey !== undefined || upstream.apiKeyEnv !== undefined)) {
    // Which key would go upstream? Refused here rather than one of them silently ignored on every request.
    throw new InterlinguaError('invalid_value', 'upstream.passThroughAuth forwards the caller\'s own key, so upstream.apiKey and upstream.apiKeyEnv cannot be set with it; choose one', { path: '/upstream/passThroughAuth' });
  }
  if (config.inboundToken !== undefined && (config.inboundToken.trim() === '' || sanitizeHeaderValue(config.inboundToken) !== config.inboundToken)) {
    throw new InterlinguaError('invalid_value', 'the inbound token is empty or contains control characters; set it to a plain token', { path: '/inboundToken' });
  }
  const apiKey = checkedKey(rawKey, upstream.apiKey === undefined ? `the environment variable ${upstream.apiKeyEnv ?? ''}` : 'upstream.apiKey');
  const aws = awsSetup(upstream, env, apiKey);
  const secrets = [rawKey, apiKey, config.inboundToken, ...aws.secrets];
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxAnswerBytes = config.limits?.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const budget = config.budget ?? new InflightBudget(config.limits?.maxInflightBytes);
  const deadlineMs = config.limits?.deadlineMs;
  const stalledReaderMs = config.limits?.stalledReaderMs ?? DEFAULT_STALLED_READER_MS;
  const call = fetchCall(config.fetch ?? fetch);
  const extraHeaders = Object.fromEntries(Object.entries(upstream.headers ?? {}).map(([name, value]) => [name, sanitizeHeaderValue(value)]));
  const url = (model: string | undefined, stream: boolean) => upstreamUrl(aws.baseUrl, upstream.format, model, stream);
  // Ollama's /api/generate callers go to /api/generate upstream too.
  const generateUrl = (model: string | undefined, stream: boolean) => upstreamUrl(aws.baseUrl, upstream.format, model, stream, true);
  const countingUrl = (model: string | undefined) => countUrl(aws.baseUrl, upstream.format, model);
  const redactSecrets = (text: string) => redact(text, secrets);
  // The upstream headers are the same for every request unless the caller's own credential goes upstream.
  const fixedHeaders = upstream.passThroughAuth === true ? undefined : { ...upstreamAuthHeaders(upstream.format, apiKey), ...extraHeaders };

  const sink = combineSinks([config.telemetry === false ? undefined : (config.telemetry ?? createOtelSink()), config.log === undefined ? undefined : { record: config.log }]);
  const server = hostOf(aws.baseUrl);
  // Message content goes into spans only when the standard variable asks for it.
  const capture = captureRequested(env);
  const operation = (route: Route) => operationName(upstream.format, route);
  const reasoning = (config.reasoningStore ?? config.store) === undefined ? undefined : createReasoningKeeper((config.reasoningStore ?? config.store) as StateStore, config.storeTtlSeconds);

  const exchange = async (request: Inbound): Promise<Answer> => {
    const started = Date.now();
    const pathname = request.pathname;
    if (pathname === '/metrics' && config.metrics !== undefined) return metricsAnswer(request, config.metrics, config.inboundToken);
    const route = routeFor(pathname);
    const entry: ProxyLogEntry = { requestId: request.requestId ?? requestIdOf(request.header(REQUEST_ID_HEADER)), startedAt: started, method: request.method, path: pathname, upstream: upstream.format, stream: false, status: 0, durationMs: 0, losses: 0 };
    // Under a layer that records the request itself (the gateway), this call is one of its attempts: no sink of its own.
    const settled = request.settled;
    const begun = settled === undefined ? sink?.begin?.(started, request.header) : undefined;
    let forward: ForwardOptions | undefined;
    const emit = () => {
      if (forward !== undefined) {
        noteLosses(entry, forward.losses.losses);
        if (forward.transcoder !== undefined) noteLosses(entry, forward.transcoder.losses);
      }
      const attempt = entry.attempts?.[0];
      // An attempt that never reached the upstream (a count the upstream's format has no endpoint for) was none.
      if (attempt !== undefined && attempt.status === undefined) delete entry.attempts;
      else if (attempt !== undefined) {
        attempt.durationMs = entry.durationMs - (attempt.startMs ?? 0);
        if (entry.upstreamModel !== undefined) attempt.model = entry.upstreamModel;
      }
      if (settled === undefined) sink!.record(entry, begun);
      else settled(entry);
    };
    const finish = (answer: Answer, error?: string): Answer => {
      answer.headers[REQUEST_ID_HEADER] = entry.requestId;
      if (entry.upstreamRequestId !== undefined) answer.headers[UPSTREAM_REQUEST_ID_HEADER] = entry.upstreamRequestId;
      entry.status = answer.status;
      if (error !== undefined) entry.error = redact(error, secrets);
      // A layer above may read the entry as the answer's head comes back.
      request.report?.(entry);
      if (sink === undefined && settled === undefined) return answer;
      const body = answer.body;
      if (body === null || typeof body === 'string') {
        entry.durationMs = entry.firstByteMs = Date.now() - started;
        emit();
        return answer;
      }
      // A stream is measured to its end: the log line and the spans wait for its last byte.
      const tap = forward?.passedThrough === true && answer.status < 300 ? eventTap(upstream.format, entry.upstreamModel, (event) => noteStreamEvent(entry, event)) : undefined;
      answer.body = watchedBody(body, {
        first: () => (entry.firstByteMs = Date.now() - started),
        ...(tap === undefined ? {} : { chunk: (chunk: Uint8Array) => tap.push(chunk) }),
        end: (how: BodyEnd) => {
          tap?.end();
          entry.durationMs = Date.now() - started;
          // A converted stream that broke off has told the caller so in an error event (seen on its way); one passed through just stops.
          if (how === 'failed') entry.streamError = true;
          else if (how === 'cancelled') entry.error ??= 'the caller went away before the end of the stream';
          emit();
        },
      });
      return answer;
    };
    if (route === undefined) return finish(unknownPath(pathname, request.header('anthropic-version') !== null));
    entry.ingress = route.format;
    entry.operation = operation(route);
    const fail = (error: ApiError) => finish(errorAnswer(route.format, { ...error, message: redact(error.message, secrets) }), error.message);
    const busy = () => finish(budget.refusal(route.format), 'over the in-flight budget');
    if (request.method !== 'POST') return fail({ type: 'not_found', status: 405, message: `use POST for ${pathname}` });
    const passThrough = upstream.passThroughAuth === true;
    const credential = config.inboundToken !== undefined || passThrough ? callerCredential(request) : undefined;
    if (config.inboundToken !== undefined) {
      // With pass-through the SDK's own header holds the vendor key: the token has a header of its own.
      const token = request.header(TOKEN_HEADER) ?? (passThrough ? undefined : credential);
      if (!constantTimeEqual(token ?? '', config.inboundToken)) {
        return fail({ type: 'authentication', message: passThrough ? `missing or wrong proxy token (send it in ${TOKEN_HEADER}; your SDK's key header carries your own vendor key)` : 'missing or wrong proxy token' });
      }
    }
    if (passThrough && credential !== undefined && !headerSafeCredential(credential)) {
      // The caller's fault, not the upstream's: said without the key, which could not go on the wire anyway.
      return fail({ type: 'authentication', message: 'the API key sent contains characters an HTTP header cannot carry (CR, LF, NUL, spaces or non-ASCII); send the bare key' });
    }
    // The budget is taken before the body is read (its declared length), and held until the answer is made; unless a gateway above holds it.
    const counted = request.budgeted !== true;
    const declared = counted ? Math.min(maxBodyBytes, Number(request.header('content-length') ?? '0') || 0) : 0;
    if (!budget.take(declared)) return busy();
    let held = declared;
    let deadline: Deadline | undefined;
    try {
      const text = await request.text(maxBodyBytes);
      if (text === undefined) return fail({ type: 'request_too_large', message: `request body is larger than ${maxBodyBytes} bytes` });
      if (counted) {
        const fits = budget.resize(held, text.length);
        held = text.length;
        if (!fits) return busy();
      }
      if (capture && (sink !== undefined || settled !== undefined)) entry.content = capturedRequest(route, text);
      const attempt: AttemptRecord = { upstream: upstream.format, format: upstream.format, startMs: Date.now() - started };
      if (upstream.dialect !== undefined) attempt.dialect = upstream.dialect;
      if (server !== undefined) attempt.server = server;
      entry.attempts = [attempt];
      const losses = new LossCollector();
      const vendor = vendorHeaders((name) => request.header(name), route.format, upstream.format, upstream.dialect);
      if (route.format !== upstream.format) vendor.report(losses);
      deadline = deadlineMs === undefined ? undefined : new Deadline(request.signal, deadlineMs);
      forward = forwardOptions(request, route, entry, text, passThrough ? credential : undefined, deadline, vendor, losses, request.traceHeaders ?? (settled === undefined ? sink?.traceHeaders?.(begun) : undefined) ?? callerTraceHeaders(request.header));
      const answer = await (route.count === true ? forwardCount(forward, countingUrl) : forwardToUpstream(forward));
      // A whole answer is done; a stream keeps its deadline running to its end.
      if (typeof answer.body === 'string') deadline?.clear();
      return finish(answer);
    } catch (error) {
      deadline?.clear();
      const message = error instanceof Error ? error.message : String(error);
      if (isInterlinguaError(error)) return fail({ type: 'invalid_request', message });
      return fail({ type: 'server', message: `proxy error: ${message}` });
    } finally {
      budget.give(held);
    }
  };
  if (config.store === undefined) return exchange;
  const admit = tokenAdmitter(config.inboundToken, upstream.passThroughAuth === true ? 'token-header' : 'either');
  return statefulExchange(exchange, { store: config.store, ttlSeconds: config.storeTtlSeconds, warn: config.onStoreFailure, admit, maxBodyBytes });

  /** The options of forwarding one read request (its caller already checked). */
  function forwardOptions(request: Inbound, route: Route, entry: ProxyLogEntry, text: string, passedKey: string | undefined, deadline: Deadline | undefined, vendor: VendorHeaders, losses: LossCollector, trace: Record<string, string> | undefined): ForwardOptions {
    const headers = vendor.headers === undefined ? (fixedHeaders ?? { ...upstreamAuthHeaders(upstream.format, passedKey), ...extraHeaders }) : { ...(fixedHeaders ?? upstreamAuthHeaders(upstream.format, passedKey)), ...vendor.headers, ...extraHeaders };
    return {
      route,
      text,
      upstream: upstream.format,
      // Every field set, absent ones as undefined: one object shape for every request.
      dialect: upstream.dialect,
      url: route.generate === true && upstream.format === 'ollama' ? generateUrl : url,
      // The caller's vendor headers replace the defaults (anthropic-version), not what the operator configured.
      // W3C trace context goes upstream: the request span's own, or the caller's as it came.
      headers: trace === undefined ? headers : { ...headers, ...trace },
      sign: aws.sign,
      mapModel: request.upstreamModel === undefined ? mapModel : fixedModel(request.upstreamModel),
      call,
      timeoutMs,
      maxAnswerBytes,
      stalledReaderMs,
      signal: deadline ?? request.signal,
      entry,
      losses,
      // The caller's own key, where it goes upstream, is redacted from what comes back too.
      redact: passedKey === undefined ? redactSecrets : (value: string) => redact(value, [...secrets, passedKey]),
      secrets: passedKey === undefined ? secrets : [...secrets, passedKey],
      transcoder: undefined,
      passedThrough: false,
      strict: request.strict ?? config.strict === true,
      maxTokensDefault: config.maxTokensDefault,
      adjust: vendor.adjust === undefined ? undefined : (ir) => vendor.adjust?.(ir, losses),
      toolNames: request.toolNames,
      reasoning: reasoning?.session(route.format, callerCredential(request)),
    };
  }
}

/** The caller's request as the IR, for the spans' captured messages; nothing when it cannot be read (its conversion says why). */
function capturedRequest(route: Route, text: string): CapturedContent {
  try {
    const context = route.model === undefined ? { losses: new LossCollector() } : { losses: new LossCollector(), model: route.model };
    return { request: codecFor(route.format).decodeRequest(parseBody(text), context) };
  } catch {
    return {};
  }
}

/** The `host:port` of an upstream's API root, for the spans' `server.address`; none when it is no URL. */
function hostOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).host;
  } catch {
    return undefined;
  }
}

/** `GET /metrics`: the metrics as Prometheus text, behind the inbound token when one is set. */
function metricsAnswer(request: Inbound, metrics: { render(): string }, inboundToken: string | undefined): Answer {
  if (request.method !== 'GET' && request.method !== 'HEAD') return jsonAnswer(405, JSON.stringify({ error: { type: 'not_found', message: 'use GET for /metrics' } }));
  if (inboundToken !== undefined && !constantTimeEqual(callerCredential(request) ?? '', inboundToken)) {
    return jsonAnswer(401, JSON.stringify({ error: { type: 'authentication', message: 'missing or wrong proxy token' } }));
  }
  return { status: 200, headers: { 'content-type': PROMETHEUS_CONTENT_TYPE }, body: request.method === 'HEAD' ? null : metrics.render() };
}

/**
 * Create the proxy's fetch handler. It carries its exchange under
 * {@link PROXY_EXCHANGE}, which the Node adapter (src/node/server.ts) calls
 * directly, without Web `Request` and `Response` objects.
 */
export function createProxy(config: ProxyConfig): ((request: Request) => Promise<Response>) & { [PROXY_EXCHANGE]: Exchange } {
  const exchange = createExchange(config);
  const handler = async (request: Request): Promise<Response> => webResponse(await exchange(webInbound(request)));
  return Object.assign(handler, { [PROXY_EXCHANGE]: exchange });
}

export { countUrl, pathFormat, routeFor, upstreamUrl, type Route } from './routes.ts';
export { errorAnswer, statusFor, unknownPath } from './errors.ts';
export { createModelMap, parseModelRule, type ModelRule } from './model-map.ts';
export { constantTimeEqual } from './auth.ts';
export { InflightBudget, DEFAULT_MAX_INFLIGHT_BYTES } from './budget.ts';
export type { StateStore } from '../store/store.ts';
export { STATE_NOTE_HEADER } from '../state/responses-exchange.ts';
export { CallerCancel, PROXY_EXCHANGE, UPSTREAM_CALL, UpstreamTimeout, type Answer, type AttemptLog, type ProxyLogEntry, type UpstreamFailure, type Exchange, type Inbound, type UpstreamCall, type UpstreamInit, type UpstreamReply } from './exchange.ts';
