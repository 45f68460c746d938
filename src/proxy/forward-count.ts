/**
 * Forwarding a token-counting request: its body converted to the upstream's
 * counting endpoint, and the count back to the caller's answer shape.
 */
import { codecFor } from '../formats/registry.ts';
import { parseBody } from '../formats/convert.ts';
import { convertTokenCountRequest, convertTokenCountResponse, type CountedRequest, type TokenCountCodec } from '../core/token-count.ts';
import { isInterlinguaError } from '../core/errors.ts';
import { isObject, type JsonObject } from '../core/wire.ts';
import { errorAnswer } from './errors.ts';
import { jsonAnswer, type Answer, type UpstreamInit, type UpstreamReply } from './exchange.ts';
import type { ForwardOptions } from './forward-options.ts';
import { noteLosses, noteUpstreamReply } from '../telemetry/record.ts';
import { brokenBody, describe, failedCall, isRedirect, readText, redirectAnswer, translateError } from './upstream-reply.ts';

/**
 * The model a counting body names, read by its format's own counting codec
 * (Gemini's wrapper names it, or the request it holds does); none for a
 * body that codec cannot read, whose conversion then says why.
 */
export function countedModel(counting: TokenCountCodec | undefined, body: JsonObject): string | undefined {
  let counted: CountedRequest | undefined;
  try {
    counted = counting?.requestOf(body);
  } catch {
    return undefined;
  }
  const request = counted?.request;
  return counted?.model ?? (isObject(request) && typeof request['model'] === 'string' ? request['model'] : undefined);
}

/**
 * Forward a token-counting request (`route.count`): the counting body is
 * converted to the upstream's counting endpoint at `url`, and its count back
 * to the caller's answer shape. An upstream format without such an endpoint
 * (`url` undefined) gets no call: the caller hears so, in its own format,
 * rather than an estimate.
 */
export async function forwardCount(options: ForwardOptions, url: (model: string | undefined) => string | undefined): Promise<Answer> {
  const { route, upstream } = options;
  const body = parseBody(options.text);
  if (!isObject(body)) return errorAnswer(route.format, { type: 'invalid_request', message: 'the request body must be a JSON object' });
  const model = route.model ?? countedModel(codecFor(route.format).tokenCount, body);
  const mapped = options.mapModel(model) ?? model;
  if (model !== undefined) options.entry.model = model;
  if (mapped !== undefined) options.entry.upstreamModel = mapped;
  const target = url(mapped);
  if (target === undefined || codecFor(upstream).tokenCount === undefined) {
    return errorAnswer(route.format, {
      type: 'not_found',
      status: 404,
      message: `the upstream speaks ${upstream}, which has no token-counting endpoint; this proxy does not estimate counts`,
    });
  }
  let converted: ReturnType<typeof convertTokenCountRequest>;
  try {
    converted = convertTokenCountRequest(body, { from: codecFor(route.format), to: codecFor(upstream), ...(mapped === undefined ? {} : { model: mapped }) });
  } catch (error) {
    if (!isInterlinguaError(error)) throw error;
    return errorAnswer(route.format, { type: 'invalid_request', message: options.redact(error.message) });
  }
  const out = converted.body as JsonObject;
  // Gemini's wrapper names the model passed as the option; a body's own `model` is still the caller's.
  if (mapped !== undefined && typeof out['model'] === 'string') out['model'] = mapped;
  const text = JSON.stringify(out);
  let response: UpstreamReply;
  try {
    const init: UpstreamInit = { headers: options.headers, body: text, timeoutMs: options.timeoutMs, signal: options.signal, stream: false, maxAnswerBytes: options.maxAnswerBytes };
    const sign = options.sign;
    response = await (sign === undefined ? options.call(target, init) : sign(target, options.headers, text).then((headers) => options.call(target, { ...init, headers })));
  } catch (error) {
    return failedCall(error, options);
  }
  noteUpstreamReply(options.entry, response.status, response.header);
  if (response.status < 200 || response.status > 299) return isRedirect(response) ? redirectAnswer(response, options) : translateError(response, options);
  let answer: string;
  try {
    answer = await readText(response, options);
  } catch (error) {
    return brokenBody(error, options);
  }
  let count: ReturnType<typeof convertTokenCountResponse>;
  try {
    count = convertTokenCountResponse(answer, { from: codecFor(upstream), to: codecFor(route.format) });
  } catch (error) {
    const message = `the upstream (${upstream}) answered the count with a body that is not a ${upstream} count (${describe(error)})`;
    return errorAnswer(route.format, { type: 'server', status: 502, message: options.redact(message) });
  }
  noteLosses(options.entry, converted.losses);
  noteLosses(options.entry, count.losses);
  return jsonAnswer(200, JSON.stringify(count.body), { 'x-interlingua-losses': String(converted.losses.length + count.losses.length) });
}
