/**
 * Settings whose values each vendor spells from its own list (service
 * tiers): an encoder maps the value through a table of every spelling it
 * knows to its own, and reports what it cannot send as it came. A value the
 * target would refuse is never passed through.
 */
import type { LossCollector } from './losses.ts';
import { lookupTable } from './wire.ts';

/** Per known spelling: the target's own value, and whether it means the same (`false`: the nearest, reported as `approximated`). */
export type ValueTable = Readonly<Record<string, readonly [string, boolean]>>;

/** A {@link ValueTable} without a prototype (a wire value such as "constructor" finds nothing). */
export function valueTable(entries: Record<string, readonly [string, boolean]>): ValueTable {
  return lookupTable(entries);
}

/**
 * Whether `table` lists `value` as its format's own (sent as it is). A
 * decoder marks a value of its own format that it does not list, so its
 * encoder sends it back unchanged instead of dropping it.
 */
export function listsAsOwn(table: ValueTable, value: string): boolean {
  return table[value]?.[0] === value;
}

/**
 * `value` in the target's spelling, or `undefined` (dropped, with a loss)
 * when the table has no entry for it. `what` names the setting in the
 * messages (`service tier`), `target` the format (`Gemini`).
 */
export function mapValue(value: string, table: ValueTable, losses: LossCollector, path: string, what: string, target: string): string | undefined {
  const mapped = table[value];
  if (mapped === undefined) {
    losses.add('dropped_field', path, `${what} "${value}" has no ${target} equivalent (${ownValues(table)}); dropped`);
    return undefined;
  }
  if (!mapped[1]) losses.add('approximated', path, `${what} "${value}" sent as ${target} "${mapped[0]}"`);
  return mapped[0];
}

/** The target's own values a table sends, in the order first listed. */
function ownValues(table: ValueTable): string {
  const values: string[] = [];
  for (const key in table) {
    const value = (table[key] as readonly [string, boolean])[0];
    if (!values.includes(value)) values.push(value);
  }
  return values.join(', ');
}
