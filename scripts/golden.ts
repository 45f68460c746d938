/**
 * `npm run golden`: rewrite the expectations of the cross-format goldens.
 * For every case and ordered pair of implemented formats, the conversion's
 * body is compared with the target's own file; where it differs, the output
 * is written to `expected/<from>--<to>.<kind>.json`, and the losses to
 * `losses/<from>--<to>.<kind>.json`. Review the diff: it is the review of the change.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { convertRequest, convertResponse } from '../src/formats/convert.ts';
import { implementedFormats } from '../src/formats/registry.ts';
import { fixedAnswerIds } from '../src/core/answer-ids.ts';
import { crossCases, crossLossesFile, crossSource, readJson, REPO_ROOT } from '../test/support/fixtures.ts';
import { lossKeys } from '../test/support/compare.ts';

function write(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function remove(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

const formats = implementedFormats();
let written = 0;
let removed = 0;
for (const crossCase of crossCases()) {
  for (const kind of ['request', 'response'] as const) {
    for (const from of formats) {
      const source = crossSource(crossCase, from, kind);
      if (source === undefined) continue;
      for (const to of formats) {
        const convert = kind === 'request' ? convertRequest : convertResponse;
        // Fixed ids and time, so the goldens are reproducible.
        const options = crossCase.model === undefined ? { from, to, ids: fixedAnswerIds } : { from, to, model: crossCase.model, ids: fixedAnswerIds };
        let result;
        try {
          result = convert(readJson(source), options);
        } catch (error) {
          console.error(`${crossCase.name} ${kind} ${from} → ${to}: ${(error as Error).message}`);
          process.exitCode = 1;
          continue;
        }
        const own = crossSource(crossCase, to, kind);
        const override = join(crossCase.directory, 'expected', `${from}--${to}.${kind}.json`);
        if (own !== undefined && isDeepStrictEqual(readJson(own), result.body)) {
          if (remove(override)) removed++;
        } else {
          write(override, result.body);
          written++;
        }
        const lossesFile = crossLossesFile(crossCase, from, to, kind);
        const losses = lossKeys(result.losses);
        if (losses.length === 0) {
          if (remove(lossesFile)) removed++;
        } else {
          write(lossesFile, losses);
          written++;
        }
      }
    }
  }
}
console.log(`golden: wrote ${written} expectation files, removed ${removed}, under ${relative(process.cwd(), join(REPO_ROOT, 'golden', 'cross'))}; review with git diff`);
