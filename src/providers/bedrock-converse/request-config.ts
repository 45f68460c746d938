/**
 * Converse request settings that need more than a rename:
 * `additionalModelRequestFields` (the model's own fields; Anthropic's
 * `thinking` and `top_k`, Claude 3.7's `reasoning_config`, Amazon Nova's
 * `reasoningConfig` and `inferenceConfig.topK` are read into the IR, the
 * rest travels whole) and `outputConfig` (a JSON Schema sent as a string).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html
 */
import type { Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectObject, extend, extensionsOf, hint, isObject, type JsonObject } from '../../core/wire.ts';
import { BEDROCK, isNovaModel } from './shape.ts';
import { budgetForEffort } from '../../core/reasoning-levels.ts';

const THINKING_TYPES: ReadonlySet<string> = new Set(['enabled', 'disabled', 'adaptive']);

/** Anthropic's `thinking` (or Claude 3.7's `reasoning_config` on Bedrock) as IR reasoning, or `undefined` for a shape that stays the model's own. */
function anthropicThinking(value: unknown): Request['reasoning'] {
  if (!isObject(value) || typeof value['type'] !== 'string' || !THINKING_TYPES.has(value['type'])) return undefined;
  const budget = value['budget_tokens'];
  const display = value['display'];
  for (const key in value) {
    if (key === 'type' || (key === 'budget_tokens' && typeof budget === 'number') || (key === 'display' && (display === 'summarized' || display === 'omitted'))) continue;
    return undefined;
  }
  const reasoning: NonNullable<Request['reasoning']> = { mode: value['type'] as 'enabled' | 'disabled' | 'adaptive' };
  if (typeof budget === 'number') reasoning.budgetTokens = budget;
  if (display !== undefined) reasoning.includeThoughts = display === 'summarized';
  return reasoning;
}

/** The effort levels Amazon Nova takes (`reasoningConfig.maxReasoningEffort`). */
const NOVA_EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high']);

/** Amazon Nova's `reasoningConfig` (`type`, `maxReasoningEffort`) as IR reasoning, or `undefined` for any other shape. */
function novaReasoning(value: unknown): Request['reasoning'] {
  if (!isObject(value) || (value['type'] !== 'enabled' && value['type'] !== 'disabled')) return undefined;
  const effort = value['maxReasoningEffort'];
  for (const key in value) if (key !== 'type' && !(key === 'maxReasoningEffort' && typeof effort === 'string' && NOVA_EFFORTS.has(effort))) return undefined;
  const reasoning: NonNullable<Request['reasoning']> = { mode: value['type'] };
  if (typeof effort === 'string') reasoning.effort = effort;
  return reasoning;
}

/**
 * Read the model's own reasoning and top-k settings into the IR: Anthropic's
 * `thinking` (with `display`), Claude 3.7's `reasoning_config` and `top_k`;
 * Amazon Nova's `reasoningConfig` and `inferenceConfig.topK`. Everything
 * else stays as it is; a spelling other than Anthropic's is noted so it goes
 * back to Converse as it came.
 *
 * @see https://docs.aws.amazon.com/nova/latest/userguide/extended-thinking.html
 */
export function decodeBedrockAdditionalFields(value: unknown, request: Request): void {
  const wire = expectObject(value, '/additionalModelRequestFields', BEDROCK);
  const rest: JsonObject = { ...wire };
  for (const [key, read, spelling] of REASONING_SPELLINGS) {
    if (request.reasoning !== undefined || wire[key] === undefined) continue;
    const reasoning = read(wire[key]);
    if (reasoning === undefined) continue;
    request.reasoning = reasoning;
    delete rest[key];
    if (spelling !== undefined) hint(request, BEDROCK, '$reasoningKey', spelling);
  }
  if (typeof wire['top_k'] === 'number') {
    (request.generation ??= {}).topK = wire['top_k'];
    delete rest['top_k'];
  } else {
    const inference = wire['inferenceConfig'];
    if (isObject(inference) && typeof inference['topK'] === 'number' && Object.keys(inference).length === 1) {
      (request.generation ??= {}).topK = inference['topK'];
      delete rest['inferenceConfig'];
      hint(request, BEDROCK, '$novaTopK', true);
    }
  }
  if (Object.keys(rest).length > 0 || Object.keys(wire).length === 0) extend(request, BEDROCK, { additionalModelRequestFields: rest });
  else hint(request, BEDROCK, '$additionalFields', true);
}

/** The keys that spell reasoning settings, read in this order; a spelling other than `thinking` is noted (`$reasoningKey`). */
const REASONING_SPELLINGS: readonly (readonly [string, (value: unknown) => Request['reasoning'], string | undefined])[] = [
  ['thinking', anthropicThinking, undefined],
  ['reasoning_config', anthropicThinking, 'reasoning_config'],
  ['reasoningConfig', novaReasoning, 'reasoningConfig'],
];


/** The Nova `reasoningConfig` of IR reasoning: its effort where Nova has it, the nearest where not (reported). */
function novaReasoningConfig(reasoning: NonNullable<Request['reasoning']>, losses: LossCollector): JsonObject {
  if (reasoning.mode === 'disabled' || reasoning.effort === 'none') return { type: 'disabled' };
  const config: JsonObject = { type: 'enabled' };
  const effort = reasoning.effort;
  if (effort !== undefined && NOVA_EFFORTS.has(effort)) config['maxReasoningEffort'] = effort;
  else if (effort !== undefined || reasoning.budgetTokens !== undefined) {
    const budget = reasoning.budgetTokens ?? budgetForEffort(effort as string) ?? 8192;
    const nearest = budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
    config['maxReasoningEffort'] = nearest;
    losses.add('approximated', '/reasoning', `Amazon Nova takes a reasoning effort of low, medium or high; ${effort !== undefined ? `effort "${effort}"` : `a budget of ${budget} tokens`} sent as "${nearest}"`, 'info');
  }
  if (reasoning.includeThoughts !== undefined) losses.add('dropped_field', '/reasoning/includeThoughts', 'Amazon Nova has no switch for returning its reasoning; dropped', 'info');
  return config;
}

/** Anthropic's `thinking` (on Bedrock) of IR reasoning, or `undefined` when it says nothing Anthropic has. */
function anthropicThinkingOf(reasoning: NonNullable<Request['reasoning']>, losses: LossCollector): JsonObject | undefined {
  const thinking: JsonObject = {};
  if (reasoning.mode === 'disabled' || reasoning.effort === 'none') thinking['type'] = 'disabled';
  else if (reasoning.mode === 'adaptive') thinking['type'] = 'adaptive';
  else if (reasoning.budgetTokens !== undefined || reasoning.mode === 'enabled' || reasoning.effort !== undefined) {
    thinking['type'] = 'enabled';
    let budget = reasoning.budgetTokens ?? budgetForEffort(reasoning.effort ?? 'medium') ?? 8192;
    if (reasoning.budgetTokens === undefined) {
      losses.add('approximated', '/reasoning', `Anthropic models on Bedrock take a thinking budget; effort "${reasoning.effort ?? 'unset'}" sent as ${budget} tokens`, 'info');
    }
    if (budget < 1024) {
      losses.add('approximated', '/reasoning/budgetTokens', `thinking budgets start at 1024 tokens; ${budget} raised to 1024`, 'info');
      budget = 1024;
    }
    thinking['budget_tokens'] = budget;
  }
  if (thinking['type'] === undefined) return undefined;
  if (reasoning.includeThoughts !== undefined && thinking['type'] !== 'disabled') thinking['display'] = reasoning.includeThoughts ? 'summarized' : 'omitted';
  return thinking;
}

/**
 * The `additionalModelRequestFields` to send, or `undefined`: reasoning and
 * top-k in the spelling the source had, else Amazon Nova's for a Nova
 * `model`, else Anthropic's.
 */
export function encodeBedrockAdditionalFields(request: Request, losses: LossCollector, model: string | undefined): JsonObject | undefined {
  const own = extensionsOf(request, BEDROCK);
  const raw = own?.['additionalModelRequestFields'];
  const reasoning = request.reasoning;
  if (reasoning === undefined && request.generation?.topK === undefined && !isObject(raw)) return undefined;
  const fields: JsonObject = isObject(raw) ? { ...raw } : {};
  const spelling = own?.['$reasoningKey'];
  // Nova's spelling when the source had it, or for a Nova model when the source had neither.
  const nova = spelling === 'reasoningConfig' || own?.['$novaTopK'] === true || (spelling === undefined && isNovaModel(model));
  if (reasoning !== undefined && fields['thinking'] === undefined && fields['reasoning_config'] === undefined && fields['reasoningConfig'] === undefined) {
    if (nova && spelling !== 'reasoning_config') fields['reasoningConfig'] = novaReasoningConfig(reasoning, losses);
    else {
      const thinking = anthropicThinkingOf(reasoning, losses);
      if (thinking !== undefined) fields[spelling === 'reasoning_config' ? 'reasoning_config' : 'thinking'] = thinking;
    }
    if (reasoning.summary !== undefined) losses.add('dropped_field', '/reasoning/summary', 'Converse has no reasoning summary setting; dropped', 'info');
  }
  const topK = request.generation?.topK;
  if (topK !== undefined && fields['top_k'] === undefined && fields['inferenceConfig'] === undefined) {
    if (nova) fields['inferenceConfig'] = { topK };
    else fields['top_k'] = topK;
  }
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

/** The lowest `topP` a Claude model takes with thinking. */
const THINKING_TOP_P = 0.95;

/**
 * What Claude on Bedrock refuses beside thinking, for a request from
 * another format: Anthropic's rules on the Converse body (a temperature
 * other than 1 and a `top_k` dropped, a `topP` under 0.95 raised, a budget
 * not under `maxTokens` answered by raising `maxTokens`, a forced tool
 * choice leaving manual thinking off), each reported. A Converse body's own
 * settings go back as they came.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html
 */
export function fitBedrockThinking(request: Request, body: JsonObject, losses: LossCollector): void {
  const fields = body['additionalModelRequestFields'];
  if (!isObject(fields)) return;
  const own = extensionsOf(request, BEDROCK);
  if (own?.['$additionalFields'] !== undefined || own?.['additionalModelRequestFields'] !== undefined) return;
  const key = fields['thinking'] !== undefined ? 'thinking' : 'reasoning_config';
  const thinking = fields[key];
  if (!isObject(thinking) || (thinking['type'] !== 'enabled' && thinking['type'] !== 'adaptive')) return;
  const choice = (body['toolConfig'] as JsonObject | undefined)?.['toolChoice'];
  if (thinking['type'] === 'enabled' && isObject(choice) && (choice['any'] !== undefined || choice['tool'] !== undefined)) {
    delete fields[key];
    if (Object.keys(fields).length === 0) delete body['additionalModelRequestFields'];
    losses.add('dropped_field', '/reasoning', 'Claude cannot think before a forced tool call (toolChoice any or tool); thinking was left off');
    return;
  }
  const inference = body['inferenceConfig'];
  const config = isObject(inference) ? inference : undefined;
  const temperature = config?.['temperature'];
  if (config !== undefined && temperature !== undefined && temperature !== 1) {
    delete config['temperature'];
    losses.add('dropped_field', '/generation/temperature', `Claude takes no temperature but 1 with thinking; ${String(temperature)} dropped`);
  }
  if (fields['top_k'] !== undefined) {
    delete fields['top_k'];
    losses.add('dropped_field', '/generation/topK', 'Claude takes no top_k with thinking; dropped');
  }
  const topP = config?.['topP'];
  if (config !== undefined && typeof topP === 'number' && topP < THINKING_TOP_P) {
    config['topP'] = THINKING_TOP_P;
    losses.add('approximated', '/generation/topP', `Claude takes a topP of at least ${THINKING_TOP_P} with thinking; ${topP} was sent as ${THINKING_TOP_P}`);
  }
  const budget = thinking['budget_tokens'];
  const maxTokens = config?.['maxTokens'];
  if (config !== undefined && typeof budget === 'number' && typeof maxTokens === 'number' && budget >= maxTokens) {
    config['maxTokens'] = budget + maxTokens;
    losses.add(
      'approximated',
      '/generation/maxTokens',
      `Claude counts thinking inside maxTokens, which must exceed the thinking budget (${budget}); maxTokens ${maxTokens} was sent as ${budget + maxTokens}, the budget plus the answer's ${maxTokens}`,
    );
  }
}
