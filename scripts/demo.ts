/**
 * `npm run demo`: take one golden conversation (an Anthropic request and its
 * response), convert it into every implemented format, and print each body
 * with the losses the conversion reported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertRequest, convertResponse } from '../src/formats/convert.ts';
import { implementedFormats } from '../src/formats/registry.ts';
import { FORMAT_IDS, type FormatId } from '../src/core/ir.ts';
import type { Loss } from '../src/core/losses.ts';
import { GOLDEN_DIR } from '../test/support/fixtures.ts';

const CASE = join(GOLDEN_DIR, 'cross', 'parallel-tools');
const SOURCE: FormatId = 'anthropic';
const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

function printLosses(losses: readonly Loss[]): void {
  if (losses.length === 0) {
    console.log('losses: none');
    return;
  }
  console.log(`losses (${losses.length}):`);
  for (const loss of losses) console.log(`  - ${loss.severity} ${loss.code} at ${loss.path || '/'}: ${loss.message}`);
}

const formats = implementedFormats();
const missing = FORMAT_IDS.filter((format) => !formats.includes(format));
console.log(bold(`interlingua demo: the "parallel-tools" conversation, ${SOURCE} → every implemented format`));
console.log(`implemented: ${formats.join(', ')}${missing.length > 0 ? `; not yet: ${missing.join(', ')}` : ''}\n`);

for (const kind of ['request', 'response'] as const) {
  const body: unknown = JSON.parse(readFileSync(join(CASE, `${SOURCE}.${kind}.json`), 'utf8'));
  const convert = kind === 'request' ? convertRequest : convertResponse;
  for (const to of formats) {
    const result = convert(body, { from: SOURCE, to, model: 'gemini-2.5-flash' });
    console.log(bold(`── ${kind}: ${SOURCE} → ${to} ${'─'.repeat(Math.max(0, 50 - kind.length - to.length))}`));
    console.log(JSON.stringify(result.body, null, 2));
    printLosses(result.losses);
    if (to !== SOURCE) {
      const back = convert(result.body, { from: to, to: SOURCE, model: 'gemini-2.5-flash' });
      console.log(`back to ${SOURCE}: ${back.losses.length} further loss${back.losses.length === 1 ? '' : 'es'}`);
    }
    console.log();
  }
}
