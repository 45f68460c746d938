/**
 * The nested request settings `text` (output format, verbosity) and
 * `reasoning` (effort, summary). What has no neutral slot stays in the
 * request's `text` / `reasoning` extension, merged back on encode.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-text
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-reasoning
 */
import type { OutputFormat, ReasoningConfig, Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { expectObject, extend, hint, isObject, type JsonObject } from '../../core/wire.ts';
import { FORMAT, own, ownHint } from './shape.ts';
import { effortForBudget } from '../../core/reasoning-levels.ts';

/** Effort levels Responses accepts. */
const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function decodeFormat(format: JsonObject, rest: JsonObject): OutputFormat | undefined {
  switch (format['type']) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      if (!isObject(format['schema'])) return undefined;
      const output: OutputFormat = { type: 'json_schema', schema: format['schema'] };
      for (const key in format) {
        const value = format[key];
        if (key === 'type' || key === 'schema') continue;
        if (key === 'name' && typeof value === 'string') output.name = value;
        else if (key === 'description' && typeof value === 'string') output.description = value;
        else if (key === 'strict' && typeof value === 'boolean') output.strict = value;
        else ((rest['format'] ??= {}) as JsonObject)[key] = value;
      }
      return output;
    }
    default:
      return undefined;
  }
}

/** Decode `text` into `request.output` and `request.verbosity`, keeping the rest as the `text` extension. */
export function decodeOpenaiResponsesText(value: unknown, request: Request, path: string): void {
  const text = expectObject(value, path, FORMAT);
  const rest: JsonObject = {};
  for (const key in text) {
    if (key === 'format') continue;
    const entry = text[key];
    if (key === 'verbosity' && typeof entry === 'string') request.verbosity = entry;
    else rest[key] = entry;
  }
  const format = text['format'];
  const output = isObject(format) ? decodeFormat(format, rest) : undefined;
  if (output !== undefined) request.output = output;
  else if (format !== undefined) rest['format'] = format;
  if (Object.keys(rest).length > 0) extend(request, FORMAT, { text: rest });
  else if (output === undefined && request.verbosity === undefined) hint(request, FORMAT, '$emptyText', true);
}

function encodeFormat(output: OutputFormat, extra: JsonObject | undefined, losses: LossCollector, foreign: boolean): JsonObject {
  switch (output.type) {
    case 'text':
      return { ...extra, type: 'text' };
    case 'json':
      return { ...extra, type: 'json_object' };
    case 'json_schema': {
      const format: JsonObject = { ...extra, type: 'json_schema', schema: output.schema };
      if (output.name !== undefined) format['name'] = output.name;
      else if (foreign) {
        format['name'] = 'response';
        losses.add('defaulted', '/output/name', 'OpenAI Responses needs a schema name; "response" was used', 'info');
      }
      if (output.description !== undefined) format['description'] = output.description;
      if (output.strict !== undefined) format['strict'] = output.strict;
      return format;
    }
  }
}

/** Encode `text` from `request.output`, `request.verbosity` and the `text` extension; `undefined` when there is none. */
export function encodeOpenaiResponsesText(request: Request, losses: LossCollector): JsonObject | undefined {
  const extension = own(request)?.['text'];
  const rest = isObject(extension) ? extension : undefined;
  const verbosity = request.verbosity;
  if (request.output === undefined && verbosity === undefined) return rest ?? (ownHint(request, '$emptyText') === true ? {} : undefined);
  const text: JsonObject = { ...rest };
  if (request.output !== undefined) {
    const extra = rest?.['format'];
    text['format'] = encodeFormat(request.output, isObject(extra) ? extra : undefined, losses, own(request) === undefined);
  }
  if (verbosity !== undefined) text['verbosity'] = verbosity;
  return text;
}

/** Decode `reasoning` into `request.reasoning`, keeping the rest as the `reasoning` extension. */
export function decodeOpenaiResponsesReasoningConfig(value: unknown, request: Request, path: string): void {
  const wire = expectObject(value, path, FORMAT);
  const config: ReasoningConfig = {};
  const rest: JsonObject = {};
  for (const key in wire) {
    const entry = wire[key];
    if (key === 'effort' && typeof entry === 'string') {
      config.effort = entry;
      if (entry === 'none') config.mode = 'disabled';
    } else if (key === 'summary' && typeof entry === 'string') {
      config.summary = entry;
      config.includeThoughts = true;
    } else if (key === 'generate_summary' && typeof entry === 'string' && wire['summary'] === undefined) {
      config.summary = entry;
      config.includeThoughts = true;
      hint(request, FORMAT, '$generateSummary', true);
    } else {
      rest[key] = entry;
    }
  }
  request.reasoning = config;
  if (Object.keys(rest).length > 0) extend(request, FORMAT, { reasoning: rest });
}


/** Encode `reasoning` from `request.reasoning` and the `reasoning` extension. */
export function encodeOpenaiResponsesReasoningConfig(request: Request, losses: LossCollector): JsonObject | undefined {
  const config = request.reasoning;
  const extension = own(request)?.['reasoning'];
  const rest = isObject(extension) ? extension : undefined;
  if (config === undefined) return rest;
  const wire: JsonObject = { ...rest };
  let effort = config.effort;
  if (effort !== undefined && !EFFORTS.has(effort)) {
    const lower = effort.toLowerCase();
    const mapped = EFFORTS.has(lower) ? lower : 'high';
    losses.add('approximated', '/reasoning/effort', `effort "${effort}" sent as "${mapped}"`);
    effort = mapped;
  }
  if (effort === undefined && config.mode === 'disabled') effort = 'none';
  if (config.budgetTokens !== undefined) {
    if (effort === undefined) {
      effort = effortForBudget(config.budgetTokens);
      losses.add('approximated', '/reasoning/budgetTokens', `a budget of ${config.budgetTokens} tokens sent as effort "${effort}"`);
    } else {
      losses.add('dropped_field', '/reasoning/budgetTokens', 'OpenAI Responses has no reasoning token budget; dropped');
    }
  }
  if (effort !== undefined) wire['effort'] = effort;
  const summary = config.summary ?? (config.includeThoughts === true ? 'auto' : undefined);
  if (summary !== undefined) wire[ownHint(request, '$generateSummary') === true ? 'generate_summary' : 'summary'] = summary;
  if (Object.keys(wire).length === 0 && Object.keys(config).length > 0) return undefined;
  return wire;
}
