/**
 * One nock recording → an exchange. `nock.recorder.rec({ output_objects:
 * true })` (and `nock.back`'s fixture files) write a JSON array of
 * definitions: `{scope, method, path, body, status, response, rawHeaders,
 * responseIsBinary}`. `body` and `response` are the parsed JSON when the
 * text was JSON, else the text; a binary answer is one hex string
 * (`responseIsBinary`), and a gzip-compressed one a list of hex chunks.
 * `rawHeaders` is a flat `[name, value, …]` list or an object.
 * @see https://github.com/nock/nock#recording
 * @see https://github.com/nock/nock/blob/main/lib/recorder.js
 */
import type { JsonObject } from '../../core/wire.ts';
import { headerOf } from '../fields.ts';
import type { Exchange, RecordedBody } from '../types.ts';
import { bodyFromBytes, bodyFromText } from './recorded-bytes.ts';

/** A header from nock's `rawHeaders`: a flat list of names and values, or an object. */
function rawHeader(headers: unknown, name: string): string | undefined {
  if (!Array.isArray(headers) || headers.some((item) => typeof item !== 'string')) return headerOf(headers, name);
  for (let index = 0; index + 1 < headers.length; index += 2) {
    if ((headers[index] as string).toLowerCase() === name) return headers[index + 1] as string;
  }
  return undefined;
}

const HEX = /^([0-9a-f]{2})*$/i;

function responseBody(definition: JsonObject): RecordedBody | undefined {
  const headers = definition['rawHeaders'] ?? definition['headers'];
  const contentType = rawHeader(headers, 'content-type');
  const encoding = rawHeader(headers, 'content-encoding');
  const response = definition['response'];
  if (response === undefined || response === null || response === '') return undefined;
  if (Array.isArray(response) && response.length > 0 && response.every((chunk) => typeof chunk === 'string' && HEX.test(chunk))) {
    return bodyFromBytes(Buffer.from(response.join(''), 'hex'), contentType, encoding, 'response');
  }
  if (definition['responseIsBinary'] === true && typeof response === 'string' && HEX.test(response)) {
    return bodyFromBytes(Buffer.from(response, 'hex'), contentType, encoding, 'response');
  }
  if (typeof response === 'string') return bodyFromText(response, contentType);
  return contentType === undefined ? { value: response } : { value: response, contentType };
}

/** The exchange of one nock definition; `optional`, so a recorded call that is not an LLM call is skipped. */
export function exchangeFromNockDefinition(definition: JsonObject): Exchange {
  const exchange: Exchange = { optional: true };
  const scope = typeof definition['scope'] === 'string' ? definition['scope'].replace(/\/+$/, '') : '';
  const path = typeof definition['path'] === 'string' ? definition['path'] : '';
  exchange.url = `${scope}${path}`;
  if (typeof definition['method'] === 'string') exchange.method = definition['method'].toUpperCase();
  const body = definition['body'];
  if (body !== undefined && body !== null && body !== '') exchange.request = { value: body };
  if (typeof definition['status'] === 'number') exchange.status = definition['status'];
  const received = responseBody(definition);
  if (received !== undefined) exchange.response = received;
  return exchange;
}

/** True when a JSON value is a nock definition. */
export function isNockDefinition(value: JsonObject): boolean {
  return typeof value['scope'] === 'string' && typeof value['method'] === 'string' && typeof value['path'] === 'string';
}
