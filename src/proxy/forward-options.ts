/**
 * What one forwarded exchange carries: the options of the forwarding
 * functions, and the log entry they fill in.
 */
import type { FormatId } from '../core/ir.ts';
import type { LossCollector } from '../core/losses.ts';
import type { Cancel, Deadline, UpstreamCall } from './exchange.ts';
import type { Route } from './routes.ts';
import type { RequestSigner } from './sigv4.ts';

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

/** Everything one exchange needs. */
export interface ForwardOptions {
  route: Route;
  text: string;
  upstream: FormatId;
  /** The upstream's dialect of its format, for the request encoder. */
  dialect: string | undefined;
  url: (model: string | undefined, stream: boolean) => string;
  headers: Record<string, string>;
  /** Signs the request (SigV4 for Bedrock): the headers to send. */
  sign: RequestSigner | undefined;
  mapModel: (model: string | undefined) => string | undefined;
  call: UpstreamCall;
  timeoutMs: number;
  /** The largest whole upstream answer read (`limits.maxAnswerBytes`). */
  maxAnswerBytes: number;
  /** How long a caller may stop reading a stream before the upstream stream is ended (`limits.stalledReaderMs`). */
  stalledReaderMs: number;
  /** The caller's cancellation; a {@link Deadline} when the request has an overall deadline. */
  signal: Cancel;
  entry: ProxyLogEntry;
  losses: LossCollector;
  /** Remove secrets from text that reaches the caller. */
  redact: (text: string) => string;
  /** The secrets {@link redact} removes, for the byte redactor of a same-format stream. */
  secrets: readonly (string | undefined)[];
}
