/**
 * Fixture discovery for the tests and the golden-update script: walks
 * `golden/` and `test/corpus/` (a copy of `../shared/corpus`), so adding a
 * case is adding files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FORMAT_IDS, type FormatId } from '../../src/core/ir.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const GOLDEN_DIR = join(REPO_ROOT, 'golden');
/**
 * The corpus of real payloads, copied from `../shared/corpus` into the
 * repository so a fresh clone tests everything; `INTERLINGUA_CORPUS`
 * overrides the path.
 */
export const CORPUS_DIR = process.env['INTERLINGUA_CORPUS'] ?? join(REPO_ROOT, 'test/corpus');

/** The body kinds that fixtures hold as whole JSON files. */
export type FixtureKind = 'request' | 'response' | 'error';
export const FIXTURE_KINDS: readonly FixtureKind[] = ['request', 'response', 'error'];

/** One JSON body to round-trip. */
export interface Fixture {
  format: FormatId;
  kind: FixtureKind;
  /** Path relative to the repository or the corpus, for test names. */
  name: string;
  file: string;
}

export function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function listDirectory(directory: string): string[] {
  return existsSync(directory) ? readdirSync(directory).sort() : [];
}

/**
 * The files of one corpus folder. A missing or empty folder is an error, not
 * zero cases: a suite that silently tests nothing would pass.
 */
export function corpusDirectory(...segments: string[]): string[] {
  const directory = join(CORPUS_DIR, ...segments);
  const files = listDirectory(directory);
  if (files.length === 0) {
    throw new Error(
      `corpus folder ${directory} is missing or empty: the corpus lives in test/corpus ` +
        '(copy the payload folders of ../shared/corpus there, or set INTERLINGUA_CORPUS)',
    );
  }
  return files;
}

/** `golden/<format>/<case>/{request,response,error}.json`. */
export function goldenFixtures(): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const format of FORMAT_IDS) {
    for (const caseName of listDirectory(join(GOLDEN_DIR, format))) {
      for (const kind of FIXTURE_KINDS) {
        const file = join(GOLDEN_DIR, format, caseName, `${kind}.json`);
        if (existsSync(file)) fixtures.push({ format, kind, name: `golden/${format}/${caseName}/${kind}.json`, file });
      }
    }
  }
  return fixtures;
}

/** `corpus/<format>/{request,response,error}/*.json`. */
export function corpusFixtures(): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const format of FORMAT_IDS) {
    for (const kind of FIXTURE_KINDS) {
      const directory = join(CORPUS_DIR, format, kind);
      for (const file of corpusDirectory(format, kind)) {
        if (!file.endsWith('.json')) continue;
        fixtures.push({ format, kind, name: `corpus/${format}/${kind}/${file}`, file: join(directory, file) });
      }
    }
  }
  return fixtures;
}

/** The body of a fixture file. Corpus error files wrap it as `{ status, body }`. */
export function fixtureBody(fixture: Fixture): { body: unknown; status?: number } {
  const value = readJson(fixture.file) as Record<string, unknown>;
  if (fixture.kind === 'error' && fixture.name.startsWith('corpus/')) {
    const status = value['status'];
    return typeof status === 'number' ? { body: value['body'], status } : { body: value['body'] };
  }
  return { body: value };
}

/** One cross-format case: the same conversation in several formats. */
export interface CrossCase {
  name: string;
  directory: string;
  /** Options for every conversion of the case (`model` for Gemini sources). */
  model?: string;
}

export function crossCases(): CrossCase[] {
  const root = join(GOLDEN_DIR, 'cross');
  return listDirectory(root)
    .filter((name) => statSync(join(root, name)).isDirectory())
    .map((name) => {
      const directory = join(root, name);
      const meta = join(directory, 'case.json');
      const model = existsSync(meta) ? (readJson(meta) as { model?: string }).model : undefined;
      return model === undefined ? { name, directory } : { name, directory, model };
    });
}

/** The file of `format`'s version of a cross case, if written. */
export function crossSource(crossCase: CrossCase, format: FormatId, kind: FixtureKind): string | undefined {
  const file = join(crossCase.directory, `${format}.${kind}.json`);
  return existsSync(file) ? file : undefined;
}

/** Where the expected output of `from → to` is: an override under `expected/`, else the target's own file. */
export function crossExpectedFile(crossCase: CrossCase, from: FormatId, to: FormatId, kind: FixtureKind): string {
  const override = join(crossCase.directory, 'expected', `${from}--${to}.${kind}.json`);
  return existsSync(override) ? override : join(crossCase.directory, `${to}.${kind}.json`);
}

/** The expected losses of `from → to`; no file means no losses. */
export function crossLossesFile(crossCase: CrossCase, from: FormatId, to: FormatId, kind: FixtureKind): string {
  return join(crossCase.directory, 'losses', `${from}--${to}.${kind}.json`);
}
