/**
 * A second process on the file store's database: `write PATH PREFIX COUNT`
 * sets COUNT entries, `read PATH KEY…` prints their values as JSON.
 */
import { createFileStore } from '../../src/store/file.ts';

const [mode, path, ...rest] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: file-child.ts write|read PATH …');
const store = createFileStore({ path });
if (mode === 'write') {
  const [prefix = 'child', count = '1'] = rest;
  for (let index = 0; index < Number(count); index += 1) await store.set(`${prefix}:${index}`, `${prefix} value ${index}`);
  console.log(JSON.stringify({ written: Number(count) }));
} else {
  const values: Record<string, string | null> = {};
  for (const key of rest) values[key] = (await store.get(key)) ?? null;
  console.log(JSON.stringify(values));
}
await store.close?.();
