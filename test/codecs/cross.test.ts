/**
 * Cross-format goldens: every case under golden/cross is converted between
 * every ordered pair of implemented formats and compared with the expected
 * body and losses. `npm run golden` rewrites the expectations for review.
 */
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { implementedFormats } from '../../src/formats/registry.ts';
import { convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { fixedAnswerIds } from '../../src/core/answer-ids.ts';
import { crossCases, crossExpectedFile, crossLossesFile, crossSource, readJson } from '../support/fixtures.ts';
import { lossKeys } from '../support/compare.ts';

const test = suite('cross');
const formats = implementedFormats();
let pairs = 0;

for (const crossCase of crossCases()) {
  for (const kind of ['request', 'response'] as const) {
    for (const from of formats) {
      const source = crossSource(crossCase, from, kind);
      if (source === undefined) continue;
      for (const to of formats) {
        const expectedFile = crossExpectedFile(crossCase, from, to, kind);
        if (!existsSync(expectedFile)) continue;
        pairs++;
        test(`${crossCase.name} ${kind} ${from} → ${to}`, () => {
          const convert = kind === 'request' ? convertRequest : convertResponse;
          // The goldens are made with fixed ids and time (`scripts/golden.ts`), as a caller that wants reproducible output asks.
          const options = crossCase.model === undefined ? { from, to, ids: fixedAnswerIds } : { from, to, model: crossCase.model, ids: fixedAnswerIds };
          const result = convert(readJson(source), options);
          const lossesFile = crossLossesFile(crossCase, from, to, kind);
          const expectedLosses = existsSync(lossesFile) ? readJson(lossesFile) : [];
          assert.equal(result.body, readJson(expectedFile), `body of ${from} → ${to}`);
          assert.equal(lossKeys(result.losses), expectedLosses, `losses of ${from} → ${to}`);
        });
      }
    }
  }
}

test.after(() => console.log(`\n  cross: ${pairs} conversions between ${formats.join(', ') || 'no formats'}`));
test.run();
