/**
 * The stores' bench cells run, without judging any time: each store answers
 * the timed set + get with the value it was given, and the report renders a
 * row per cell (so `npm run bench -- --only=stores` cannot rot unnoticed).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runStores, storesSection } from '../../scripts/bench/stores.ts';
import { findRedisServer } from './redis-server.ts';

const test = suite('store: bench cells');

test('every store is timed on both values, Redis where redis-server is installed, and the section lists each cell', async () => {
  const lines: string[] = [];
  const bench = await runStores({ budgetMs: 5, progress: (line) => lines.push(line) });
  const expected = 'path' in findRedisServer() ? ['memory', 'file', 'redis'] : ['memory', 'file'];
  assert.equal([...new Set(bench.cells.map((cell) => cell.store))], expected);
  assert.is(bench.cells.length, expected.length * 2);
  assert.is(bench.skipped.length, 3 - expected.length);
  for (const cell of bench.cells) {
    assert.ok(cell.wallNs > 0 && cell.cpuNs > 0, `${cell.store} ${cell.value} measured`);
    assert.ok(cell.valueChars >= 4 * 1024, 'the value is at least as long as its label says');
  }
  const section = storesSection(bench);
  for (const cell of bench.cells) assert.match(section, `| ${cell.store} | ${cell.value}`);
  assert.is(lines.length, bench.cells.length);
});

test.run();
