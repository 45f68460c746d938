/**
 * The shapes `interlingua normalize` reads and writes: what one input item
 * is (an {@link Exchange}), what it becomes (a {@link NormalizedRecord} in
 * `records.jsonl`, or an {@link ErrorRecord} in `errors.jsonl`), and the
 * counts of a run ({@link NormalizeSummary}). docs/DESIGN.md ("Normalized
 * records") describes the record shape for readers of the output.
 */
import type { ErrorCode } from '../core/errors.ts';
import type { ApiError, FormatId, Request, Response } from '../core/ir.ts';
import type { Loss } from '../core/losses.ts';

/**
 * What an input file (or one JSONL line) holds.
 * - `har`: an HTTP Archive 1.2 document; each `log.entries[i]` is one exchange.
 *   @see http://www.softwareishard.com/blog/har-12-spec/
 * - `jsonl`: one recorded exchange per line (`request`/`response`, `url`, `status`, …).
 * - `openai-batch-input`, `openai-batch-output`: OpenAI Batch API files.
 *   @see https://platform.openai.com/docs/guides/batch
 * - `anthropic-batch-request`, `anthropic-batch-result`: Anthropic Message Batches
 *   request entries (`{custom_id, params}`) and results (`{custom_id, result}`).
 *   @see https://docs.anthropic.com/en/api/creating-message-batches
 * - `gemini-batch-request`, `gemini-batch-response`: Gemini Batch API input
 *   and output files (`{key, request}`; `{key, response}` or `{key, error}`).
 *   @see https://ai.google.dev/gemini-api/docs/batch-api
 * - `bedrock-batch`: Bedrock batch inference input and output files
 *   (`{recordId, modelInput}`, and in the output `modelOutput` or `error`;
 *   the bodies are the job's InvokeModel or Converse bodies).
 *   @see https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-results.html
 */
export type InputKind =
  | 'har'
  | 'vcr-cassette'
  | 'nock'
  | 'otlp'
  | 'langfuse'
  | 'litellm'
  | 'bedrock-invocation-log'
  | 'jsonl'
  | 'openai-batch-input'
  | 'openai-batch-output'
  | 'anthropic-batch-request'
  | 'anthropic-batch-result'
  | 'gemini-batch-request'
  | 'gemini-batch-response'
  | 'bedrock-batch';

/** Where a record came from: the file as named on the command line and the 1-based line or 0-based HAR entry. */
export interface RecordSource {
  file: string;
  kind: InputKind;
  /** 1-based line number, for line-based inputs. */
  line?: number;
  /** 0-based index in `log.entries`, for HAR. */
  entry?: number;
  /** The batch item's id (`custom_id`, Gemini's `key`, Bedrock's `recordId`), which joins a batch input line to its output line. */
  customId?: string;
  /** Byte offset of the line in the file, for lines read by byte range (`--shard` over a large file), where `line` is not known. */
  offset?: number;
}

/** A body as recorded: a parsed JSON value, or text (JSON text or SSE) with its content type, or a recorded stream's events. */
export interface RecordedBody {
  value: unknown;
  /** The `Content-Type` (or HAR `mimeType`) where the input has one. */
  contentType?: string;
  /** True when `value` is a stream already split into its events (`WireEvent[]`: a Bedrock invocation log's chunks). */
  events?: true;
}

/** When the exchange happened and how long it took, where the input says. */
export interface Timing {
  /** ISO 8601 start time (HAR `startedDateTime`, or a `timestamp`-like field). */
  startedAt?: string;
  /** Total time in milliseconds (HAR `time`, or a `duration_ms`-like field). */
  durationMs?: number;
  /** Milliseconds from the start to the first token, where the input says (LiteLLM and Langfuse `completionStartTime`, or a recorder's `time_to_first_token_ms`, `ttft_ms`, …). */
  timeToFirstTokenMs?: number;
  /** Milliseconds from the start to the first byte of the response (HAR `timings`: blocked + dns + connect + send + wait); for a stream, about the first token. */
  timeToFirstByteMs?: number;
}

/** One recorded request/response pair, either side possibly absent, before any decoding. */
export interface Exchange {
  /** The request URL or path, if recorded. */
  url?: string;
  method?: string;
  request?: RecordedBody;
  response?: RecordedBody;
  /** HTTP status of the response. */
  status?: number;
  timing?: Timing;
  /** The format when the container fixes it (an Anthropic batch file holds only Anthropic bodies). */
  format?: FormatId;
  /** True for HAR entries: an entry that is not an LLM call is skipped, not an error. */
  optional?: boolean;
  /** Bodies the reader decoded into the IR itself, for inputs that record no wire body (OTLP spans). */
  decoded?: DecodedExchange;
}

/**
 * An exchange whose bodies are already IR: the messages of an OTLP span
 * are in the GenAI conventions' own shape, read by the `otel-genai` codec.
 * `format` is the API the span says was called (`gen_ai.provider.name`),
 * which `--to` and the record name; the losses point into the span.
 */
export interface DecodedExchange {
  format: FormatId;
  evidence: FormatEvidence;
  request?: Request;
  response?: Response;
  error?: ApiError;
  losses: RecordLoss[];
}

/** Which body a loss belongs to. */
export type LossSide = 'request' | 'response' | 'error';

/** A loss of decoding (or converting) one side of the exchange. */
export interface RecordLoss extends Loss {
  side: LossSide;
}

/**
 * How the format of a record was found: the URL path, the container, the
 * body's shape, a best guess between look-alikes, or the provider a span
 * names (`gen_ai.provider.name`, `gen_ai.system`, OpenInference `llm.provider`).
 */
export type FormatEvidence = 'url' | 'container' | 'body' | 'guess' | 'provider';

/** The output form of bodies: the IR, or a wire format. */
export type Target = 'ir' | FormatId;

/**
 * One line of `records.jsonl`. `request`, `response` and `error` are IR
 * values (`Request`, `Response`, `ApiError`) when `to` is `ir`, else bodies
 * of the `to` format. Large base64 media inside them are {@link BlobReference}s.
 */
export interface NormalizedRecord {
  /** Stable id: the first 32 hex digits of sha256(file base name, locator, raw item text). */
  id: string;
  source: RecordSource;
  /** The wire format the exchange was recorded in. */
  format: FormatId;
  formatEvidence: FormatEvidence;
  model?: string;
  to: Target;
  /** The endpoint path (no host, no query: queries can hold API keys). */
  endpoint?: string;
  request?: unknown;
  response?: unknown;
  /** A vendor error body, when the response was one. */
  error?: unknown;
  /** True when the response was recorded as an SSE stream (or a Gemini JSON array of chunks) and reassembled. */
  stream?: true;
  losses: RecordLoss[];
  status?: number;
  timing?: Timing;
}

/** Why an item could not become a record: the library's error codes plus the input's own failures. */
export type NormalizeErrorCode =
  | ErrorCode
  /** The line is not JSON. */
  | 'invalid_line'
  /** The line is JSON but holds no request or response. */
  | 'not_an_exchange'
  /** A body is not text the tool can read (binary, compressed). */
  | 'unreadable_body'
  /** The batch item has no answer: failed, canceled or expired. */
  | 'batch_failed'
  /** A bug: an exception that is not an `InterlinguaError`. */
  | 'internal';

/** One line of `errors.jsonl`. */
export interface ErrorRecord {
  id: string;
  source: RecordSource;
  reason: { code: NormalizeErrorCode; message: string; path?: string };
  format?: FormatId;
  status?: number;
}

/** The IR of both sides of an exchange, as decoded (before any `--to` encoding). */
export interface ExchangeIr {
  request?: Request;
  response?: Response;
  error?: ApiError;
}

/** What one input item became. A record comes with the IR it was made from (`ir`) and the model its request named (`requested`). */
export type Outcome =
  | { kind: 'record'; record: NormalizedRecord; ir?: ExchangeIr; requested?: string }
  | { kind: 'error'; error: ErrorRecord }
  /** A HAR entry that is not an LLM API call (a page, an asset, a preflight). */
  | { kind: 'skipped'; reason: string };

/** Counts by key. */
export type Counts = Record<string, number>;

/** The counts of one input file. */
export interface InputSummary {
  file: string;
  kind: InputKind;
  read: number;
  written: number;
  errored: number;
  skipped: number;
}

/** The summary of a run, printed on stderr and written to `summary.json`. `read = written + errored` always. */
export interface NormalizeSummary {
  read: number;
  written: number;
  errored: number;
  /** HAR entries that are not LLM calls; not counted in `read`. */
  skipped: number;
  inputs: InputSummary[];
  byFormat: Counts;
  byModel: Counts;
  byInputKind: Counts;
  /** Records whose response was a reassembled stream. */
  streams: number;
  lossesByCode: Counts;
  errorsByReason: Counts;
  skippedByReason: Counts;
  /** `escaped`: input objects with a `$blob` (or `$literal`) key of their own, kept as `{ "$literal": object }` so they are never resolved. */
  blobs: { written: number; referenced: number; bytesWritten: number; escaped: number };
  seconds: number;
  recordsPerSecond: number;
  /** How many runs wrote this output: 1, plus one per `--append`. */
  runs: number;
}
