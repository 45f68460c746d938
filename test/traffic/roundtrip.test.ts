/**
 * Same-format round trips: every golden and corpus body decodes and encodes
 * back to a deep-equal body with no losses, for every implemented codec.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { implementedFormats } from '../../src/formats/registry.ts';
import { convertError, convertRequest, convertResponse } from '../../src/formats/convert.ts';
import { corpusFixtures, fixtureBody, goldenFixtures, type Fixture } from '../support/fixtures.ts';
import { lossKeys } from '../support/compare.ts';

const CONVERT = { request: convertRequest, response: convertResponse, error: convertError } as const;

function roundTripSuite(title: string, fixtures: Fixture[]): void {
  const implemented = new Set(implementedFormats());
  const test = suite(title);
  const counts = new Map<string, number>();
  for (const fixture of fixtures) {
    if (!implemented.has(fixture.format)) continue;
    const key = `${fixture.format} ${fixture.kind}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    test(fixture.name, () => {
      const { body } = fixtureBody(fixture);
      const result = CONVERT[fixture.kind](body, { from: fixture.format, to: fixture.format });
      assert.equal(lossKeys(result.losses), [], 'a same-format round trip reports no losses');
      assert.equal(result.body, body);
    });
  }
  test.after(() => {
    const summary = [...counts].map(([key, count]) => `${count} ${key}`).join(', ');
    console.log(`\n  ${title}: ${summary || 'no fixtures for the implemented codecs'} round-tripped`);
  });
  test.run();
}

roundTripSuite('golden', goldenFixtures());
roundTripSuite('corpus', corpusFixtures());
