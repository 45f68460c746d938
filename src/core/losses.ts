/**
 * Losses: what a conversion could not carry. Data, not log lines: every
 * conversion returns its losses beside its body, and an empty list is a
 * promise the tests check.
 */
import { InterlinguaError } from './errors.ts';
import type { Extensions, FormatId } from './ir.ts';
import { isObject, pointerSegment, valueAt } from './wire.ts';
import { nestedField, NO_ORIGINS, resolveOne, resolveWalk, type FieldTable, type Walk } from './loss-paths.ts';

export type { FieldTable } from './loss-paths.ts';

/** The closed set of loss codes. */
export type LossCode =
  /** A field the target has no slot for was dropped. */
  | 'dropped_field'
  /** A part (content block) the target cannot carry was dropped. */
  | 'unsupported_part'
  /** A wire block of a type interlingua does not know; kept as an opaque part for a same-format trip. */
  | 'unknown_block'
  /** A value was mapped to the nearest thing the target has (a stop reason, an effort level, a role). */
  | 'approximated'
  /** Content was moved to another place to fit the target (images out of a tool result, a system message into user text). */
  | 'moved_content'
  /** An id the source lacked was synthesised deterministically. */
  | 'synthesised_id'
  /** Opaque reasoning state (signature, encrypted content) of another vendor was dropped. */
  | 'reasoning_state_dropped'
  /** Tool-call arguments were not a JSON object; kept as text. */
  | 'invalid_arguments'
  /** The request refers to state held by the vendor (previous response, conversation) that cannot travel. */
  | 'stateful_reference'
  /** A JSON Schema keyword the target does not support was dropped or rewritten. */
  | 'schema_downgraded'
  /** A value the target requires was filled with a documented default. */
  | 'defaulted';

/** How much a loss matters: `info` changes only form, `warning` drops or changes meaning. */
export type LossSeverity = 'info' | 'warning';

/** One thing a conversion could not carry. */
export interface Loss {
  code: LossCode;
  /**
   * JSON pointer into the body the caller passed in: the source wire body of
   * a conversion (decode and encode losses alike), or the IR handed to
   * `encodeRequest`/`encodeResponse`. It always lands on a value of that
   * body: where the lost value has no place of its own there (a field the
   * source never had), it is the nearest enclosing value, at worst `''`.
   */
  path: string;
  /**
   * For an encode loss of a conversion: the JSON pointer into the IR
   * (`/messages/3/parts/1`) that the encoder reported, from which `path` was
   * translated.
   */
  irPath?: string;
  message: string;
  severity: LossSeverity;
}

/** Extension keys that hold opaque reasoning state (reported as `reasoning_state_dropped`). */
const REASONING_STATE_KEYS: ReadonlySet<string> = new Set(['thoughtSignature', 'thought_signature', 'signature', 'encrypted_content']);

/**
 * Collects losses during one conversion. Codecs receive one and report into it.
 *
 * A collector made with `recordOrigins` also keeps where the decoded IR
 * came from, so that an encoder's loss, reported against an IR pointer,
 * reaches the user as a pointer into the wire body they hold: decoders call
 * {@link LossCollector.origin} for each IR message, part, tool and candidate
 * they build (a side table keyed by IR node, never part of the IR, so no
 * encoder can emit it). Recording costs a table entry per node, so a
 * conversion records only where encoding reports a loss that needs it: it
 * decodes the same body again with a recording collector (or, for a pair
 * that often needs it, records from its first decode) and translates
 * through that IR ({@link LossCollector.sourceOf}). Without `recordOrigins`
 * the origin calls do nothing; a decoder may skip building their pointers
 * when {@link LossCollector.recording} is false. Field origins
 * ({@link LossCollector.originFields}) and anchors
 * ({@link LossCollector.anchor}) are kept either way, so losses on the
 * settings and on anchored parts need no recording decode.
 */
export class LossCollector {
  readonly losses: Loss[] = [];
  /** Whether origins are recorded (see {@link LossCollector.origin}). */
  readonly recording: boolean;
  // Maps, not WeakMaps: a recording collector lives for one translation, and Map lookups are cheaper.
  #origins: Map<object, string> | undefined;
  /** Field origins, recorded whether or not {@link recording}: four slots per entry (see {@link originField}, {@link originFields}). */
  #fields: unknown[] | undefined;
  #root: object | ((irPath: string) => string) | undefined;

  /**
   * `recordOrigins`: see {@link recording}. `listOrigins`: records too, but
   * keeps every origin as {@link anchorItem} keeps an item's when not
   * recording (in a list in decode order, which {@link addAt} reads in
   * order), and makes the map that walks need ({@link sourceOf}) only when
   * one runs: for a body of few nodes whose losses are mostly on its parts
   * (a response), cheaper than a map entry per node. `placeAnchored` (what
   * a conversion uses): a loss that {@link addAt} finds an anchor for is
   * added already placed, with the anchor's pointer as `path` and the
   * reported IR pointer as `irPath`.
   */
  constructor(options?: { recordOrigins?: boolean; listOrigins?: boolean; placeAnchored?: boolean }) {
    this.#listed = options?.listOrigins === true;
    this.recording = this.#listed || options?.recordOrigins === true;
    this.#placeAnchored = options?.placeAnchored === true;
  }

  /** Origins are kept in {@link #items} (see `listOrigins`); {@link #mapped} of them are in {@link #origins} too. */
  readonly #listed: boolean;
  #mapped = 0;

  /** Record a loss. While translating (see {@link translateThrough}), `path` is an IR pointer and is translated. */
  add(code: LossCode, path: string, message: string, severity: LossSeverity = 'warning'): void {
    const root = this.#root;
    if (root === undefined) this.losses.push({ code, path, message, severity });
    else this.losses.push({ code, path: typeof root === 'function' ? root(path) : this.sourceOf(root, path), irPath: path, message, severity });
  }

  /**
   * {@link add}, for a loss about IR `node` itself: `path` is the pointer of
   * `node` or of one of its scalar fields. Where the decoder anchored `node`
   * ({@link anchor}), the conversion points the loss there without walking
   * `path`.
   */
  addAt(node: object, code: LossCode, path: string, message: string, severity: LossSeverity = 'warning'): void {
    const origin = this.#root === undefined ? (this.#itemOrigin(node) ?? this.#origins?.get(node)) : undefined;
    if (origin === undefined) this.add(code, path, message, severity);
    // A conversion's collector places the loss at once: its final shape, with no side table to read it back from.
    else if (this.#placeAnchored) this.losses.push({ code, path: origin, irPath: path, message, severity });
    else {
      this.add(code, path, message, severity);
      (this.#anchored ??= new Map()).set(this.losses.length - 1, origin);
    }
  }

  /**
   * The origin {@link addAt} found for the loss at `index` of {@link losses}.
   * With `placeAnchored`, such a loss is placed already (its `path` is that
   * origin, its `irPath` the reported pointer) and this returns `undefined`.
   */
  anchoredAt(index: number): string | undefined {
    return this.#anchored?.get(index);
  }

  #anchored: Map<number, string> | undefined;
  readonly #placeAnchored: boolean;

  /**
   * Remember that IR `node` was decoded from the wire value at `pointer` (a
   * pointer that exists in the decoded body). Returns `node`, so a decoder can
   * write `return losses.origin(part, path)`. Does nothing unless {@link recording}.
   */
  origin<T extends object>(node: T, pointer: string): T {
    if (!this.recording) return node;
    if (this.#listed) this.#listItem(node, pointer);
    else (this.#origins ??= new Map()).set(node, pointer);
    if (this.#walk !== undefined) this.#walk.root = undefined;
    return node;
  }

  /**
   * Remember where IR `node` came from even when not {@link recording}: for
   * a node that encoders for most targets report a loss against (a tool
   * call or result whose id the decoder synthesised), or one of the
   * settings outside the IR's lists (`usage`). A conversion whose
   * encode losses were reported on anchored nodes ({@link addAt}) needs no
   * recording decode. `pointer` must be the one {@link origin}
   * records for the same node.
   */
  anchor<T extends object>(node: T, pointer: string): T {
    (this.#origins ??= new Map()).set(node, pointer);
    if (this.#walk !== undefined) this.#walk.root = undefined;
    return node;
  }

  /**
   * {@link anchor} for an item of one of the IR's lists (a part, a tool),
   * which only {@link addAt} looks up: unless {@link recording}, kept in a
   * list in decode order rather than a map, since encoders report such
   * items in the same order (a compare at the place after the last one
   * found, where a map entry per item costs more).
   */
  anchorItem<T extends object>(node: T, pointer: string): T {
    if (this.recording && !this.#listed) return this.anchor(node, pointer);
    this.#listItem(node, pointer);
    return node;
  }

  #listItem(node: object, pointer: string): void {
    (this.#items ??= []).push(node, pointer);
    this.#itemMap?.set(node, pointer);
  }

  /**
   * {@link anchorItem} for the `extensions` object of an IR message or part
   * whose decoder kept fields of its own there (unknown keys), which every
   * other target reports as dropped ({@link foreignExtensions}): `pointer`
   * is the one {@link origin} records for that node, and encoders report its
   * extensions at that node's IR pointer. Kept apart from the item anchors
   * (a message's extensions are anchored after its parts but reported before
   * them), in decode order; nothing unless {@link recording} is false.
   */
  anchorExtensions(extensions: object, pointer: string): void {
    if (this.recording && !this.#listed) return;
    (this.#extensionAnchors ??= []).push(extensions, pointer);
  }

  /** The anchors of {@link anchorExtensions}: extensions, pointer, … */
  #extensionAnchors: unknown[] | undefined;
  /** Where {@link #extensionOrigin} looks first: past the last one it found. */
  #nextExtension = 0;

  #extensionOrigin(extensions: object): string | undefined {
    const list = this.#extensionAnchors;
    if (list === undefined) return undefined;
    const start = this.#nextExtension;
    let at = pairIndex(list, extensions, start, list.length);
    if (at === -1) at = pairIndex(list, extensions, 0, start);
    if (at === -1) return undefined;
    this.#nextExtension = at + 2;
    return list[at + 1] as string;
  }

  /** The anchors of {@link anchorItem}: node, pointer, node, pointer, … */
  #items: unknown[] | undefined;
  /** Where {@link #itemOrigin} looks first: past the last item it found. */
  #nextItem = 0;
  /** Lookups of {@link #itemOrigin} that found no anchor at all, before it makes {@link #itemMap} (which answers those at once). */
  #itemMisses = 0;
  /** The anchors of {@link #items} by node (the last anchor of a node wins, as in {@link anchor}), made at the first lookup that finds its node only behind (reported out of order), or at the eighth that finds it nowhere. */
  #itemMap: Map<unknown, string> | undefined;

  #itemOrigin(node: object): string | undefined {
    const items = this.#items;
    if (items === undefined) return undefined;
    if (this.#itemMap !== undefined) return this.#itemMap.get(node);
    const ahead = pairIndex(items, node, this.#nextItem, items.length);
    if (ahead !== -1) {
      this.#nextItem = ahead + 2;
      return items[ahead + 1] as string;
    }
    // Not ahead: a node never anchored (a reasoning part of a source that anchors only its calls) is common and needs no map; one anchored behind is out of order.
    const behind = pairIndex(items, node, 0, this.#nextItem) !== -1;
    if (!behind && ++this.#itemMisses < 8) return undefined;
    const map = (this.#itemMap = new Map());
    for (let at = items.length - 2; at >= 0; at -= 2) if (!map.has(items[at])) map.set(items[at], items[at + 1] as string);
    return map.get(node);
  }

  /**
   * Remember that the scalar field `key` of IR `node` was decoded from the
   * wire value at `pointer` (for fields whose wire place is not under the
   * node's own, like Anthropic's top-level `temperature` for
   * `generation.temperature`). Call it only when that wire value exists.
   * Recorded whether or not {@link recording} (an entry per call, read only
   * when a loss reaches the field): a loss on the request's settings is
   * placed without a recording decode.
   */
  originField(node: object, key: string, pointer: string): void {
    if (this.#walk !== undefined) this.#walk.root = undefined;
    (this.#fields ??= []).push(node, key, pointer, undefined);
  }

  /**
   * {@link originField} for a table of fields at once: for each IR key that
   * `node` holds, the first of its wire keys present in `wire` (the wire
   * object at `base`) is its origin. One call per decoded settings object;
   * the table is read only when a loss path reaches one of its fields
   * ({@link sourceOf}), so it costs one entry, not a pointer per field.
   */
  originFields(node: object | undefined, wire: Readonly<Record<string, unknown>>, base: string, table: FieldTable): void {
    if (node === undefined) return;
    if (this.#walk !== undefined) this.#walk.root = undefined;
    (this.#fields ??= []).push(node, wire, base, table);
  }

  /**
   * From now on, translate the IR pointers of added losses into source
   * pointers, walking them from `root` (the decoded IR) or calling `root`
   * (a stream, which has no IR tree to walk); `undefined` stops translating
   * (a decoder reports source pointers itself).
   */
  translateThrough(root: object | ((irPath: string) => string) | undefined): void {
    this.#root = root;
  }

  /**
   * {@link sourceOf} for one pointer, without keeping the walk for the
   * next: for the few losses on a conversion's settings.
   */
  sourceOfOne(root: object, irPath: string): string {
    // A listing collector's origins are read from its list: the few nodes on one pointer's way cost less than a map of every listed node (unless a walk made that map already).
    const listed = this.#listed && this.#mapped === 0 ? this.#items : undefined;
    if (this.#listed && listed === undefined) this.#mapListed();
    return resolveOne(this.#origins, this.#fields, listed, root, irPath);
  }

  /**
   * The source pointer of an IR pointer: the recorded origin of the deepest
   * IR node on its way, else `''` (the root of the source body). Losses come
   * in IR order, so the walk of the previous pointer is kept level by level
   * and the next one resumes after the segments they share
   * (`/messages/4/parts/0` after `/messages/3/parts/0` takes up at `/messages`).
   */
  sourceOf(root: object, irPath: string): string {
    if (this.#listed) this.#mapListed();
    if (this.#origins === undefined && this.#fields === undefined) return '';
    const walk = (this.#walk ??= { root: undefined, path: '', depth: 0, ends: [], nodes: [], bests: [] });
    return resolveWalk(walk, this.#origins ?? NO_ORIGINS, this.#fields, root, irPath);
  }

  /** The last walk of {@link sourceOf} (made on its first call). */
  #walk: Walk | undefined;

  /** Put the origins listed since the last call into {@link #origins}, for a walk (see `listOrigins`). */
  #mapListed(): void {
    const items = this.#items;
    if (items === undefined || this.#mapped === items.length) return;
    const origins = (this.#origins ??= new Map());
    for (let at = this.#mapped; at < items.length; at += 2) origins.set(items[at] as object, items[at + 1] as string);
    this.#mapped = items.length;
  }

  /**
   * Report every extension key meant for a format other than `target`
   * (except `$`-prefixed shape hints): the target cannot carry them.
   */
  foreignExtensions(extensions: Extensions | undefined, target: FormatId, path: string): void {
    if (extensions === undefined) return;
    // Anchored extensions (see anchorExtensions) are placed at once by a conversion's collector, as addAt places a loss.
    let origin: string | undefined;
    let looked = !this.#placeAnchored || this.#root !== undefined || this.#extensionAnchors === undefined;
    for (const format in extensions) {
      if (format === target) continue;
      const fields = extensions[format as FormatId];
      if (fields === undefined) continue;
      for (const key in fields) {
        if (key.charCodeAt(0) === 36 /* $ */) continue;
        if (!looked) {
          origin = this.#extensionOrigin(extensions);
          looked = true;
        }
        const reasoning = REASONING_STATE_KEYS.has(key);
        const code: LossCode = reasoning ? 'reasoning_state_dropped' : 'dropped_field';
        const message = reasoning
          ? `${format} "${key}" only goes back to ${format}; dropped for ${target}`
          : `${format} field "${key}" has no equivalent in ${target}`;
        if (origin === undefined) this.add(code, path, message);
        else this.losses.push({ code, path: origin, irPath: path, message, severity: 'warning' });
        (this.#fieldKeys ??= []).push(this.losses.length - 1, key);
      }
    }
  }

  /** The losses {@link foreignExtensions} reported, by index into {@link losses}, each with the key it named: index, key, … */
  #fieldKeys: (number | string)[] | undefined;

  /**
   * Once the losses point into the source `body`: point each that
   * {@link foreignExtensions} reported at the field it names (`/store`
   * rather than the whole request) where the object it points at has that
   * key, or where exactly one of its object fields has it (the rest of a
   * nested object kept at the body's level: Gemini's
   * `toolConfig.functionCallingConfig`). A key the decoder named itself
   * and found nowhere leaves the loss at the object.
   */
  pointAtFields(body: unknown): void {
    const keys = this.#fieldKeys;
    if (keys === undefined) return;
    for (let at = 0; at < keys.length; at += 2) {
      const index = keys[at] as number;
      const key = keys[at + 1] as string;
      const loss = this.losses[index];
      if (loss === undefined) continue;
      const node = valueAt(body, loss.path);
      if (!isObject(node)) continue;
      const field = Object.hasOwn(node, key) ? pointerSegment(key) : nestedField(node, key);
      if (field !== undefined) this.losses[index] = { ...loss, path: `${loss.path}/${field}` };
    }
  }
}

/** The index of `node` among the keys of `list` (node, value, node, value, …) from index `from` up to `to`; `-1` when it is not there. */
function pairIndex(list: readonly unknown[], node: object, from: number, to: number): number {
  for (let at = from; at < to; at += 2) if (list[at] === node) return at;
  return -1;
}

/** Throw an `InterlinguaError` listing the losses, for `strict: true`. */
export function throwIfStrict(losses: readonly Loss[], strict: boolean | undefined): void {
  const first = losses[0];
  if (!strict || first === undefined) return;
  const list = losses.map((loss) => `${loss.code} at ${loss.path || '/'}: ${loss.message}`).join('; ');
  throw new InterlinguaError(
    'strict_loss',
    `the conversion would lose information (${losses.length} loss${losses.length === 1 ? '' : 'es'}: ${list}); convert without strict to accept these losses`,
    { path: first.path },
  );
}

/**
 * A stream encoder's report of the foreign fields on a part's deltas, once
 * per part: a source repeats such a field on every piece of the part (a
 * signed Gemini text's `thoughtSignature`), which would be one loss per
 * delta.
 */
export class DeltaFieldReports {
  readonly #reported = new Set<number>();

  /** Report the fields of `extensions` not meant for `target`, at candidate 0's part `index`, unless this part's were reported. */
  report(losses: LossCollector, extensions: Extensions, target: FormatId, index: number): void {
    if (this.#reported.has(index)) return;
    const before = losses.losses.length;
    losses.foreignExtensions(extensions, target, `/candidates/0/message/parts/${index}`);
    if (losses.losses.length > before) this.#reported.add(index);
  }
}
