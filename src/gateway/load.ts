/**
 * Load a gateway configuration file (Node): YAML or JSON (JSON is read by
 * the same YAML 1.2 parser, so its mistakes have lines too), `${VAR}` in
 * string values read from the environment, then the schema. Every mistake
 * found is refused together, each with the file, its line and column, the
 * path, and what to write instead.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { validateGatewayConfig, type ConfigProblem } from './schema.ts';
import type { GatewayConfig } from './config.ts';

/** A configuration refused at start-up: every mistake, one per line of the message. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly file: string,
    readonly problems: readonly { line?: number; column?: number; path: string; message: string }[],
  ) {
    super(`${file} has ${problems.length === 1 ? 'a mistake' : `${problems.length} mistakes`}:\n${problems.map((problem) => `  ${file}${problem.line === undefined ? '' : `:${problem.line}:${problem.column ?? 1}`}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`).join('\n')}`);
  }
}

/** `routes[0].targets[1].upstream`. */
export function pathText(path: readonly (string | number)[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : /^[A-Za-z_][\w-]*$/.test(key) ? `${out === '' ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`;
  return out;
}

const VARIABLE = /\$\$|\$\{([^}]*)\}/g;

/** Replace `${VAR}` in every string of `value` (`$$` is a `$`); an unset or malformed reference is a problem at its path. */
function substitute(value: unknown, env: Record<string, string | undefined>, path: (string | number)[], problems: ConfigProblem[]): unknown {
  if (typeof value === 'string') {
    if (!value.includes('$')) return value;
    return value.replace(VARIABLE, (whole, name: string | undefined) => {
      if (whole === '$$') return '$';
      if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        problems.push({ path, message: `"${whole}" is not an environment variable reference; write \${NAME} with letters, digits and "_" (and $$ for a "$")` });
        return whole;
      }
      const found = env[name];
      if (found === undefined || found === '') {
        problems.push({ path, message: `the environment variable ${name} is not set; set it (keys never sit in the file), or remove the reference` });
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substitute(item, env, [...path, index], problems));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substitute(item, env, [...path, key], problems);
    return out;
  }
  return value;
}

/** Where in the file the value at `path` sits (its nearest ancestor that exists). */
function positionOf(document: Document, lines: LineCounter, path: readonly (string | number)[]): { line: number; column: number } | undefined {
  for (let length = path.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range !== undefined) {
      const { line, col } = lines.linePos(range[0]);
      return { line, column: col };
    }
  }
  return undefined;
}

/** Parse and check a configuration text; `file` names it in messages. */
export function parseGatewayConfig(text: string, file: string, env: Record<string, string | undefined>): GatewayConfig {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new ConfigError(
      file,
      document.errors.map((error) => {
        const at = error.linePos?.[0];
        const message = error.code === 'DUPLICATE_KEY' ? 'a key appears twice in one mapping; keep one' : `${(error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}; the file must be YAML or JSON`;
        return { ...(at === undefined ? {} : { line: at.line, column: at.col }), path: '', message };
      }),
    );
  }
  const problems: ConfigProblem[] = [];
  const data = substitute(document.toJS(), env, [], problems);
  if (problems.length === 0) {
    const result = validateGatewayConfig(data);
    problems.push(...result.problems);
    if (result.config !== undefined) return result.config;
  }
  throw new ConfigError(
    file,
    problems.map((problem) => ({ ...positionOf(document, lines, problem.path), path: pathText(problem.path), message: problem.message })),
  );
}

/** Read, parse and check the configuration file `file`. */
export function loadGatewayConfig(file: string, env: Record<string, string | undefined> = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [{ path: '', message: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` }]);
  }
  return parseGatewayConfig(text, file, env);
}
