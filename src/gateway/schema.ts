/**
 * The schema of the gateway's configuration (valibot), and the checks that
 * reach across it (a target names an upstream there is, a URL the format
 * can take). Every mistake is a {@link ConfigProblem}: where it is, and
 * what to write instead. Web APIs only; the file reading, the YAML and the
 * `${VAR}` substitution are src/gateway/load.ts's.
 */
import * as v from 'valibot';
import { FORMAT_IDS, type FormatId } from '../core/ir.ts';
import { codecFor } from '../formats/registry.ts';
import type { GatewayConfig } from './config.ts';

/** One mistake in a configuration. */
export interface ConfigProblem {
  /** Where: the keys and indexes from the root (`['routes', 0, 'targets', 1, 'upstream']`). */
  path: (string | number)[];
  /** What is wrong, and what to write instead. */
  message: string;
}

/** The edit distance of two short names, for "did you mean". */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/** `; did you mean "x"?` for the nearest of `names` to `name`, when one is near. */
export function suggestion(name: string, names: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of names) {
    const d = candidate.startsWith(name) || name.startsWith(candidate) ? 1 : distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance < name.length && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? ` (did you mean "${best}"?)` : '';
}

/**
 * An object with only these keys: an unknown key is named with the keys
 * there are, a missing one with `required[key]`, an example of it.
 */
function keys<T extends v.ObjectEntries>(what: string, entries: T, required: Record<string, string> = {}) {
  const names = Object.keys(entries);
  return v.strictObject(entries, (issue) => {
    if (issue.expected === 'never') {
      const key = String(issue.received).replace(/^"|"$/g, '');
      return `unknown key "${key}" in ${what}${suggestion(key, names)}; the keys of ${what} are ${names.join(', ')}`;
    }
    const missing = /^"(.*)"$/.exec(issue.expected ?? '')?.[1];
    if (missing !== undefined && issue.received === 'undefined') return `${what} needs ${missing}; write it like ${required[missing] ?? `${missing}: …`}`;
    return `${what} must be a mapping (key: value), got ${issue.received}`;
  });
}

const text = (what: string, example: string) => v.pipe(v.string(`${what} must be a string, like ${example}`), v.minLength(1, `${what} must not be empty; write it like ${example}`));
const whole = (what: string, example: number, min = 0) =>
  v.pipe(v.number(`${what} must be a number, like ${example}`), v.integer(`${what} must be a whole number, like ${example}`), v.minValue(min, `${what} must be at least ${min}, like ${example}`));
const flag = (what: string) => v.boolean(`${what} must be true or false`);

const format = v.picklist(FORMAT_IDS, (issue) => {
  const got = typeof issue.input === 'string' ? issue.input : JSON.stringify(issue.input);
  return `format ${JSON.stringify(got)} is not a wire format${typeof issue.input === 'string' ? suggestion(issue.input, FORMAT_IDS) : ''}; write one of ${FORMAT_IDS.join(', ')}`;
});

const upstream = keys('an upstream', {
  format,
  url: v.optional(text('url', 'https://api.openai.com/v1')),
  key: v.optional(v.string('key must be a string; write "${OPENAI_API_KEY}" to read it from the environment')),
  passThroughAuth: v.optional(flag('passThroughAuth')),
  dialect: v.optional(text('dialect', 'deepseek')),
  region: v.optional(text('region', 'us-east-1')),
  headers: v.optional(v.record(v.string(), v.string('a header value must be a string'), 'headers must be a mapping of header names to values')),
  models: v.optional(v.array(text('a model name', 'claude-sonnet-4-5'), 'models must be a list of model names, like [llama3.2, qwen3]')),
  timeoutMs: v.optional(whole('timeoutMs', 60000, 1)),
}, { format: `format: anthropic (one of ${FORMAT_IDS.join(', ')})` });

const target = keys('a target', {
  upstream: text('upstream', 'anthropic (the name of an upstream)'),
  model: v.optional(text('model', 'claude-sonnet-4-5')),
  weight: v.optional(v.pipe(v.number('weight must be a number, like 3'), v.minValue(0, 'weight must not be negative'))),
}, { upstream: 'upstream: anthropic (the name of an upstream)' });

const retry = keys('retry', {
  attempts: v.optional(whole('attempts', 2, 1)),
  initialDelayMs: v.optional(whole('initialDelayMs', 500)),
  maxDelayMs: v.optional(whole('maxDelayMs', 8000)),
});

const settings = {
  targets: v.pipe(v.array(target, 'targets must be a list of { upstream, model } entries'), v.minLength(1, 'targets must name at least one upstream, like [{ upstream: anthropic }]')),
  retry: v.optional(retry),
  deadlineMs: v.optional(whole('deadlineMs', 30000, 1)),
  strict: v.optional(flag('strict')),
};

const TARGETS_EXAMPLE = 'targets: [{ upstream: anthropic }]';
const route = keys('a route', { match: text('match', '"claude-*"'), ...settings }, { match: 'match: "claude-*"', targets: TARGETS_EXAMPLE });

/** The schema of a configuration file. */
export const GATEWAY_SCHEMA = keys('the configuration', {
  upstreams: v.record(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]+$/, 'an upstream name may hold letters, digits, "_", "." and "-" only, like anthropic-eu')),
    upstream,
    'upstreams must be a mapping of names to upstreams, like { anthropic: { format: anthropic, url: https://api.anthropic.com } }',
  ),
  routes: v.optional(v.array(route, 'routes must be a list of { match, targets } entries')),
  default: v.optional(keys('the default route', settings, { targets: TARGETS_EXAMPLE })),
  retry: v.optional(retry),
  strict: v.optional(flag('strict')),
  maxTokensDefault: v.optional(whole('maxTokensDefault', 4096, 1)),
  timeoutMs: v.optional(whole('timeoutMs', 120000, 1)),
  maxBodyBytes: v.optional(whole('maxBodyBytes', 33554432, 1)),
  inboundToken: v.optional(text('inboundToken', '"${INTERLINGUA_TOKEN}"')),
  store: v.optional(text('store', 'memory')),
  storeTtlSeconds: v.optional(whole('storeTtlSeconds', 2592000, 1)),
  readiness: v.optional(keys('readiness', { probe: v.optional(flag('probe')), cacheMs: v.optional(whole('cacheMs', 5000)), timeoutMs: v.optional(whole('timeoutMs', 2000, 1)) })),
  listen: v.optional(keys('listen', { host: v.optional(text('host', '127.0.0.1')), port: v.optional(v.pipe(whole('port', 8787), v.maxValue(65535, 'port must be at most 65535'))) })),
}, { upstreams: 'upstreams: { anthropic: { format: anthropic, url: https://api.anthropic.com, key: "${ANTHROPIC_API_KEY}" } }' });

/** The API roots each format's SDK spells, for the message of a missing URL. */
const EXAMPLE_URL: Record<FormatId, string> = {
  anthropic: 'https://api.anthropic.com',
  'openai-chat': 'https://api.openai.com/v1',
  'openai-responses': 'https://api.openai.com/v1',
  gemini: 'https://generativelanguage.googleapis.com',
  ollama: 'http://localhost:11434',
  'bedrock-converse': 'https://bedrock-runtime.us-east-1.amazonaws.com',
};

function checkUpstream(name: string, entry: GatewayConfig['upstreams'][string], problems: ConfigProblem[]): void {
  const at = (key: string) => ['upstreams', name, key];
  if (entry.url === undefined) {
    if (entry.format !== 'bedrock-converse') problems.push({ path: ['upstreams', name], message: `upstream "${name}" has no url; write the API root its SDK uses, like url: ${EXAMPLE_URL[entry.format]}` });
  } else if (!/^https?:\/\/[^/\s]+/.test(entry.url)) {
    problems.push({ path: at('url'), message: `url ${JSON.stringify(entry.url)} is not an http(s) URL; write it like ${EXAMPLE_URL[entry.format]}` });
  }
  if (entry.region !== undefined) {
    if (entry.format !== 'bedrock-converse') problems.push({ path: at('region'), message: `region is for a bedrock-converse upstream; remove it, or set format: bedrock-converse` });
    else if (!/^[a-z0-9-]+$/.test(entry.region)) problems.push({ path: at('region'), message: `${JSON.stringify(entry.region)} is not an AWS region name; write it like us-east-1` });
  }
  if (entry.dialect !== undefined) {
    const dialects = codecFor(entry.format).dialects ?? [];
    if (!dialects.includes(entry.dialect)) {
      const choice = dialects.length === 0 ? `${entry.format} has no dialects; remove it` : `write one of ${dialects.join(', ')}${suggestion(entry.dialect, dialects)}`;
      problems.push({ path: at('dialect'), message: `unknown dialect ${JSON.stringify(entry.dialect)} for ${entry.format}; ${choice}` });
    }
  }
  if (entry.key !== undefined && entry.passThroughAuth === true) problems.push({ path: at('key'), message: 'an upstream takes a key or passThroughAuth, not both; remove one' });
  if (entry.key !== undefined && /[\0-\x1f\x7f]/.test(entry.key.trim())) problems.push({ path: at('key'), message: 'the key holds control characters (CR, LF, NUL…); set it to the bare key' });
  for (const [header, value] of Object.entries(entry.headers ?? {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) problems.push({ path: ['upstreams', name, 'headers', header], message: `${JSON.stringify(header)} is not a header name; write it like x-team` });
    if (/[\0\r\n]/.test(value)) problems.push({ path: ['upstreams', name, 'headers', header], message: 'a header value must not hold CR, LF or NUL' });
  }
}

function checkTargets(path: (string | number)[], targets: readonly { upstream: string }[], names: readonly string[], problems: ConfigProblem[]): void {
  targets.forEach((entry, index) => {
    if (!names.includes(entry.upstream)) {
      problems.push({ path: [...path, 'targets', index, 'upstream'], message: `no upstream is named "${entry.upstream}"${suggestion(entry.upstream, names)}; the upstreams are ${names.join(', ')}` });
    }
  });
}

/** The checks across the configuration, once it has the schema's shape. */
function crossChecks(config: GatewayConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = Object.keys(config.upstreams);
  if (names.length === 0) problems.push({ path: ['upstreams'], message: 'no upstream is configured; add one, like anthropic: { format: anthropic, url: https://api.anthropic.com, key: "${ANTHROPIC_API_KEY}" }' });
  for (const name of names) checkUpstream(name, config.upstreams[name]!, problems);
  (config.routes ?? []).forEach((entry, index) => checkTargets(['routes', index], entry.targets, names, problems));
  if (config.default !== undefined) checkTargets(['default'], config.default.targets, names, problems);
  const listed = Object.values(config.upstreams).some((entry) => (entry.models ?? []).length > 0);
  if (names.length > 0 && (config.routes ?? []).length === 0 && config.default === undefined && !listed) {
    problems.push({ path: [], message: 'nothing routes to an upstream; add routes (like - match: "claude-*" with targets: [{ upstream: anthropic }]), a default route, or models to an upstream' });
  }
  return problems;
}

/** The path of a valibot issue as keys and indexes. */
function issuePath(issue: v.BaseIssue<unknown>): (string | number)[] {
  return (issue.path ?? []).map((item) => item.key as string | number);
}

/**
 * Check a configuration (the parsed file, `${VAR}` already read): the
 * typed config when it has no mistake, else every mistake found. A record
 * key refused by its own schema (an upstream name) is reported at the key.
 */
export function validateGatewayConfig(data: unknown): { config: GatewayConfig; problems: [] } | { config?: undefined; problems: ConfigProblem[] } {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { problems: [{ path: [], message: `the configuration must be a mapping (key: value) with upstreams and routes, got ${Array.isArray(data) ? 'a list' : data === null ? 'nothing' : typeof data}` }] };
  }
  const result = v.safeParse(GATEWAY_SCHEMA, data);
  if (!result.success) return { problems: result.issues.map((issue) => ({ path: issuePath(issue), message: issue.message })) };
  const config = result.output as GatewayConfig;
  const problems = crossChecks(config);
  return problems.length === 0 ? { config, problems: [] } : { problems };
}
