/**
 * Whole-file inputs → items: a HAR's entries, a JSON array's elements, a
 * VCR cassette's interactions (vcrpy and pytest-recording write YAML, or
 * JSON with the `json` serializer), an OTLP export's spans, a Langfuse API
 * page's `data`, or one JSON object that is one item (a pretty-printed
 * LiteLLM payload or Bedrock invocation log record).
 */
import { isObject } from '../../core/wire.ts';
import { isHar } from '../input-kind.ts';
import type { Item } from '../process.ts';
import type { InputKind } from '../types.ts';
import { isTraceExport, spansOf } from './otlp-spans.ts';

/** A parsed document, or why the file is not one. */
export type ParsedDocument = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * YAML is parsed with `yaml` (eemeli/yaml), loaded only when a YAML file is
 * read. PyYAML (which vcrpy uses) writes YAML 1.1, whose `!!binary` tag
 * holds byte bodies; those come back as `Uint8Array`.
 */
async function parseYaml(text: string): Promise<ParsedDocument> {
  const { parse } = await import('yaml');
  try {
    return { ok: true, value: plainBytes(parse(text, { version: '1.1', maxAliasCount: 1000 }) as unknown, 0) };
  } catch (error) {
    return { ok: false, message: `the file is not YAML (${(error as Error).message})` };
  }
}

/**
 * `yaml` gives `!!binary` as a Node `Buffer`, which a worker receives as a
 * plain `Uint8Array` (and which serialises differently, changing ids): made
 * a plain `Uint8Array` here, so the same item is the same in every thread.
 * Cassette bodies sit a few levels down; deeper values are left as they are.
 */
function plainBytes(value: unknown, depth: number): unknown {
  if (Buffer.isBuffer(value)) return new Uint8Array(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = plainBytes(value[index], depth + 1);
  } else {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = plainBytes(object[key], depth + 1);
  }
  return value;
}

/** The document in a file's bytes, as JSON or (for a YAML cassette) YAML. */
export async function parseDocument(bytes: Buffer, layout: 'document' | 'yaml'): Promise<ParsedDocument> {
  const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  if (layout === 'yaml') return parseYaml(text);
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `the file is not JSON and not JSON lines (${(error as Error).message})` };
  }
}

function* entriesOf(values: readonly unknown[], inputKind?: InputKind): Generator<Item> {
  for (const [entry, value] of values.entries()) {
    yield inputKind === undefined ? { kind: 'entry', entry, value, har: false } : { kind: 'entry', entry, value, har: false, inputKind };
  }
}

/** The items of a parsed document. */
export function* documentItems(document: unknown): Generator<Item> {
  if (isHar(document)) {
    for (const [entry, value] of document.log.entries.entries()) yield { kind: 'entry', entry, value, har: true };
    return;
  }
  if (Array.isArray(document)) return yield* entriesOf(document);
  if (isObject(document) && Array.isArray(document['interactions'])) return yield* entriesOf(document['interactions'], 'vcr-cassette');
  if (isTraceExport(document)) return yield* entriesOf(spansOf(document), 'otlp');
  if (isObject(document) && Array.isArray(document['data'])) return yield* entriesOf(document['data']);
  if (isObject(document)) return yield* entriesOf([document]);
  yield { kind: 'unreadable', message: `the file is one JSON ${document === null ? 'null' : typeof document}, not a HAR, an array of exchanges, a cassette or a trace export` };
}
