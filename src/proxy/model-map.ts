/** Model mapping: glob patterns (`claude-*`) to upstream model names, first match wins. */
import { compileGlob } from './glob.ts';

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
    return compiled.find((rule) => rule.test(model))?.model ?? model;
  };
}

/** Parse `PATTERN=MODEL` (the CLI's `--model-map`). */
export function parseModelRule(text: string): ModelRule | undefined {
  const index = text.indexOf('=');
  if (index <= 0 || index === text.length - 1) return undefined;
  return { pattern: text.slice(0, index), model: text.slice(index + 1) };
}
