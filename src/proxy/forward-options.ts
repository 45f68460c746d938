/**
 * What one forwarded exchange carries: the options of the forwarding
 * functions, and the log entry they fill in.
 */
import type { FormatId, Request } from '../core/ir.ts';
import type { LossCollector } from '../core/losses.ts';
import type { Cancel, Deadline, ProxyLogEntry, UpstreamCall } from './exchange.ts';
import type { Route } from './routes.ts';
import type { RequestSigner } from './sigv4.ts';
import type { Transcoder } from '../formats/stream.ts';
import type { ReasoningSession } from '../state/reasoning-keeper.ts';

/** One request as the proxy logs it (src/proxy/exchange.ts, where an `Inbound` can ask for it). */
export type { ProxyLogEntry } from './exchange.ts';

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
  /** Set here: the transcoder of a converted stream, whose losses the log adds at the stream's end. */
  transcoder: Transcoder | undefined;
  /** Set here: the answer is the upstream's stream passed through unconverted (the log reads its events on the way). */
  passedThrough: boolean;
  /** Refuse a conversion that reports losses (warnings or worse) with a 400 listing them. */
  strict: boolean;
  /** `max_tokens` for an Anthropic upstream when the request names none. */
  maxTokensDefault: number | undefined;
  /** The secrets {@link redact} removes, for the byte redactor of a same-format stream. */
  secrets: readonly (string | undefined)[];
  /** Tool names by call id for results whose call the request lacks (`Inbound.toolNames`). */
  toolNames: ReadonlyMap<string, string> | undefined;
  /** Changes a converted request needs before it is encoded (what the caller's vendor headers mean there, see vendor-headers.ts). */
  adjust: ((request: Request) => void) | undefined;
  /** The reasoning state kept for this caller (`ProxyConfig.store`): restored into its request, kept from the answer. */
  reasoning: ReasoningSession | undefined;
}
