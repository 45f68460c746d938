/**
 * OTLP/JSON attributes → plain values. A span's `attributes` (and each
 * event's) are `[{key, value: AnyValue}]`, `AnyValue` being one of
 * `stringValue`, `boolValue`, `intValue` (a string in proto3 JSON, since it
 * is 64-bit), `doubleValue`, `arrayValue: {values}`, `kvlistValue: {values:
 * [{key, value}]}` or `bytesValue` (base64). Each value keeps the JSON
 * pointer of where it stood, for errors and losses.
 * @see https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/common/v1/common.proto
 */
import { isObject, pointerSegment } from '../../core/wire.ts';

/** One attribute's value and the pointer of its `AnyValue` in the span. */
export interface Attribute {
  value: unknown;
  path: string;
  /** True when the value was a string (JSON text, for the GenAI message attributes). */
  text: boolean;
}

/** An `AnyValue` as a plain value. */
export function plainValue(value: unknown): unknown {
  if (!isObject(value)) return undefined;
  if ('stringValue' in value) return value['stringValue'];
  if ('boolValue' in value) return value['boolValue'];
  if ('intValue' in value) return Number(value['intValue']);
  if ('doubleValue' in value) return Number(value['doubleValue']);
  if ('bytesValue' in value) return value['bytesValue'];
  const array = value['arrayValue'];
  if (isObject(array)) return Array.isArray(array['values']) ? array['values'].map(plainValue) : [];
  const list = value['kvlistValue'];
  if (isObject(list)) {
    const object: Record<string, unknown> = {};
    if (Array.isArray(list['values'])) for (const entry of list['values']) if (isObject(entry) && typeof entry['key'] === 'string') object[entry['key']] = plainValue(entry['value']);
    return object;
  }
  return undefined;
}

/** The attributes of a span or event by key, with the pointer of each under `base` (`''` for a span, `/events/2` for an event). */
export function attributesOf(holder: unknown, base: string, into: Map<string, Attribute> = new Map()): Map<string, Attribute> {
  const list = isObject(holder) ? holder['attributes'] : undefined;
  if (!Array.isArray(list)) return into;
  for (const [index, entry] of list.entries()) {
    if (!isObject(entry) || typeof entry['key'] !== 'string' || into.has(entry['key'])) continue;
    const value = plainValue(entry['value']);
    if (value === undefined) continue;
    const kind = isObject(entry['value']) ? Object.keys(entry['value'])[0] ?? 'value' : 'value';
    into.set(entry['key'], { value, path: `${base}/attributes/${index}/value/${pointerSegment(kind)}`, text: typeof value === 'string' });
  }
  return into;
}

/**
 * Attributes flattened by index under `prefix` (`gen_ai.prompt.` →
 * `gen_ai.prompt.0.role`, `gen_ai.prompt.0.tool_calls.1.name`): a list of
 * objects whose keys are the rest of each name, in index order.
 */
export function indexed(attributes: ReadonlyMap<string, Attribute>, prefix: string): Map<string, unknown>[] {
  const rows = new Map<number, Map<string, unknown>>();
  for (const [key, attribute] of attributes) {
    if (!key.startsWith(prefix)) continue;
    const match = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length));
    if (match === null) continue;
    const index = Number(match[1]);
    let row = rows.get(index);
    if (row === undefined) rows.set(index, (row = new Map()));
    row.set(match[2] as string, attribute.value);
  }
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map((entry) => entry[1]);
}

/** The sub-rows of a row (`tool_calls.` → `tool_calls.0.name` …), as {@link indexed} makes them. */
export function subRows(row: ReadonlyMap<string, unknown>, prefix: string): Map<string, unknown>[] {
  const fake = new Map<string, Attribute>();
  for (const [key, value] of row) fake.set(key, { value, path: '', text: false });
  return indexed(fake, prefix);
}

/** A string value, or `undefined`. */
export function stringAt(row: ReadonlyMap<string, unknown> | undefined, key: string): string | undefined {
  const value = row?.get(key);
  return typeof value === 'string' ? value : undefined;
}
