/**
 * The routing table: a caller's model to the route that serves it (the
 * first route whose glob matches, else the upstream that lists the model,
 * else the `default` route), and a route's targets in the order one request
 * tries them.
 */
import { compileGlob, type GlobMatcher } from '../proxy/glob.ts';
import type { GatewayConfig, GatewayTarget, RouteSettings } from './config.ts';
import { retryPolicy, type Retry } from './retry.ts';

/** A route ready to serve. */
export interface Route {
  /** Its name in logs: the `match` pattern, `default`, or `upstream:NAME` for a model an upstream lists. */
  name: string;
  /** The targets by rank: a rank of one unless weights put several side by side. */
  ranks: GatewayTarget[][];
  /** The order of every request when no rank holds more than one target (made once). */
  fixed: GatewayTarget[] | undefined;
  retry: Retry;
  deadlineMs: number | undefined;
  strict: boolean;
}

/** A glob or a literal name? */
function isGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/** Targets next to each other that all have a weight share a rank. */
function ranksOf(targets: readonly GatewayTarget[]): GatewayTarget[][] {
  const ranks: GatewayTarget[][] = [];
  for (const target of targets) {
    const last = ranks.at(-1);
    if (target.weight !== undefined && last !== undefined && last[0]!.weight !== undefined) last.push(target);
    else ranks.push([target]);
  }
  return ranks;
}

function routeOf(name: string, settings: RouteSettings, config: GatewayConfig): Route {
  const ranks = ranksOf(settings.targets);
  const fixed = ranks.every((rank) => rank.length === 1) ? ranks.map((rank) => rank[0]!) : undefined;
  return { name, ranks, fixed, retry: retryPolicy(settings.retry, config.retry), deadlineMs: settings.deadlineMs, strict: settings.strict ?? config.strict === true };
}

/** The routing table of a configuration. */
export interface Router {
  /** The route of a model (`undefined`: the caller named none), or undefined when nothing serves it. */
  route(model: string | undefined): Route | undefined;
  /** Whether every model takes the same route, so the caller's model need not be read to route it. */
  readonly single: Route | undefined;
  /** The model names configured (literal route matches and the upstreams' `models`), for model lists and 404s. */
  readonly models: readonly string[];
  /** The route patterns, for a 404's message. */
  readonly patterns: readonly string[];
}

export function createRouter(config: GatewayConfig): Router {
  const routes = (config.routes ?? []).map((entry) => ({ test: compileGlob(entry.match) as GlobMatcher, route: routeOf(entry.match, entry, config) }));
  const listed = new Map<string, Route>();
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    for (const model of upstream.models ?? []) if (!listed.has(model)) listed.set(model, routeOf(`upstream:${name}`, { targets: [{ upstream: name }] }, config));
  }
  const fallback = config.default === undefined ? undefined : routeOf('default', config.default, config);
  const first = config.routes?.[0];
  const single = first?.match === '*' ? routes[0]!.route : routes.length === 0 && listed.size === 0 ? fallback : undefined;
  const models = [...new Set([...(config.routes ?? []).map((entry) => entry.match).filter((pattern) => !isGlob(pattern)), ...listed.keys()])];
  return {
    route(model) {
      const name = model ?? '';
      for (const entry of routes) if (entry.test(name)) return entry.route;
      return listed.get(name) ?? fallback;
    },
    single,
    models,
    patterns: (config.routes ?? []).map((entry) => entry.match),
  };
}

/**
 * A route's targets in the order this request tries them: rank by rank, a
 * weighted rank shuffled by weight (each target first with a chance
 * proportional to its weight, by weighted sampling without replacement).
 */
export function targetOrder(route: Route, random: () => number = Math.random): GatewayTarget[] {
  if (route.fixed !== undefined) return route.fixed;
  const order: GatewayTarget[] = [];
  for (const rank of route.ranks) {
    if (rank.length === 1) order.push(rank[0]!);
    else {
      // Efraimidis–Spirakis: key u^(1/w), largest first; a weight of 0 always last.
      const keyed = rank.map((target) => ({ target, key: (target.weight ?? 0) <= 0 ? -1 : random() ** (1 / target.weight!) }));
      keyed.sort((a, b) => b.key - a.key);
      for (const entry of keyed) order.push(entry.target);
    }
  }
  return order;
}
