/**
 * The proxy: a fetch handler `(Request) => Promise<Response>` that accepts any
 * of the four wire formats at its own path, converts to the configured
 * upstream format (streams included), and converts the answer back. Web
 * APIs only, so it runs in Node, Bun, Deno and Workers.
 */
import { codecFor } from '../core/registry.ts';
import { checkDialect } from '../core/dialect.ts';
import { InterlinguaError, isInterlinguaError } from '../core/errors.ts';
import { LossCollector } from '../core/losses.ts';
import type { ApiError, FormatId } from '../core/ir.ts';
import { callerCredential, constantTimeEqual, redact, sanitizeHeaderValue, upstreamAuthHeaders } from './auth.ts';
import { errorResponse } from './errors.ts';
import { createModelMap, type ModelRule } from './model-map.ts';
import { routeFor, upstreamUrl } from './routes.ts';
import { forwardToUpstream } from './forward.ts';

/** The upstream the proxy talks to. */
export interface UpstreamConfig {
  format: FormatId;
  /** The API root as the vendor SDK spells it: `https://api.anthropic.com`, `https://api.openai.com/v1`, `https://generativelanguage.googleapis.com`. */
  baseUrl: string;
  /** The upstream API key. */
  apiKey?: string;
  /** Name of the environment variable holding the key (read through `ProxyConfig.env`). */
  apiKeyEnv?: string;
  /** Forward the caller's own credential upstream instead of a configured key. Off unless set. */
  passThroughAuth?: boolean;
  /** Extra headers sent upstream (sanitised). */
  headers?: Record<string, string>;
  /** The upstream's dialect of its format (`openai-chat`: `deepseek`, `openrouter`, `gemini-openai`, `vllm`, `ollama-openai`). */
  dialect?: string;
}

/** One request as the proxy logs it: no bodies, no secrets. */
export interface ProxyLogEntry {
  method: string;
  path: string;
  ingress?: FormatId;
  upstream: FormatId;
  model?: string;
  upstreamModel?: string;
  stream: boolean;
  status: number;
  durationMs: number;
  losses: number;
  error?: string;
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
  /** When set, callers must present this token (Bearer, x-api-key, x-goog-api-key or ?key=). */
  inboundToken?: string;
  /** The `fetch` used upstream (default: the global one). */
  fetch?: typeof fetch;
  /** Environment for `apiKeyEnv` (default: `process.env` where it exists). */
  env?: Record<string, string | undefined>;
  /** Called once per request with a summary line's fields. */
  log?: (entry: ProxyLogEntry) => void;
}

/** Header carrying how many losses the conversion reported. */
export const LOSSES_HEADER = 'x-interlingua-losses';

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

function processEnv(): Record<string, string | undefined> {
  const global = globalThis as { process?: { env?: Record<string, string | undefined> } };
  return global.process?.env ?? {};
}

async function readLimited(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) return undefined;
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
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

/** Create the proxy's fetch handler. */
export function createProxy(config: ProxyConfig): (request: Request) => Promise<Response> {
  const upstream = config.upstream;
  checkDialect(codecFor(upstream.format), upstream.dialect);
  const mapModel = createModelMap(config.modelMap);
  const env = config.env ?? processEnv();
  const rawKey = upstream.apiKey ?? (upstream.apiKeyEnv === undefined ? undefined : env[upstream.apiKeyEnv]);
  const apiKey = checkedKey(rawKey, upstream.apiKey === undefined ? `the environment variable ${upstream.apiKeyEnv ?? ''}` : 'upstream.apiKey');
  const secrets = [rawKey, apiKey, config.inboundToken];
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const fetchUpstream = config.fetch ?? fetch;
  const extraHeaders = Object.fromEntries(Object.entries(upstream.headers ?? {}).map(([name, value]) => [name, sanitizeHeaderValue(value)]));

  return async (request) => {
    const started = Date.now();
    const url = new URL(request.url);
    const route = routeFor(url.pathname);
    const entry: ProxyLogEntry = { method: request.method, path: url.pathname, upstream: upstream.format, stream: false, status: 0, durationMs: 0, losses: 0 };
    const finish = (response: Response, error?: string): Response => {
      entry.status = response.status;
      entry.durationMs = Date.now() - started;
      if (error !== undefined) entry.error = redact(error, secrets);
      config.log?.(entry);
      return response;
    };
    if (route === undefined) {
      return finish(new Response(JSON.stringify({ error: { type: 'not_found', message: `no LLM endpoint at ${url.pathname}` } }), { status: 404, headers: { 'content-type': 'application/json' } }));
    }
    entry.ingress = route.format;
    const fail = (error: ApiError) => finish(errorResponse(route.format, { ...error, message: redact(error.message, secrets) }), error.message);
    if (request.method !== 'POST') return fail({ type: 'not_found', status: 405, message: `use POST for ${url.pathname}` });
    const credential = callerCredential(request, url);
    if (config.inboundToken !== undefined && !constantTimeEqual(credential ?? '', config.inboundToken)) {
      return fail({ type: 'authentication', message: 'missing or wrong proxy token' });
    }
    const text = await readLimited(request, maxBodyBytes);
    if (text === undefined) return fail({ type: 'request_too_large', message: `request body is larger than ${maxBodyBytes} bytes` });
    try {
      const key = upstream.passThroughAuth === true ? credential : apiKey;
      const response = await forwardToUpstream({
        route,
        text,
        upstream: upstream.format,
        ...(upstream.dialect === undefined ? {} : { dialect: upstream.dialect }),
        url: (model, stream) => upstreamUrl(upstream.baseUrl, upstream.format, model, stream, route.generate === true && upstream.format === 'ollama'),
        headers: { ...upstreamAuthHeaders(upstream.format, key), ...extraHeaders },
        mapModel,
        fetch: fetchUpstream,
        timeoutMs,
        signal: request.signal,
        entry,
        losses: new LossCollector(),
        redact: (text) => redact(text, secrets),
      });
      return finish(response);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (isInterlinguaError(error)) return fail({ type: 'invalid_request', message });
      return fail({ type: 'server', message: `proxy error: ${message}` });
    }
  };
}

export { routeFor, upstreamUrl, type Route } from './routes.ts';
export { createModelMap, parseModelRule, type ModelRule } from './model-map.ts';
export { constantTimeEqual } from './auth.ts';
