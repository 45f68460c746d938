/**
 * The gateway's answers that call no upstream: the model lists in each
 * format's own shape (so `models.list()` of every official SDK works),
 * health (`/healthz`, `/readyz`), probes (`HEAD` on any path, `GET /`), and
 * the 404 of a path that is none of these, in the format the path belongs
 * to.
 */
import type { FormatId } from '../core/ir.ts';
import { errorAnswer, unknownPath } from '../proxy/errors.ts';
import { jsonAnswer, type Answer, type Inbound } from '../proxy/exchange.ts';

/** A configured model: the name callers use, and the upstream that serves it first. */
export interface ListedModel {
  id: string;
  upstream: string;
}

/** The model lists, made once per gateway. */
export interface ModelLists {
  models: readonly ListedModel[];
  /** When the gateway started, for the lists' creation dates. */
  started: Date;
}

/** `GET /v1/models` in the OpenAI list shape. @see https://platform.openai.com/docs/api-reference/models/list */
function openaiModel(model: ListedModel, lists: ModelLists): object {
  return { id: model.id, object: 'model', created: Math.floor(lists.started.getTime() / 1000), owned_by: model.upstream };
}

/** Anthropic's `ModelInfo` (`@anthropic-ai/sdk` resources/models): what the gateway cannot know is `null`, as the type allows. @see https://docs.anthropic.com/en/api/models-list */
function anthropicModel(model: ListedModel, lists: ModelLists): object {
  return {
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: lists.started.toISOString(),
    capabilities: null,
    deprecated_at: null,
    lifecycle: 'active',
    line: null,
    max_input_tokens: null,
    max_tokens: null,
    retires_at: null,
  };
}

/** A Gemini `Model` as the REST API lists it (`supportedGenerationMethods`, which `@google/genai` reads as `supportedActions`). @see https://ai.google.dev/api/models#Model */
function geminiModel(model: ListedModel): object {
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '1',
    displayName: model.id,
    description: `${model.id}, served by the upstream ${model.upstream} through interlingua`,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

/** An Ollama `ModelResponse` of `/api/tags` (ollama-js `ListResponse`): sizes and digests are the upstream's, which the gateway does not know. @see https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models */
function ollamaModel(model: ListedModel, lists: ModelLists): object {
  return {
    name: model.id,
    model: model.id,
    modified_at: lists.started.toISOString(),
    size: 0,
    digest: '',
    details: { parent_model: '', format: '', family: '', families: [], parameter_size: '', quantization_level: '' },
  };
}

/** Which list shape a `/v1/models` caller wants: Anthropic's SDK sends `anthropic-version`, Gemini's a Google key. */
function modelsFormat(request: Inbound): 'anthropic' | 'gemini' | 'openai-chat' {
  if (request.header('anthropic-version') !== null) return 'anthropic';
  if (request.header('x-goog-api-key') !== null || request.query('key') !== null) return 'gemini';
  return 'openai-chat';
}

const MODELS_PATH = /^(?:\/v1|\/v1beta|\/v1alpha)?\/models(?:\/([^/]+))?$/;

function notFound(format: FormatId, what: string, lists: ModelLists): Answer {
  const names = lists.models.map((model) => model.id).join(', ');
  return errorAnswer(format, { type: 'not_found', status: 404, message: `${what} is not a model this gateway serves${names === '' ? '' : `; it serves ${names}`}` });
}

/** A model list or one model, in the caller's shape; undefined for another path. */
function modelsAnswer(request: Inbound, lists: ModelLists): Answer | undefined {
  if (request.pathname === '/api/tags') return jsonAnswer(200, JSON.stringify({ models: lists.models.map((model) => ollamaModel(model, lists)) }));
  const match = MODELS_PATH.exec(request.pathname);
  if (match === null) return undefined;
  const format = request.pathname.startsWith('/v1beta/') || request.pathname.startsWith('/v1alpha/') ? 'gemini' : modelsFormat(request);
  const wanted = match[1] === undefined ? undefined : decodeURIComponent(match[1]).replace(/^models\//, '');
  if (wanted !== undefined) {
    const model = lists.models.find((entry) => entry.id === wanted);
    if (model === undefined) return notFound(format, JSON.stringify(wanted), lists);
    const one = format === 'anthropic' ? anthropicModel(model, lists) : format === 'gemini' ? geminiModel(model) : openaiModel(model, lists);
    return jsonAnswer(200, JSON.stringify(one));
  }
  switch (format) {
    case 'anthropic': {
      const data = lists.models.map((model) => anthropicModel(model, lists));
      return jsonAnswer(200, JSON.stringify({ data, has_more: false, first_id: lists.models[0]?.id ?? null, last_id: lists.models.at(-1)?.id ?? null }));
    }
    case 'gemini':
      return jsonAnswer(200, JSON.stringify({ models: lists.models.map(geminiModel) }));
    case 'openai-chat':
      return jsonAnswer(200, JSON.stringify({ object: 'list', data: lists.models.map((model) => openaiModel(model, lists)) }));
  }
}

/** Health paths: no token needed. */
export function isHealthPath(pathname: string): boolean {
  return pathname === '/healthz' || pathname === '/readyz';
}

/** The answer to a request that is no LLM call (`authorized`: the caller passed the inbound token, or none is needed). */
export function serviceAnswer(request: Inbound, lists: ModelLists, authorized: boolean, upstreams: number): Answer {
  const { method, pathname } = request;
  if (method === 'HEAD') return { status: 200, headers: {}, body: null };
  if (pathname === '/healthz') return jsonAnswer(200, JSON.stringify({ status: 'ok' }));
  if (pathname === '/readyz') return jsonAnswer(200, JSON.stringify({ status: 'ready', upstreams, models: lists.models.length }));
  if (method === 'GET' && pathname === '/') return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'interlingua gateway is running\n' };
  if (method === 'GET') {
    const isModels = pathname === '/api/tags' || MODELS_PATH.test(pathname);
    if (isModels && !authorized) {
      const format = pathname === '/api/tags' ? 'ollama' : pathname.startsWith('/v1beta/') ? 'gemini' : modelsFormat(request);
      return errorAnswer(format, { type: 'authentication', message: 'missing or wrong proxy token' });
    }
    const answer = modelsAnswer(request, lists);
    if (answer !== undefined) return answer;
  }
  return unknownPath(pathname, request.header('anthropic-version') !== null);
}
