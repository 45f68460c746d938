/**
 * Reasoning and output settings: `thinking`, `output_config` (effort and
 * JSON-schema format) and the older `output_format`.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 * @see https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
 */
import type { ReasoningConfig, Request } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { InterlinguaError } from '../../core/errors.ts';
import { expectNumber, expectObject, expectString, pointer, required, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { budgetForEffort } from '../../core/reasoning-levels.ts';
import { ANTHROPIC, anthropicHint, hasHint } from './shape.ts';

const THINKING_KEYS: ReadonlySet<string> = new Set(['type', 'budget_tokens', 'display']);
const OUTPUT_CONFIG_KEYS: ReadonlySet<string> = new Set(['effort', 'format']);
const FORMAT_KEYS: ReadonlySet<string> = new Set(['type', 'schema']);
/** Effort levels Anthropic accepts in `output_config.effort`. */
const EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh', 'max']);
/** Budget sent when IR asks for enabled thinking without a budget (the documented minimum). */
export const DEFAULT_BUDGET_TOKENS = 1024;

function reasoningOf(request: Request): ReasoningConfig {
  return (request.reasoning ??= {});
}

/** Decode `thinking` into `request.reasoning`. */
export function decodeAnthropicThinking(value: unknown, path: string, request: Request): void {
  const object = expectObject(value, path, ANTHROPIC);
  const type = expectString(required(object, 'type', path, ANTHROPIC), pointer(path, 'type'), ANTHROPIC);
  if (type !== 'enabled' && type !== 'adaptive' && type !== 'disabled') {
    throw new InterlinguaError('invalid_value', `thinking type "${type}" is not enabled, adaptive or disabled`, { path: pointer(path, 'type'), format: ANTHROPIC });
  }
  const reasoning = reasoningOf(request);
  reasoning.mode = type;
  if (object['budget_tokens'] !== undefined) reasoning.budgetTokens = expectNumber(object['budget_tokens'], pointer(path, 'budget_tokens'), ANTHROPIC);
  const display = object['display'];
  if (display === 'summarized') reasoning.includeThoughts = true;
  else if (display === 'omitted') reasoning.includeThoughts = false;
  else if (display !== undefined) anthropicHint(request, '$thinkingDisplay', display);
  const extras = unknownKeys(object, THINKING_KEYS);
  if (extras !== undefined) anthropicHint(request, '$thinkingExtras', extras);
}

function decodeFormat(value: unknown, path: string, request: Request): void {
  const format = expectObject(value, path, ANTHROPIC);
  const type = expectString(required(format, 'type', path, ANTHROPIC), pointer(path, 'type'), ANTHROPIC);
  if (type !== 'json_schema') {
    throw new InterlinguaError('invalid_value', `output format type "${type}" is not json_schema`, { path: pointer(path, 'type'), format: ANTHROPIC });
  }
  request.output = { type: 'json_schema', schema: expectObject(required(format, 'schema', path, ANTHROPIC), pointer(path, 'schema'), ANTHROPIC) };
  const extras = unknownKeys(format, FORMAT_KEYS);
  if (extras !== undefined) anthropicHint(request, '$formatExtras', extras);
}

/** Decode `output_config` (effort, format) into `request.reasoning.effort` and `request.output`. */
export function decodeAnthropicOutputConfig(value: unknown, path: string, request: Request): void {
  const object = expectObject(value, path, ANTHROPIC);
  if (object['effort'] !== undefined) reasoningOf(request).effort = expectString(object['effort'], pointer(path, 'effort'), ANTHROPIC);
  if (object['format'] !== undefined) decodeFormat(object['format'], pointer(path, 'format'), request);
  const extras = unknownKeys(object, OUTPUT_CONFIG_KEYS);
  if (extras !== undefined) anthropicHint(request, '$outputConfigExtras', extras);
  else if (Object.keys(object).length === 0) anthropicHint(request, '$outputConfigEmpty', true);
}

/** Decode the older top-level `output_format`. */
export function decodeAnthropicOutputFormat(value: unknown, path: string, request: Request): void {
  decodeFormat(value, path, request);
  anthropicHint(request, '$outputFormatField', true);
}

function extras(request: Request, key: `$${string}`): JsonObject {
  const value = request.extensions?.anthropic?.[key];
  return value !== undefined && typeof value === 'object' ? (value as JsonObject) : {};
}

function encodeThinking(reasoning: ReasoningConfig, request: Request, losses: LossCollector): JsonObject | undefined {
  let mode = reasoning.mode;
  if (mode === undefined && reasoning.budgetTokens !== undefined) mode = 'enabled';
  // From another format, an effort level alone means "reason at this effort": Anthropic's adaptive thinking.
  if (mode === undefined && reasoning.effort !== undefined && !hasHint(request, '$keepTurns')) mode = reasoning.effort === 'none' ? 'disabled' : 'adaptive';
  if (mode === undefined) return undefined;
  const exact = hasHint(request, '$keepTurns');
  let budget = reasoning.budgetTokens;
  if (!exact && budget !== undefined && mode === 'enabled' && budget < DEFAULT_BUDGET_TOKENS) {
    // Gemini's -1 means "the model decides" (adaptive) and 0 means "off"; other small budgets rise to Anthropic's minimum.
    mode = budget < 0 ? 'adaptive' : budget === 0 ? 'disabled' : 'enabled';
    losses.add('approximated', '/reasoning/budgetTokens', `Anthropic thinking budgets start at ${DEFAULT_BUDGET_TOKENS}; a budget of ${budget} was sent as ${mode} thinking`);
    budget = mode === 'enabled' ? DEFAULT_BUDGET_TOKENS : undefined;
  }
  const wire: JsonObject = { type: mode };
  if (budget !== undefined && (exact || mode === 'enabled')) wire['budget_tokens'] = budget;
  else if (mode === 'enabled') {
    // Thinking on at an effort (Amazon Nova's `maxReasoningEffort`): the budget of that effort's band.
    const fromEffort = reasoning.effort === undefined ? undefined : budgetForEffort(reasoning.effort);
    if (fromEffort !== undefined) {
      wire['budget_tokens'] = fromEffort;
      losses.add('approximated', '/reasoning/effort', `Anthropic enabled thinking needs budget_tokens; effort "${reasoning.effort}" sent as a budget of ${fromEffort}`, 'info');
    } else {
      wire['budget_tokens'] = DEFAULT_BUDGET_TOKENS;
      losses.add('defaulted', '/reasoning/budgetTokens', `Anthropic enabled thinking needs budget_tokens; sent ${DEFAULT_BUDGET_TOKENS}`);
    }
  }
  const display = request.extensions?.anthropic?.['$thinkingDisplay'];
  if (display !== undefined) wire['display'] = display;
  else if (reasoning.includeThoughts !== undefined && mode !== 'disabled') wire['display'] = reasoning.includeThoughts ? 'summarized' : 'omitted';
  return Object.assign(wire, extras(request, '$thinkingExtras'));
}

function encodeEffort(effort: string, losses: LossCollector): string | undefined {
  if (EFFORTS.has(effort)) return effort;
  if (effort === 'none') return undefined;
  if (effort === 'minimal') {
    losses.add('approximated', '/reasoning/effort', 'Anthropic has no "minimal" effort; sent "low"');
    return 'low';
  }
  losses.add('dropped_field', '/reasoning/effort', `Anthropic has no "${effort}" effort; dropped`);
  return undefined;
}

function encodeFormat(request: Request, losses: LossCollector): JsonObject | undefined {
  const output = request.output;
  if (output === undefined || output.type === 'text') return undefined;
  if (output.type === 'json') {
    losses.add('approximated', '/output', 'Anthropic has no JSON mode without a schema; sent a schema for any JSON object');
    return { type: 'json_schema', schema: { type: 'object' } };
  }
  if (output.name !== undefined) losses.add('dropped_field', '/output/name', 'Anthropic output formats have no name', 'info');
  if (output.description !== undefined) losses.add('dropped_field', '/output/description', 'Anthropic output formats have no description');
  if (output.strict === false) losses.add('approximated', '/output/strict', 'Anthropic output formats are always strict');
  return Object.assign({ type: 'json_schema', schema: output.schema }, extras(request, '$formatExtras'));
}

/** Write `thinking`, `output_config` and `output_format` onto the wire body. */
export function encodeAnthropicConfig(request: Request, body: JsonObject, losses: LossCollector): void {
  const reasoning = request.reasoning;
  if (reasoning !== undefined) {
    const thinking = encodeThinking(reasoning, request, losses);
    if (thinking !== undefined) body['thinking'] = thinking;
    if (reasoning.summary !== undefined) losses.add('dropped_field', '/reasoning/summary', 'Anthropic has no reasoning summary style', 'info');
  }
  // Most requests have no effort, output format or config hints: nothing to build.
  if (reasoning?.effort === undefined && (request.output === undefined || request.output.type === 'text')) {
    const hints = request.extensions?.anthropic;
    if (hints === undefined) return;
    // Without an effort or a format, `output_config` is written only from its kept extras or the empty-config hint.
    const kept = hints['$outputConfigExtras'];
    const empty = hints['$outputConfigEmpty'];
    if ((kept === undefined || kept === null || typeof kept !== 'object') && (empty === undefined || empty === false)) return;
  }
  const config: JsonObject = { ...extras(request, '$outputConfigExtras') };
  const effort = reasoning?.effort === undefined ? undefined : encodeEffort(reasoning.effort, losses);
  if (effort !== undefined) config['effort'] = effort;
  const format = encodeFormat(request, losses);
  if (format !== undefined && hasHint(request, '$outputFormatField')) body['output_format'] = format;
  else if (format !== undefined) config['format'] = format;
  if (Object.keys(config).length > 0 || hasHint(request, '$outputConfigEmpty')) body['output_config'] = config;
}
