/**
 * IR stream events → Converse stream events: `messageStart`, a
 * `contentBlockStart` for tool calls only, `contentBlockDelta`s,
 * `contentBlockStop`, `messageStop`, then `metadata` with the usage (which
 * Bedrock sends last, so usage is held until the end). An IR error becomes
 * the matching exception event, which the framing writes as an exception
 * frame.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Citation, Extensible, Part, Usage } from '../../core/ir.ts';
import { DeltaFieldReports, type LossCollector } from '../../core/losses.ts';
import { argumentsAsText } from '../../core/tools.ts';
import { CUSTOM_INPUT_KEY, CUSTOM_JSON_CLOSING, customArgumentsPiece } from '../../core/custom-tools.ts';
import type { SseMessage, StreamEncoder, StreamEvent } from '../../core/stream-events.ts';
import { isObject, jsonString, type JsonObject } from '../../core/wire.ts';
import { BEDROCK } from './shape.ts';
import { encodeBedrockCitation } from './citations.ts';
import { encodeBedrockStopReason } from './stop-reason.ts';
import { streamExceptionFor } from './stream-event.ts';
import { bedrockTier, encodeBedrockUsage } from './usage.ts';
import { reportModalityBreakdown } from '../../core/usage.ts';

function fieldsOf(node: Extensible): JsonObject | undefined {
  return node.extensions?.[BEDROCK];
}

/** The `$extra` keys of an event, to spread into its payload. */
function extra(node: Extensible): JsonObject {
  const value = fieldsOf(node)?.['$extra'];
  return isObject(value) ? value : {};
}

/** Real (non-hint) Bedrock fields of a node. */
function realFields(node: Extensible): JsonObject {
  const out: JsonObject = {};
  const fields = fieldsOf(node);
  if (fields !== undefined) for (const key in fields) if (key.charCodeAt(0) !== 36) out[key] = fields[key];
  return out;
}

class BedrockStreamEncoder implements StreamEncoder {
  private started = false;
  private stopped = false;
  private ended = false;
  private metadataWritten = false;
  private summaryDropped = false;
  private usage: Usage | undefined;
  /** Open blocks by IR index: what kind, and whether any content went out yet. */
  private readonly open = new Map<number, { part: Part; sent: boolean; text: string }>();
  private readonly skipped = new Set<number>();

  constructor(private readonly losses: LossCollector) {}

  private message(event: string, payload: JsonObject): SseMessage {
    return { event, data: JSON.stringify(payload) };
  }

  private readonly deltaFields = new DeltaFieldReports();

  private ensureStarted(out: SseMessage[]): void {
    if (this.started) return;
    this.started = true;
    out.push(this.message('messageStart', { role: 'assistant' }));
  }

  encode(event: StreamEvent): SseMessage[] {
    if (this.ended) return [];
    const out: SseMessage[] = [];
    switch (event.type) {
      case 'start':
        this.losses.foreignExtensions(event.extensions, BEDROCK, '');
        if (this.started) return out;
        this.started = true;
        if (fieldsOf(event)?.['$implicit'] === true) return out;
        out.push(this.message('messageStart', { role: typeof fieldsOf(event)?.['$role'] === 'string' ? fieldsOf(event)?.['$role'] : 'assistant', ...extra(event) } as JsonObject));
        return out;
      case 'part_start':
        this.ensureStarted(out);
        if (event.candidate !== 0) return this.skip(event.index, event.candidate, out);
        return this.partStart(event.index, event.part, event, out);
      case 'text_delta': {
        const open = this.open.get(event.index);
        if (open === undefined || event.candidate !== 0) return out;
        if (event.extensions !== undefined) this.deltaFields.report(this.losses, event.extensions, BEDROCK, event.index);
        const delta = fieldsOf(event)?.['$delta'];
        if (isObject(delta)) out.push(this.delta(event.index, delta, event));
        else if (event.text !== '' || open.part.type === 'text') {
          out.push(this.textualDelta(event.index, 'text', undefined, event.text, event));
          open.text += event.text;
        }
        open.sent = true;
        return out;
      }
      case 'reasoning_delta': {
        const open = this.open.get(event.index);
        if (open === undefined || event.candidate !== 0) return out;
        if (event.extensions !== undefined) this.deltaFields.report(this.losses, event.extensions, BEDROCK, event.index);
        if (event.summaryIndex !== undefined) {
          if (!this.summaryDropped) this.losses.add('dropped_field', `/candidates/0/message/parts/${event.index}/summary`, 'Converse reasoning has no summaries; the reasoning summary was dropped');
          this.summaryDropped = true;
          return out;
        }
        const delta = fieldsOf(event)?.['$delta'];
        out.push(isObject(delta) ? this.delta(event.index, delta, event) : this.textualDelta(event.index, 'reasoningContent', 'text', event.text, event));
        if (!isObject(delta)) open.text += event.text;
        open.sent = true;
        return out;
      }
      case 'reasoning_signature': {
        const open = this.open.get(event.index);
        if (open === undefined || event.candidate !== 0) return out;
        if (event.state.format !== BEDROCK) {
          this.losses.add('reasoning_state_dropped', `/candidates/0/message/parts/${event.index}`, `${event.state.format} reasoning state only goes back to ${event.state.format}; dropped for Converse`);
          return out;
        }
        const key = event.state.kind === 'redacted' ? 'redactedContent' : 'signature';
        out.push(this.delta(event.index, { reasoningContent: { [key]: event.state.value } }, event));
        open.sent = true;
        return out;
      }
      case 'tool_call_delta': {
        const open = this.open.get(event.index);
        if (open === undefined || event.candidate !== 0) return out;
        // A custom call's text goes as the `input` string of JSON arguments, escaped piece by piece.
        const text = open.part.type === 'tool_call' && open.part.kind === 'custom' ? customArgumentsPiece(event.arguments, !open.sent) : event.arguments;
        out.push(this.textualDelta(event.index, 'toolUse', 'input', text, event));
        open.text += text;
        open.sent = true;
        return out;
      }
      case 'part_end':
        return this.partEnd(event.index, event.part, event, out);
      case 'usage': {
        this.losses.foreignExtensions(event.extensions, BEDROCK, '/usage');
        reportModalityBreakdown(event.usage, this.losses, '/usage', 'Converse');
        this.usage = { ...this.usage, ...event.usage };
        const metadata = fieldsOf(event.usage)?.['$metadata'];
        if (isObject(metadata)) {
          this.ensureStarted(out);
          out.push(this.metadata(fieldsOf(event.usage)?.['$noUsage'] === true, metadata));
        }
        return out;
      }
      case 'finish':
        if (event.candidate !== 0) return out;
        this.losses.foreignExtensions(event.extensions, BEDROCK, '/candidates/0');
        this.ensureStarted(out);
        this.stopped = true;
        out.push(this.message('messageStop', { stopReason: encodeBedrockStopReason(event.stopReason, this.losses, `/candidates/${event.candidate}/stopReason`), ...realFields(event), ...extra(event) }));
        return out;
      case 'error': {
        this.ended = true;
        const fields = fieldsOf(event.error);
        const name = typeof fields?.['$event'] === 'string' ? fields['$event'] : streamExceptionFor(event.error);
        const body = isObject(fields?.['$body']) ? fields['$body'] : { message: event.error.message, ...realFields(event.error) };
        out.push(this.message(name, body));
        return out;
      }
      case 'end':
        this.losses.foreignExtensions(event.extensions, BEDROCK, '');
        return this.end(event, out);
      default:
        return out;
    }
  }

  private delta(index: number, delta: JsonObject, event: Extensible): SseMessage {
    return this.message('contentBlockDelta', { contentBlockIndex: this.wire(index), delta, ...extra(event) });
  }

  /**
   * A delta of one string (`{"text":…}`, `{"reasoningContent":{"text":…}}`, `{"toolUse":{"input":…}}`),
   * written as {@link delta} would write it, without building the objects when the event has no `$extra`.
   */
  private textualDelta(index: number, outer: 'text' | 'reasoningContent' | 'toolUse', inner: 'text' | 'input' | undefined, value: string, event: Extensible): SseMessage {
    if (isObject(fieldsOf(event)?.['$extra'])) return this.delta(index, inner === undefined ? { [outer]: value } : { [outer]: { [inner]: value } }, event);
    const body = inner === undefined ? `{"${outer}":${jsonString(value)}}` : `{"${outer}":{"${inner}":${jsonString(value)}}}`;
    return { event: 'contentBlockDelta', data: `{"contentBlockIndex":${this.wire(index)},"delta":${body}}` };
  }

  /** The wire index of an IR part: parts Converse cannot carry take no block, so later blocks move up (Converse indexes are dense). */
  private wire(index: number): number {
    let below = 0;
    for (const skipped of this.skipped) if (skipped < index) below++;
    return index - below;
  }

  private skip(index: number, candidate: number, out: SseMessage[]): SseMessage[] {
    if (candidate === 0) this.skipped.add(index);
    return out;
  }

  private partStart(index: number, part: Part, event: Extensible, out: SseMessage[]): SseMessage[] {
    const startEvent = fieldsOf(event)?.['$startEvent'];
    if (isObject(startEvent)) {
      out.push(this.message('contentBlockStart', { contentBlockIndex: this.wire(index), ...startEvent }));
      this.open.set(index, { part, sent: false, text: '' });
      return out;
    }
    switch (part.type) {
      case 'tool_call':
        if (part.syntheticId === true) this.losses.add('synthesised_id', `/candidates/0/message/parts/${index}/id`, `tool call "${part.name}" had no id; sent the synthesised toolUseId "${part.id}"`, 'info');
        out.push(this.message('contentBlockStart', { contentBlockIndex: this.wire(index), start: { toolUse: { toolUseId: part.id, name: part.name, ...realFields(part) } }, ...extra(event) }));
        this.open.set(index, { part, sent: false, text: '' });
        return out;
      case 'text':
      case 'refusal':
        this.open.set(index, { part, sent: part.text !== '', text: part.text });
        if (part.text !== '') out.push(this.delta(index, { text: part.text }, {}));
        return out;
      case 'reasoning':
        this.open.set(index, { part, sent: part.text !== '', text: part.text });
        if (part.text !== '') out.push(this.delta(index, { reasoningContent: { text: part.text } }, {}));
        return out;
      case 'opaque':
        if (part.format === BEDROCK) {
          this.open.set(index, { part, sent: false, text: '' });
          return out;
        }
        this.losses.add('unsupported_part', `/candidates/0/message/parts/${index}`, `${part.format} block "${part.blockType}" has no place in a Converse stream; dropped`);
        return this.skip(index, 0, out);
      default:
        this.losses.add('unsupported_part', `/candidates/0/message/parts/${index}`, `a Converse stream carries text, reasoning and tool calls; the ${part.type} part was dropped`);
        return this.skip(index, 0, out);
    }
  }

  private partEnd(index: number, final: Part | undefined, event: Extensible, out: SseMessage[]): SseMessage[] {
    const open = this.open.get(index);
    if (open === undefined) return out;
    this.open.delete(index);
    // A source that sends a part whole (Gemini tool calls) has sent no delta: write its content now.
    const part = final ?? open.part;
    // What the deltas missed (a source that sends a part whole, or its deltas only in part) goes out before the stop.
    const rest = (full: string) => (full.startsWith(open.text) ? full.slice(open.text.length) : '');
    if (part.type === 'tool_call' && part.kind === 'custom') {
      // Its pieces went out escaped one by one: they close the string; none sent, the whole JSON goes now.
      const missing = open.sent ? CUSTOM_JSON_CLOSING : JSON.stringify({ [CUSTOM_INPUT_KEY]: part.rawArguments ?? '' });
      out.push(this.delta(index, { toolUse: { input: missing } }, {}));
    } else if (part.type === 'tool_call' && (!open.sent || final !== undefined)) {
      const missing = open.sent ? rest(argumentsAsText(part)) : argumentsAsText(part);
      if (missing !== '') out.push(this.delta(index, { toolUse: { input: missing } }, {}));
    }
    if (final !== undefined && (final.type === 'text' || final.type === 'refusal') && rest(final.text) !== '') out.push(this.delta(index, { text: rest(final.text) }, {}));
    // Another format's citations, as the citation deltas Converse streams in a text block (its own went out as their deltas).
    if (part.type === 'text' && part.citations !== undefined) {
      for (let position = 0; position < part.citations.length; position++) {
        const citation = part.citations[position] as Citation;
        if (citation.extensions?.[BEDROCK]?.['$streamed'] === true) continue;
        const wire = encodeBedrockCitation(citation, this.losses, `/candidates/0/message/parts/${index}/citations/${position}`);
        if (wire !== undefined) out.push(this.delta(index, { citation: wire }, {}));
      }
    }
    if (final?.type === 'reasoning' && rest(final.text) !== '') out.push(this.delta(index, { reasoningContent: { text: rest(final.text) } }, {}));
    // A block opens with its first delta: an empty reasoning block still needs one to be reasoning.
    else if (!open.sent && part.type === 'reasoning' && part.text === '') out.push(this.delta(index, { reasoningContent: { text: '' } }, {}));
    out.push(this.message('contentBlockStop', { contentBlockIndex: this.wire(index), ...extra(event) }));
    return out;
  }

  private end(event: Extensible, out: SseMessage[]): SseMessage[] {
    this.ensureStarted(out);
    this.ended = true;
    const fields = fieldsOf(event);
    if (!this.stopped && fields?.['$noStop'] !== true) {
      this.losses.add('defaulted', '/candidates/0/stopReason', 'a Converse stream ends with messageStop; sent end_turn', 'info');
      out.push(this.message('messageStop', { stopReason: 'end_turn' }));
    }
    if (fields?.['$noMetadata'] === true || this.metadataWritten) return out;
    out.push(this.metadata(false, { metrics: { latencyMs: 0 } }));
    return out;
  }

  /** The `metadata` event: the usage so far, plus `fields` (metrics, trace, padding) as the source had them. */
  private metadata(noUsage: boolean, fields: JsonObject): SseMessage {
    this.metadataWritten = true;
    const payload: JsonObject = {};
    if (!noUsage) {
      const usage = encodeBedrockUsage(this.usage);
      for (const key of ['metrics', 'trace', 'performanceConfig', 'serviceTier']) delete usage[key];
      payload['usage'] = usage;
      const tier = bedrockTier(this.usage, this.losses);
      if (tier !== undefined) payload['serviceTier'] = tier;
    }
    return this.message('metadata', { ...payload, ...fields });
  }

  flush(): SseMessage[] {
    return [];
  }
}

/** A fresh Converse stream encoder. */
export function createBedrockStreamEncoder(context: CodecContext): StreamEncoder {
  return new BedrockStreamEncoder(context.losses);
}
