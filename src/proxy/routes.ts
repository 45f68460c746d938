/**
 * Ingress routing: which wire format a request speaks, from its path, and
 * where each format's endpoint lives under an upstream base URL.
 */
import type { FormatId } from '../core/ir.ts';

/** A recognised ingress request. */
export interface Route {
  format: FormatId;
  /** Gemini carries the model in the path. */
  model?: string;
  /** Gemini says "stream" in the path (`:streamGenerateContent`); other formats in the body. */
  streamByPath?: boolean;
  /** The caller gets a stream unless its body says `"stream": false` (Ollama's default). */
  streamByDefault?: boolean;
  /** Ollama `/api/generate`: a prompt in, a `response` string out. */
  generate?: boolean;
}

const GEMINI_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The route of an ingress path, or `undefined` for a path the proxy does not serve. */
export function routeFor(pathname: string): Route | undefined {
  if (pathname.endsWith('/v1/messages') || pathname === '/messages') return { format: 'anthropic' };
  if (pathname.endsWith('/chat/completions')) return { format: 'openai-chat' };
  if (pathname.endsWith('/responses')) return { format: 'openai-responses' };
  if (pathname.endsWith('/api/chat')) return { format: 'ollama', streamByDefault: true };
  if (pathname.endsWith('/api/generate')) return { format: 'ollama', streamByDefault: true, generate: true };
  const gemini = GEMINI_PATH.exec(pathname);
  if (gemini !== null) {
    return { format: 'gemini', model: decodeURIComponent(gemini[1] ?? ''), streamByPath: gemini[2] === 'streamGenerateContent' };
  }
  return undefined;
}

/**
 * The upstream URL for a format. Base URLs follow each vendor SDK's own
 * convention: `https://api.anthropic.com`, `https://api.openai.com/v1`,
 * `https://generativelanguage.googleapis.com`, `http://localhost:11434` (Ollama;
 * `generate` for a generate body passed through to an Ollama upstream).
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
  }
}
