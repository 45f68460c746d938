/**
 * The access log's lines: one per request, as text (`key=value` after a
 * fixed head) or as a JSON object. Every value from outside (a path, a
 * model name, an upstream's request id, an error message) is escaped, so no
 * value can end a line or forge another: in text a value that is not plain
 * is written as a JSON string with every character outside printable ASCII
 * escaped; in JSON the line separators JSON leaves as they are (U+2028,
 * U+2029) are escaped too. Web APIs only.
 */
import type { AttemptRecord, RequestRecord, TokenUsage } from './record.ts';

/** The log's formats. */
export type LogFormat = 'text' | 'json';

/** A value written bare in a text line: nothing a reader could take for a separator, a quote or a line end. */
const PLAIN = /^[A-Za-z0-9._:/@+\-*~,]+$/;

/** Characters JSON.stringify leaves as they are but a log line must not hold raw: DEL, everything past ASCII (line and paragraph separators, bidirectional controls). */
const UNPRINTABLE = /[\x7f-\uffff]/g;

function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A value as a text line writes it: bare when plain, else a JSON string in printable ASCII. */
export function logValue(value: string): string {
  if (PLAIN.test(value)) return value;
  return JSON.stringify(value).replace(UNPRINTABLE, unicodeEscape);
}

/** Loss codes with their counts, in the order first seen: `dropped_field*2,synthesised_id`. */
function lossSummary(codes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
  let text = '';
  for (const [code, count] of counts) text += `${text === '' ? '' : ','}${code}${count > 1 ? `*${count}` : ''}`;
  return text;
}

function tokenSummary(usage: TokenUsage): string {
  let text = usage.inputTokens === undefined ? '' : `in:${usage.inputTokens}`;
  if (usage.outputTokens !== undefined) text += `${text === '' ? '' : ','}out:${usage.outputTokens}`;
  if (usage.cachedTokens !== undefined) text += `${text === '' ? '' : ','}cached:${usage.cachedTokens}`;
  if (usage.reasoningTokens !== undefined) text += `${text === '' ? '' : ','}reasoning:${usage.reasoningTokens}`;
  return text;
}

/** One attempt in a text line: `name:status:duration` (status 0: no answer). */
function attemptSummary(attempt: AttemptRecord): string {
  return `${attempt.upstream}:${attempt.status ?? 0}${attempt.durationMs === undefined ? '' : `:${attempt.durationMs}ms`}`;
}

/**
 * One request as a text line: `TIME METHOD PATH INGRESS→UPSTREAM` then
 * `model=CALLER→UPSTREAM`, `stream`, the status, the duration (a stream's
 * to its end), and `key=value` pairs for what is known: `ttfb=` (streams),
 * `id=`, `route=` and `attempts=` (a gateway's), `upstream_id=`,
 * `tokens=in:N,out:N,cached:N,reasoning:N`, `finish=`, `losses=N`,
 * `loss_codes=code*count,…`, `stream_error`, `error="…"`. Ends with a newline.
 */
export function formatTextLine(time: string, record: RequestRecord): string {
  let line = `${time} ${logValue(record.method)} ${logValue(record.path)} ${record.ingress ?? '-'}→${record.upstream}`;
  if (record.model !== undefined) {
    line += ` model=${logValue(record.model)}`;
    if (record.upstreamModel !== undefined && record.upstreamModel !== record.model) line += `→${logValue(record.upstreamModel)}`;
  } else if (record.upstreamModel !== undefined) line += ` model=-→${logValue(record.upstreamModel)}`;
  if (record.stream) line += ' stream';
  line += ` ${record.status} ${record.durationMs}ms`;
  // A whole answer's first byte is its last; a stream's comes first.
  if (record.stream && record.firstByteMs !== undefined) line += ` ttfb=${record.firstByteMs}ms`;
  line += ` id=${logValue(record.requestId)}`;
  if (record.route !== undefined) line += ` route=${logValue(record.route)}`;
  // The one-upstream proxy's single attempt says nothing the line does not; a gateway's list does.
  const attempts = record.attempts;
  if (attempts !== undefined && (record.route !== undefined || attempts.length > 1)) line += ` attempts=${logValue(attempts.map(attemptSummary).join(','))}`;
  if (record.upstreamRequestId !== undefined) line += ` upstream_id=${logValue(record.upstreamRequestId)}`;
  if (record.usage !== undefined) line += ` tokens=${tokenSummary(record.usage)}`;
  if (record.finishReasons !== undefined && record.finishReasons.length > 0) line += ` finish=${logValue(record.finishReasons.join(','))}`;
  line += ` losses=${record.losses}`;
  if (record.lossCodes !== undefined && record.lossCodes.length > 0) line += ` loss_codes=${logValue(lossSummary(record.lossCodes))}`;
  if (record.streamError === true) line += ' stream_error';
  if (record.error !== undefined) line += ` error=${JSON.stringify(record.error).replace(UNPRINTABLE, unicodeEscape)}`;
  return `${line}\n`;
}

/** JSON's own escapes leave U+2028 and U+2029 raw, which some readers take for line ends. */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** One request as a JSON line, snake_case keys, absent values left out. Ends with a newline. */
export function formatJsonLine(time: string, record: RequestRecord): string {
  const line: Record<string, unknown> = {
    time,
    request_id: record.requestId,
    method: record.method,
    path: record.path,
    ingress: record.ingress,
    upstream: record.upstream,
    model: record.model,
    upstream_model: record.upstreamModel,
    response_model: record.responseModel,
    route: record.route,
    attempts: record.attempts?.map((attempt) => ({
      upstream: attempt.upstream,
      format: attempt.format,
      model: attempt.model,
      status: attempt.status,
      duration_ms: attempt.durationMs,
      upstream_request_id: attempt.upstreamRequestId,
      error: attempt.error,
      failure: attempt.failure,
      retry_delay_ms: attempt.retryDelayMs,
    })),
    stream: record.stream,
    status: record.status,
    ttfb_ms: record.firstByteMs,
    duration_ms: record.durationMs,
    stream_error: record.streamError,
    input_tokens: record.usage?.inputTokens,
    output_tokens: record.usage?.outputTokens,
    cached_tokens: record.usage?.cachedTokens,
    reasoning_tokens: record.usage?.reasoningTokens,
    finish_reasons: record.finishReasons,
    losses: record.losses,
    loss_codes: record.lossCodes,
    upstream_request_id: record.upstreamRequestId,
    error: record.error,
  };
  return `${JSON.stringify(line).replace(LINE_SEPARATORS, unicodeEscape)}\n`;
}

/** The line formatter of `format`. */
export function logLineFormatter(format: LogFormat): (time: string, record: RequestRecord) => string {
  return format === 'json' ? formatJsonLine : formatTextLine;
}
