/**
 * One OTLP span → an exchange decoded into the IR. A span of an LLM call
 * carries its messages in the GenAI semantic conventions
 * (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`, `gen_ai.tool.definitions`, on the span or on
 * its `gen_ai.client.inference.operation.details` event), or in the older
 * OpenLLMetry or OpenInference attributes (see `otlp-legacy.ts`); all are
 * read by the `otel-genai` codec. Model, settings, usage and finish reasons
 * come from `gen_ai.request.*`, `gen_ai.response.*` and `gen_ai.usage.*`
 * (and OpenInference's `llm.*`). The format of the record is the API of the
 * provider the span names. Spans that are not LLM calls are skipped.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
import { InterlinguaError, isInterlinguaError } from '../../core/errors.ts';
import type { ApiError, Candidate, FormatId, Generation, Request, Response, Usage } from '../../core/ir.ts';
import { LossCollector } from '../../core/losses.ts';
import { isObject, lookupTable, type JsonObject } from '../../core/wire.ts';
import {
  decodeOtelGenAiFinishReason,
  decodeOtelGenAiMessages,
  decodeOtelGenAiOutputMessages,
  decodeOtelGenAiSystemInstructions,
  decodeOtelGenAiToolDefinitions,
  otelGenAiScope,
} from '../../providers/otel-genai/index.ts';
import { NormalizeFailure } from '../failure.ts';
import type { Exchange, RecordLoss, Timing } from '../types.ts';
import { attributesOf, type Attribute } from './otlp-attributes.ts';
import { legacyMessages } from './otlp-legacy.ts';

/** The API each provider name (`gen_ai.provider.name`, `gen_ai.system`, OpenInference `llm.provider`/`llm.system`) is called through. */
const FORMAT_OF_PROVIDER: Readonly<Record<string, FormatId>> = lookupTable({
  openai: 'openai-chat',
  'azure.ai.openai': 'openai-chat',
  azure: 'openai-chat',
  az_ai_openai: 'openai-chat',
  deepseek: 'openai-chat',
  groq: 'openai-chat',
  mistral_ai: 'openai-chat',
  mistralai: 'openai-chat',
  perplexity: 'openai-chat',
  x_ai: 'openai-chat',
  xai: 'openai-chat',
  openrouter: 'openai-chat',
  anthropic: 'anthropic',
  'aws.bedrock': 'bedrock-converse',
  aws: 'bedrock-converse',
  bedrock: 'bedrock-converse',
  'gcp.gemini': 'gemini',
  'gcp.vertex_ai': 'gemini',
  'gcp.gen_ai': 'gemini',
  gemini: 'gemini',
  google: 'gemini',
  vertexai: 'gemini',
  vertex_ai: 'gemini',
  ollama: 'ollama',
});

const NOT_GENERATION = new Set(['embeddings', 'create_agent', 'execute_tool']);

type Attributes = ReadonlyMap<string, Attribute>;

function valueOf(attributes: Attributes, ...keys: string[]): unknown {
  for (const key of keys) {
    const attribute = attributes.get(key);
    if (attribute !== undefined) return attribute.value;
  }
  return undefined;
}

function numberAt(attributes: Attributes, ...keys: string[]): number | undefined {
  const value = valueOf(attributes, ...keys);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Decode one attribute holding GenAI values (JSON text, or structured
 * `AnyValue`s, or messages rebuilt from flat attributes). A pointer inside
 * such a value has no place in the span, so losses and errors point at the
 * attribute, the inner pointer named in the message.
 */
function decodeAttribute<T>(attribute: Attribute, losses: RecordLoss[], side: 'request' | 'response', decode: (value: unknown, path: string, collector: LossCollector) => T, built = false): T {
  let value = attribute.value;
  if (attribute.text) {
    try {
      value = JSON.parse(attribute.value as string) as unknown;
    } catch (error) {
      throw new InterlinguaError('invalid_json', `the attribute is not JSON (${(error as Error).message})`, { path: attribute.path });
    }
  }
  const collector = new LossCollector();
  const what = built ? 'the messages these attributes make' : attribute.text ? 'its JSON' : 'its value';
  const where = (inner: string): string => ` (at ${inner === '' ? 'the top' : inner} of ${what})`;
  try {
    const result = decode(value, '', collector);
    for (const loss of collector.losses) losses.push({ ...loss, path: attribute.path, message: `${loss.message}${where(loss.path)}`, side });
    return result;
  } catch (error) {
    if (isInterlinguaError(error)) throw new InterlinguaError(error.code, `${error.message}${where(error.path)}`, { path: attribute.path });
    throw error;
  }
}

function generationOf(attributes: Attributes): Generation | undefined {
  const generation: Generation = {};
  const invocation = valueOf(attributes, 'llm.invocation_parameters');
  let parameters: JsonObject = {};
  if (typeof invocation === 'string') {
    try {
      const parsed: unknown = JSON.parse(invocation);
      if (isObject(parsed)) parameters = parsed;
    } catch {
      // Not JSON: OpenInference's settings are then unknown, which the record shows by their absence.
    }
  }
  const pick = (key: string, parameter: string): number | undefined => numberAt(attributes, `gen_ai.request.${key}`) ?? (typeof parameters[parameter] === 'number' ? parameters[parameter] : undefined);
  const set = <K extends keyof Generation>(key: K, value: Generation[K] | undefined): void => {
    if (value !== undefined) generation[key] = value;
  };
  set('maxTokens', pick('max_tokens', 'max_tokens') ?? (typeof parameters['max_completion_tokens'] === 'number' ? parameters['max_completion_tokens'] : undefined));
  set('temperature', pick('temperature', 'temperature'));
  set('topP', pick('top_p', 'top_p'));
  set('topK', pick('top_k', 'top_k'));
  set('seed', pick('seed', 'seed'));
  set('presencePenalty', pick('presence_penalty', 'presence_penalty'));
  set('frequencyPenalty', pick('frequency_penalty', 'frequency_penalty'));
  set('candidateCount', pick('choice.count', 'n'));
  const stop = valueOf(attributes, 'gen_ai.request.stop_sequences');
  if (Array.isArray(stop) && stop.every((item) => typeof item === 'string')) generation.stop = stop;
  return Object.keys(generation).length === 0 ? undefined : generation;
}

function usageOf(attributes: Attributes): Usage | undefined {
  const usage: Usage = {};
  const set = (key: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'totalTokens', ...keys: string[]): void => {
    const value = numberAt(attributes, ...keys);
    if (value !== undefined) usage[key] = value;
  };
  set('inputTokens', 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt');
  set('outputTokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion');
  set('cacheReadTokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens', 'llm.token_count.prompt_details.cache_read');
  set('cacheWriteTokens', 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens', 'llm.token_count.prompt_details.cache_write');
  set('reasoningTokens', 'gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens', 'llm.token_count.completion_details.reasoning');
  set('totalTokens', 'llm.usage.total_tokens', 'gen_ai.usage.total_tokens', 'llm.token_count.total');
  return Object.keys(usage).length === 0 ? undefined : usage;
}

function nanosToMs(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text)) return undefined;
  return Number(BigInt(text) / 1000n) / 1000;
}

function timingOf(span: JsonObject): Timing | undefined {
  const start = nanosToMs(span['startTimeUnixNano'] ?? span['start_time_unix_nano']);
  if (start === undefined || start === 0) return undefined;
  const timing: Timing = { startedAt: new Date(start).toISOString() };
  const end = nanosToMs(span['endTimeUnixNano'] ?? span['end_time_unix_nano']);
  if (end !== undefined && end >= start) timing.durationMs = Math.round((end - start) * 1000) / 1000;
  return timing;
}

/** True when the span's status is an error (`STATUS_CODE_ERROR`, 2), with its message. */
function failedWith(span: JsonObject): string | undefined {
  const status = isObject(span['status']) ? span['status'] : undefined;
  const code = status?.['code'];
  if (code !== 2 && code !== 'STATUS_CODE_ERROR') return undefined;
  return typeof status?.['message'] === 'string' && status['message'] !== '' ? status['message'] : 'the call failed';
}

function formatOf(attributes: Attributes): FormatId {
  const provider = valueOf(attributes, 'gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system');
  const format = typeof provider === 'string' ? FORMAT_OF_PROVIDER[provider.toLowerCase()] : undefined;
  if (format !== undefined) return format;
  throw new InterlinguaError(
    'detect_failed',
    provider === undefined
      ? 'the span names no provider (gen_ai.provider.name, gen_ai.system, llm.provider), so the API it called is unknown'
      : `the span's provider ${JSON.stringify(provider)} is not one whose API interlingua speaks (${Object.keys(FORMAT_OF_PROVIDER).join(', ')})`,
  );
}

/** The exchange of one span; `optional` with no bodies (skipped) when the span is not an LLM call. */
export function exchangeFromOtlpSpan(span: JsonObject): Exchange {
  const attributes = attributesOf(span, '');
  const events = Array.isArray(span['events']) ? span['events'].map((event, index) => attributesOf(event, `/events/${index}`)) : [];
  // The operation-details event (semconv 1.37) carries the same attributes as the span would.
  for (const event of events) for (const [key, attribute] of event) if (key.startsWith('gen_ai.') && !attributes.has(key)) attributes.set(key, attribute);
  const operation = valueOf(attributes, 'gen_ai.operation.name');
  const legacy = legacyMessages(attributes, events);
  const current = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'].some((key) => attributes.has(key));
  const generation = typeof operation === 'string' && !NOT_GENERATION.has(operation) && attributes.has('gen_ai.request.model');
  const llmKind = valueOf(attributes, 'openinference.span.kind') === 'LLM';
  if (!current && legacy === undefined && !generation && !llmKind) return { optional: true };
  if (typeof operation === 'string' && NOT_GENERATION.has(operation)) return { optional: true };
  const format = formatOf(attributes);
  const losses: RecordLoss[] = [];
  const scope = otelGenAiScope();
  const request: Request = { messages: [] };
  const model = valueOf(attributes, 'gen_ai.request.model', 'llm.model_name');
  if (typeof model === 'string') request.model = model;
  const system = attributes.get('gen_ai.system_instructions');
  if (system !== undefined) {
    const message = decodeAttribute(system, losses, 'request', (value, path, collector) => decodeOtelGenAiSystemInstructions(value, path, scope, collector));
    if (message !== undefined) request.messages.push(message);
  }
  let candidates: Candidate[] = [];
  const input = attributes.get('gen_ai.input.messages');
  const output = attributes.get('gen_ai.output.messages');
  const toolDefinitions = attributes.get('gen_ai.tool.definitions');
  if (input !== undefined) request.messages.push(...decodeAttribute(input, losses, 'request', (value, path, collector) => decodeOtelGenAiMessages(value, path, scope, collector)));
  if (output !== undefined) candidates = decodeAttribute(output, losses, 'response', decodeOtelGenAiOutputMessages);
  if (toolDefinitions !== undefined) request.tools = decodeAttribute(toolDefinitions, losses, 'request', decodeOtelGenAiToolDefinitions);
  if (input === undefined && output === undefined && legacy !== undefined) {
    const at: Attribute = { value: null, path: '/attributes', text: false };
    request.messages.push(...decodeAttribute({ ...at, value: legacy.input }, losses, 'request', (value, path, collector) => decodeOtelGenAiMessages(value, path, scope, collector), true));
    candidates = decodeAttribute({ ...at, value: legacy.output }, losses, 'response', decodeOtelGenAiOutputMessages, true);
    if (legacy.tools.length > 0 && request.tools === undefined) request.tools = decodeAttribute({ ...at, value: legacy.tools }, losses, 'request', decodeOtelGenAiToolDefinitions, true);
  }
  const settings = generationOf(attributes);
  if (settings !== undefined) request.generation = settings;
  const reasons = valueOf(attributes, 'gen_ai.response.finish_reasons');
  if (Array.isArray(reasons)) {
    for (const [index, reason] of reasons.entries()) {
      if (typeof reason !== 'string') continue;
      const candidate = candidates[index] ?? (candidates[index] = { index, message: { role: 'assistant', parts: [] } });
      candidate.stopReason ??= decodeOtelGenAiFinishReason(reason);
    }
  }
  const exchange: Exchange = {};
  const failed = failedWith(span);
  const usage = usageOf(attributes);
  let response: Response | undefined;
  let error: ApiError | undefined;
  if (candidates.length > 0 || usage !== undefined) {
    response = { candidates };
    const answered = valueOf(attributes, 'gen_ai.response.model', 'llm.model_name');
    if (typeof answered === 'string') response.model = answered;
    const id = valueOf(attributes, 'gen_ai.response.id');
    if (typeof id === 'string') response.id = id;
    if (usage !== undefined) response.usage = usage;
  } else if (failed !== undefined) {
    const type = valueOf(attributes, 'error.type');
    error = { type: 'other', message: failed, ...(typeof type === 'string' ? { code: type } : {}) };
  }
  const status = numberAt(attributes, 'http.response.status_code', 'http.status_code');
  if (status !== undefined) exchange.status = status;
  if (error !== undefined && status !== undefined) error.status = status;
  exchange.decoded = { format, evidence: 'provider', request, ...(response === undefined ? {} : { response }), ...(error === undefined ? {} : { error }), losses };
  const timing = timingOf(span);
  if (timing !== undefined) exchange.timing = timing;
  if (request.messages.length === 0 && response === undefined && error === undefined) throw new NormalizeFailure('not_an_exchange', 'the LLM span records no messages, no usage and no error (content capture off?)');
  return exchange;
}
