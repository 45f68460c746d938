/**
 * Settings whose values each vendor spells from its own list (service
 * tiers): an encoder maps the value through a table of every spelling it
 * knows to its own, and reports what it cannot send as it came. A value the
 * target would refuse is never passed through.
 */
import type { Extensible, FormatId, Usage } from './ir.ts';
import type { LossCollector } from './losses.ts';
import { hint, lookupTable } from './wire.ts';

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

/**
 * Read `value` of `format`'s own setting (a tier its answer names) onto
 * `node`: noted as the format's own (`$ownTier`) when `table` does not list
 * it, so that {@link ownOrMapped} sends it back to the format unchanged.
 */
export function noteOwnTier(node: Extensible, format: FormatId, table: ValueTable, value: string): void {
  if (!listsAsOwn(table, value)) hint(node, format, '$ownTier', true);
}

/** `value` for `format`: as it is when {@link noteOwnTier} noted it as the format's own, else mapped by {@link mapValue}. */
export function ownOrMapped(node: Extensible, format: FormatId, value: string, table: ValueTable, losses: LossCollector, path: string, what: string, target: string): string | undefined {
  return node.extensions?.[format]?.['$ownTier'] === true ? value : mapValue(value, table, losses, path, what, target);
}

/** Set the tier an answer of `format` names (`Usage.serviceTier`, the one that served it) on its usage, noted as the format's own when `table` does not list it. */
export function readAnswerTier(usage: Usage, format: FormatId, table: ValueTable, tier: string): void {
  usage.serviceTier = tier;
  noteOwnTier(usage, format, table, tier);
}

/** The tier of `usage` as `format` (`target` in messages) names it in an answer, or `undefined` (reported) when it has none such; loss at `/usage/serviceTier`. */
export function answerTierFor(usage: Usage | undefined, format: FormatId, table: ValueTable, losses: LossCollector, target: string): string | undefined {
  const tier = usage?.serviceTier;
  if (usage === undefined || tier === undefined) return undefined;
  return ownOrMapped(usage, format, tier, table, losses, '/usage/serviceTier', 'service tier', target);
}
