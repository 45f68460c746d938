/**
 * What an input holds, decided from its first bytes (the file) and from each
 * line's shape (the line): HAR and JSON arrays are whole documents, anything
 * else is read line by line, and every line says by its own fields whether it
 * is a batch line or a recorded exchange.
 */
import { isObject } from '../core/wire.ts';
import { isBedrockInvocationLog } from './readers/bedrock-log.ts';
import { isLangfuseObservation } from './readers/langfuse.ts';
import { isLiteLlmPayload } from './readers/litellm.ts';
import { isNockDefinition } from './readers/nock.ts';
import type { InputKind } from './types.ts';

/**
 * How a file is read: one JSON document (HAR, an array of exchanges, a
 * cassette, an OTLP export), a YAML cassette, one item per line, or lines
 * that are each an OTLP `ExportTraceServiceRequest` (the collector's file
 * exporter), which the reader opens into their spans.
 */
export type FileLayout = 'document' | 'yaml' | 'lines' | 'otlp-lines';

/** A JSON value starting like a HAR, a JSON array or a JSON cassette: a document, whatever its first line's length. */
const DOCUMENT_START = /^(\[|\{\s*"(log|interactions)"\s*:)/;
/** An OTLP trace export (`ExportTraceServiceRequest`; proto3 JSON allows either spelling). */
const OTLP_START = /^\{\s*"(resourceSpans|resource_spans)"\s*:/;
/** A vcrpy / pytest-recording cassette: a YAML mapping whose `interactions` key starts a line. */
const YAML_CASSETTE = /^interactions\s*:/m;

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isDocumentValue(value: unknown): boolean {
  return Array.isArray(value) || (isObject(value) && (isObject(value['log']) || Array.isArray(value['interactions'])));
}

/**
 * Whether the line after the first (`from` is the first line's end) is a
 * JSON line: at column 0, starting with `{` or `[`, and a whole value when it
 * ends within the head. A pretty-printed document's second line is indented
 * or is a member (`"version": …`); an array written one element a line has
 * elements that end in commas.
 */
function nextLineIsJson(text: string, from: number): boolean {
  let start = from + 1;
  while (start < text.length && (text[start] === '\n' || text[start] === '\r')) start++;
  if (start >= text.length || (text[start] !== '{' && text[start] !== '[')) return false;
  const end = text.indexOf('\n', start);
  return end < 0 || parses(text.slice(start, end)).ok;
}

/**
 * The layout of a file from its name and its first bytes (decompressed).
 * Never from the first line's length alone: a JSONL file whose first line
 * is longer than the head, or malformed, is still lines (one bad line is one
 * error, the rest are read). A file is a document when it is named `.har`,
 * when its first line is a whole HAR, array or cassette, when it starts like
 * one and its first line does not end within the head, or when its first
 * line is not a whole value and the next line is not a JSON line either
 * (pretty-printed JSON).
 */
export function detectLayout(fileName: string, head: string): FileLayout {
  if (/\.har$/i.test(fileName)) return 'document';
  const text = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
  const start = text.search(/\S/);
  if (start < 0) return 'lines';
  const first = text[start];
  if (first !== '{' && first !== '[') return YAML_CASSETTE.test(text) ? 'yaml' : 'lines';
  const end = text.indexOf('\n', start);
  const line = end < 0 ? text.slice(start) : text.slice(start, end);
  const opening = line.slice(0, 64);
  if (OTLP_START.test(opening)) return 'otlp-lines';
  const parsed = parses(line);
  if (parsed.ok) return isDocumentValue(parsed.value) ? 'document' : 'lines';
  // The first line does not end within the head: one long line, a document only if it starts like one.
  if (end < 0) return DOCUMENT_START.test(opening) ? 'document' : 'lines';
  return nextLineIsJson(text, end) ? 'lines' : 'document';
}

/** The kind of one JSON line (or array element), by the fields each container uses. */
export function classifyItem(value: unknown): InputKind {
  if (!isObject(value)) return 'jsonl';
  if (typeof value['custom_id'] === 'string') {
    if ('result' in value) return 'anthropic-batch-result';
    if ('params' in value) return 'anthropic-batch-request';
    if ('body' in value && ('url' in value || 'method' in value)) return 'openai-batch-input';
    if ('response' in value || 'error' in value) return 'openai-batch-output';
  }
  if (isObject(value['modelInput'])) return 'bedrock-batch';
  if (isBedrockInvocationLog(value)) return 'bedrock-invocation-log';
  if (isLiteLlmPayload(value)) return 'litellm';
  if (isLangfuseObservation(value)) return 'langfuse';
  if (isNockDefinition(value)) return 'nock';
  if (typeof value['key'] === 'string') {
    if (isObject(value['request']) && !('response' in value)) return 'gemini-batch-request';
    if (isObject(value['response']) || isObject(value['error']) || isObject(value['status'])) return 'gemini-batch-response';
  }
  return 'jsonl';
}

/** True when a parsed document is a HAR log. */
export function isHar(value: unknown): value is { log: { entries: unknown[] } } {
  return isObject(value) && isObject(value['log']) && Array.isArray(value['log']['entries']);
}
