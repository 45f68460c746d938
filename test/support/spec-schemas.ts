/**
 * The official API specs as JSON Schema validators, for test/traffic/spec.test.ts.
 *
 * The specs are OpenAPI 3.1 documents whose schemas are JSON Schema 2020-12
 * with OpenAPI additions. Adapting them for ajv (`Ajv2020`):
 * - each document is added whole under an `$id`, so `#/components/schemas/…`
 *   references resolve inside it;
 * - `discriminator` (an OpenAPI hint; ajv's own support needs every branch
 *   to name the property) is removed: `oneOf`/`anyOf` still decide;
 * - `nullable: true` (OpenAPI 3.0, left in some 3.1 documents) becomes a
 *   union with `null`;
 * - unknown keywords (`x-…`, `example`, `deprecated`) and unknown formats are
 *   ignored (`strict: false`).
 * Then the relaxations (`spec-relaxations.json`: a JSON pointer into one
 * document, what to change there, and why) are applied; each must be needed
 * by real traffic, and the originals of a format must pass their own schema
 * under the same rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FormatId } from '../../src/core/ir.ts';
import { CORPUS_DIR, REPO_ROOT } from './fixtures.ts';

/** The spec documents by name. */
export const SPEC_FILES = {
  openai: 'openai-openapi--openapi.json',
  anthropic: 'tryAGI-Anthropic--openapi.yaml',
  gemini: 'gemini-openapi-spec--gemini-native.openapi.json',
} as const;
export type SpecName = keyof typeof SPEC_FILES;

/** Which schema validates which body (formats with an official spec in test/corpus/spec). */
export const TARGET_SCHEMAS: Readonly<Partial<Record<FormatId, { spec: SpecName; request: string; response: string }>>> = {
  'openai-chat': { spec: 'openai', request: 'CreateChatCompletionRequest', response: 'CreateChatCompletionResponse' },
  'openai-responses': { spec: 'openai', request: 'CreateResponse', response: 'Response' },
  anthropic: { spec: 'anthropic', request: 'BetaCreateMessageParams', response: 'BetaMessage' },
  gemini: { spec: 'gemini', request: 'GenerateContentRequest', response: 'GenerateContentResponse' },
};

/** One relaxation of a spec: where, what, and why. */
export interface Relaxation {
  spec: SpecName;
  /** JSON pointer into the spec document. */
  pointer: string;
  /**
   * `merge`: shallow-merge `value` into the object there; `set`: replace it;
   * `unrequire`: drop `value` (a key) from `required`; `addEnum`: add `value`
   * (a list) to `enum`; `open`: drop `additionalProperties: false` from every
   * schema under the pointer except those named in `value`; `anyOf`: turn
   * every `oneOf` under the pointer into `anyOf`; `nullableOptional`: drop
   * from every `required` under the pointer the properties whose schema
   * admits `null`.
   */
  op: 'merge' | 'set' | 'unrequire' | 'addEnum' | 'open' | 'anyOf' | 'nullableOptional';
  value: unknown;
  reason: string;
}

/** `spec-relaxations.json`: schema patches, and originals that are not valid traffic at all. */
export interface Relaxations {
  schema: Relaxation[];
  /** Original payloads exempt from their own schema (requests the vendor refused, another API surface), by name, with the reason. */
  originals: Record<string, string>;
}

export const RELAXATIONS_FILE = join(REPO_ROOT, 'test/support/spec-relaxations.json');

/** The reason an original is exempt from its own schema (keys are names, or `re:` and a pattern), if it is. */
export function exemptReason(relaxations: Relaxations, name: string): string | undefined {
  const direct = relaxations.originals[name];
  if (direct !== undefined) return direct;
  for (const [key, reason] of Object.entries(relaxations.originals)) if (key.startsWith('re:') && new RegExp(key.slice(3)).test(name)) return reason;
  return undefined;
}

/** The relaxations as written in the file. */
export function readRelaxations(): Relaxations {
  return JSON.parse(readFileSync(RELAXATIONS_FILE, 'utf8')) as Relaxations;
}

/**
 * Gemini's parsers (proto3 JSON) take snake_case field names as well as
 * camelCase; the unofficial spec lists camelCase only, with
 * `additionalProperties: false`. Keys are camel-cased before validation.
 */
function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = camelKeys(item);
  return out;
}

function adapt(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(adapt);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'discriminator') continue;
    out[key] = adapt(value);
  }
  if (out['nullable'] === true) {
    delete out['nullable'];
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function at(document: unknown, pointer: string): Record<string, unknown> {
  let node = document;
  for (const segment of pointer.split('/').slice(1)) {
    node = (node as Record<string, unknown>)[unescape(segment)];
    if (typeof node !== 'object' || node === null) throw new Error(`relaxation pointer ${pointer} does not reach an object`);
  }
  return node as Record<string, unknown>;
}

function openObjects(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) openObjects(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as Record<string, unknown>;
  if (object['additionalProperties'] === false) delete object['additionalProperties'];
  for (const value of Object.values(object)) openObjects(value);
}

function admitsNull(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const object = schema as Record<string, unknown>;
  const type = object['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  for (const key of ['anyOf', 'oneOf']) {
    const list = object[key];
    if (Array.isArray(list) && list.some(admitsNull)) return true;
  }
  return false;
}

function nullableOptional(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) nullableOptional(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as Record<string, unknown>;
  const required = object['required'];
  const properties = object['properties'];
  if (Array.isArray(required) && typeof properties === 'object' && properties !== null) {
    object['required'] = required.filter((key) => !admitsNull((properties as Record<string, unknown>)[key as string]));
  }
  for (const value of Object.values(object)) nullableOptional(value);
}

function oneOfToAnyOf(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) oneOfToAnyOf(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as Record<string, unknown>;
  if (Array.isArray(object['oneOf']) && object['anyOf'] === undefined) {
    object['anyOf'] = object['oneOf'];
    delete object['oneOf'];
  }
  for (const value of Object.values(object)) oneOfToAnyOf(value);
}

function relax(document: unknown, relaxation: Relaxation): void {
  const node = relaxation.pointer === '' ? (document as Record<string, unknown>) : at(document, relaxation.pointer);
  switch (relaxation.op) {
    case 'merge':
      Object.assign(node, relaxation.value);
      return;
    case 'set': {
      const segments = relaxation.pointer.split('/');
      const key = unescape(segments.pop() as string);
      at(document, segments.join('/'))[key] = relaxation.value;
      return;
    }
    case 'unrequire': {
      const required = node['required'];
      if (!Array.isArray(required) || !required.includes(relaxation.value)) throw new Error(`relaxation ${relaxation.pointer}: "${String(relaxation.value)}" is not required there`);
      node['required'] = required.filter((key) => key !== relaxation.value);
      return;
    }
    case 'anyOf':
      oneOfToAnyOf(node);
      return;
    case 'nullableOptional':
      nullableOptional(node);
      return;
    case 'open': {
      const keep = new Set(relaxation.value as string[]);
      for (const [name, schema] of Object.entries(node)) if (!keep.has(name)) openObjects(schema);
      return;
    }
    case 'addEnum': {
      const values = node['enum'];
      if (!Array.isArray(values)) throw new Error(`relaxation ${relaxation.pointer}: no enum there`);
      node['enum'] = [...values, ...(relaxation.value as unknown[])];
      return;
    }
  }
}

/** Validators for every target schema, built once. */
export class SpecValidators {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(relaxations: readonly Relaxation[] = readRelaxations().schema) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, logger: false });
    addFormats.default(this.ajv);
    for (const [name, file] of Object.entries(SPEC_FILES)) {
      const document = adapt(JSON.parse(readFileSync(join(CORPUS_DIR, 'spec', file), 'utf8'))) as Record<string, unknown>;
      for (const relaxation of relaxations) if (relaxation.spec === name) relax(document, relaxation);
      delete document['paths'];
      delete document['webhooks'];
      document['$id'] = `spec:${name}`;
      this.ajv.addSchema(document);
    }
  }

  /** Validate `body` as the `kind` body of `format`; the errors, or `undefined` when valid. */
  validate(format: FormatId, kind: 'request' | 'response', body: unknown): ErrorObject[] | undefined {
    const target = TARGET_SCHEMAS[format];
    if (target === undefined) throw new Error(`no spec schema for ${format}`);
    return this.validateAs(target.spec, target[kind], body);
  }

  /** Validate `body` against the component schema `schema` of the spec `spec`; the errors, or `undefined` when valid. */
  validateAs(spec: SpecName, schema: string, body: unknown): ErrorObject[] | undefined {
    const ref = `spec:${spec}#/components/schemas/${schema}`;
    let validate = this.cache.get(ref);
    if (validate === undefined) {
      validate = this.ajv.getSchema(ref);
      if (validate === undefined) throw new Error(`no schema ${ref}`);
      this.cache.set(ref, validate);
    }
    return validate(spec === 'gemini' ? camelKeys(body) : body) ? undefined : (validate.errors ?? []);
  }
}

/** One line per error, for assertion messages. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 8)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} (${error.schemaPath})${error.params === undefined ? '' : ` ${JSON.stringify(error.params)}`}`)
    .join('\n');
}
