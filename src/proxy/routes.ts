/**
 * Ingress routing: which wire format a request speaks, from its path, and
 * where each format's endpoint lives under an upstream base URL.
 */
import { InterlinguaError } from '../core/errors.ts';
import type { FormatId } from '../core/ir.ts';

/**
 * A Bedrock model id as its path segment: percent-encoded, so it cannot add
 * segments, a query or a host. `.` and `..` stay what they are under any
 * encoding (URL parsers resolve `%2e` as a dot too), so they are refused.
 */
function modelSegment(model: string | undefined): string {
  const id = model ?? '';
  if (id === '.' || id === '..') throw new InterlinguaError('invalid_value', `"${id}" is not a model id: a dot segment would change the upstream path`, { path: '/model' });
  return encodeURIComponent(id);
}

/** A recognised ingress request. */
export interface Route {
  format: FormatId;
  /** Gemini and Bedrock carry the model in the path. */
  model?: string;
  /** Gemini and Bedrock say "stream" in the path (`:streamGenerateContent`, `/converse-stream`); other formats in the body. */
  streamByPath?: boolean;
  /** The caller gets a stream unless its body says `"stream": false` (Ollama's default). */
  streamByDefault?: boolean;
  /** Ollama `/api/generate`: a prompt in, a `response` string out. */
  generate?: boolean;
  /** A token-counting endpoint (Anthropic `count_tokens`, OpenAI Responses `input_tokens`, Gemini `countTokens`, Bedrock `count-tokens`). */
  count?: boolean;
}

const GEMINI_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
/** Bedrock Runtime: `/model/{modelId}/converse`, `/converse-stream` and `/count-tokens`; the id is percent-encoded (`%3A`, `%2F` in ARNs). */
const BEDROCK_PATH = /\/model\/([^/]+)\/(converse|converse-stream|count-tokens)$/;

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Formats whose model is part of the URL path, not the body. */
export function modelInPath(format: FormatId): boolean {
  return format === 'gemini' || format === 'bedrock-converse';
}

// The routes without a model in the path are the same for every request: made once, never changed.
const ANTHROPIC: Route = Object.freeze({ format: 'anthropic' });
const OPENAI_CHAT: Route = Object.freeze({ format: 'openai-chat' });
const OPENAI_RESPONSES: Route = Object.freeze({ format: 'openai-responses' });
const OLLAMA_CHAT: Route = Object.freeze({ format: 'ollama', streamByDefault: true });
const OLLAMA_GENERATE: Route = Object.freeze({ format: 'ollama', streamByDefault: true, generate: true });
const ANTHROPIC_COUNT: Route = Object.freeze({ format: 'anthropic', count: true });
const OPENAI_RESPONSES_COUNT: Route = Object.freeze({ format: 'openai-responses', count: true });

/** The route of an ingress path, or `undefined` for a path the proxy does not serve. */
export function routeFor(pathname: string): Route | undefined {
  if (pathname.endsWith('/v1/messages') || pathname === '/messages') return ANTHROPIC;
  if (pathname.endsWith('/v1/messages/count_tokens') || pathname === '/messages/count_tokens') return ANTHROPIC_COUNT;
  if (pathname.endsWith('/responses/input_tokens')) return OPENAI_RESPONSES_COUNT;
  if (pathname.endsWith('/chat/completions')) return OPENAI_CHAT;
  if (pathname.endsWith('/responses')) return OPENAI_RESPONSES;
  if (pathname.endsWith('/api/chat')) return OLLAMA_CHAT;
  if (pathname.endsWith('/api/generate')) return OLLAMA_GENERATE;
  const gemini = GEMINI_PATH.exec(pathname);
  if (gemini !== null) {
    const model = decodeSegment(gemini[1] ?? '');
    return gemini[2] === 'countTokens' ? { format: 'gemini', model, count: true } : { format: 'gemini', model, streamByPath: gemini[2] === 'streamGenerateContent' };
  }
  const bedrock = BEDROCK_PATH.exec(pathname);
  if (bedrock !== null) {
    const model = decodeSegment(bedrock[1] ?? '');
    return bedrock[2] === 'count-tokens' ? { format: 'bedrock-converse', model, count: true } : { format: 'bedrock-converse', model, streamByPath: bedrock[2] === 'converse-stream' };
  }
  return undefined;
}

/**
 * The format a path the proxy does not serve belongs to, by its shape (an
 * Ollama `/api/…`, a Gemini `/v1beta/…`, a Bedrock `/model/…`, an Anthropic
 * `/v1/messages…` or any path sent with `anthropic-version`, an OpenAI
 * `/v1/…`), so its 404 reads as that vendor's error; `undefined` for a path
 * of no vendor.
 */
export function pathFormat(pathname: string, anthropicVersion: boolean): FormatId | undefined {
  if (pathname.startsWith('/api/') || pathname === '/api') return 'ollama';
  if (pathname.includes('/v1beta/') || GEMINI_ACTION.test(pathname)) return 'gemini';
  if (pathname.startsWith('/model/')) return 'bedrock-converse';
  if (anthropicVersion || pathname.includes('/messages')) return 'anthropic';
  if (pathname.includes('/responses')) return 'openai-responses';
  if (pathname.startsWith('/v1/') || pathname === '/v1' || pathname.includes('/chat/')) return 'openai-chat';
  return undefined;
}

/** A Gemini method call on a model (`/v1/models/m:embedContent`). */
const GEMINI_ACTION = /\/models\/[^/]+:[A-Za-z]+$/;

/**
 * The upstream URL for a format. Base URLs follow each vendor SDK's own
 * convention: `https://api.anthropic.com`, `https://api.openai.com/v1`,
 * `https://generativelanguage.googleapis.com`, `http://localhost:11434` (Ollama;
 * `generate` for a generate body passed through to an Ollama upstream),
 * `https://bedrock-runtime.{region}.amazonaws.com`.
 */
export function upstreamUrl(baseUrl: string, format: FormatId, model: string | undefined, stream: boolean, generate = false): string {
  const base = baseUrl.replace(/\/+$/, '');
  switch (format) {
    case 'anthropic':
      return `${base}/v1/messages`;
    case 'openai-chat':
      return `${base}/chat/completions`;
    case 'openai-responses':
      return `${base}/responses`;
    case 'ollama':
      return generate ? `${base}/api/generate` : `${base}/api/chat`;
    case 'gemini': {
      const name = encodeURIComponent(model ?? '');
      return stream ? `${base}/v1beta/models/${name}:streamGenerateContent?alt=sse` : `${base}/v1beta/models/${name}:generateContent`;
    }
    case 'bedrock-converse':
      return `${base}/model/${modelSegment(model)}/${stream ? 'converse-stream' : 'converse'}`;
  }
}

/** The upstream URL of a format's token-counting endpoint, or `undefined` for a format without one (OpenAI Chat, Ollama). */
export function countUrl(baseUrl: string, format: FormatId, model: string | undefined): string | undefined {
  const base = baseUrl.replace(/\/+$/, '');
  switch (format) {
    case 'anthropic':
      return `${base}/v1/messages/count_tokens`;
    case 'openai-responses':
      return `${base}/responses/input_tokens`;
    case 'gemini':
      return `${base}/v1beta/models/${encodeURIComponent(model ?? '')}:countTokens`;
    case 'bedrock-converse':
      return `${base}/model/${modelSegment(model)}/count-tokens`;
    case 'openai-chat':
    case 'ollama':
      return undefined;
  }
}
