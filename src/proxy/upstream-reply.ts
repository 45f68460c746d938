/**
 * Reading the upstream's answer: its body under a silence watchdog, and each
 * way a call or an answer fails as the API error the caller is answered with.
 */
import { noteUpstreamFailure } from '../telemetry/record.ts';
import { codecFor } from '../formats/registry.ts';
import type { ApiError, FormatId } from '../core/ir.ts';
import { errorAnswer } from './errors.ts';
import { AnswerTooLarge, Deadline, UpstreamTimeout, type Answer, type ByteSource, type UpstreamFailure, type UpstreamReply } from './exchange.ts';
import { errorTypeForStatus } from '../core/http-status.ts';
import type { ForwardOptions } from './forward-options.ts';
import { redactedError } from './redact-stream.ts';

/** The answer to an upstream error status: its error body decoded (or described, when it is not one) and written in the caller's format. */
export async function translateError(response: UpstreamReply, options: ForwardOptions): Promise<Answer> {
  let text: string;
  try {
    text = await readText(response, options);
  } catch {
    // The error body itself broke off: the status still says what happened.
    text = '';
  }
  let error: ApiError;
  try {
    error = codecFor(options.upstream).decodeError(JSON.parse(text), { losses: options.losses });
  } catch (cause) {
    // The status still says what happened (a 429 stays a 429); the message says whose body could not be read.
    const what = `the upstream (${options.upstream}) answered HTTP ${response.status} with a body that is not a ${options.upstream} error (${describe(cause)})`;
    error = { type: errorTypeForStatus(response.status), message: text === '' ? what : `${what}: ${options.redact(text).slice(0, 1000)}` };
  }
  error = codecFor(options.upstream).errorFromAnswer?.(error, { get: (name) => response.header(name) }, response.status) ?? error;
  if (error.type === 'other') error.type = errorTypeForStatus(response.status);
  error.status = response.status;
  // Every field, not only the message: code, param and what the vendor added (request ids, details) reach the caller too.
  error = redactedError(error, options.redact);
  const retryAfter = response.header('retry-after');
  const answer = errorAnswer(options.route.format, error, retryAfter === null ? undefined : { 'retry-after': options.redact(retryAfter) });
  answer.upstreamFailure = retryAfter === null ? { kind: 'status', status: response.status, error } : { kind: 'status', status: response.status, error, retryAfter };
  return answer;
}

/** The caller's answer to an upstream call that failed, marked with why (see {@link UpstreamFailure}). */
export function failedCall(error: unknown, options: ForwardOptions): Answer {
  const apiError = callFailure(error, options);
  apiError.message = options.redact(apiError.message);
  noteUpstreamFailure(options.entry, apiError.message);
  const answer = errorAnswer(options.route.format, apiError);
  const kind: UpstreamFailure['kind'] = error instanceof UpstreamTimeout ? 'timeout' : options.signal.aborted ? 'cancelled' : 'connect';
  answer.upstreamFailure = { kind, error: apiError };
  return answer;
}

/** The caller's answer to a whole upstream body that broke off or went silent. */
export function brokenBody(error: unknown, options: ForwardOptions): Answer {
  const apiError = bodyFailure(error, options);
  const answer = errorAnswer(options.route.format, apiError);
  answer.upstreamFailure = { kind: options.signal.aborted ? 'cancelled' : 'broken', error: apiError };
  return answer;
}

/** Is the upstream's answer a redirect (3xx; status 0 is the opaque redirect a browser's `fetch` gives with `redirect: 'manual'`)? */
export function isRedirect(response: UpstreamReply): boolean {
  return response.status < 200 || (response.status >= 300 && response.status < 400);
}

/**
 * The answer to an upstream redirect, which the proxy never follows: the
 * request carries the upstream key, and `fetch` would send it on to any
 * other host (it strips only `Authorization`). The caller gets a 502 in its
 * format naming the upstream; the body is released unread.
 */
export function redirectAnswer(response: UpstreamReply, options: ForwardOptions): Answer {
  response.source?.cancel();
  response.body?.cancel().catch(() => {});
  const status = response.status === 0 ? 'a redirect' : `a redirect (HTTP ${response.status})`;
  return errorAnswer(options.route.format, { type: 'server', status: 502, message: `the upstream (${options.upstream}) answered with ${status}, which the proxy does not follow; point the proxy at the upstream's final URL` });
}

/**
 * The upstream body with a watchdog: each chunk must come within `timeoutMs`
 * of the one before. A read failure (reset, abort) or a silence that long
 * ends the stream (`onFailure: 'close'`, so the stream decoder reports a
 * truncated stream as the caller's error event) or errors it (`'error'`,
 * for bytes passed through as they are).
 */
export function guarded(body: ReadableStream<Uint8Array>, options: ForwardOptions, onFailure: 'close' | 'error'): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Runs while the reader holds a chunk and has not asked for the next: a reader that stopped reading for `stalledReaderMs` ends the upstream stream. */
  let stalled: ReturnType<typeof setTimeout> | undefined;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, reason: unknown) => {
    if (onFailure === 'close') controller.close();
    else controller.error(reason);
  };
  return new ReadableStream({
    async pull(controller) {
      clearTimeout(stalled);
      const silence = new Promise<'silent'>((resolve) => (timer = setTimeout(() => resolve('silent'), options.timeoutMs)));
      try {
        const result = await Promise.race([reader.read(), silence]);
        if (result === 'silent') {
          const reason = new Error(`the upstream went silent for ${options.timeoutMs} ms mid-answer`);
          reader.cancel(reason).catch(() => {});
          fail(controller, reason);
        } else if (result.done) controller.close();
        else {
          controller.enqueue(result.value);
          stalled = setTimeout(() => {
            const reason = new Error(`the caller stopped reading for ${options.stalledReaderMs} ms`);
            reader.cancel(reason).catch(() => {});
            try {
              controller.error(reason);
            } catch {
              // Already closed.
            }
          }, options.stalledReaderMs);
        }
      } catch (error) {
        fail(controller, error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      clearTimeout(stalled);
      return reader.cancel(reason);
    },
  });
}

/** The error an upstream body that broke off or went silent becomes (502 or 504 in the caller's format). */
export function bodyFailure(error: unknown, options: ForwardOptions): ApiError {
  if (error instanceof AnswerTooLarge) {
    return { type: 'server', status: 502, message: `the upstream (${options.upstream}) answered with more than ${error.limit} bytes, over the proxy's limit for a whole answer` };
  }
  if (options.signal instanceof Deadline && options.signal.expired) return deadlineError(options.signal);
  const silent = error instanceof Error && error.message.startsWith('the upstream went silent');
  const message = silent
    ? `the upstream went silent for ${options.timeoutMs} ms in the middle of its answer`
    : `the upstream's answer broke off before its end (${error instanceof Error ? error.message : String(error)})`;
  return { type: silent ? 'timeout' : 'server', status: silent ? 504 : 502, message: options.redact(message) };
}

/** The whole upstream body as text, under the same watchdog; throws what {@link bodyFailure} turns into an answer. */
export async function readText(response: UpstreamReply, options: ForwardOptions): Promise<string> {
  if (response.failure !== undefined) throw response.failure;
  if (response.text !== undefined) return response.text;
  if (response.source !== undefined) return sourceText(response.source, options.maxAnswerBytes);
  if (response.body === null) return '';
  const reader = guarded(response.body, options, 'error').getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > options.maxAnswerBytes) {
      reader.cancel().catch(() => {});
      throw new AnswerTooLarge(options.maxAnswerBytes);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** The whole of a {@link ByteSource} as text, at most `limit` bytes (then it is cancelled); rejects with its failure. */
export function sourceText(source: ByteSource, limit = Number.POSITIVE_INFINITY): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new TextDecoder();
    let text = '';
    let bytes = 0;
    let over = false;
    source.start({
      data: (chunk) => {
        if (over) return;
        bytes += chunk.byteLength;
        if (bytes > limit) {
          over = true;
          source.cancel();
          reject(new AnswerTooLarge(limit));
          return;
        }
        text += decoder.decode(chunk, { stream: true });
      },
      end: () => resolve(text + decoder.decode()),
      fail: reject,
    });
  });
}

/** The error a request whose overall deadline passed is answered with. */
function deadlineError(deadline: Deadline): ApiError {
  return { type: 'timeout', status: 504, message: `the request took longer than the proxy's deadline of ${deadline.ms} ms` };
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The error for an upstream answer that interlingua cannot read or cannot
 * write in the caller's format: the upstream's fault, never the caller's, so
 * a 502 naming the upstream's format and what was wrong with its answer.
 */
export function upstreamAnswerFault(upstream: FormatId, caller: FormatId, error: unknown): ApiError {
  return {
    type: 'server',
    status: 502,
    message: `the upstream (${upstream}) answered with a response interlingua could not convert to ${caller}: ${describe(error)}; the request was fine, the upstream's answer was not`,
  };
}

/** The error an upstream call that failed (could not connect, timed out, was cancelled) is answered with. */
export function callFailure(error: unknown, options: ForwardOptions): ApiError {
  if (options.signal instanceof Deadline && options.signal.expired) return deadlineError(options.signal);
  const timedOut = error instanceof UpstreamTimeout;
  const message = timedOut
    ? `the upstream did not answer within ${options.timeoutMs} ms`
    : options.signal.aborted
      ? 'the client went away'
      : `the upstream could not be reached (${error instanceof Error ? error.message : String(error)})`;
  return { type: timedOut ? 'timeout' : 'server', status: timedOut ? 504 : 502, message };
}
