/**
 * The gateway: a fetch handler over many upstreams. The caller's model picks
 * a route (src/gateway/routing.ts); each target of the route is an upstream
 * behind its own one-upstream proxy (src/proxy, which converts the caller's
 * request to that upstream's format and the answer back); an upstream
 * failure before the first byte is tried again or handed to the next
 * target (src/gateway/retry.ts), and the answer names the upstream that
 * served it. Web APIs only.
 */
import { InterlinguaError } from '../core/errors.ts';
import type { ApiError, FormatId } from '../core/ir.ts';
import { createExchange, InflightBudget, REQUEST_ID_HEADER, type ProxyConfig } from '../proxy/index.ts';
import { callerCredential, constantTimeEqual } from '../proxy/auth.ts';
import { errorAnswer, statusFor } from '../proxy/errors.ts';
import { routeFor } from '../proxy/routes.ts';
import { CallerCancel, jsonAnswer, PROXY_EXCHANGE, webInbound, webResponse, type Answer, type Cancel, type Exchange, type Inbound, type ProxyLogEntry, type UpstreamFailure } from '../proxy/exchange.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../telemetry/metrics.ts';
import { createOtelSink } from '../telemetry/otel.ts';
import { combineSinks, requestIdOf } from '../telemetry/record.ts';
import { createRequestObserver, type RequestStart } from '../telemetry/observer.ts';
import type { GatewayConfig, GatewayUpstream } from './config.ts';
import { Recording } from './recording.ts';
import { createReadiness } from './readiness.ts';
import { holdStreamHead } from './stream-head.ts';
import { modelOf } from './model-of.ts';
import { backoffMs, decide } from './retry.ts';
import { createRouter, targetOrder, type Route } from './routing.ts';
import { isHealthPath, serviceAnswer, type ListedModel, type ModelLists } from './service.ts';
import { statefulExchange } from '../state/responses-exchange.ts';
import { tokenAdmitter } from '../state/admit.ts';

/** Header naming the upstream (by its configured name) that answered. */
export const UPSTREAM_HEADER = 'x-interlingua-upstream';

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** One upstream, ready: its proxy and what the gateway says of it. */
interface Upstream {
  name: string;
  format: FormatId;
  exchange: Exchange;
}

function proxyConfigOf(upstream: GatewayUpstream, config: GatewayConfig, budget: InflightBudget): ProxyConfig {
  const proxy: ProxyConfig = {
    upstream: {
      format: upstream.format,
      baseUrl: upstream.url ?? '',
      ...(upstream.key === undefined ? {} : { apiKey: upstream.key }),
      ...(upstream.passThroughAuth === true ? { passThroughAuth: true } : {}),
      ...(upstream.region === undefined ? {} : { region: upstream.region }),
      ...(upstream.dialect === undefined ? {} : { dialect: upstream.dialect }),
      ...(upstream.headers === undefined ? {} : { headers: upstream.headers }),
    },
    maxBodyBytes: config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    budget,
  };
  const timeoutMs = upstream.timeoutMs ?? config.timeoutMs;
  if (timeoutMs !== undefined) proxy.timeoutMs = timeoutMs;
  if (config.fetch !== undefined) proxy.fetch = config.fetch;
  if (config.env !== undefined) proxy.env = config.env;
  if (config.maxTokensDefault !== undefined) proxy.maxTokensDefault = config.maxTokensDefault;
  // The gateway records each caller request over all its attempts (src/gateway/recording.ts): the upstream's proxy records nothing itself.
  proxy.telemetry = false;
  if (config.limits !== undefined) proxy.limits = config.limits;
  // Each upstream's proxy keeps the reasoning state its callers cannot carry; the stateful Responses layer is the gateway's own.
  if (config.store !== undefined && typeof config.store !== 'string') proxy.reasoningStore = config.store;
  if (config.storeTtlSeconds !== undefined) proxy.storeTtlSeconds = config.storeTtlSeconds;
  return proxy;
}

/** The configured models, each with the upstream that serves it first. */
function listedModels(config: GatewayConfig, literal: readonly string[]): ListedModel[] {
  const out: ListedModel[] = [];
  const seen = new Set<string>();
  for (const route of config.routes ?? []) {
    if (literal.includes(route.match) && !seen.has(route.match)) {
      seen.add(route.match);
      out.push({ id: route.match, upstream: route.targets[0]!.upstream });
    }
  }
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    for (const id of upstream.models ?? []) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ id, upstream: name });
    }
  }
  return out;
}

/** `upstream status type` for an attempts list: `anthropic 429 rate_limit`, `bedrock connect`. */
function attemptText(upstream: string, status: number, failure: string): string {
  return status === 0 ? `${upstream} ${failure}` : `${upstream} ${status} ${failure}`;
}

/** An error event that came first in a stream answered 200, as the failure of its attempt (an overloaded one is Anthropic's 529). */
function firstEventFailure(error: ApiError, format: FormatId): UpstreamFailure {
  const status = statusFor(error, format);
  return { kind: 'status', status, error: { ...error, status, message: `${error.message} (the upstream answered 200, then this error as its stream's first event)` } };
}

/** What a failure is called in logs and attempt lists. */
function failureName(failure: UpstreamFailure): string {
  return failure.kind === 'status' ? failure.error.type : failure.kind;
}

function wait(ms: number, signal: Cancel): Promise<void> {
  return new Promise((resolve) => {
    let unlisten = () => {};
    const timer = setTimeout(() => {
      unlisten();
      resolve();
    }, ms);
    unlisten = signal.listen(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The caller's request as one attempt sees it: the body already read (`text`; undefined: the proxy reads it), the target's model, the route's strictness, the request's record. */
function attemptInbound(request: Inbound, text: string | undefined, model: string | undefined, strict: boolean, signal: Cancel, recording: Recording | undefined): Inbound {
  const inbound: Inbound = { method: request.method, pathname: request.pathname, query: request.query, header: request.header, text: text === undefined ? request.text : () => Promise.resolve(text), signal, strict };
  // A body the gateway read is held in its budget: the attempt's proxy takes none for it.
  if (text !== undefined) inbound.budgeted = true;
  if (model !== undefined) inbound.upstreamModel = model;
  if (recording !== undefined) {
    inbound.requestId = recording.observation.record.requestId;
    inbound.settled = recording.settled;
    if (recording.traceHeaders !== undefined) inbound.traceHeaders = recording.traceHeaders;
  }
  if (request.toolNames !== undefined) inbound.toolNames = request.toolNames;
  return inbound;
}

/** Create the gateway's transport-neutral exchange (what its fetch handler and the Node adapter run). */
export function createGatewayExchange(config: GatewayConfig): Exchange {
  const upstreams = new Map<string, Upstream>();
  // One in-flight budget for every upstream's proxy: the bound is the gateway's, not one per upstream.
  const budget = new InflightBudget(config.limits?.maxInflightBytes);
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    try {
      upstreams.set(name, { name, format: upstream.format, exchange: createExchange(proxyConfigOf(upstream, config, budget)) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new InterlinguaError('invalid_value', `upstreams.${name}: ${message}`, { path: `/upstreams/${name}` });
    }
  }
  for (const route of [...(config.routes ?? []), ...(config.default === undefined ? [] : [config.default])]) {
    for (const target of route.targets) {
      if (!upstreams.has(target.upstream)) throw new InterlinguaError('invalid_value', `a route names the upstream "${target.upstream}", which is not configured; the upstreams are ${[...upstreams.keys()].join(', ')}`, { path: '/routes' });
    }
  }
  const router = createRouter(config);
  const lists: ModelLists = { models: listedModels(config, router.models), started: new Date() };
  const readiness = createReadiness(config, lists.models.length);
  // One record per caller request, over all its attempts: the upstreams' proxies record none of their own.
  const sink = combineSinks([config.telemetry === false ? undefined : (config.telemetry ?? createOtelSink()), config.log === undefined ? undefined : { record: config.log }]);
  const observer = sink === undefined ? undefined : createRequestObserver(sink);
  const token = config.inboundToken;
  const maxBodyBytes = config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const firstFormat = upstreams.values().next().value?.format ?? 'openai-chat';
  const single = router.single;
  // Every model takes one route of one target, tried once, without a deadline: no body to read or model to find before the proxy.
  const direct = single !== undefined && single.fixed?.length === 1 && single.retry.attempts === 1 && single.deadlineMs === undefined ? single : undefined;

  const noRoute = (model: string | undefined): ApiError => {
    const served = [...router.models, ...router.patterns.filter((pattern) => !router.models.includes(pattern))];
    const named = model === undefined ? 'a request without a model' : `the model ${JSON.stringify(model)}`;
    return { type: 'not_found', status: 404, message: `no route of this gateway serves ${named}; it serves ${served.length === 0 ? 'no model by name' : served.join(', ')}` };
  };

  /** The record of a caller's request, when records go anywhere. */
  const begin = (request: Inbound, ingress: FormatId | undefined): Recording | undefined => {
    if (observer === undefined) return undefined;
    const start: RequestStart = { method: request.method, path: request.pathname, upstream: firstFormat, requestId: requestIdOf(request.header(REQUEST_ID_HEADER)) };
    if (ingress !== undefined) start.ingress = ingress;
    return new Recording(observer.startRequest(start, request.header), request.header);
  };

  /** An answer the gateway made itself (no upstream called, or every one failed), recorded. */
  const done = (answer: Answer, recording: Recording | undefined, error?: string): Answer => {
    if (recording === undefined) return answer;
    answer.headers[REQUEST_ID_HEADER] = recording.observation.record.requestId;
    recording.commit(answer, error);
    return answer;
  };

  const exchange = async (request: Inbound): Promise<Answer> => {
    const started = Date.now();
    const pathname = request.pathname;
    const ingress = routeFor(pathname);
    const authorized = token === undefined || constantTimeEqual(callerCredential(request) ?? '', token);
    if (pathname === '/metrics' && config.metrics !== undefined && request.method === 'GET') {
      if (!authorized) return done(jsonAnswer(401, JSON.stringify({ error: { type: 'authentication_error', message: 'missing or wrong proxy token' } })), begin(request, undefined), 'missing or wrong proxy token');
      return { status: 200, headers: { 'content-type': PROMETHEUS_CONTENT_TYPE }, body: config.metrics.render() };
    }
    if (ingress === undefined || request.method !== 'POST') {
      if (pathname === '/readyz' && request.method === 'GET') return readiness.answer();
      if (isHealthPath(pathname)) return serviceAnswer(request, lists, authorized, upstreams.size);
      const answer = ingress !== undefined && request.method !== 'HEAD' ? errorAnswer(ingress.format, { type: 'not_found', status: 405, message: `use POST for ${pathname}` }) : serviceAnswer(request, lists, authorized, upstreams.size);
      return done(answer, begin(request, ingress?.format));
    }
    const format = ingress.format;
    const recording = begin(request, format);
    if (!authorized) return done(errorAnswer(format, { type: 'authentication', message: 'missing or wrong proxy token' }), recording, 'missing or wrong proxy token');
    if (direct !== undefined) return once(request, direct, recording);
    // The body read here is held in the budget (its declared length while read) through every attempt; the attempts' proxies take none for it.
    let held = Math.min(maxBodyBytes, Number(request.header('content-length') ?? '0') || 0);
    if (!budget.take(held)) return done(budget.refusal(format), recording, 'over the in-flight budget');
    try {
      const text = await request.text(maxBodyBytes);
      if (text === undefined) return done(errorAnswer(format, { type: 'request_too_large', message: `request body is larger than ${maxBodyBytes} bytes` }), recording);
      const fits = budget.resize(held, text.length);
      held = text.length;
      if (!fits) return done(budget.refusal(format), recording, 'over the in-flight budget');
      const model = ingress.model ?? (router.single === undefined ? modelOf(text) : undefined);
      if (recording !== undefined && model !== undefined) recording.observation.record.model = model;
      const route = router.single ?? router.route(model);
      if (route === undefined) {
        const error = noRoute(model);
        return done(errorAnswer(format, error), recording, error.message);
      }
      if (recording !== undefined) recording.observation.record.route = route.name;
      return await attempt(request, text, route, format, started, recording);
    } finally {
      budget.give(held);
    }
  };
  return stateful(exchange, config, maxBodyBytes);

  /** The answer of the attempt that serves the caller (a success, or a failure answered as it is), recorded. */
  function served(answer: Answer, upstream: Upstream, recording: Recording | undefined, failure?: UpstreamFailure): Answer {
    answer.headers[UPSTREAM_HEADER] = upstream.name;
    if (recording === undefined) return answer;
    (recording.observation.record as ProxyLogEntry).upstreamName = upstream.name;
    if (failure !== undefined) recording.failAttempt(failure.status ?? 0, failureName(failure));
    recording.commit(answer);
    return answer;
  }

  /**
   * A route of one target tried once, with no deadline, for every model (the
   * one-upstream flags' config): the request goes to that upstream's proxy
   * as it came, which reads the body itself, as `createProxy` alone would.
   */
  async function once(request: Inbound, route: Route, recording: Recording | undefined): Promise<Answer> {
    const target = route.fixed![0]!;
    const upstream = upstreams.get(target.upstream)!;
    if (recording !== undefined) {
      recording.observation.record.route = route.name;
      recording.startAttempt(upstream.name, upstream.format, target.model);
    }
    const answer = await upstream.exchange(attemptInbound(request, undefined, target.model, route.strict, request.signal, recording));
    return served(answer, upstream, recording, answer.upstreamFailure);
  }

  /** Try the route's targets in order until one answers; the caller's answer (a success, a caller fault, or the last failure with the attempts listed). */
  async function attempt(request: Inbound, text: string, route: Route, format: FormatId, started: number, recording: Recording | undefined): Promise<Answer> {
    const tried: string[] = [];
    const deadline = route.deadlineMs === undefined ? undefined : started + route.deadlineMs;
    let last: { answer: Answer; failure: UpstreamFailure; upstream: Upstream } | undefined;
    let deadlinePassed = false;
    targets: for (const target of targetOrder(route)) {
      const upstream = upstreams.get(target.upstream)!;
      for (let tries = 1; tries <= route.retry.attempts; tries++) {
        if (deadline !== undefined && Date.now() >= deadline) {
          deadlinePassed = true;
          break targets;
        }
        recording?.startAttempt(upstream.name, upstream.format, target.model);
        let answer = await call(request, text, upstream, target.model, route.strict, deadline, () => (deadlinePassed = true), recording);
        let failure = answer.upstreamFailure;
        if (failure === undefined) {
          const body = answer.body;
          // A stream is held until its first content event: an error event first (Anthropic's 200, then overloaded_error) is a failure like its status, retried or answered as one.
          if (body === null || typeof body === 'string') return served(answer, upstream, recording);
          const head = await holdStreamHead(body, format);
          if ('body' in head) {
            answer.body = head.body;
            return served(answer, upstream, recording);
          }
          failure = firstEventFailure(head.error, upstream.format);
          answer = errorAnswer(format, failure.error);
        }
        const next = decide(failure);
        if (next === 'answer' && !(failure.kind === 'cancelled' && deadlinePassed)) return served(answer, upstream, recording, failure);
        const status = failure.status ?? 0;
        const name = failureName(failure);
        recording?.failAttempt(status, name);
        tried.push(attemptText(upstream.name, status, name));
        answer.headers[UPSTREAM_HEADER] = upstream.name;
        last = { answer, failure, upstream };
        if (next === 'answer') break targets;
        if (next === 'next' || tries === route.retry.attempts) break;
        const delay = backoffMs(route.retry, tries, failure.retryAfter);
        if (delay === undefined) break;
        if (deadline !== undefined && Date.now() + delay >= deadline) {
          deadlinePassed = true;
          break targets;
        }
        recording?.retryDelay(delay);
        await wait(delay, request.signal);
        if (request.signal.aborted) return done(answer, recording, 'the caller went away');
      }
    }
    const listed = tried.join(', ');
    if (deadlinePassed) {
      const message = `no upstream answered within the route's deadline of ${route.deadlineMs} ms (tried: ${listed === '' ? 'none' : listed})`;
      const answer = errorAnswer(format, { type: 'timeout', status: 504, message });
      if (last !== undefined) answer.headers[UPSTREAM_HEADER] = last.upstream.name;
      return done(answer, recording, message);
    }
    // Every target failed: the last upstream's error, in the caller's format, with the attempts listed.
    const failure = last!.failure;
    const message = `${failure.error.message} (interlingua tried: ${listed})`;
    const answer = errorAnswer(format, { ...failure.error, message }, failure.retryAfter === undefined ? undefined : { 'retry-after': failure.retryAfter });
    answer.headers[UPSTREAM_HEADER] = last!.upstream.name;
    if (recording !== undefined) (recording.observation.record as ProxyLogEntry).upstreamName = last!.upstream.name;
    return done(answer, recording, message);
  }

  /** One upstream call through that upstream's proxy, cancelled at the route's deadline (until its answer starts). */
  async function call(request: Inbound, text: string, upstream: Upstream, model: string | undefined, strict: boolean, deadline: number | undefined, onDeadline: () => void, recording: Recording | undefined): Promise<Answer> {
    if (deadline === undefined) return upstream.exchange(attemptInbound(request, text, model, strict, request.signal, recording));
    const cancel = new CallerCancel();
    request.signal.listen(() => cancel.abort());
    const timer = setTimeout(() => {
      onDeadline();
      cancel.abort();
    }, Math.max(0, deadline - Date.now()));
    try {
      return await upstream.exchange(attemptInbound(request, text, model, strict, cancel, recording));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The gateway's exchange with stateful Responses in front of all its upstreams, when a store is configured. */
function stateful(exchange: Exchange, config: GatewayConfig, maxBodyBytes: number): Exchange {
  const store = config.store;
  if (store === undefined) return exchange;
  if (typeof store === 'string') {
    throw new InterlinguaError('invalid_value', `store "${store}" is a store's spec: open it first (openStore in src/node/open-store.ts, as interlingua serve does) and pass the StateStore`, { path: '/store' });
  }
  const admit = tokenAdmitter(config.inboundToken, 'key-header');
  return statefulExchange(exchange, { store, ttlSeconds: config.storeTtlSeconds, warn: config.onStoreFailure, admit, maxBodyBytes });
}

/** Create the gateway's fetch handler (it carries its exchange under `PROXY_EXCHANGE`, which the Node adapter runs directly). */
export function createGateway(config: GatewayConfig): ((request: Request) => Promise<Response>) & { [PROXY_EXCHANGE]: Exchange } {
  const exchange = createGatewayExchange(config);
  const handler = async (request: Request): Promise<Response> => webResponse(await exchange(webInbound(request)));
  return Object.assign(handler, { [PROXY_EXCHANGE]: exchange });
}
