/**
 * The flat row of one exchange, for Parquet and other column stores: when,
 * how long, where it came from, which format and model, usage, stop reason,
 * tool calls and media, the error, the loss codes, and the bodies as JSON
 * text. Facts come from the IR, whatever `--to` writes, so the columns mean
 * the same for every format. docs/NORMALIZE.md documents each column.
 */
import type { Message, Part } from '../core/ir.ts';
import type { ExchangeIr, NormalizedRecord } from './types.ts';

/** The Parquet type of a column: text, whole numbers, a real number, a flag, a time, a list of text. */
export type ColumnType = 'string' | 'int32' | 'int64' | 'double' | 'boolean' | 'timestamp' | 'string-list';

/** One column: its name and type. Every column but `id` may be null. */
export interface Column {
  name: keyof ExchangeRow;
  type: ColumnType;
}

/** One exchange as flat values (`null` where unknown); times are epoch milliseconds. */
export interface ExchangeRow {
  id: string;
  started_at: number | null;
  duration_ms: number | null;
  time_to_first_token_ms: number | null;
  source_file: string;
  source_kind: string;
  source_line: number | null;
  source_entry: number | null;
  source_offset: number | null;
  custom_id: string | null;
  format: string;
  format_evidence: string;
  endpoint: string | null;
  endpoint_kind: string | null;
  model_requested: string | null;
  model_answered: string | null;
  stream: boolean;
  status: number | null;
  stop_reason: string | null;
  stop_reason_raw: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  total_tokens: number | null;
  tool_names: string[];
  message_count: number | null;
  tool_call_count: number;
  tool_result_count: number;
  tool_error_count: number;
  media_part_count: number;
  error_type: string | null;
  error_code: string | null;
  error_message: string | null;
  loss_count: number;
  loss_codes: string[];
  to: string;
  request_json: string | null;
  response_json: string | null;
  error_json: string | null;
}

/** The columns in file order. */
export const COLUMNS: readonly Column[] = [
  { name: 'id', type: 'string' },
  { name: 'started_at', type: 'timestamp' },
  { name: 'duration_ms', type: 'double' },
  { name: 'time_to_first_token_ms', type: 'double' },
  { name: 'source_file', type: 'string' },
  { name: 'source_kind', type: 'string' },
  { name: 'source_line', type: 'int64' },
  { name: 'source_entry', type: 'int64' },
  { name: 'source_offset', type: 'int64' },
  { name: 'custom_id', type: 'string' },
  { name: 'format', type: 'string' },
  { name: 'format_evidence', type: 'string' },
  { name: 'endpoint', type: 'string' },
  { name: 'endpoint_kind', type: 'string' },
  { name: 'model_requested', type: 'string' },
  { name: 'model_answered', type: 'string' },
  { name: 'stream', type: 'boolean' },
  { name: 'status', type: 'int32' },
  { name: 'stop_reason', type: 'string' },
  { name: 'stop_reason_raw', type: 'string' },
  { name: 'input_tokens', type: 'int64' },
  { name: 'output_tokens', type: 'int64' },
  { name: 'cache_read_tokens', type: 'int64' },
  { name: 'cache_write_tokens', type: 'int64' },
  { name: 'reasoning_tokens', type: 'int64' },
  { name: 'total_tokens', type: 'int64' },
  { name: 'tool_names', type: 'string-list' },
  { name: 'message_count', type: 'int32' },
  { name: 'tool_call_count', type: 'int32' },
  { name: 'tool_result_count', type: 'int32' },
  { name: 'tool_error_count', type: 'int32' },
  { name: 'media_part_count', type: 'int32' },
  { name: 'error_type', type: 'string' },
  { name: 'error_code', type: 'string' },
  { name: 'error_message', type: 'string' },
  { name: 'loss_count', type: 'int32' },
  { name: 'loss_codes', type: 'string-list' },
  { name: 'to', type: 'string' },
  { name: 'request_json', type: 'string' },
  { name: 'response_json', type: 'string' },
  { name: 'error_json', type: 'string' },
];

const MEDIA: ReadonlySet<Part['type']> = new Set(['image', 'audio', 'video', 'document']);

/** Counts over parts, tool results' content included. */
interface PartCounts {
  toolNames: string[];
  toolCalls: number;
  toolResults: number;
  toolErrors: number;
  media: number;
}

function countParts(parts: readonly Part[], into: PartCounts, calls: boolean): void {
  for (const part of parts) {
    if (MEDIA.has(part.type)) into.media++;
    else if (part.type === 'tool_call' && calls) {
      into.toolCalls++;
      into.toolNames.push(part.name);
    } else if (part.type === 'tool_result') {
      into.toolResults++;
      if (part.isError === true) into.toolErrors++;
      countParts(part.content, into, false);
    }
  }
}

function countMessages(messages: readonly Message[], into: PartCounts, calls: boolean): void {
  for (const message of messages) countParts(message.parts, into, calls);
}

/** The operation a generation endpoint names, or `undefined` for a path that says none. */
export function endpointKind(endpoint: string | undefined): string | null {
  if (endpoint === undefined) return null;
  const gemini = /:(generateContent|streamGenerateContent)$/.exec(endpoint)?.[1];
  if (gemini !== undefined) return gemini === 'generateContent' ? 'generate_content' : 'stream_generate_content';
  if (/\/converse-stream$/.test(endpoint)) return 'converse_stream';
  if (/\/converse$/.test(endpoint)) return 'converse';
  if (/\/invoke(-with-response-stream)?$/.test(endpoint)) return endpoint.endsWith('stream') ? 'invoke_stream' : 'invoke';
  if (/\/messages$/.test(endpoint)) return 'messages';
  if (/\/chat\/completions$/.test(endpoint)) return 'chat_completions';
  if (/\/completions$/.test(endpoint)) return 'completions';
  if (/\/responses$/.test(endpoint)) return 'responses';
  if (/\/api\/chat$/.test(endpoint)) return 'ollama_chat';
  if (/\/api\/generate$/.test(endpoint)) return 'ollama_generate';
  return 'other';
}

function epochMs(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? null : time;
}

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/**
 * The row of a record (after its media went to the blob store, so the
 * bodies are short), with the facts read from its IR. `requested` is the
 * model the request (or its URL) named.
 */
export function rowOf(record: NormalizedRecord, ir: ExchangeIr, requested: string | undefined): ExchangeRow {
  const counts: PartCounts = { toolNames: [], toolCalls: 0, toolResults: 0, toolErrors: 0, media: 0 };
  if (ir.request !== undefined) countMessages(ir.request.messages, counts, false);
  const candidate = ir.response?.candidates[0];
  for (const each of ir.response?.candidates ?? []) countParts(each.message.parts, counts, true);
  const usage = ir.response?.usage;
  const timing = record.timing;
  const stream = record.stream === true || ir.request?.stream === true;
  const ttft = timing?.timeToFirstTokenMs ?? (stream ? timing?.timeToFirstByteMs : undefined);
  const { source } = record;
  return {
    id: record.id,
    started_at: epochMs(timing?.startedAt),
    duration_ms: orNull(timing?.durationMs),
    time_to_first_token_ms: orNull(ttft),
    source_file: source.file,
    source_kind: source.kind,
    source_line: orNull(source.line),
    source_entry: orNull(source.entry),
    source_offset: orNull(source.offset),
    custom_id: orNull(source.customId),
    format: record.format,
    format_evidence: record.formatEvidence,
    endpoint: orNull(record.endpoint),
    endpoint_kind: endpointKind(record.endpoint),
    model_requested: orNull(requested),
    model_answered: orNull(ir.response?.model),
    stream,
    status: orNull(record.status),
    stop_reason: orNull(candidate?.stopReason?.unified),
    stop_reason_raw: orNull(candidate?.stopReason?.raw),
    input_tokens: orNull(usage?.inputTokens),
    output_tokens: orNull(usage?.outputTokens),
    cache_read_tokens: orNull(usage?.cacheReadTokens),
    cache_write_tokens: orNull(usage?.cacheWriteTokens),
    reasoning_tokens: orNull(usage?.reasoningTokens),
    total_tokens: orNull(usage?.totalTokens ?? (usage?.inputTokens !== undefined && usage.outputTokens !== undefined ? usage.inputTokens + usage.outputTokens : undefined)),
    tool_names: counts.toolNames,
    message_count: ir.request === undefined ? null : ir.request.messages.length,
    tool_call_count: counts.toolCalls,
    tool_result_count: counts.toolResults,
    tool_error_count: counts.toolErrors,
    media_part_count: counts.media,
    error_type: orNull(ir.error?.type),
    error_code: orNull(ir.error?.code),
    error_message: orNull(ir.error?.message),
    loss_count: record.losses.length,
    loss_codes: [...new Set(record.losses.map((loss) => loss.code))].sort(),
    to: record.to,
    request_json: json(record.request),
    response_json: json(record.response),
    error_json: json(record.error),
  };
}
