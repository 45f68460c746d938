/**
 * The gateway's configuration: plain data, the same object `interlingua
 * serve --config FILE` loads from YAML or JSON (src/gateway/load.ts checks a
 * file against src/gateway/schema.ts) and `createGateway` takes in a
 * library, a Worker, Bun or Deno. Nothing here reads a file or the
 * environment.
 */
import type { TelemetrySink } from '../telemetry/record.ts';
import type { ProxyLimits } from '../proxy/index.ts';
import type { FormatId } from '../core/ir.ts';
import type { ProxyLogEntry } from '../proxy/exchange.ts';
import type { StateStore } from '../store/store.ts';

/** One upstream: a vendor endpoint in one format. */
export interface GatewayUpstream {
  format: FormatId;
  /**
   * The API root as the vendor SDK spells it (`https://api.anthropic.com`,
   * `https://api.openai.com/v1`, `https://generativelanguage.googleapis.com`,
   * `http://localhost:11434`); for Bedrock optional (then
   * `https://bedrock-runtime.{region}.amazonaws.com`).
   */
  url?: string;
  /** The API key (in a file: `"${ANTHROPIC_API_KEY}"`, read from the environment). */
  key?: string;
  /** Forward the caller's own credential instead of `key`. */
  passThroughAuth?: boolean;
  /** The upstream's dialect of `openai-chat` (`deepseek`, `openrouter`, `gemini-openai`, `vllm`, `ollama-openai`). */
  dialect?: string;
  /** Bedrock: the AWS region (credentials come from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`). */
  region?: string;
  /** Extra headers sent to this upstream. */
  headers?: Record<string, string>;
  /**
   * The models this upstream serves, by the names callers use: they are
   * listed by `/v1/models`, `/v1beta/models` and `/api/tags`, and a model
   * that no route matches goes to the upstream that lists it.
   */
  models?: string[];
  /** Time for this upstream to start answering, and the longest silence within an answer, in ms (default: the gateway's `timeoutMs`). */
  timeoutMs?: number;
}

/** One target of a route: an upstream, and the model it is sent (absent: the caller's). */
export interface GatewayTarget {
  upstream: string;
  model?: string;
  /**
   * Targets next to each other that all have a weight share a rank: each
   * request tries them in an order drawn by weight, so load spreads over
   * them, and the others of the rank follow as its fallbacks.
   */
  weight?: number;
}

/** How one target is tried again. */
export interface RetryPolicy {
  /** Calls to one target before moving to the next, the first included (default 2). */
  attempts?: number;
  /** Back-off before the first retry, in ms, doubled for each next one, with jitter (default 500). */
  initialDelayMs?: number;
  /** The longest back-off, in ms; a `retry-after` longer than this moves to the next target instead of waiting (default 8000). */
  maxDelayMs?: number;
}

/** How `GET /readyz` probes the upstreams (src/gateway/readiness.ts). */
export interface ReadinessSettings {
  /** Probe the upstreams (default true); false: ready once the configuration is loaded. */
  probe?: boolean;
  /** How long a round of probes answers `/readyz` before the next, in ms (default 5000). */
  cacheMs?: number;
  /** Time for one probe's answer, in ms (default 2000). */
  timeoutMs?: number;
}

/** What a route (or the `default` route) says beyond its targets. */
export interface RouteSettings {
  targets: GatewayTarget[];
  retry?: RetryPolicy;
  /** Time from the caller's request until an answer starts, over every attempt and back-off, in ms (default: none). */
  deadlineMs?: number;
  /** Refuse requests whose conversion reports losses, with a 400 listing them (default: the gateway's `strict`). */
  strict?: boolean;
}

/** A route: the models whose name matches the glob `match` (`claude-*`) go to `targets`, the first the primary and the rest fallbacks. */
export interface GatewayRoute extends RouteSettings {
  match: string;
}

/** The gateway's configuration (a config file holds every field but the runtime ones). */
export interface GatewayConfig {
  upstreams: Record<string, GatewayUpstream>;
  /** Tried in order; the first whose `match` matches the caller's model wins. */
  routes?: GatewayRoute[];
  /** Where a model that no route matches, and no upstream lists, goes (absent: a 404 naming the configured models). */
  default?: RouteSettings;
  /** The retry policy of routes that set none. */
  retry?: RetryPolicy;
  /** Refuse conversions with losses on every route that does not say otherwise (default false). */
  strict?: boolean;
  /** `max_tokens` sent to Anthropic targets for requests that name none (default 4096). */
  maxTokensDefault?: number;
  /** Time for an upstream to start answering, and the longest silence within an answer, in ms (default 120000). */
  timeoutMs?: number;
  /** Largest request body accepted, in bytes (default 32 MiB). */
  maxBodyBytes?: number;
  /** Bounds on answers, requests in flight and time, for every upstream's proxy (see `ProxyLimits`, docs/SECURITY.md). */
  limits?: ProxyLimits;
  /** When set, callers must present this token (Bearer, x-api-key, x-goog-api-key or ?key=). */
  inboundToken?: string;
  /**
   * Where stateful Responses and Conversations live, shared by every
   * upstream (a chain may cross a fallback to another vendor): in a file,
   * the store's spec (`memory`, and what `openStore` in src/node/open-store.ts
   * opens), which `serve` opens (its `--store` wins); at run time, an opened
   * `StateStore`. Absent: no state is kept (see `ProxyConfig.store`).
   */
  store?: string | StateStore;
  /** Seconds a stored response or conversation lives (default: the store's own; `serve --store-ttl` wins). */
  storeTtlSeconds?: number;
  /** How `GET /readyz` probes the upstreams. */
  readiness?: ReadinessSettings;
  /** Where `serve` listens (its `--host` and `--port` win). */
  listen?: { host?: string; port?: number };

  // Runtime only: never in a file.
  /** The `fetch` used upstream (default: the global one). */
  fetch?: typeof fetch;
  /** Environment for the AWS credentials of Bedrock upstreams (default: `process.env` where it exists). */
  env?: Record<string, string | undefined>;
  /** Called once per caller request, at its end (a stream's at its last byte), with its log line's fields (the route, every attempt). */
  log?: (entry: ProxyLogEntry) => void;
  /**
   * Where each caller request's record goes besides `log`, once, over all
   * its attempts (one request span with a child span per attempt, one set
   * of metrics). Default: spans and metrics through `@opentelemetry/api` (a
   * no-op until an SDK is registered); `false` for none.
   */
  telemetry?: TelemetrySink | false;
  /** Served as Prometheus text at `GET /metrics` (behind the inbound token when one is set). */
  metrics?: { render(): string };
  /** Told when a response or conversation could not be stored (the answer still reached the caller, saying so); `serve` writes it on stderr. */
  onStoreFailure?: (message: string) => void;
}

/** Defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: Required<RetryPolicy> = { attempts: 2, initialDelayMs: 500, maxDelayMs: 8000 };
