/**
 * `response_format` ↔ the IR output format: `text`, `json_object` (IR `json`)
 * and `json_schema` with name, description and strict. The IR output format
 * carries no extensions, so odd fields travel on the request: unknown
 * `response_format` keys under `extensions['openai-chat'].response_format`,
 * spelling details of `json_schema` as request shape hints.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format
 */
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import type { LossCollector } from '../../core/losses.ts';
import type { OutputFormat, Request } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import { expectObject, expectString, isObject, pointer, required, type JsonObject } from '../../core/wire.ts';
import { FORMAT, chatHint, keepNestedUnknownOf, nestedExtras, shapeHint } from './shape.ts';

/** Decode `response_format`; `undefined` for an unknown type (the caller keeps it as an extension). */
export function decodeOpenaiChatResponseFormat(value: unknown, path: string, request: Request): OutputFormat | undefined {
  const format = isObject(value) ? value : expectObject(value, path, FORMAT);
  const wireType = format['type'];
  // The pointers are built only for an error.
  const type = typeof wireType === 'string' ? wireType : expectString(required(format, 'type', path, FORMAT), pointer(path, 'type'), FORMAT);
  if (type !== 'text' && type !== 'json_object' && type !== 'json_schema') return undefined;
  keepNestedUnknownOf(request, 'response_format', format, 'type', 'json_schema');
  if (type === 'text') return { type: 'text' };
  if (type === 'json_object') return { type: 'json' };
  const wireInner = format['json_schema'];
  const inner = isObject(wireInner) ? wireInner : expectObject(required(format, 'json_schema', path, FORMAT), pointer(path, 'json_schema'), FORMAT);
  const schema = inner['schema'];
  const output: OutputFormat & { type: 'json_schema' } = { type: 'json_schema', schema: isObject(schema) ? schema : {} };
  let odd: JsonObject | undefined;
  for (const key in inner) {
    const field = inner[key];
    if (key === 'schema' && isObject(field)) continue;
    if (key === 'name' && typeof field === 'string') output.name = field;
    else if (key === 'description' && typeof field === 'string') output.description = field;
    else if (key === 'strict' && typeof field === 'boolean') output.strict = field;
    else (odd ??= {})[key] = field;
  }
  if (schema === undefined) chatHint(request, '$noSchema', true);
  if (odd !== undefined) chatHint(request, '$jsonSchemaFields', odd);
  return output;
}

/** Encode the IR output format as `response_format`. */
export function encodeOpenaiChatResponseFormat(output: OutputFormat, request: Request, losses: LossCollector): JsonObject {
  let wire: JsonObject;
  switch (output.type) {
    case 'text':
      wire = { type: 'text' };
      break;
    case 'json':
      wire = { type: 'json_object' };
      break;
    case 'json_schema': {
      const inner: JsonObject = {};
      const odd = shapeHint(request, '$jsonSchemaFields');
      if (shapeHint(request, '$noSchema') !== true) inner['schema'] = output.schema;
      if (output.name !== undefined) {
        inner['name'] = output.name;
      } else if (!isObject(odd) || !('name' in odd)) {
        inner['name'] = 'response';
        losses.add('defaulted', '/output/name', 'Chat Completions requires a json_schema name; sent "response"', 'info');
      }
      if (output.description !== undefined) inner['description'] = output.description;
      if (output.strict !== undefined) inner['strict'] = output.strict;
      if (isObject(odd)) Object.assign(inner, odd);
      wire = { type: 'json_schema', json_schema: inner satisfies Partial<Record<keyof ResponseFormatJSONSchema.JSONSchema, unknown>> };
      break;
    }
    default:
      return unreachable(output);
  }
  return nestedExtras(wire, request, 'response_format');
}
