/**
 * One HAR 1.2 entry → an {@link Exchange}: the request's `postData.text`,
 * the response's `content.text` (base64-decoded when `encoding` says so),
 * status, start time and total time.
 * @see http://www.softwareishard.com/blog/har-12-spec/#entries
 */
import { isObject, type JsonObject } from '../core/wire.ts';
import { NormalizeFailure } from './failure.ts';
import { isBinaryEventStream } from './body.ts';
import { headerOf, isoTime } from './fields.ts';
import type { Exchange, RecordedBody, Timing } from './types.ts';

function objectAt(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const inner = value[key];
  return isObject(inner) ? inner : undefined;
}

function decodeBase64Text(text: string): string {
  const bytes = Buffer.from(text, 'base64');
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    throw new NormalizeFailure('unreadable_body', 'the response body is gzip-compressed; record it decompressed (browsers and most proxies do)');
  }
  return bytes.toString('utf8');
}

function requestBody(request: JsonObject): RecordedBody | undefined {
  const postData = objectAt(request, 'postData');
  const text = postData?.['text'];
  if (typeof text !== 'string' || text === '') return undefined;
  const contentType = typeof postData?.['mimeType'] === 'string' ? postData['mimeType'] : headerOf(request['headers'], 'content-type');
  return contentType === undefined ? { value: text } : { value: text, contentType };
}

function responseBody(response: JsonObject): RecordedBody | undefined {
  const content = objectAt(response, 'content');
  const text = content?.['text'];
  if (typeof text !== 'string' || text === '') return undefined;
  const contentType = typeof content?.['mimeType'] === 'string' ? content['mimeType'] : headerOf(response['headers'], 'content-type');
  // Bedrock's binary event stream stays bytes: as UTF-8 text its preludes and CRCs would be mangled.
  const binary = content?.['encoding'] === 'base64' && contentType !== undefined && isBinaryEventStream(contentType);
  const value = binary ? new Uint8Array(Buffer.from(text, 'base64')) : content?.['encoding'] === 'base64' ? decodeBase64Text(text) : text;
  return contentType === undefined ? { value } : { value, contentType };
}

function harTiming(entry: JsonObject): Timing | undefined {
  const timing: Timing = {};
  const startedAt = isoTime(entry['startedDateTime']);
  if (startedAt !== undefined) timing.startedAt = startedAt;
  const time = entry['time'];
  if (typeof time === 'number' && Number.isFinite(time) && time >= 0) timing.durationMs = time;
  // The first byte: every phase before `receive` (-1 is "does not apply").
  const phases = isObject(entry['timings']) ? ['blocked', 'dns', 'connect', 'send', 'wait'].map((key) => (entry['timings'] as JsonObject)[key]) : [];
  if (typeof phases[4] === 'number' && phases[4] >= 0) timing.timeToFirstByteMs = phases.reduce<number>((sum, phase) => sum + (typeof phase === 'number' && phase > 0 ? phase : 0), 0);
  return Object.keys(timing).length === 0 ? undefined : timing;
}

/** The exchange of one `log.entries[i]`. HAR entries are `optional`: one that is not an LLM call is skipped. */
export function exchangeFromHarEntry(entry: unknown): Exchange {
  if (!isObject(entry)) throw new NormalizeFailure('not_an_exchange', 'the HAR entry is not an object');
  const request = objectAt(entry, 'request');
  const response = objectAt(entry, 'response');
  const exchange: Exchange = { optional: true };
  if (typeof request?.['url'] === 'string') exchange.url = request['url'];
  if (typeof request?.['method'] === 'string') exchange.method = request['method'];
  const sent = request === undefined ? undefined : requestBody(request);
  if (sent !== undefined) exchange.request = sent;
  // Status 0 means the browser got no answer (aborted, blocked): there is no response to read.
  const status = response?.['status'];
  if (typeof status === 'number' && status > 0) {
    exchange.status = status;
    const received = response === undefined ? undefined : responseBody(response);
    if (received !== undefined) exchange.response = received;
  }
  const timing = harTiming(entry);
  if (timing !== undefined) exchange.timing = timing;
  return exchange;
}
