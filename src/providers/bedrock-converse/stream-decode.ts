/**
 * Converse stream events → IR stream events. Bedrock opens a text or
 * reasoning block with its first delta (only tool calls get a
 * `contentBlockStart`), stops with `messageStop`, and ends with `metadata`
 * (usage and metrics). Keys that exist only to be written back (the `"p"`
 * padding, a recorder's missing `messageStart`) ride as shape hints on the
 * IR event they came with. The usual deltas (one text, reasoning text or
 * tool input string) are recognised by their text once one has been parsed
 * (`decodeText`, see `data-template.ts`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
import type { CodecContext } from '../../core/codec.ts';
import { DataTemplates, hasExactKeys, type Slot } from '../../core/data-template.ts';
import type { ApiError, Citation, Extensions, Part } from '../../core/ir.ts';
import type { StreamDecoder, StreamEvent, WireEvent } from '../../core/stream-events.ts';
import { expectNumber, expectObject, expectString, hint, isObject, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { bedrockException } from './error.ts';
import { decodeBedrockCitation } from './citations.ts';
import { BEDROCK } from './shape.ts';
import { decodeBedrockStopReason } from './stop-reason.ts';
import { EVENT_KEYS, exceptionName } from './stream-event.ts';
import { decodeBedrockUsage, readBedrockTier } from './usage.ts';

type OpenKind = 'text' | 'reasoning' | 'tool_call' | 'opaque';

/** The delta kinds whose one string a usual `contentBlockDelta` carries: text, reasoning text, tool input. */
type StringKind = 'text' | 'reasoning' | 'tool_call';

/**
 * A usual `contentBlockDelta`, as a template knows it: its block, the kind
 * of its string, and whether it has Bedrock's `"p"` padding (a second read
 * slot: `decode` keeps it as the `$extra` hint).
 */
interface UsualDelta {
  index: number;
  kind: StringKind;
  padded: boolean;
}

/**
 * `{"contentBlockIndex":<number>,"delta":<delta>}` with maybe a string `p`
 * and no other key, whose delta is one string: `{"text":…}`,
 * `{"reasoningContent":{"text":…}}` or `{"toolUse":{"input":…}}`. What it
 * is, with the string and the padding; else `undefined`.
 */
function usualDelta(value: unknown): { index: number; kind: StringKind; slot: unknown; p: unknown } | undefined {
  if (!isObject(value)) return undefined;
  const padded = value['p'] !== undefined;
  if (padded ? !hasExactKeys(value, 'contentBlockIndex', 'delta', 'p') : !hasExactKeys(value, 'contentBlockIndex', 'delta')) return undefined;
  const index = value['contentBlockIndex'];
  const delta = value['delta'];
  if (typeof index !== 'number' || !isObject(delta)) return undefined;
  const p = value['p'];
  if (hasExactKeys(delta, 'text')) return { index, kind: 'text', slot: delta['text'], p };
  if (hasExactKeys(delta, 'reasoningContent') && hasExactKeys(delta['reasoningContent'], 'text')) return { index, kind: 'reasoning', slot: delta['reasoningContent']['text'], p };
  if (hasExactKeys(delta, 'toolUse') && hasExactKeys(delta['toolUse'], 'input')) return { index, kind: 'tool_call', slot: delta['toolUse']['input'], p };
  return undefined;
}

/** `$extra` (and other hints) as an event's extensions. */
function hints(fields: JsonObject): { extensions?: Extensions } {
  return Object.keys(fields).length === 0 ? {} : { extensions: { 'bedrock-converse': fields } };
}

class BedrockStreamDecoder implements StreamDecoder {
  private started = false;
  private stopped = false;
  private metadataSeen = false;
  private done = false;
  private readonly open = new Map<number, OpenKind>();
  /** Blocks announced by an empty or non-tool `contentBlockStart`, opened by their first delta. */
  private readonly pending = new Map<number, JsonObject>();
  /** The text of each open text block, and the citations streamed into it. */
  private readonly texts = new Map<number, string>();
  private readonly citations = new Map<number, Citation[]>();

  decode(wire: WireEvent): StreamEvent[] {
    if (this.done) return [];
    const name = wire.event;
    const data = expectObject(wire.data, '', BEDROCK);
    const out: StreamEvent[] = [];
    if (name !== undefined && name.endsWith('Exception')) return this.exception(name, data);
    const known = name === undefined ? undefined : EVENT_KEYS[name];
    if (known === undefined) return [];
    const rest = unknownKeys(data, known);
    const extra: JsonObject = rest === undefined ? {} : { $extra: rest };
    if (!this.started && name !== 'messageStart') this.implicitStart(out);
    switch (name) {
      case 'messageStart':
        this.started = true;
        if (typeof data['role'] === 'string' && data['role'] !== 'assistant') extra['$role'] = data['role'];
        out.push({ type: 'start', ...hints(extra) });
        return out;
      case 'contentBlockStart':
        return out.concat(this.blockStart(data, extra));
      case 'contentBlockDelta':
        return out.concat(this.blockDelta(data, extra));
      case 'contentBlockStop': {
        const index = this.index(data);
        if (!this.open.has(index)) out.push(...this.openBlock(index, 'text'));
        this.open.delete(index);
        const end: StreamEvent = { type: 'part_end', candidate: 0, index, ...hints(extra) };
        const citations = this.citations.get(index);
        if (citations !== undefined) {
          end.part = { type: 'text', text: this.texts.get(index) ?? '', citations };
          this.citations.delete(index);
        }
        this.texts.delete(index);
        out.push(end);
        return out;
      }
      case 'messageStop': {
        this.stopped = true;
        const stopReason = decodeBedrockStopReason(expectString(data['stopReason'], '/stopReason', BEDROCK));
        const fields: JsonObject = { ...extra };
        if (data['additionalModelResponseFields'] !== undefined) fields['additionalModelResponseFields'] = data['additionalModelResponseFields'];
        out.push({ type: 'finish', candidate: 0, stopReason, ...hints(fields) });
        return out;
      }
      default:
        return out.concat(this.metadata(data, extra));
    }
  }

  /** A stream that did not open with `messageStart` starts with its first other event. */
  private implicitStart(out: StreamEvent[]): void {
    this.started = true;
    out.push({ type: 'start', extensions: { [BEDROCK]: { $implicit: true } } });
  }

  /** The usual deltas' texts (see `data-template.ts`). */
  private readonly templates = new DataTemplates<UsualDelta>();

  /**
   * A usual `contentBlockDelta` with another string (see {@link usualDelta}):
   * the events `decode` makes of it, without parsing it, its padding (a
   * second slot) as the `$extra` hint `decode` gives every event.
   */
  decodeText(data: string, event: string | undefined): StreamEvent[] | undefined {
    const templates = this.templates;
    const strings = templates.read(data, event);
    if (strings === undefined) return undefined;
    const shape = templates.shape;
    if (this.done) return [];
    const out: StreamEvent[] = [];
    if (!this.started) this.implicitStart(out);
    return this.stringDelta(shape.index, shape.kind, strings[0]!, shape.padded ? { $extra: { p: strings[1]! } } : {}, out);
  }

  /** Learn the text of a usual `contentBlockDelta` just decoded, with its `"p"` padding (when a string) as a second slot. */
  learn(data: string, wire: WireEvent): void {
    if (wire.event !== 'contentBlockDelta' || !this.templates.learning) return;
    const found = usualDelta(wire.data);
    if (found === undefined || typeof found.slot !== 'string') return;
    const p = found.p;
    if (p !== undefined && typeof p !== 'string') return;
    const slots: Slot[] = [{ kind: 'read', value: found.slot }];
    if (p !== undefined) slots.push({ kind: 'read', value: p });
    this.templates.learn(data, wire.event, slots, (value, [probe, padding]) => {
      const usual = usualDelta(value);
      if (usual === undefined || usual.slot !== probe || usual.p !== padding) return undefined;
      return { index: usual.index, kind: usual.kind, padded: padding !== undefined };
    });
  }

  private index(data: JsonObject): number {
    return expectNumber(data['contentBlockIndex'], '/contentBlockIndex', BEDROCK);
  }

  private openBlock(index: number, kind: OpenKind, part?: Part): StreamEvent[] {
    const start = this.pending.get(index);
    this.pending.delete(index);
    this.open.set(index, kind);
    const initial: Part = part ?? (kind === 'reasoning' ? { type: 'reasoning', text: '' } : kind === 'tool_call' ? { type: 'tool_call', id: '', name: '', arguments: undefined, rawArguments: '' } : { type: 'text', text: '' });
    return [{ type: 'part_start', candidate: 0, index, part: initial, ...hints(start === undefined ? {} : { $startEvent: start }) }];
  }

  private blockStart(data: JsonObject, extra: JsonObject): StreamEvent[] {
    const index = this.index(data);
    const start = expectObject(data['start'], '/start', BEDROCK);
    const toolUse = start['toolUse'];
    // A server tool's call (Nova grounding) is the vendor's own business, as in a whole response: kept whole below.
    if (isObject(toolUse) && Object.keys(start).length === 1 && toolUse['type'] !== 'server_tool_use') {
      const part: Part = { type: 'tool_call', id: expectString(toolUse['toolUseId'], '/start/toolUse/toolUseId', BEDROCK), name: expectString(toolUse['name'], '/start/toolUse/name', BEDROCK), arguments: undefined, rawArguments: '' };
      const fields = unknownKeys(toolUse, new Set(['toolUseId', 'name']));
      if (fields !== undefined) part.extensions = { [BEDROCK]: fields };
      this.open.set(index, 'tool_call');
      return [{ type: 'part_start', candidate: 0, index, part, ...hints(extra) }];
    }
    const event: JsonObject = { ...(extra['$extra'] as JsonObject | undefined), start };
    this.pending.set(index, event);
    const kind = Object.keys(start)[0];
    if (kind === undefined) return [];
    return this.openBlock(index, 'opaque', { type: 'opaque', format: BEDROCK, blockType: kind, value: start });
  }

  private blockDelta(data: JsonObject, extra: JsonObject): StreamEvent[] {
    const index = this.index(data);
    const delta = expectObject(data['delta'], '/delta', BEDROCK);
    const out: StreamEvent[] = [];
    const address = { candidate: 0, index };
    const reasoning = delta['reasoningContent'];
    const toolUse = delta['toolUse'];
    if (typeof delta['text'] === 'string' && Object.keys(delta).length === 1) return this.stringDelta(index, 'text', delta['text'], extra, out);
    if (isObject(toolUse) && typeof toolUse['input'] === 'string' && Object.keys(delta).length === 1 && Object.keys(toolUse).length === 1) return this.stringDelta(index, 'tool_call', toolUse['input'], extra, out);
    if (isObject(reasoning) && Object.keys(delta).length === 1 && Object.keys(reasoning).length === 1) {
      if (typeof reasoning['text'] === 'string') return this.stringDelta(index, 'reasoning', reasoning['text'], extra, out);
      if (!this.open.has(index)) out.push(...this.openBlock(index, 'reasoning'));
      if (typeof reasoning['signature'] === 'string') out.push({ type: 'reasoning_signature', ...address, state: { format: BEDROCK, kind: 'signature', value: reasoning['signature'] }, ...hints(extra) });
      else if (typeof reasoning['redactedContent'] === 'string') out.push({ type: 'reasoning_signature', ...address, state: { format: BEDROCK, kind: 'redacted', value: reasoning['redactedContent'] }, ...hints(extra) });
      else out.push({ type: 'reasoning_delta', ...address, text: '', ...hints({ ...extra, $delta: delta }) });
    } else {
      // Citations, server tool results and images: no IR delta of their own; kept whole for Converse.
      const citation = delta['citation'];
      if (!this.open.has(index)) out.push(...this.openBlock(index, citation !== undefined ? 'text' : 'opaque', citation !== undefined ? undefined : { type: 'opaque', format: BEDROCK, blockType: Object.keys(delta)[0] ?? 'delta', value: {} }));
      out.push({ type: 'text_delta', ...address, text: '', ...hints({ ...extra, $delta: delta }) });
      // A text block's citation also goes on its final form (part_end), for the other formats: hinted as already streamed.
      if (citation !== undefined && this.open.get(index) === 'text') {
        const decoded = decodeBedrockCitation(citation, '/delta/citation');
        hint(decoded, BEDROCK, '$streamed', true);
        let list = this.citations.get(index);
        if (list === undefined) this.citations.set(index, (list = []));
        list.push(decoded);
      }
    }
    return out;
  }

  /** A delta of one string of `kind` to block `index` (opening it), after `out`. */
  private stringDelta(index: number, kind: StringKind, value: string, extra: JsonObject, out: StreamEvent[]): StreamEvent[] {
    if (!this.open.has(index)) out.push(...this.openBlock(index, kind));
    if (kind === 'text') {
      out.push({ type: 'text_delta', candidate: 0, index, text: value, ...hints(extra) });
      // Kept for a block's final form, which its citations need (they may come before its text).
      this.texts.set(index, (this.texts.get(index) ?? '') + value);
    }
    else if (kind === 'tool_call') out.push({ type: 'tool_call_delta', candidate: 0, index, arguments: value, ...hints(extra) });
    else out.push({ type: 'reasoning_delta', candidate: 0, index, text: value, ...hints(extra) });
    return out;
  }

  /**
   * `metadata` is a usage event that says "write metadata here" (`$metadata`):
   * Bedrock sends it last, but recorders have it before `messageStop`, and
   * the stream ends only when the bytes do.
   */
  private metadata(data: JsonObject, extra: JsonObject): StreamEvent[] {
    const metadata: JsonObject = { ...(extra['$extra'] as JsonObject | undefined) };
    const usage = data['usage'] === undefined ? {} : decodeBedrockUsage(data['usage'], '/usage');
    // The tier that served the answer is the usage's, as in a whole answer; any other shape rides with the metadata.
    const tierRead = data['usage'] !== undefined && data['serviceTier'] !== undefined && readBedrockTier(usage, data['serviceTier']);
    for (const key of ['metrics', 'trace', 'performanceConfig', 'serviceTier']) if (data[key] !== undefined && !(tierRead && key === 'serviceTier')) metadata[key] = data[key];
    const fields: JsonObject = { $metadata: metadata };
    if (data['usage'] === undefined) fields['$noUsage'] = true;
    this.metadataSeen = true;
    // Metrics (latency) and trace ride with the usage, to be written back where the source had them.
    usage.extensions = { 'bedrock-converse': { ...(usage.extensions?.['bedrock-converse'] ?? {}), ...fields } };
    return [{ type: 'usage', usage }];
  }

  private exception(name: string, data: JsonObject): StreamEvent[] {
    this.done = true;
    const code = exceptionName(name);
    const known = bedrockException(code);
    const message = typeof data['message'] === 'string' ? data['message'] : JSON.stringify(data);
    const error: ApiError = { type: known?.[1] ?? 'server', message, code };
    if (known !== undefined) error.status = known[0];
    const rest = unknownKeys(data, new Set(['message']));
    error.extensions = { [BEDROCK]: { ...(rest ?? {}), $event: name, ...(typeof data['message'] === 'string' ? {} : { $body: data }) } };
    return [{ type: 'error', error }];
  }

  flush(): StreamEvent[] {
    if (this.done) return [];
    this.done = true;
    if (this.stopped || this.metadataSeen) {
      const fields: JsonObject = {};
      if (!this.stopped) fields['$noStop'] = true;
      if (!this.metadataSeen) fields['$noMetadata'] = true;
      return [{ type: 'end', ...hints(fields) }];
    }
    return [{ type: 'error', error: { type: 'server', message: 'the Converse stream ended before its messageStop and metadata events' } }];
  }
}

/** A fresh Converse stream decoder. */
export function createBedrockStreamDecoder(_context: CodecContext): StreamDecoder {
  return new BedrockStreamDecoder();
}

