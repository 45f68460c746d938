/** Model mapping: glob patterns (`claude-*`) to upstream model names, first match wins. */
import { InterlinguaError } from '../core/errors.ts';
import { compileGlob } from './glob.ts';

/**
 * The longest model name the proxy takes (a Bedrock model ARN runs to 2,048
 * characters at most, per the Converse API's `modelId`): a longer one is a
 * typed 400 before any rule sees it.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export const MAX_MODEL_NAME = 2048;

/** One mapping rule. */
export interface ModelRule {
  pattern: string;
  model: string;
}

/** A function mapping a model name through the rules (unchanged when none matches). */
export function createModelMap(rules: readonly ModelRule[] | Record<string, string> | undefined): (model: string | undefined) => string | undefined {
  const list = rules === undefined ? [] : Array.isArray(rules) ? rules : Object.entries(rules).map(([pattern, model]) => ({ pattern, model }));
  const compiled = list.map((rule) => ({ test: compileGlob(rule.pattern), model: rule.model }));
  return (model) => {
    if (model === undefined) return compiled.find((rule) => rule.test(''))?.model;
    if (model.length > MAX_MODEL_NAME) throw new InterlinguaError('invalid_value', `the model name is ${model.length} characters long; model names have at most ${MAX_MODEL_NAME}`, { path: '/model' });
    return compiled.find((rule) => rule.test(model))?.model ?? model;
  };
}

/** Parse `PATTERN=MODEL` (the CLI's `--model-map`). */
export function parseModelRule(text: string): ModelRule | undefined {
  const index = text.indexOf('=');
  if (index <= 0 || index === text.length - 1) return undefined;
  return { pattern: text.slice(0, index), model: text.slice(index + 1) };
}
