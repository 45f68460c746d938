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
import { createExchange, type ProxyConfig } from '../proxy/index.ts';
import { callerCredential, constantTimeEqual } from '../proxy/auth.ts';
import { errorAnswer } from '../proxy/errors.ts';
import { jsonAnswer } from '../proxy/exchange.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../telemetry/metrics.ts';
import { watchedBody, type BodyEnd } from '../proxy/answer-watch.ts';
import { routeFor } from '../proxy/routes.ts';
import { CallerCancel, PROXY_EXCHANGE, webInbound, webResponse, type Answer, type AttemptLog, type Cancel, type Exchange, type Inbound, type ProxyLogEntry, type UpstreamFailure } from '../proxy/exchange.ts';
import type { GatewayConfig, GatewayUpstream } from './config.ts';
import { NO_OBSERVER, type RequestObservation } from './observe.ts';
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

function proxyConfigOf(upstream: GatewayUpstream, config: GatewayConfig): ProxyConfig {
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
  };
  const timeoutMs = upstream.timeoutMs ?? config.timeoutMs;
  if (timeoutMs !== undefined) proxy.timeoutMs = timeoutMs;
  if (config.fetch !== undefined) proxy.fetch = config.fetch;
  if (config.env !== undefined) proxy.env = config.env;
  if (config.maxTokensDefault !== undefined) proxy.maxTokensDefault = config.maxTokensDefault;
  if (config.telemetry !== undefined) proxy.telemetry = config.telemetry;
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

/** What one attempt of a request reports back. */
interface Attempted {
  answer: Answer;
  entry: ProxyLogEntry | undefined;
}

/** `upstream status type` for an attempts list: `anthropic 429 rate_limit`, `bedrock connect`. */
function attemptText(attempt: AttemptLog): string {
  return `${attempt.upstream} ${attempt.status === 0 ? '' : `${attempt.status} `}${attempt.failure ?? 'ok'}`.replace(/ ok$/, '');
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

/** The caller's request as one attempt sees it: the body already read, the target's model, the route's strictness. */
function attemptInbound(request: Inbound, text: string, model: string | undefined, strict: boolean, signal: Cancel, report: ((entry: ProxyLogEntry) => void) | undefined): Inbound {
  const inbound: Inbound = { method: request.method, pathname: request.pathname, query: request.query, header: request.header, text: () => Promise.resolve(text), signal, strict };
  if (model !== undefined) inbound.upstreamModel = model;
  if (report !== undefined) inbound.report = report;
  if (request.toolNames !== undefined) inbound.toolNames = request.toolNames;
  return inbound;
}

/** Create the gateway's transport-neutral exchange (what its fetch handler and the Node adapter run). */
export function createGatewayExchange(config: GatewayConfig): Exchange {
  const upstreams = new Map<string, Upstream>();
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    try {
      upstreams.set(name, { name, format: upstream.format, exchange: createExchange(proxyConfigOf(upstream, config)) });
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
  const observer = config.observe ?? NO_OBSERVER;
  const observing = config.observe !== undefined;
  const log = config.log;
  const token = config.inboundToken;
  const maxBodyBytes = config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const firstFormat = upstreams.values().next().value?.format ?? 'openai-chat';
  const single = router.single;
  // Every model takes one route of one target, tried once, without a deadline: no body to read or model to find before the proxy.
  const direct = single !== undefined && single.fixed?.length === 1 && single.retry.attempts === 1 && single.deadlineMs === undefined ? single : undefined;

  const noRoute = (format: FormatId, model: string | undefined): ApiError => {
    const served = [...router.models, ...router.patterns.filter((pattern) => !router.models.includes(pattern))];
    const named = model === undefined ? 'a request without a model' : `the model ${JSON.stringify(model)}`;
    return { type: 'not_found', status: 404, message: `no route of this gateway serves ${named}; it serves ${served.length === 0 ? 'no model by name' : served.join(', ')}` };
  };

  const exchange = async (request: Inbound): Promise<Answer> => {
    const started = Date.now();
    const pathname = request.pathname;
    const ingress = routeFor(pathname);
    const authorized = token === undefined || constantTimeEqual(callerCredential(request) ?? '', token);
    // The log entry: the gateway's own until an attempt's proxy reports one, then that one (which a stream goes on filling in).
    const state = { entry: { method: request.method, path: pathname, upstream: firstFormat, stream: false, status: 0, durationMs: 0, losses: 0 } as ProxyLogEntry };
    const entry = state.entry;
    const done = (answer: Answer, observation?: RequestObservation, error?: string): Answer => {
      const entry = state.entry;
      observation?.end({ status: answer.status, ...(entry.upstreamName === undefined ? {} : { upstream: entry.upstreamName }), losses: entry.losses });
      if (log === undefined) return answer;
      entry.status = answer.status;
      if (error !== undefined) entry.error = error;
      const body = answer.body;
      if (body === null || typeof body === 'string') {
        entry.durationMs = Date.now() - started;
        log(entry);
        return answer;
      }
      // A stream is logged at its last byte (the upstream's proxy fills in its usage and losses on the way).
      answer.body = watchedBody(body, {
        first: () => {},
        end: (how: BodyEnd) => {
          entry.durationMs = Date.now() - started;
          if (how === 'failed') entry.streamError = true;
          log(entry);
        },
      });
      return answer;
    };
    if (pathname === '/metrics' && config.metrics !== undefined && request.method === 'GET') {
      if (!authorized) return done(jsonAnswer(401, JSON.stringify({ error: { type: 'authentication_error', message: 'missing or wrong proxy token' } })));
      return { status: 200, headers: { 'content-type': PROMETHEUS_CONTENT_TYPE }, body: config.metrics.render() };
    }
    if (ingress === undefined || request.method !== 'POST') {
      const answer = ingress !== undefined && request.method !== 'HEAD' ? errorAnswer(ingress.format, { type: 'not_found', status: 405, message: `use POST for ${pathname}` }) : serviceAnswer(request, lists, authorized, upstreams.size);
      return isHealthPath(pathname) ? answer : done(answer);
    }
    const format = ingress.format;
    entry.ingress = format;
    if (!authorized) return done(errorAnswer(format, { type: 'authentication', message: 'missing or wrong proxy token' }), undefined, 'missing or wrong proxy token');
    if (direct !== undefined && !observing) return done(await once(request, direct, state));
    const text = await request.text(maxBodyBytes);
    if (text === undefined) return done(errorAnswer(format, { type: 'request_too_large', message: `request body is larger than ${maxBodyBytes} bytes` }));
    const model = ingress.model ?? (router.single === undefined ? modelOf(text) : undefined);
    const route = router.single ?? router.route(model);
    if (route === undefined) {
      if (model !== undefined) entry.model = model;
      const error = noRoute(format, model);
      return done(errorAnswer(format, error), undefined, error.message);
    }
    entry.route = route.name;
    if (model !== undefined) entry.model = model;
    const observation = observing ? observer.startRequest({ method: request.method, path: pathname, ingress: format, ...(model === undefined ? {} : { model }), route: route.name }) : undefined;
    return done(await attempt(request, text, route, format, started, state, observation), observation);
  };
  return stateful(exchange, config, maxBodyBytes);

  /**
   * A route of one target tried once, with no deadline, for every model (the
   * one-upstream flags' config): the request goes to that upstream's proxy
   * as it came, which reads the body itself, as `createProxy` alone would.
   */
  async function once(request: Inbound, route: Route, state: { entry: ProxyLogEntry }): Promise<Answer> {
    const target = route.fixed![0]!;
    const upstream = upstreams.get(target.upstream)!;
    let inner: ProxyLogEntry | undefined;
    const at = Date.now();
    const inbound: Inbound = { method: request.method, pathname: request.pathname, query: request.query, header: request.header, text: request.text, signal: request.signal, strict: route.strict };
    if (target.model !== undefined) inbound.upstreamModel = target.model;
    if (request.toolNames !== undefined) inbound.toolNames = request.toolNames;
    if (log !== undefined) inbound.report = (reported) => (inner = reported);
    const answer = await upstream.exchange(inbound);
    answer.headers[UPSTREAM_HEADER] = upstream.name;
    if (log === undefined) return answer;
    const entry = inner ?? state.entry;
    const failure = answer.upstreamFailure;
    const record: AttemptLog = { ...inner?.attempts?.[0], upstream: upstream.name, format: upstream.format, status: failure === undefined ? answer.status : (failure.status ?? 0), durationMs: Date.now() - at };
    const model = entry.upstreamModel ?? target.model;
    if (model !== undefined) record.model = model;
    if (failure !== undefined) record.failure = failureName(failure);
    entry.route = route.name;
    entry.upstream = upstream.format;
    entry.upstreamName = upstream.name;
    entry.attempts = [record];
    state.entry = entry;
    return answer;
  }

  /** Try the route's targets in order until one answers; the caller's answer (a success, a caller fault, or the last failure with the attempts listed). */
  async function attempt(request: Inbound, text: string, route: Route, format: FormatId, started: number, state: { entry: ProxyLogEntry }, observation: RequestObservation | undefined): Promise<Answer> {
    const attempts: AttemptLog[] = [];
    if (log !== undefined) state.entry.attempts = attempts;
    const deadline = route.deadlineMs === undefined ? undefined : started + route.deadlineMs;
    let last: { answer: Answer; failure: UpstreamFailure; upstream: Upstream } | undefined;
    let deadlinePassed = false;
    let number = 0;
    targets: for (const target of targetOrder(route)) {
      const upstream = upstreams.get(target.upstream)!;
      for (let tries = 1; tries <= route.retry.attempts; tries++) {
        if (deadline !== undefined && Date.now() >= deadline) {
          deadlinePassed = true;
          break targets;
        }
        number += 1;
        const at = Date.now();
        const span = observation?.attempt({ upstream: upstream.name, format: upstream.format, ...(target.model === undefined ? {} : { model: target.model }), number });
        const { answer, entry: inner } = await call(request, text, upstream, target.model, route.strict, deadline, () => (deadlinePassed = true));
        const failure = answer.upstreamFailure;
        // The attempt as the upstream's proxy saw it (its server, timing, the upstream's request id), named as the gateway names it.
        const own = inner?.attempts?.[0];
        const record: AttemptLog = { ...own, upstream: upstream.name, format: upstream.format, status: failure?.status ?? (failure === undefined ? answer.status : 0), durationMs: Date.now() - at };
        const model = inner?.upstreamModel ?? target.model;
        if (model !== undefined) record.model = model;
        if (failure !== undefined) record.failure = failureName(failure);
        attempts.push(record);
        span?.end({ status: answer.status, ...(failure === undefined ? {} : { failure: failureName(failure) }), ...(inner === undefined ? {} : { losses: inner.losses }) });
        if (inner !== undefined) {
          inner.route = route.name;
          inner.attempts = attempts;
          state.entry = inner;
        }
        state.entry.upstream = upstream.format;
        state.entry.upstreamName = upstream.name;
        answer.headers[UPSTREAM_HEADER] = upstream.name;
        if (failure === undefined) return answer;
        last = { answer, failure, upstream };
        const next = decide(failure);
        if (next === 'answer') {
          if (failure.kind === 'cancelled' && deadlinePassed) break targets;
          return answer;
        }
        if (next === 'next' || tries === route.retry.attempts) break;
        const delay = backoffMs(route.retry, tries, failure.retryAfter);
        if (delay === undefined) break;
        if (deadline !== undefined && Date.now() + delay >= deadline) {
          deadlinePassed = true;
          break targets;
        }
        await wait(delay, request.signal);
        if (request.signal.aborted) return answer;
      }
    }
    const tried = attempts.map(attemptText).join(', ');
    if (deadlinePassed) {
      const message = `no upstream answered within the route's deadline of ${route.deadlineMs} ms (tried: ${tried === '' ? 'none' : tried})`;
      const answer = errorAnswer(format, { type: 'timeout', status: 504, message });
      if (last !== undefined) answer.headers[UPSTREAM_HEADER] = last.upstream.name;
      state.entry.error = message;
      return answer;
    }
    // Every target failed: the last upstream's error, in the caller's format, with the attempts listed.
    const failure = last!.failure;
    const message = `${failure.error.message} (interlingua tried: ${tried})`;
    state.entry.error = message;
    const answer = errorAnswer(format, { ...failure.error, message }, failure.retryAfter === undefined ? undefined : { 'retry-after': failure.retryAfter });
    answer.headers[UPSTREAM_HEADER] = last!.upstream.name;
    return answer;
  }

  /** One upstream call through that upstream's proxy, cancelled at the route's deadline (until its answer starts). */
  async function call(request: Inbound, text: string, upstream: Upstream, model: string | undefined, strict: boolean, deadline: number | undefined, onDeadline: () => void): Promise<Attempted> {
    let entry: ProxyLogEntry | undefined;
    const report = log === undefined && !observing ? undefined : (reported: ProxyLogEntry) => (entry = reported);
    if (deadline === undefined) {
      const answer = await upstream.exchange(attemptInbound(request, text, model, strict, request.signal, report));
      return { answer, entry };
    }
    const cancel = new CallerCancel();
    request.signal.listen(() => cancel.abort());
    const timer = setTimeout(() => {
      onDeadline();
      cancel.abort();
    }, Math.max(0, deadline - Date.now()));
    try {
      const answer = await upstream.exchange(attemptInbound(request, text, model, strict, cancel, report));
      return { answer, entry };
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
