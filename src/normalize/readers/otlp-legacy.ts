/**
 * The older ways spans carry LLM messages, turned into the GenAI
 * conventions' message shape so that one codec (`otel-genai`) reads them
 * all:
 * - OpenLLMetry (Traceloop) attributes `gen_ai.prompt.N.{role, content,
 *   tool_call_id, tool_calls.M.{id, name, arguments}}` and
 *   `gen_ai.completion.N.{…, finish_reason}`, with tools as
 *   `llm.request.functions.N.{name, description, parameters}`; and the
 *   events of semconv 1.26–1.27, `gen_ai.content.prompt` and
 *   `gen_ai.content.completion`, whose `gen_ai.prompt` and
 *   `gen_ai.completion` attributes are JSON lists of `{role, content}`.
 * - OpenInference (Arize Phoenix) `llm.input_messages.N.message.{role,
 *   content, contents.M.message_content.{type, text, image.image.url},
 *   tool_call_id, tool_calls.M.tool_call.{id, function.name,
 *   function.arguments}}` and `llm.output_messages.N.message.*`, tools as
 *   `llm.tools.N.tool.json_schema`.
 * A `content` that is JSON text of OpenAI content parts is read as those parts.
 * @see https://github.com/traceloop/openllmetry/blob/main/packages/opentelemetry-semantic-conventions-ai/opentelemetry/semconv_ai/__init__.py
 * @see https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md
 */
import { isObject, type JsonObject } from '../../core/wire.ts';
import { indexed, stringAt, subRows, type Attribute } from './otlp-attributes.ts';

type Row = ReadonlyMap<string, unknown>;

/** `content` as GenAI parts: text, or the text and image parts of an OpenAI content list given as JSON text or as a list. */
function contentParts(content: unknown): JsonObject[] {
  let value = content;
  if (typeof value === 'string') {
    if (!/^\s*\[/.test(value)) return value === '' ? [] : [{ type: 'text', content: value }];
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [{ type: 'text', content }];
    }
  }
  if (!Array.isArray(value)) return value === undefined || value === null ? [] : [{ type: 'text', content: JSON.stringify(value) }];
  return value.flatMap((part): JsonObject[] => {
    if (!isObject(part)) return [];
    if (part['type'] === 'text' && typeof part['text'] === 'string') return [{ type: 'text', content: part['text'] }];
    const image = part['image_url'];
    const url = isObject(image) ? image['url'] : image;
    if (part['type'] === 'image_url' && typeof url === 'string') return [{ type: 'uri', modality: 'image', uri: url }];
    return [{ ...part }];
  });
}

function parsedArguments(text: unknown): unknown {
  return typeof text === 'string' ? text : text ?? {};
}

function messageOf(role: string, parts: JsonObject[], finishReason: string | undefined, toolCallId: string | undefined): JsonObject {
  const message: JsonObject = { role, parts };
  if (role === 'tool') message['parts'] = [{ type: 'tool_call_response', id: toolCallId ?? null, response: parts.map((part) => part['content'] ?? '').join('') }];
  if (finishReason !== undefined) message['finish_reason'] = finishReason;
  return message;
}

function openLlmetryMessage(row: Row): JsonObject {
  const calls = subRows(row, 'tool_calls.').map((call) => ({ type: 'tool_call', id: stringAt(call, 'id') ?? null, name: stringAt(call, 'name') ?? '', arguments: parsedArguments(call.get('arguments')) }));
  return messageOf(stringAt(row, 'role') ?? 'user', [...contentParts(row.get('content')), ...calls], stringAt(row, 'finish_reason'), stringAt(row, 'tool_call_id'));
}

function openInferenceMessage(row: Row): JsonObject {
  const contents = subRows(row, 'message.contents.').flatMap((content): JsonObject[] => {
    const type = stringAt(content, 'message_content.type');
    if (type === 'text') return [{ type: 'text', content: stringAt(content, 'message_content.text') ?? '' }];
    const url = stringAt(content, 'message_content.image.image.url');
    return type === 'image' && url !== undefined ? [{ type: 'uri', modality: 'image', uri: url }] : [];
  });
  const calls = subRows(row, 'message.tool_calls.').map((call) => ({
    type: 'tool_call',
    id: stringAt(call, 'tool_call.id') ?? null,
    name: stringAt(call, 'tool_call.function.name') ?? '',
    arguments: parsedArguments(call.get('tool_call.function.arguments')),
  }));
  const text = contentParts(row.get('message.content'));
  const message = messageOf(stringAt(row, 'message.role') ?? 'user', [...text, ...contents, ...calls], undefined, stringAt(row, 'message.tool_call_id'));
  const name = stringAt(row, 'message.name');
  if (name !== undefined && message['role'] !== 'tool') message['name'] = name;
  return message;
}

/** Messages of the semconv 1.26–1.27 events: a JSON list of `{role, content}` (OpenAI-like, tool calls included). */
function eventMessages(text: unknown, output: boolean): JsonObject[] | undefined {
  let value = text;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [{ role: output ? 'assistant' : 'user', parts: [{ type: 'text', content: value }] }];
    }
  }
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map((item) => {
    const calls = Array.isArray(item['tool_calls'])
      ? item['tool_calls'].filter(isObject).map((call) => {
          const fn = isObject(call['function']) ? call['function'] : call;
          return { type: 'tool_call', id: typeof call['id'] === 'string' ? call['id'] : null, name: String(fn['name'] ?? ''), arguments: parsedArguments(fn['arguments']) };
        })
      : [];
    const role = typeof item['role'] === 'string' ? item['role'] : output ? 'assistant' : 'user';
    const reason = typeof item['finish_reason'] === 'string' ? item['finish_reason'] : undefined;
    return messageOf(role, [...contentParts(item['content']), ...calls], reason, typeof item['tool_call_id'] === 'string' ? item['tool_call_id'] : undefined);
  });
}

/** The messages, output messages and tools of a span in one of the older conventions, as GenAI values; `undefined` when it uses none. */
export interface LegacyMessages {
  convention: 'openllmetry' | 'openinference';
  input: JsonObject[];
  output: JsonObject[];
  tools: JsonObject[];
}

function toolsOf(rows: Row[], json: boolean): JsonObject[] {
  return rows.flatMap((row): JsonObject[] => {
    if (!json) {
      const parameters = row.get('parameters');
      const parsed = typeof parameters === 'string' ? safeParse(parameters) : parameters;
      return [{ type: 'function', name: stringAt(row, 'name') ?? '', ...(stringAt(row, 'description') === undefined ? {} : { description: stringAt(row, 'description') }), ...(isObject(parsed) ? { parameters: parsed } : {}) }];
    }
    const schema = safeParse(stringAt(row, 'tool.json_schema') ?? '');
    const fn = isObject(schema) && isObject(schema['function']) ? schema['function'] : schema;
    if (!isObject(fn) || typeof fn['name'] !== 'string') return [];
    return [{ type: 'function', name: fn['name'], ...(typeof fn['description'] === 'string' ? { description: fn['description'] } : {}), ...(isObject(fn['parameters']) ? { parameters: fn['parameters'] } : {}) }];
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The older conventions' messages of a span, from its attributes and the attributes of its events. */
export function legacyMessages(attributes: ReadonlyMap<string, Attribute>, events: readonly ReadonlyMap<string, Attribute>[]): LegacyMessages | undefined {
  const openInference = indexed(attributes, 'llm.input_messages.');
  const openInferenceOut = indexed(attributes, 'llm.output_messages.');
  if (openInference.length > 0 || openInferenceOut.length > 0) {
    return { convention: 'openinference', input: openInference.map(openInferenceMessage), output: openInferenceOut.map(openInferenceMessage), tools: toolsOf(indexed(attributes, 'llm.tools.'), true) };
  }
  const prompts = indexed(attributes, 'gen_ai.prompt.');
  const completions = indexed(attributes, 'gen_ai.completion.');
  const tools = toolsOf(indexed(attributes, 'llm.request.functions.'), false);
  if (prompts.length > 0 || completions.length > 0) return { convention: 'openllmetry', input: prompts.map(openLlmetryMessage), output: completions.map(openLlmetryMessage), tools };
  const prompt = events.map((event) => event.get('gen_ai.prompt')?.value).find((value) => value !== undefined);
  const completion = events.map((event) => event.get('gen_ai.completion')?.value).find((value) => value !== undefined);
  if (prompt === undefined && completion === undefined) return undefined;
  return { convention: 'openllmetry', input: eventMessages(prompt, false) ?? [], output: eventMessages(completion, true) ?? [], tools };
}
