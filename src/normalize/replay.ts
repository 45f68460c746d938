/**
 * `--out-format requests`: a record's request, in the `--to` format, as one
 * line ready to send: the method, the path relative to the vendor's API root
 * (with the model in it for the formats that put it there, Gemini and
 * Bedrock Converse), and the body, media inline.
 */
import { InterlinguaError } from '../core/errors.ts';
import type { FormatId, Request } from '../core/ir.ts';
import type { NormalizedRecord } from './types.ts';

/** One line of `requests.jsonl`. */
export interface ReplayRequest {
  /** The record's id. */
  id: string;
  method: 'POST';
  /** The path under the vendor's API root: `/v1/messages`, `/v1/chat/completions`, `/v1beta/models/M:generateContent`, `/model/M/converse`, … */
  path: string;
  /** The model, for the formats that name it in the path (Gemini, Bedrock Converse). */
  model?: string;
  stream: boolean;
  /** The request body in the target format. */
  body: unknown;
}

/** Does `format` put the model in the URL rather than the body? */
export function modelInUrl(format: FormatId): boolean {
  return format === 'gemini' || format === 'bedrock-converse';
}

/** The path of a generation call of `format`. */
export function replayPath(format: FormatId, model: string | undefined, stream: boolean): string {
  switch (format) {
    case 'anthropic':
      return '/v1/messages';
    case 'openai-chat':
      return '/v1/chat/completions';
    case 'openai-responses':
      return '/v1/responses';
    case 'ollama':
      return '/api/chat';
    case 'gemini':
      return `/v1beta/models/${encodeURIComponent(model ?? '')}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    case 'bedrock-converse':
      return `/model/${encodeURIComponent(model ?? '')}/${stream ? 'converse-stream' : 'converse'}`;
  }
}

/**
 * The replay line of a record converted to `to`, or `undefined` when it has
 * no request (a batch output line). A format with the model in the URL and
 * no model known is an error: the path cannot be written.
 */
export function replayOf(record: NormalizedRecord, to: FormatId, ir: Request | undefined): ReplayRequest | undefined {
  if (record.request === undefined) return undefined;
  const model = ir?.model ?? record.model;
  const stream = ir?.stream === true || record.stream === true;
  if (modelInUrl(to) && model === undefined) {
    throw new InterlinguaError('missing_field', `the request names no model, and ${to} needs one in its path`, { format: to });
  }
  const line: ReplayRequest = { id: record.id, method: 'POST', path: replayPath(to, model, stream), stream, body: record.request };
  if (modelInUrl(to) && model !== undefined) line.model = model;
  return line;
}
