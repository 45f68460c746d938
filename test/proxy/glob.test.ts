import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { compileGlob } from '../../src/proxy/glob.ts';
import { createModelMap } from '../../src/proxy/model-map.ts';

/** The reference: the glob as an anchored regular expression in which `.` matches line terminators too. */
function reference(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${escaped}$`, 's');
}

test('globs match as the anchored regular expression does, on generated patterns and names', () => {
  const alphabet = fc.constantFrom('a', 'b', '-', '*', '?', '\n');
  const name = fc.constantFrom('a', 'b', '-', '\n', '\u2028');
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 8 }), fc.array(name, { maxLength: 12 }), (patternChars, nameChars) => {
      const pattern = patternChars.join('');
      const text = nameChars.join('');
      assert.is(compileGlob(pattern)(text), reference(pattern).test(text), `${JSON.stringify(pattern)} against ${JSON.stringify(text)}`);
    }),
    { seed: 36, numRuns: 20_000 },
  );
});

test('a star matches names with line terminators (a catch-all maps gpt-5\\n too)', () => {
  const map = createModelMap({ '*': 'target' });
  assert.is(map('gpt-5\n'), 'target');
  assert.is(map('a\u2028b'), 'target');
  assert.ok(compileGlob('gpt-*')('gpt-\r\n5'));
});

test('a many-star pattern against a 100 KB name answers (a RegExp backtracked for seconds)', () => {
  const name = `gpt-${'-'.repeat(100_000)}x`;
  assert.is(compileGlob('gpt-*-*-*-y')(name), false);
  assert.is(compileGlob('gpt-*-*-*x')(name), true);
});

test('literal patterns and question marks', () => {
  assert.ok(compileGlob('gpt-5')('gpt-5'));
  assert.not.ok(compileGlob('gpt-5')('gpt-5-mini'));
  assert.ok(compileGlob('gpt-?-mini')('gpt-5-mini'));
  assert.not.ok(compileGlob('gpt-?-mini')('gpt-45-mini'));
  assert.ok(compileGlob('a*a')('aa'));
  assert.not.ok(compileGlob('a*a')('a'));
});

test.run();
