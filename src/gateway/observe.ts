/**
 * Where telemetry plugs into the gateway: an observer told when a caller's
 * request starts and ends, and when each upstream attempt within it starts
 * and ends (a span per request with a child span per attempt). The default
 * does nothing and costs a call per event.
 */
import type { FormatId } from '../core/ir.ts';

/** The `fetch` the gateway calls upstreams with. */
export type Fetch = typeof fetch;

/** A caller's request as it starts. */
export interface RequestInfo {
  method: string;
  path: string;
  /** The caller's format (undefined for paths that are no LLM endpoint). */
  ingress?: FormatId;
  /** The caller's model. */
  model?: string;
  /** The route that matched (`match`, `default`, or `upstream:NAME` for a model an upstream lists). */
  route?: string;
}

/** One upstream attempt as it starts. */
export interface AttemptInfo {
  /** The upstream's name in the configuration. */
  upstream: string;
  format: FormatId;
  /** The model sent upstream (undefined: the caller's). */
  model?: string;
  /** 1 for the first attempt of the request, then 2, 3… across targets. */
  number: number;
}

/** How an attempt or a request ended (the answer's head; a streamed body goes on after this). */
export interface ResultInfo {
  status: number;
  /** `connect`, `timeout`, `broken`, `cancelled`, or an error type (`rate_limit`, `overloaded`…), when it failed. */
  failure?: string;
  /** The upstream that answered (request results). */
  upstream?: string;
  /** Losses the conversion reported so far. */
  losses?: number;
}

/** An attempt being observed. */
export interface AttemptObservation {
  end(result: ResultInfo): void;
}

/** A caller's request being observed. */
export interface RequestObservation {
  attempt(info: AttemptInfo): AttemptObservation;
  end(result: ResultInfo): void;
}

/** Starts the observation of each caller request. */
export interface GatewayObserver {
  startRequest(info: RequestInfo): RequestObservation;
}

const NO_ATTEMPT: AttemptObservation = { end() {} };
const NO_REQUEST: RequestObservation = { attempt: () => NO_ATTEMPT, end() {} };

/** The observer that observes nothing (the default). */
export const NO_OBSERVER: GatewayObserver = { startRequest: () => NO_REQUEST };
