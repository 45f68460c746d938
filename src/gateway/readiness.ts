/**
 * `GET /readyz`: whether the gateway can serve every route. Ready means the
 * configuration is loaded and every route (and the `default` route) has at
 * least one target whose upstream is up, so a down primary with a live
 * fallback is still ready; the answer lists every upstream's state either
 * way, and is 503 when some route has no live upstream. An upstream is up
 * when a cheap probe gets an HTTP answer below 500 within the probe's time:
 * a `GET` of its models list (`/v1/models`, `/models`, `/v1beta/models`,
 * `/api/tags`) with its key, where a 401 or 403 is down (the configured key
 * is refused), or for Bedrock (whose calls need a signature) and for an
 * upstream without a key of its own (the caller's goes upstream) a `GET` of
 * the API root, where any answer below 500 is up. Probes run in parallel,
 * at most once per `cacheMs` (concurrent checks share one round), never
 * follow a redirect, and read no body. Web APIs only.
 */
import type { FormatId } from '../core/ir.ts';
import { upstreamAuthHeaders } from '../proxy/auth.ts';
import { jsonAnswer, type Answer } from '../proxy/exchange.ts';
import type { GatewayConfig, GatewayUpstream, ReadinessSettings } from './config.ts';

/** What a probe found of one upstream. */
export interface UpstreamState {
  up: boolean;
  /** The probe's HTTP status (none: no answer). */
  status?: number;
  /** Why it is down. */
  reason?: string;
}

/** Defaults of {@link ReadinessSettings}. */
export const DEFAULT_READINESS: Required<ReadinessSettings> = { probe: true, cacheMs: 5000, timeoutMs: 2000 };

/** Where and how one upstream is probed. */
interface Probe {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** A 401 or 403 means the configured key is refused (not so for a root probed without one). */
  keyed: boolean;
}

/** The models-list path of a format, under its API root. */
function listPath(format: FormatId): string | undefined {
  switch (format) {
    case 'anthropic':
      return '/v1/models';
    case 'openai-chat':
    case 'openai-responses':
      return '/models';
    case 'gemini':
      return '/v1beta/models';
    case 'ollama':
      return '/api/tags';
    case 'bedrock-converse':
      return undefined;
  }
}

function probeOf(name: string, upstream: GatewayUpstream, env: Record<string, string | undefined>): Probe {
  const region = upstream.region ?? env['AWS_REGION'] ?? env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
  const base = (upstream.url ?? (upstream.format === 'bedrock-converse' ? `https://bedrock-runtime.${region}.amazonaws.com` : '')).replace(/\/+$/, '');
  const path = listPath(upstream.format);
  const key = upstream.key === undefined || upstream.key === '' ? undefined : upstream.key.trim();
  if (path === undefined || key === undefined) return { name, url: `${base}/`, headers: {}, keyed: false };
  const headers = upstreamAuthHeaders(upstream.format, key);
  delete headers['content-type'];
  return { name, url: `${base}${path}`, headers: { ...headers, ...upstream.headers }, keyed: true };
}

async function probe(fetchUpstream: typeof fetch, target: Probe, timeoutMs: number): Promise<UpstreamState> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchUpstream(target.url, { method: 'GET', headers: target.headers, signal: controller.signal, redirect: 'manual' });
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    if (status >= 500) return { up: false, status, reason: `answered HTTP ${status}` };
    if (target.keyed && (status === 401 || status === 403)) return { up: false, status, reason: `refused the configured key (HTTP ${status})` };
    return { up: true, status };
  } catch (error) {
    if (controller.signal.aborted) return { up: false, reason: `no answer within ${timeoutMs} ms` };
    return { up: false, reason: `could not be reached (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    clearTimeout(timer);
  }
}

/** The `/readyz` check of a gateway: `answer()` probes (or reuses the last round within `cacheMs`) and answers. */
export function createReadiness(config: GatewayConfig, models: number, now: () => number = Date.now): { answer(): Promise<Answer> } {
  const settings = { ...DEFAULT_READINESS, ...config.readiness };
  const env = config.env ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  const fetchUpstream = config.fetch ?? fetch;
  const probes = Object.entries(config.upstreams).map(([name, upstream]) => probeOf(name, upstream, env));
  const routes = [...(config.routes ?? []).map((route) => ({ name: route.match, upstreams: route.targets.map((target) => target.upstream) })), ...(config.default === undefined ? [] : [{ name: 'default', upstreams: config.default.targets.map((target) => target.upstream) }])];
  let last: { at: number; answer: Promise<Answer> } | undefined;

  const round = async (): Promise<Answer> => {
    const states = await Promise.all(probes.map((target) => probe(fetchUpstream, target, settings.timeoutMs)));
    const upstreams: Record<string, UpstreamState> = {};
    probes.forEach((target, index) => (upstreams[target.name] = states[index]!));
    const down = probes.filter((_, index) => !states[index]!.up).map((target) => target.name);
    const unserved = routes.filter((route) => route.upstreams.every((name) => upstreams[name]?.up !== true)).map((route) => route.name);
    const ready = unserved.length === 0;
    const body = { status: ready ? 'ready' : 'not_ready', upstreams, down, ...(ready ? {} : { unserved_routes: unserved }), models };
    return jsonAnswer(ready ? 200 : 503, JSON.stringify(body), { 'cache-control': 'no-store' });
  };

  return {
    answer() {
      if (!settings.probe) return Promise.resolve(jsonAnswer(200, JSON.stringify({ status: 'ready', upstreams: probes.length, models })));
      const at = now();
      if (last === undefined || at - last.at >= settings.cacheMs) last = { at, answer: round() };
      // Each caller gets its own copy: the server may take the headers object for its own.
      return last.answer.then((answer) => ({ status: answer.status, headers: { ...answer.headers }, body: answer.body }));
    },
  };
}
