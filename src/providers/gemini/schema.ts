/**
 * Schema dialects: Gemini `Schema` (an OpenAPI 3.0 subset with upper-case
 * single types, `nullable`, string enums) ↔ JSON Schema, the IR's dialect.
 * @see https://ai.google.dev/api/caching#Schema
 */
import type { LossCollector } from '../../core/losses.ts';
import type { JsonSchema } from '../../core/ir.ts';
import { isObject, pointer, setOwn, type JsonObject } from '../../core/wire.ts';
import { SCHEMA_TYPE_NAMES } from './enums.ts';

/** Keywords whose value is a count; proto-JSON spells int64 values as strings. */
const COUNT_KEYWORDS: ReadonlySet<string> = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/** Gemini `Schema` → JSON Schema. Types are lower-cased, `nullable` becomes a type union with `null`. */
export function geminiSchemaToJsonSchema(schema: JsonObject): JsonSchema {
  const result: JsonSchema = {};
  for (const key in schema) {
    const value = schema[key];
    switch (key) {
      case 'type':
        if (typeof value === 'string' && value !== 'TYPE_UNSPECIFIED') result['type'] = value.toLowerCase();
        else if (typeof value === 'number' && value > 0 && SCHEMA_TYPE_NAMES[value] !== undefined) result['type'] = (SCHEMA_TYPE_NAMES[value] as string).toLowerCase();
        break;
      case 'nullable':
        break;
      case 'properties':
        result['properties'] = mapValues(value, geminiSchemaToJsonSchema);
        break;
      case 'items':
        result['items'] = isObject(value) ? geminiSchemaToJsonSchema(value) : value;
        break;
      case 'anyOf':
        result['anyOf'] = Array.isArray(value) ? value.map((item) => (isObject(item) ? geminiSchemaToJsonSchema(item) : item)) : value;
        break;
      case 'example':
        result['examples'] = [value];
        break;
      default:
        setOwn(result, key, COUNT_KEYWORDS.has(key) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
    }
  }
  if (schema['nullable'] === true) {
    const type = result['type'];
    if (typeof type === 'string') result['type'] = [type, 'null'];
    else result['anyOf'] = [...(Array.isArray(result['anyOf']) ? result['anyOf'] : []), { type: 'null' }];
    if (Array.isArray(result['enum']) && !result['enum'].includes(null)) result['enum'] = [...result['enum'], null];
  }
  return result;
}

function mapValues(value: unknown, convert: (schema: JsonObject) => JsonObject): unknown {
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const key in value) {
    const item = value[key];
    setOwn(result, key, isObject(item) ? convert(item) : item);
  }
  return result;
}

/** Keywords Gemini `Schema` has, copied as they are. */
const PLAIN_KEYWORDS: ReadonlySet<string> = new Set([
  'description', 'title', 'format', 'pattern', 'minimum', 'maximum', 'default', 'required', 'propertyOrdering',
  'minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties',
]);

/** Keywords that only organise a JSON Schema; dropped without loss once references are resolved. */
const FORM_KEYWORDS: ReadonlySet<string> = new Set(['$schema', '$id', '$defs', 'definitions', '$comment']);

const MAX_REFERENCE_DEPTH = 8;

interface SchemaScope {
  root: JsonObject;
  losses: LossCollector;
  depth: number;
}

/**
 * JSON Schema → Gemini `Schema`: resolves local `$ref`s, turns type arrays and
 * `anyOf` with `null` into `nullable`, `const` into `enum`, and drops what
 * Gemini cannot express, reporting `schema_downgraded` at `path` (an IR pointer).
 */
export function jsonSchemaToGeminiSchema(schema: JsonSchema, losses: LossCollector, path: string): JsonObject {
  return convert(schema, path, { root: schema, losses, depth: 0 });
}

function convert(schema: JsonObject, path: string, scope: SchemaScope): JsonObject {
  const reference = schema['$ref'];
  if (typeof reference === 'string') return convertReference(reference, schema, path, scope);
  const result: JsonObject = {};
  for (const key in schema) {
    const value = schema[key];
    if (PLAIN_KEYWORDS.has(key)) {
      result[key] = value;
      continue;
    }
    switch (key) {
      case 'type':
        convertType(value, result);
        break;
      case 'properties':
        result['properties'] = mapEntries(value, pointer(path, key), scope);
        break;
      case 'items':
        if (isObject(value)) result['items'] = convert(value, pointer(path, key), scope);
        else downgrade(scope, pointer(path, key), 'tuple "items"');
        break;
      case 'anyOf':
      case 'oneOf':
        convertAnyOf(value, pointer(path, key), scope, result);
        if (key === 'oneOf') scope.losses.add('schema_downgraded', pointer(path, key), 'Gemini Schema has no oneOf; sent as anyOf', 'info');
        break;
      case 'enum':
        convertEnum(value, pointer(path, key), scope, result);
        break;
      case 'const':
        convertEnum([value], pointer(path, key), scope, result);
        break;
      case 'nullable':
        if (value === true) result['nullable'] = true;
        break;
      case 'examples':
        if (Array.isArray(value) && value.length > 0) result['example'] = value[0];
        break;
      default:
        if (!FORM_KEYWORDS.has(key)) downgrade(scope, pointer(path, key), `keyword "${key}"`);
    }
  }
  return result;
}

function downgrade(scope: SchemaScope, path: string, what: string): void {
  scope.losses.add('schema_downgraded', path, `Gemini Schema cannot express ${what}; dropped`);
}

function convertReference(reference: string, schema: JsonObject, path: string, scope: SchemaScope): JsonObject {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(reference);
  const target = match === null ? undefined : (scope.root[match[1] as string] as JsonObject | undefined)?.[(match[2] as string).replaceAll('~1', '/').replaceAll('~0', '~')];
  if (!isObject(target) || scope.depth >= MAX_REFERENCE_DEPTH) {
    downgrade(scope, pointer(path, '$ref'), `the reference "${reference}" (external or too deeply recursive)`);
    return { type: 'OBJECT' };
  }
  const resolved = convert(target, path, { ...scope, depth: scope.depth + 1 });
  for (const key in schema) {
    if (key === '$ref') continue;
    if (key === 'description' || key === 'title') resolved[key] = schema[key];
  }
  return resolved;
}

function convertType(value: unknown, result: JsonObject): void {
  if (typeof value === 'string') {
    if (value === 'null') result['nullable'] = true;
    else result['type'] = value.toUpperCase();
    return;
  }
  if (!Array.isArray(value)) return;
  const types = value.filter((type): type is string => typeof type === 'string' && type !== 'null');
  if (types.length < value.length) result['nullable'] = true;
  if (types.length === 1) result['type'] = (types[0] as string).toUpperCase();
  else if (types.length > 1) result['anyOf'] = types.map((type) => ({ type: type.toUpperCase() }));
}

function convertAnyOf(value: unknown, path: string, scope: SchemaScope, result: JsonObject): void {
  if (!Array.isArray(value)) return;
  const options: JsonObject[] = [];
  for (let index = 0; index < value.length; index++) {
    const option = value[index];
    if (!isObject(option)) continue;
    if (option['type'] === 'null' && Object.keys(option).length === 1) {
      result['nullable'] = true;
      continue;
    }
    options.push(convert(option, pointer(path, index), scope));
  }
  if (options.length === 1) Object.assign(result, options[0]);
  else if (options.length > 1) result['anyOf'] = options;
}

function convertEnum(value: unknown, path: string, scope: SchemaScope, result: JsonObject): void {
  if (!Array.isArray(value)) return;
  const values: string[] = [];
  let changed = false;
  for (const item of value) {
    if (item === null) {
      result['nullable'] = true;
      continue;
    }
    if (typeof item !== 'string') changed = true;
    values.push(typeof item === 'string' ? item : JSON.stringify(item));
  }
  if (changed) scope.losses.add('schema_downgraded', path, 'Gemini enums hold strings only; values sent as their JSON text');
  result['enum'] = values;
  if (result['type'] === undefined) result['type'] = 'STRING';
}

function mapEntries(value: unknown, path: string, scope: SchemaScope): unknown {
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const key in value) {
    const item = value[key];
    setOwn(result, key, isObject(item) ? convert(item, pointer(path, key), scope) : item);
  }
  return result;
}
