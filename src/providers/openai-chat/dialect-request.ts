/**
 * OpenRouter's request `reasoning` object ↔ IR reasoning settings:
 * `effort`, `max_tokens` (a budget), `exclude` (no reasoning text back),
 * `enabled`. Other dialects take `reasoning_effort` as OpenAI does.
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens
 */
import type { ReasoningConfig, Request } from '../../core/ir.ts';
import { extensionsOf, isObject, type JsonObject } from '../../core/wire.ts';
import { noteDialect } from './dialects.ts';
import { FORMAT, chatHint } from './shape.ts';

const KNOWN: ReadonlySet<string> = new Set(['effort', 'max_tokens', 'exclude', 'enabled']);

/** Read an OpenRouter `reasoning` object kept as an extension into `request.reasoning` (when `reasoning_effort` did not set it). */
export function decodeOpenrouterReasoning(request: Request): void {
  const fields = extensionsOf(request, FORMAT);
  const wire = fields?.['reasoning'];
  if (fields === undefined || !isObject(wire) || request.reasoning !== undefined) return;
  const reasoning: ReasoningConfig = {};
  const { effort, max_tokens: budget, exclude, enabled } = wire;
  const odd: JsonObject = {};
  for (const key in wire) if (!KNOWN.has(key)) odd[key] = wire[key];
  if (typeof effort === 'string') reasoning.effort = effort;
  else if (effort !== undefined) odd['effort'] = effort;
  if (typeof budget === 'number') {
    reasoning.budgetTokens = budget;
    reasoning.mode = 'enabled';
  } else if (budget !== undefined) odd['max_tokens'] = budget;
  if (exclude === true) reasoning.includeThoughts = false;
  else if (exclude !== undefined) odd['exclude'] = exclude;
  if (enabled === false) reasoning.mode = 'disabled';
  else if (enabled === true) {
    reasoning.mode ??= 'enabled';
    chatHint(request, '$reasoningEnabled', true);
  } else if (enabled !== undefined) odd['enabled'] = enabled;
  delete fields['reasoning'];
  request.reasoning = reasoning;
  if (Object.keys(odd).length > 0) chatHint(request, '$reasoningExtras', odd);
  noteDialect(request, 'openrouter');
}

/** IR reasoning settings as OpenRouter's `reasoning` object. */
export function encodeOpenrouterReasoning(reasoning: ReasoningConfig, request: Request): JsonObject {
  const wire: JsonObject = {};
  if (reasoning.effort !== undefined) wire['effort'] = reasoning.effort;
  if (reasoning.budgetTokens !== undefined && reasoning.budgetTokens > 0) wire['max_tokens'] = reasoning.budgetTokens;
  if (reasoning.includeThoughts === false) wire['exclude'] = true;
  if (reasoning.mode === 'disabled') wire['enabled'] = false;
  else if (Object.keys(wire).length === 0 || extensionsOf(request, FORMAT)?.['$reasoningEnabled'] === true) wire['enabled'] = true;
  const extras = extensionsOf(request, FORMAT)?.['$reasoningExtras'];
  if (isObject(extras)) for (const key in extras) if (!(key in wire)) wire[key] = extras[key];
  return wire;
}
