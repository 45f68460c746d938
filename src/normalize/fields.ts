/**
 * Reading recorded exchanges whose field names vary between recorders:
 * the first present of several spellings, a body as an object or as JSON
 * text, headers as an object or as a HAR-style list.
 */
import { detectFormat } from '../core/detect.ts';
import { isObject, type JsonObject } from '../core/wire.ts';
import type { RecordedBody, Timing } from './types.ts';

/** The first of `keys` present (not undefined or null) in `object`. */
export function firstOf(object: JsonObject | undefined, keys: readonly string[]): unknown {
  if (object === undefined) return undefined;
  for (const key of keys) {
    const value = object[key];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** The first of `keys` that holds a string. */
export function stringOf(object: JsonObject | undefined, keys: readonly string[]): string | undefined {
  const value = firstOf(object, keys);
  return typeof value === 'string' ? value : undefined;
}

/** The first of `keys` that holds a number (or a numeric string). */
export function numberOf(object: JsonObject | undefined, keys: readonly string[]): number | undefined {
  const value = firstOf(object, keys);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

/** A header value from headers kept as an object (any case) or as a list of `{ name, value }`. */
export function headerOf(headers: unknown, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (Array.isArray(headers)) {
    for (const header of headers) {
      if (isObject(header) && typeof header['name'] === 'string' && header['name'].toLowerCase() === wanted && typeof header['value'] === 'string') {
        return header['value'];
      }
    }
    return undefined;
  }
  if (!isObject(headers)) return undefined;
  for (const key in headers) {
    const value = headers[key];
    if (key.toLowerCase() === wanted) return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  }
  return undefined;
}

const BODY_KEYS = ['body', 'json', 'data', 'text'] as const;
const TEXT_HOLDERS = ['content', 'postData'] as const;
const CONTENT_TYPE_KEYS = ['content_type', 'contentType', 'mimeType', 'mime_type'] as const;

function contentTypeOf(container: JsonObject): string | undefined {
  return headerOf(container['headers'], 'content-type') ?? stringOf(container, CONTENT_TYPE_KEYS);
}

function withType(value: unknown, contentType: string | undefined): RecordedBody {
  return contentType === undefined ? { value } : { value, contentType };
}

/**
 * The body inside a recorded request or response: the value itself when it
 * is already an API body (or JSON/SSE text), else its `body`, `json`,
 * `data` or `text` field, or the `text` of a HAR-style `content`/`postData`.
 */
export function bodyOf(container: unknown): RecordedBody | undefined {
  if (typeof container === 'string') return { value: container };
  if (Array.isArray(container)) return { value: container };
  if (!isObject(container)) return undefined;
  if (detectFormat(container) !== undefined) return { value: container };
  const contentType = contentTypeOf(container);
  for (const key of BODY_KEYS) {
    const value = container[key];
    if (value !== undefined && value !== null) return withType(value, contentType);
  }
  for (const key of TEXT_HOLDERS) {
    const holder = container[key];
    if (isObject(holder) && typeof holder['text'] === 'string') {
      return withType(holder['text'], stringOf(holder, CONTENT_TYPE_KEYS) ?? contentType);
    }
  }
  return undefined;
}

const STARTED_KEYS = ['startedDateTime', 'started_at', 'startedAt', 'start_time', 'startTime', 'timestamp', 'created_at', 'createdAt', 'time'] as const;
const DURATION_KEYS = ['duration_ms', 'durationMs', 'latency_ms', 'latencyMs', 'elapsed_ms', 'elapsedMs', 'response_time_ms'] as const;
const FIRST_TOKEN_KEYS = ['time_to_first_token_ms', 'timeToFirstTokenMs', 'ttft_ms', 'ttftMs'] as const;

/** An ISO time from an ISO string, or from epoch seconds or milliseconds. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  // Below 1e9 (2001 in epoch seconds) a number is more likely a duration than a time.
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1e9) return undefined;
  const date = new Date(value > 1e12 ? value : value * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Start time, duration and time to first token from the usual field names, looked up in each object in turn. */
export function timingOf(...objects: (JsonObject | undefined)[]): Timing | undefined {
  const timing: Timing = {};
  for (const object of objects) {
    const startedAt = timing.startedAt ?? isoTime(firstOf(object, STARTED_KEYS));
    if (startedAt !== undefined) timing.startedAt = startedAt;
    const durationMs = timing.durationMs ?? numberOf(object, DURATION_KEYS);
    if (durationMs !== undefined) timing.durationMs = durationMs;
    const firstToken = timing.timeToFirstTokenMs ?? numberOf(object, FIRST_TOKEN_KEYS);
    if (firstToken !== undefined) timing.timeToFirstTokenMs = firstToken;
  }
  return Object.keys(timing).length === 0 ? undefined : timing;
}
