/**
 * The house's layers, read from the source's own imports: core knows no
 * provider and no shell, a provider knows only core, no import circle runs
 * anywhere in `src`, and no source file is longer than a reader holds at
 * once. The picture is in docs/DESIGN.md ("Layers"); this test keeps it
 * true. Every `import`, `import type`, `export … from` and `import('…')`
 * with a literal specifier counts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const test = suite('layers');
const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 450;

/** Every .ts file under `dir`, as paths relative to the repository root. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) files.push(relative(ROOT, path));
  }
  return files.sort();
}

/** The module specifiers a file imports or re-exports from. */
function specifiers(text: string, file: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument !== undefined && ts.isStringLiteralLike(argument)) found.push(argument.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const FILES = sourceFiles(SRC);
const TEXTS = new Map(FILES.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

/** Each source file's imports of other files in `src`, resolved to repository paths. */
const GRAPH = new Map<string, string[]>(
  FILES.map((file) => {
    const targets = specifiers(TEXTS.get(file) ?? '', file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => relative(ROOT, resolve(dirname(join(ROOT, file)), specifier)))
      .filter((target) => target.startsWith('src/'));
    return [file, [...new Set(targets)]];
  }),
);

/** The layer of a file: `core`, `providers/<name>`, `formats`, or the shell's folder. */
function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts[1] === 'providers') return `providers/${parts[2] ?? ''}`;
  return parts.length > 2 ? (parts[1] ?? '') : 'root';
}

function offences(allowed: (from: string, to: string) => boolean, under: (layer: string) => boolean): string[] {
  const found: string[] = [];
  for (const [file, targets] of GRAPH) {
    const from = layerOf(file);
    if (!under(from)) continue;
    for (const target of targets) if (!allowed(from, layerOf(target))) found.push(`${file} → ${target}`);
  }
  return found;
}

test('nothing under src/core imports a layer above it', () => {
  const found = offences((_from, to) => to === 'core', (layer) => layer === 'core');
  assert.equal(found, [], `core imports above itself:\n  ${found.join('\n  ')}`);
});

test('a provider imports only core and its own folder', () => {
  const found = offences((from, to) => to === 'core' || to === from, (layer) => layer.startsWith('providers/'));
  assert.equal(found, [], `provider imports outside core and itself:\n  ${found.join('\n  ')}`);
});

test('the format table imports only core and the providers', () => {
  const found = offences((_from, to) => to === 'core' || to === 'formats' || to.startsWith('providers/'), (layer) => layer === 'formats');
  assert.equal(found, [], `formats imports a shell:\n  ${found.join('\n  ')}`);
});

/** Every import circle, each once, as the files around it (Tarjan's strongly connected components, then one cycle per component). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of GRAPH.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfLoop = (GRAPH.get(file) ?? []).includes(file);
    if (component.length > 1 || selfLoop) components.push(component);
  };
  for (const file of FILES) if (!index.has(file)) connect(file);
  return components.map((component) => circleIn(new Set(component)));
}

/** One circle through a strongly connected component: a breadth-first path from its first file back to itself. */
function circleIn(component: Set<string>): string[] {
  const start = [...component].sort()[0] ?? '';
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() ?? '';
    for (const target of GRAPH.get(file) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0] ?? '') ?? start);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

test('no import circle in src', () => {
  const found = cycles().map((circle) => circle.join(' → '));
  assert.equal(found, [], `import circles:\n  ${found.join('\n  ')}`);
});

test(`no file under src is over ${MAX_LINES} lines`, () => {
  const found = FILES.map((file) => ({ file, lines: (TEXTS.get(file) ?? '').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file} (${lines})`);
  assert.equal(found, [], `files over ${MAX_LINES} lines:\n  ${found.join('\n  ')}`);
});

test('the graph is read: core files import core files, and src/index.ts reaches the format table', () => {
  assert.ok(FILES.length > 100, `only ${FILES.length} files found under src`);
  assert.ok((GRAPH.get('src/core/engine.ts') ?? []).includes('src/core/codec.ts'), 'engine.ts → codec.ts not seen (import type must count)');
  assert.ok(specifiers("export { a } from './a.ts';\nimport type { B } from './b.ts';\nconst c = await import('./c.ts');\n", 'x.ts').join() === './a.ts,./b.ts,./c.ts');
});

test.run();
