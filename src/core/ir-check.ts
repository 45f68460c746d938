/**
 * The shape check of IR handed in from outside (`encodeRequest`,
 * `encodeResponse`, `encodeError`). Decoders build well-typed IR, so
 * conversions skip it; IR written by hand or read from a file may hold a
 * `null` in an array slot, a number where a string belongs, or a part type
 * no encoder knows. Encoders trust the IR's types, so such a value is refused
 * here, before any encoder runs, with an `InterlinguaError` naming its JSON
 * pointer in the IR. One pass over the IR; opaque values, tool arguments and
 * schemas are only checked to be objects where the IR says so.
 */
import { InterlinguaError } from './errors.ts';
import type { ApiError, Request, Response } from './ir.ts';
import { checkDepth, jsonType, pointer } from './wire.ts';

type Node = Record<string, unknown>;

const PART_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'video', 'document', 'reasoning', 'tool_call', 'tool_result', 'refusal', 'opaque']);
const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);
const MEDIA_KINDS: ReadonlySet<string> = new Set(['base64', 'url', 'file']);
const DOCUMENT_KINDS: ReadonlySet<string> = new Set(['base64', 'url', 'file', 'text', 'content']);
const STATE_KINDS: ReadonlySet<string> = new Set(['signature', 'redacted', 'encrypted', 'thought_signature']);
const TOOL_CHOICES: ReadonlySet<string> = new Set(['auto', 'none', 'required', 'tool', 'allowed']);
const OUTPUT_TYPES: ReadonlySet<string> = new Set(['text', 'json', 'json_schema']);
const OUTPUT_MODALITIES: ReadonlySet<string> = new Set(['text', 'audio', 'image']);
const STOP_REASONS: ReadonlySet<string> = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_calls', 'content_filter', 'refusal', 'pause', 'context_overflow', 'error', 'other']);
const ERROR_TYPES: ReadonlySet<string> = new Set(['invalid_request', 'authentication', 'permission', 'not_found', 'request_too_large', 'rate_limit', 'overloaded', 'server', 'timeout', 'other']);
const CALL_KINDS: ReadonlySet<string> = new Set(['function', 'custom']);
const TOOL_TYPES: ReadonlySet<string> = new Set(['function', 'custom', 'web_search', 'opaque']);
const CUSTOM_FORMATS: ReadonlySet<string> = new Set(['text', 'grammar']);
const CHOICE_MODES: ReadonlySet<string> = new Set(['auto', 'required']);
const REASONING_MODES: ReadonlySet<string> = new Set(['enabled', 'adaptive', 'disabled']);
const GENERATION_NUMBERS = ['maxTokens', 'temperature', 'topP', 'topK', 'seed', 'presencePenalty', 'frequencyPenalty', 'candidateCount', 'topLogprobs'] as const;
const TOKEN_MODALITIES: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'video', 'document']);
const USAGE_NUMBERS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens', 'totalTokens'] as const;

function wrongType(expected: string, value: unknown, path: string): InterlinguaError {
  return new InterlinguaError('invalid_type', `expected ${expected} in the IR, got ${jsonType(value)}; fix the value`, { path });
}

function object(value: unknown, path: string): Node {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrongType('an object', value, path);
  return value as Node;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw wrongType('an array', value, path);
  // A hole (a JavaScript caller's `delete list[i]`) is skipped by `forEach` here but read as `undefined` by every encoder.
  for (let index = 0; index < value.length; index++) {
    if (!(index in value)) throw new InterlinguaError('invalid_type', 'expected a value in the IR, got an empty array slot (a hole, as `delete list[i]` leaves); remove the slot with `splice`', { path: pointer(path, index) });
  }
  return value;
}

function required(node: Node, key: string, path: string): unknown {
  const value = node[key];
  if (value === undefined) throw new InterlinguaError('missing_field', `the IR needs "${key}" here`, { path: pointer(path, key) });
  return value;
}

/** `node[key]`, when present, must have JSON type `type`. */
function optional(node: Node, key: string, type: 'string' | 'number' | 'boolean', path: string): void {
  const value = node[key];
  if (value !== undefined && typeof value !== type) throw wrongType(`a ${type}`, value, pointer(path, key));
  if (typeof value === 'number' && !Number.isFinite(value)) throw new InterlinguaError('invalid_value', `${String(value)} is not a number JSON can carry; use a finite number`, { path: pointer(path, key) });
}

function string(node: Node, key: string, path: string): string {
  const value = required(node, key, path);
  if (typeof value !== 'string') throw wrongType('a string', value, pointer(path, key));
  return value;
}

function oneOf(node: Node, key: string, allowed: ReadonlySet<string>, path: string): string {
  const value = string(node, key, path);
  if (!allowed.has(value)) {
    throw new InterlinguaError('invalid_value', `"${value}" is not an IR ${key}; use one of ${[...allowed].join(', ')}`, { path: pointer(path, key) });
  }
  return value;
}

function strings(node: Node, key: string, path: string): void {
  if (node[key] === undefined) return;
  array(node[key], pointer(path, key)).forEach((item, index) => {
    if (typeof item !== 'string') throw wrongType('a string', item, pointer(path, key, index));
  });
}

function extensible(node: Node, path: string): void {
  const extensions = node['extensions'];
  if (extensions === undefined) return;
  const byFormat = object(extensions, pointer(path, 'extensions'));
  for (const format in byFormat) {
    if (byFormat[format] !== undefined) object(byFormat[format], pointer(path, 'extensions', format));
  }
}

function source(value: unknown, path: string, kinds: ReadonlySet<string>): void {
  const node = object(value, path);
  const kind = oneOf(node, 'kind', kinds, path);
  switch (kind) {
    case 'base64':
      string(node, 'data', path);
      string(node, 'mediaType', path);
      return;
    case 'url':
      string(node, 'url', path);
      break;
    case 'file':
      string(node, 'id', path);
      optional(node, 'format', 'string', path);
      optional(node, 'filename', 'string', path);
      break;
    case 'text':
      string(node, 'text', path);
      break;
    case 'content':
      parts(node, 'parts', path);
      return;
  }
  optional(node, 'mediaType', 'string', path);
}

function part(value: unknown, path: string): void {
  const node = object(value, path);
  const type = oneOf(node, 'type', PART_TYPES, path);
  extensible(node, path);
  cacheBreakpoint(node, path);
  switch (type) {
    case 'text':
    case 'refusal':
      string(node, 'text', path);
      if (node['citations'] !== undefined) {
        array(node['citations'], pointer(path, 'citations')).forEach((citation, index) => {
          const citationPath = pointer(path, 'citations', index);
          const entry = object(citation, citationPath);
          string(entry, 'kind', citationPath);
          for (const key of ['citedText', 'url', 'title']) optional(entry, key, 'string', citationPath);
          for (const key of ['documentIndex', 'start', 'end']) optional(entry, key, 'number', citationPath);
          extensible(entry, citationPath);
        });
      }
      return;
    case 'image':
    case 'audio':
    case 'video':
      source(required(node, 'source', path), pointer(path, 'source'), MEDIA_KINDS);
      optional(node, 'detail', 'string', path);
      optional(node, 'transcript', 'string', path);
      return;
    case 'document':
      source(required(node, 'source', path), pointer(path, 'source'), DOCUMENT_KINDS);
      for (const key of ['title', 'context', 'filename']) optional(node, key, 'string', path);
      optional(node, 'citations', 'boolean', path);
      return;
    case 'reasoning':
      string(node, 'text', path);
      strings(node, 'summary', path);
      optional(node, 'redacted', 'boolean', path);
      optional(node, 'id', 'string', path);
      if (node['state'] !== undefined) {
        const statePath = pointer(path, 'state');
        const state = object(node['state'], statePath);
        string(state, 'format', statePath);
        oneOf(state, 'kind', STATE_KINDS, statePath);
        string(state, 'value', statePath);
      }
      return;
    case 'tool_call':
      string(node, 'id', path);
      string(node, 'name', path);
      if (node['arguments'] !== undefined) object(node['arguments'], pointer(path, 'arguments'));
      optional(node, 'rawArguments', 'string', path);
      optional(node, 'syntheticId', 'boolean', path);
      if (node['kind'] !== undefined) oneOf(node, 'kind', CALL_KINDS, path);
      return;
    case 'tool_result':
      string(node, 'callId', path);
      optional(node, 'name', 'string', path);
      optional(node, 'syntheticId', 'boolean', path);
      optional(node, 'isError', 'boolean', path);
      parts(node, 'content', path);
      return;
    case 'opaque':
      string(node, 'format', path);
      string(node, 'blockType', path);
      // A vendor block is a JSON object on every wire; encoders place it as one.
      object(required(node, 'value', path), pointer(path, 'value'));
      return;
  }
}

function parts(node: Node, key: string, path: string): void {
  array(required(node, key, path), pointer(path, key)).forEach((item, index) => part(item, pointer(path, key, index)));
}

function message(value: unknown, path: string): void {
  const node = object(value, path);
  oneOf(node, 'role', ROLES, path);
  optional(node, 'name', 'string', path);
  optional(node, 'developer', 'boolean', path);
  extensible(node, path);
  parts(node, 'parts', path);
}

/** A part's, tool's or request's `cache`, when set: an object with an optional string `ttl`. */
function cacheBreakpoint(node: Node, path: string): void {
  if (node['cache'] === undefined) return;
  optional(object(node['cache'], pointer(path, 'cache')), 'ttl', 'string', pointer(path, 'cache'));
}

function tool(value: unknown, path: string): void {
  const node = object(value, path);
  const type = oneOf(node, 'type', TOOL_TYPES, path);
  extensible(node, path);
  if (type === 'opaque') {
    string(node, 'format', path);
    string(node, 'toolType', path);
    return;
  }
  if (type === 'web_search') {
    for (const key of ['allowedDomains', 'blockedDomains']) {
      if (node[key] === undefined) continue;
      array(node[key], pointer(path, key)).forEach((domain, index) => {
        if (typeof domain !== 'string') throw wrongType('a string', domain, pointer(path, key, index));
      });
    }
    optional(node, 'maxUses', 'number', path);
    optional(node, 'contextSize', 'string', path);
    if (node['userLocation'] !== undefined) {
      const location = object(node['userLocation'], pointer(path, 'userLocation'));
      for (const key of ['city', 'region', 'country', 'timezone']) optional(location, key, 'string', pointer(path, 'userLocation'));
    }
    return;
  }
  string(node, 'name', path);
  optional(node, 'description', 'string', path);
  if (type === 'custom') {
    if (node['format'] !== undefined) {
      const format = object(node['format'], pointer(path, 'format'));
      if (oneOf(format, 'type', CUSTOM_FORMATS, pointer(path, 'format')) === 'grammar') {
        string(format, 'syntax', pointer(path, 'format'));
        string(format, 'definition', pointer(path, 'format'));
      }
    }
    return;
  }
  optional(node, 'strict', 'boolean', path);
  cacheBreakpoint(node, path);
  if (node['parameters'] !== undefined) object(node['parameters'], pointer(path, 'parameters'));
}

function settings(node: Node): void {
  if (node['toolChoice'] !== undefined) {
    const choice = object(node['toolChoice'], '/toolChoice');
    const type = oneOf(choice, 'type', TOOL_CHOICES, '/toolChoice');
    if (type === 'tool') string(choice, 'name', '/toolChoice');
    if (type === 'allowed') {
      strings(choice, 'names', '/toolChoice');
      required(choice, 'names', '/toolChoice');
      oneOf(choice, 'mode', CHOICE_MODES, '/toolChoice');
    }
  }
  if (node['generation'] !== undefined) {
    const generation = object(node['generation'], '/generation');
    for (const key of GENERATION_NUMBERS) optional(generation, key, 'number', '/generation');
    optional(generation, 'logprobs', 'boolean', '/generation');
    strings(generation, 'stop', '/generation');
  }
  if (node['reasoning'] !== undefined) {
    const reasoning = object(node['reasoning'], '/reasoning');
    if (reasoning['mode'] !== undefined) oneOf(reasoning, 'mode', REASONING_MODES, '/reasoning');
    for (const key of ['effort', 'summary']) optional(reasoning, key, 'string', '/reasoning');
    optional(reasoning, 'budgetTokens', 'number', '/reasoning');
    optional(reasoning, 'includeThoughts', 'boolean', '/reasoning');
  }
  if (node['output'] !== undefined) {
    const output = object(node['output'], '/output');
    if (oneOf(output, 'type', OUTPUT_TYPES, '/output') === 'json_schema') {
      object(required(output, 'schema', '/output'), '/output/schema');
      for (const key of ['name', 'description']) optional(output, key, 'string', '/output');
      optional(output, 'strict', 'boolean', '/output');
    }
  }
  if (node['outputModalities'] !== undefined) {
    array(node['outputModalities'], '/outputModalities').forEach((item, index) => {
      if (typeof item !== 'string' || !OUTPUT_MODALITIES.has(item)) throw new InterlinguaError('invalid_value', `${JSON.stringify(item) ?? String(item)} is not an IR output modality; use one of ${[...OUTPUT_MODALITIES].join(', ')}`, { path: pointer('/outputModalities', index) });
    });
  }
  if (node['metadata'] !== undefined) {
    const metadata = object(node['metadata'], '/metadata');
    for (const key in metadata) if (typeof metadata[key] !== 'string') throw wrongType('a string', metadata[key], pointer('/metadata', key));
  }
}

/** Refuse an IR request whose shape an encoder cannot trust. */
export function checkIrRequest(request: Request): void {
  checkDepth(request);
  const node = object(request, '');
  extensible(node, '');
  for (const key of ['model', 'user', 'serviceTier', 'promptCacheKey', 'promptCacheRetention', 'verbosity']) optional(node, key, 'string', '');
  for (const key of ['parallelToolCalls', 'stream', 'store', 'streamUsage', 'streamObfuscation']) optional(node, key, 'boolean', '');
  cacheBreakpoint(node, '');
  array(required(node, 'messages', ''), '/messages').forEach((item, index) => message(item, pointer('/messages', index)));
  if (node['tools'] !== undefined) array(node['tools'], '/tools').forEach((item, index) => tool(item, pointer('/tools', index)));
  settings(node);
}

/** Refuse an IR response whose shape an encoder cannot trust. */
export function checkIrResponse(response: Response): void {
  checkDepth(response);
  const node = object(response, '');
  extensible(node, '');
  for (const key of ['id', 'model']) optional(node, key, 'string', '');
  optional(node, 'created', 'number', '');
  array(required(node, 'candidates', ''), '/candidates').forEach((item, index) => {
    const path = pointer('/candidates', index);
    const candidate = object(item, path);
    extensible(candidate, path);
    const position = required(candidate, 'index', path);
    if (typeof position !== 'number') throw wrongType('a number', position, pointer(path, 'index'));
    message(required(candidate, 'message', path), pointer(path, 'message'));
    if (candidate['stopReason'] !== undefined) {
      const stopPath = pointer(path, 'stopReason');
      const stop = object(candidate['stopReason'], stopPath);
      oneOf(stop, 'unified', STOP_REASONS, stopPath);
      for (const key of ['raw', 'format', 'sequence']) optional(stop, key, 'string', stopPath);
    }
  });
  if (node['usage'] !== undefined) {
    const usage = object(node['usage'], '/usage');
    extensible(usage, '/usage');
    for (const key of USAGE_NUMBERS) optional(usage, key, 'number', '/usage');
    optional(usage, 'serviceTier', 'string', '/usage');
    for (const key of ['inputTokensByModality', 'outputTokensByModality', 'cacheReadTokensByModality', 'toolUseTokensByModality']) {
      if (usage[key] === undefined) continue;
      const byModality = object(usage[key], `/usage/${key}`);
      for (const modality in byModality) {
        if (!TOKEN_MODALITIES.has(modality)) {
          throw new InterlinguaError('invalid_value', `"${modality}" is not an IR token modality; use one of ${[...TOKEN_MODALITIES].join(', ')}`, { path: pointer(`/usage/${key}`, modality) });
        }
        optional(byModality, modality, 'number', `/usage/${key}`);
      }
    }
    if (usage['cacheWriteByTtl'] !== undefined) {
      const byTtl = object(usage['cacheWriteByTtl'], '/usage/cacheWriteByTtl');
      for (const ttl in byTtl) optional(byTtl, ttl, 'number', '/usage/cacheWriteByTtl');
    }
    if (usage['raw'] !== undefined) string(object(usage['raw'], '/usage/raw'), 'format', '/usage/raw');
  }
}

/** Refuse an IR error whose shape an encoder cannot trust. */
export function checkIrError(error: ApiError): void {
  checkDepth(error);
  const node = object(error, '');
  extensible(node, '');
  oneOf(node, 'type', ERROR_TYPES, '');
  string(node, 'message', '');
  optional(node, 'status', 'number', '');
  for (const key of ['code', 'param']) optional(node, key, 'string', '');
}
