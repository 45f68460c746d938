/**
 * One interaction of a VCR cassette → an exchange. vcrpy and
 * pytest-recording write `{request: {body, headers, method, uri}, response:
 * {body: {string}, headers, status: {code, message}}}` (headers are lists
 * of values); a body is a string, Python bytes (`!!binary`, which is how a
 * gzip-compressed answer is kept unless `decode_compressed_response` is
 * set), or, in Ruby VCR's and other recorders' cassettes, `{base64_string}`
 * or `{encoding, string}`. Interactions that are not LLM calls (a token
 * fetch, a file download) are skipped, as HAR entries are.
 * @see https://vcrpy.readthedocs.io/en/latest/advanced.html
 * @see https://github.com/kevin1024/vcrpy/blob/master/vcr/serializers/compat.py
 */
import { isObject, type JsonObject } from '../../core/wire.ts';
import { NormalizeFailure } from '../failure.ts';
import { headerOf } from '../fields.ts';
import type { Exchange, RecordedBody } from '../types.ts';
import { bodyFromBytes, bodyFromText } from './recorded-bytes.ts';

function bodyOf(value: unknown, headers: unknown, side: string): RecordedBody | undefined {
  const contentType = headerOf(headers, 'content-type');
  const encoding = headerOf(headers, 'content-encoding');
  if (value === undefined || value === null) return undefined;
  if (value instanceof Uint8Array) return bodyFromBytes(value, contentType, encoding, side);
  if (typeof value === 'string') return bodyFromText(value, contentType);
  if (isObject(value)) {
    if (typeof value['base64_string'] === 'string') return bodyFromBytes(Buffer.from(value['base64_string'], 'base64'), contentType, encoding, side);
    if ('string' in value) return bodyOf(value['string'], headers, side);
  }
  throw new NormalizeFailure('unreadable_body', `the ${side} body of the interaction is neither text nor bytes`);
}

function statusOf(response: JsonObject): number | undefined {
  const status = response['status'];
  const code = isObject(status) ? status['code'] : status;
  return typeof code === 'number' ? code : typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : undefined;
}

/** The exchange of one `interactions[i]`; `optional`, so an interaction that is not an LLM call is skipped. */
export function exchangeFromVcrInteraction(value: JsonObject): Exchange {
  const request = isObject(value['request']) ? value['request'] : undefined;
  const response = isObject(value['response']) ? value['response'] : undefined;
  const exchange: Exchange = { optional: true };
  const url = request?.['uri'] ?? request?.['url'];
  if (typeof url === 'string') exchange.url = url;
  if (typeof request?.['method'] === 'string') exchange.method = request['method'];
  const sent = request === undefined ? undefined : bodyOf(request['body'], request['headers'], 'request');
  if (sent !== undefined) exchange.request = sent;
  if (response !== undefined) {
    const status = statusOf(response);
    if (status !== undefined) exchange.status = status;
    const received = bodyOf(response['body'], response['headers'], 'response');
    if (received !== undefined) exchange.response = received;
  }
  return exchange;
}
