/**
 * The format of a recorded exchange: the container's, else the URL path's,
 * else the request body's shape, else the response's (a whole body or the
 * first events of a stream), else the best guess between look-alike requests.
 * A URL of a known non-generation endpoint (embeddings, models, …) means no
 * format; any other unknown path (a proxy route, Bedrock) lets the bodies decide.
 */
import { detectFormat, formatFromPath, type Detection } from '../core/detect.ts';
import type { FormatId } from '../core/ir.ts';
import type { WireEvent } from '../core/stream-events.ts';
import { isObject } from '../core/wire.ts';
import type { ParsedBody } from './body.ts';
import type { FormatEvidence } from './types.ts';

/** The format found and how. */
export interface ExchangeFormat {
  format: FormatId;
  evidence: FormatEvidence;
}

/** The path of a URL (absolute, or already a path), without query or fragment; `undefined` when unparsable. */
export function endpointOf(url: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      return new URL(url).pathname;
    } catch {
      return undefined;
    }
  }
  return url.split(/[?#]/)[0];
}

/** The model named in a Gemini URL (`…/models/gemini-2.5-pro:generateContent`). */
export function modelFromPath(path: string): string | undefined {
  return /\/models\/([^/:]+):/.exec(path)?.[1];
}

/**
 * Endpoints of the same vendors that are not generation calls (embeddings,
 * token counting, model lists, files, batches, moderation, audio, images):
 * their bodies can look like generation bodies (`{input, model}`), so their
 * path decides.
 */
const NOT_GENERATION = /(\/(embeddings|moderations|models|files|batches|count_tokens|input_tokens|uploads|vector_stores)(\/[^/:]*)?$)|(\/(audio|images)\/)|(:(embedContent|batchEmbedContents|countTokens|predict)$)|(\/api\/(embed|embeddings|tags|show|pull|push|create|copy|delete|ps|version)$)/;

/** True when `endpoint` is a vendor endpoint that does not generate (see {@link NOT_GENERATION}). */
export function isNonGenerationEndpoint(endpoint: string): boolean {
  return NOT_GENERATION.test(endpoint);
}

/** The format of a stream from its first event that says. */
export function detectStreamFormat(events: readonly WireEvent[]): FormatId | undefined {
  for (const event of events.slice(0, 8)) {
    const data = event.data;
    if (!isObject(data)) continue;
    const type = data['type'];
    if (data['object'] === 'chat.completion.chunk') return 'openai-chat';
    if (typeof type === 'string' && type.startsWith('response.')) return 'openai-responses';
    if (typeof type === 'string' && /^(message_|content_block_|ping$)/.test(type)) return 'anthropic';
    if (Array.isArray(data['candidates']) || 'usageMetadata' in data) return 'gemini';
    if (typeof data['done'] === 'boolean' && (isObject(data['message']) || typeof data['response'] === 'string')) return 'ollama';
  }
  return undefined;
}

function detectJson(body: ParsedBody | undefined): Detection | undefined {
  if (body === undefined) return undefined;
  if (body.kind === 'events') {
    const format = detectStreamFormat(body.events);
    return format === undefined ? undefined : { format, kind: 'response', certain: true };
  }
  // A Gemini `streamGenerateContent` answer without `alt=sse` is a JSON array of chunks.
  if (Array.isArray(body.value) && isObject(body.value[0]) && Array.isArray(body.value[0]['candidates'])) {
    return { format: 'gemini', kind: 'response', certain: true };
  }
  return detectFormat(body.value);
}

/** The format of an exchange, or `undefined` when nothing tells. */
export function exchangeFormat(
  container: FormatId | undefined,
  endpoint: string | undefined,
  request: ParsedBody | undefined,
  response: ParsedBody | undefined,
): ExchangeFormat | undefined {
  if (container !== undefined) return { format: container, evidence: 'container' };
  const fromPath = endpoint === undefined ? undefined : formatFromPath(endpoint);
  if (fromPath !== undefined) return { format: fromPath, evidence: 'url' };
  if (endpoint !== undefined && isNonGenerationEndpoint(endpoint)) return undefined;
  const fromRequest = detectJson(request);
  if (fromRequest?.certain === true) return { format: fromRequest.format, evidence: 'body' };
  const fromResponse = detectJson(response);
  if (fromResponse?.certain === true) return { format: fromResponse.format, evidence: 'body' };
  const guess = fromRequest ?? fromResponse;
  return guess === undefined ? undefined : { format: guess.format, evidence: 'guess' };
}
