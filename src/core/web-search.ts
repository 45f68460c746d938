/**
 * The neutral web search tool (`WebSearchTool`): the approximate user
 * location as Anthropic and OpenAI spell it, and the report of the settings
 * a vendor's search has no field for. The codecs read and write their own
 * tool shapes; a shape with anything these do not hold stays the codec's
 * opaque tool, so it goes back to its own format as it came.
 */
import type { UserLocation, WebSearchTool } from './ir.ts';
import type { LossCollector } from './losses.ts';
import { isObject, type JsonObject } from './wire.ts';

/** The location fields, in the order the vendors document them. */
const LOCATION_KEYS = ['city', 'region', 'country', 'timezone'] as const;

/**
 * An approximate location as IR: `{type: "approximate", city?, region?,
 * country?, timezone?}` (Anthropic, OpenAI Responses), or with the fields
 * under `approximate` (`nested`: OpenAI Chat's `web_search_options`);
 * `undefined` for any other shape.
 */
export function decodeUserLocation(value: unknown, nested: boolean): UserLocation | undefined {
  if (!isObject(value) || value['type'] !== 'approximate') return undefined;
  const fields = nested ? value['approximate'] : value;
  if (!isObject(fields) || (nested && Object.keys(value).length !== 2)) return undefined;
  const location: UserLocation = {};
  for (const key in fields) {
    if (!nested && key === 'type') continue;
    const entry = fields[key];
    if (typeof entry !== 'string' || !(LOCATION_KEYS as readonly string[]).includes(key)) return undefined;
    location[key as (typeof LOCATION_KEYS)[number]] = entry;
  }
  return location;
}

/** Set `tool.userLocation` from a flat `user_location` (Anthropic, Responses); false for a shape the IR does not hold. */
export function readUserLocation(tool: WebSearchTool, value: unknown): boolean {
  const location = decodeUserLocation(value, false);
  if (location === undefined) return false;
  tool.userLocation = location;
  return true;
}

/** A list of domains: an array of strings, else `undefined`. */
export function domainList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
}

/** An IR location in the spelling {@link decodeUserLocation} reads. */
export function encodeUserLocation(location: UserLocation, nested: boolean): JsonObject {
  const fields: JsonObject = {};
  for (const key of LOCATION_KEYS) if (location[key] !== undefined) fields[key] = location[key];
  return nested ? { type: 'approximate', approximate: fields } : { type: 'approximate', ...fields };
}

/** The settings of a web search tool a target may lack. */
export type WebSearchSetting = 'allowedDomains' | 'blockedDomains' | 'userLocation' | 'maxUses' | 'contextSize';

/** What each setting is, for loss messages, and whether dropping it changes the results (else only cost or locale). */
const SETTINGS: Readonly<Record<WebSearchSetting, readonly [string, boolean]>> = {
  allowedDomains: ['a list of domains to search only', true],
  blockedDomains: ['a list of domains never to search', true],
  userLocation: ['a user location', false],
  maxUses: ['a limit on the number of searches', false],
  contextSize: ['a search context size', false],
};

/** Report the settings of `tool` (at IR pointer `path`) that `target`'s web search has no field for: every one not in `carries`. */
export function reportWebSearchSettings(tool: WebSearchTool, carries: readonly WebSearchSetting[], losses: LossCollector, path: string, target: string): void {
  for (const key in SETTINGS) {
    const setting = key as WebSearchSetting;
    if (tool[setting] === undefined || carries.includes(setting)) continue;
    const [what, meaning] = SETTINGS[setting];
    losses.add('dropped_field', `${path}/${setting}`, `${target}'s web search takes no ${what}; dropped`, meaning ? 'warning' : 'info');
  }
}
