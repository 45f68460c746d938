/**
 * Every TypeScript snippet in the README type-checks under the project's
 * strictest settings, importing the package by its public names
 * (`interlingua`, `interlingua/core`, `interlingua/anthropic`, …), mapped to
 * the sources that the `exports` of package.json compile from.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../support/fixtures.ts';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

/** `interlingua/<subpath>` → the source file its export compiles from (`./dist/X.js` ← `src/X.ts`). */
function packagePaths(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const file = typeof target === 'object' && target !== null ? (target as { default?: string }).default : undefined;
    if (file === undefined || !file.startsWith('./dist/')) continue;
    const source = join(REPO_ROOT, 'src', file.slice('./dist/'.length).replace(/\.js$/, '.ts'));
    paths[subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`] = [source];
  }
  return paths;
}

const test = suite('README snippets');

test('the README has TypeScript snippets', () => {
  assert.ok(snippets.length >= 5, `found ${snippets.length} ts snippets`);
});

test('every snippet type-checks under strict settings against the package exports', () => {
  const directory = mkdtempSync(join(tmpdir(), 'interlingua-readme-'));
  try {
    const files = snippets.map((snippet, index) => {
      const file = join(directory, `snippet-${index + 1}.mts`);
      writeFileSync(file, `${snippet}\nexport {};\n`);
      return file;
    });
    const config = ts.readConfigFile(join(REPO_ROOT, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, REPO_ROOT);
    const program = ts.createProgram(files, {
      ...options,
      noEmit: true,
      noUnusedLocals: false,
      paths: packagePaths(),
      typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file === undefined || files.includes(diagnostic.file.fileName))
      .map((diagnostic) => {
        const where = diagnostic.file === undefined ? '' : `${diagnostic.file.fileName.slice(directory.length + 1)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: `;
        return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    assert.equal(problems, [], problems.join('\n'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test.run();
