/**
 * Converse request settings that need more than a rename:
 * `additionalModelRequestFields` (the model's own fields; Anthropic's
 * `thinking` and `top_k` are read into the IR, the rest travels whole) and
 * `outputConfig` (a JSON Schema sent as a string).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html
 */
import type { Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectObject, extend, extensionsOf, hint, isObject, type JsonObject } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';

const THINKING_TYPES: ReadonlySet<string> = new Set(['enabled', 'disabled', 'adaptive']);

/** Read Anthropic-on-Bedrock `thinking` and `top_k`; everything else stays as it is. */
export function decodeBedrockAdditionalFields(value: unknown, request: Request): void {
  const wire = expectObject(value, '/additionalModelRequestFields', BEDROCK);
  const rest: JsonObject = { ...wire };
  const thinking = wire['thinking'];
  if (isObject(thinking) && typeof thinking['type'] === 'string' && THINKING_TYPES.has(thinking['type'])) {
    const keys = Object.keys(thinking);
    const budget = thinking['budget_tokens'];
    const simple = keys.every((key) => key === 'type' || (key === 'budget_tokens' && typeof budget === 'number'));
    if (simple) {
      request.reasoning = { mode: thinking['type'] as 'enabled' | 'disabled' | 'adaptive' };
      if (typeof budget === 'number') request.reasoning.budgetTokens = budget;
      delete rest['thinking'];
    }
  }
  if (typeof wire['top_k'] === 'number') {
    (request.generation ??= {}).topK = wire['top_k'];
    delete rest['top_k'];
  }
  if (Object.keys(rest).length > 0 || Object.keys(wire).length === 0) extend(request, BEDROCK, { additionalModelRequestFields: rest });
  else hint(request, BEDROCK, '$additionalFields', true);
}

const BUDGET_BY_EFFORT: Readonly<Record<string, number>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, number>, { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 32768 }),
);

/** The `additionalModelRequestFields` to send, or `undefined`. */
export function encodeBedrockAdditionalFields(request: Request, losses: LossCollector): JsonObject | undefined {
  const raw = extensionsOf(request, BEDROCK)?.['additionalModelRequestFields'];
  const reasoning = request.reasoning;
  if (reasoning === undefined && request.generation?.topK === undefined && !isObject(raw)) return undefined;
  const fields: JsonObject = isObject(raw) ? { ...raw } : {};
  if (reasoning !== undefined && fields['thinking'] === undefined) {
    const thinking: JsonObject = {};
    if (reasoning.mode === 'disabled' || reasoning.effort === 'none') thinking['type'] = 'disabled';
    else if (reasoning.mode === 'adaptive') thinking['type'] = 'adaptive';
    else if (reasoning.budgetTokens !== undefined || reasoning.mode === 'enabled' || reasoning.effort !== undefined) {
      thinking['type'] = 'enabled';
      let budget = reasoning.budgetTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? 'medium'] ?? 8192;
      if (reasoning.budgetTokens === undefined) {
        losses.add('approximated', '/reasoning', `Anthropic models on Bedrock take a thinking budget; effort "${reasoning.effort ?? 'unset'}" sent as ${budget} tokens`, 'info');
      }
      if (budget < 1024) {
        losses.add('approximated', '/reasoning/budgetTokens', `thinking budgets start at 1024 tokens; ${budget} raised to 1024`, 'info');
        budget = 1024;
      }
      thinking['budget_tokens'] = budget;
    }
    if (thinking['type'] !== undefined) fields['thinking'] = thinking;
    if (reasoning.summary !== undefined) losses.add('dropped_field', '/reasoning/summary', 'Converse has no reasoning summary setting; dropped', 'info');
  }
  const topK = request.generation?.topK;
  if (topK !== undefined && fields['top_k'] === undefined) fields['top_k'] = topK;
  if (Object.keys(fields).length === 0 && !isObject(raw)) return undefined;
  return fields;
}

/** Read `outputConfig.textFormat` (a JSON Schema as text) into `request.output`. */
export function decodeBedrockOutputConfig(value: unknown, request: Request): void {
  const wire = expectObject(value, '/outputConfig', BEDROCK);
  const format = wire['textFormat'];
  const structure = isObject(format) ? format['structure'] : undefined;
  const schema = isObject(structure) ? structure['jsonSchema'] : undefined;
  const simple =
    Object.keys(wire).length === 1 &&
    isObject(format) &&
    format['type'] === 'json_schema' &&
    Object.keys(format).length === 2 &&
    isObject(structure) &&
    Object.keys(structure).length === 1 &&
    isObject(schema) &&
    typeof schema['schema'] === 'string' &&
    Object.keys(schema).every((key) => key === 'schema' || key === 'name' || key === 'description');
  if (!simple || !isObject(schema)) {
    extend(request, BEDROCK, { outputConfig: wire });
    return;
  }
  const text = schema['schema'] as string;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InterlinguaError('invalid_value', `outputConfig schema is not JSON text (${(error as Error).message}); send the JSON Schema as a JSON string`, {
      path: '/outputConfig/textFormat/structure/jsonSchema/schema',
      format: BEDROCK,
    });
  }
  if (!isObject(parsed)) {
    extend(request, BEDROCK, { outputConfig: wire });
    return;
  }
  request.output = { type: 'json_schema', schema: parsed };
  if (typeof schema['name'] === 'string') request.output.name = schema['name'];
  if (typeof schema['description'] === 'string') request.output.description = schema['description'];
  hint(request, BEDROCK, '$schemaText', text);
}

/** True when `hinted` (a shape hint, so maybe edited by hand) is JSON that serialises to `text`. */
function sameJson(hinted: string, text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(hinted)) === text;
  } catch {
    return false;
  }
}

/** The `outputConfig` to send, or `undefined`. */
export function encodeBedrockOutputConfig(request: Request, losses: LossCollector): JsonObject | undefined {
  const raw = extensionsOf(request, BEDROCK)?.['outputConfig'];
  const output = request.output;
  if (output === undefined || output.type === 'text') return isObject(raw) ? raw : undefined;
  const schema = output.type === 'json' ? { type: 'object' } : output.schema;
  if (output.type === 'json') losses.add('approximated', '/output', 'Converse structured output needs a schema; JSON mode sent as the schema {"type":"object"}', 'info');
  const hinted = extensionsOf(request, BEDROCK)?.['$schemaText'];
  let text = JSON.stringify(schema);
  if (typeof hinted === 'string' && sameJson(hinted, text)) text = hinted;
  const jsonSchema: JsonObject = { schema: text };
  if (output.type === 'json_schema') {
    if (output.name !== undefined) jsonSchema['name'] = output.name;
    if (output.description !== undefined) jsonSchema['description'] = output.description;
    if (output.strict !== undefined) losses.add('dropped_field', '/output/strict', 'Converse has no strict flag on structured output; dropped', 'info');
  }
  return { textFormat: { type: 'json_schema', structure: { jsonSchema } } };
}
