/**
 * IR stream events → Anthropic Messages SSE. Accepts the events of any
 * format's decoder and always writes a valid Anthropic stream:
 * `message_start` first (usage `0` where the source knew none yet), strictly
 * nested blocks with contiguous indexes (a part whose events arrive while
 * another block is open, such as parallel OpenAI tool calls, is held and
 * written whole after it), one `message_delta` with the stop reason and the
 * usage, then `message_stop`. The blocks themselves are `stream-block-writer-encode.ts`.
 *
 * Pings: where the source was an Anthropic stream (start hint `$stream`),
 * exactly where it had them; otherwise one `ping` after the first
 * `content_block_start`, as the API does.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import { Accumulator } from '../../core/accumulate.ts';
import type { CodecContext } from '../../core/codec.ts';
import type { Candidate, Part, Usage } from '../../core/ir.ts';
import { unreachable } from '../../core/ir.ts';
import type { FinishEvent, SseMessage, StartEvent, StreamEncoder, StreamEvent, UsageEvent } from '../../core/stream-events.ts';
import { isObject, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { encodeAnthropicError } from './error.ts';
import { encodeAnthropicResponse } from './response.ts';
import { ANTHROPIC, hasHint } from './shape.ts';
import { createBlockWriter } from './stream-block-writer-encode.ts';
import { finishDelta, pickUsage, sse, startMessage } from './stream-blocks-encode.ts';
import { encodeAnthropicUsage } from './usage.ts';

/** Put back the wire event's own unknown fields (decoder key `eventFields`) on the message the event became. */
function withEventFields(event: StreamEvent, message: SseMessage | undefined): void {
  const fields = event.extensions?.anthropic?.['eventFields'];
  if (message === undefined || !isObject(fields)) return;
  message.data = JSON.stringify({ ...fields, ...(JSON.parse(message.data) as JsonObject) });
}

type Mode = 'idle' | 'message' | 'whole' | 'failed';

/** A fresh Anthropic stream encoder. */
export function createAnthropicStreamEncoder(context: CodecContext): StreamEncoder {
  const losses = context.losses;
  let mode: Mode = 'idle';
  const blocks = createBlockWriter(losses);
  let hinted = false;
  const otherCandidates = new Set<number>();
  let pendingFinish: FinishEvent | undefined;
  let usage: Usage | undefined;
  let usageDirty = false;
  let deltaSent = false;
  /** A message_stop was written and no new message began. */
  let completed = false;
  let whole: { accumulator: Accumulator; start: StartEvent } | undefined;
  let inline: { start: StartEvent; remaining: number; parts: Part[]; finish?: FinishEvent } | undefined;

  function resetMessage(): void {
    pendingFinish = undefined;
    usage = undefined;
    usageDirty = false;
    deltaSent = false;
  }

  function emitBefore(event: StreamEvent, out: SseMessage[]): void {
    const before = event.extensions?.anthropic?.['$before'];
    if (!Array.isArray(before)) return;
    for (const data of before) out.push(isObject(data) ? sse(data) : { data: JSON.stringify(data) });
  }

  function start(event: StartEvent | undefined, out: SseMessage[]): void {
    if (mode === 'message' && (event === undefined || !hasHint(event, '$stream'))) {
      // Another format's start after the message began (its usage came first): a second message_start would
      // break every client, so only its usage is kept.
      if (event?.usage !== undefined) usage = { ...usage, ...event.usage };
      return;
    }
    // An Anthropic source that starts a new message inside an open one left its blocks unstopped: so do we.
    if (mode === 'message' && !hinted) blocks.closeAll(out);
    resetMessage();
    mode = 'message';
    completed = false;
    hinted = event !== undefined && hasHint(event, '$stream');
    blocks.reset(hinted);
    if (event?.usage !== undefined) usage = event.usage;
    const count = event?.extensions?.anthropic?.['$inline'];
    if (event !== undefined && typeof count === 'number' && count > 0) {
      inline = { start: event, remaining: count, parts: [] };
      return;
    }
    out.push(sse({ type: 'message_start', message: startMessage(event, context) }));
  }

  /** Content that the source sent inside `message_start`: collect it, then write the message_start whole. */
  function inlineEvent(event: StreamEvent, out: SseMessage[]): void {
    if (inline === undefined) return;
    if (event.type === 'part_end' && event.part !== undefined) inline.parts[event.index] = event.part;
    if (event.type === 'finish') inline.finish = event;
    inline.remaining--;
    if (inline.remaining > 0) return;
    const message = startMessage(inline.start, context);
    const candidate: Candidate = { index: 0, message: { role: 'assistant', parts: inline.parts.filter((part) => part !== undefined) } };
    if (inline.finish !== undefined) candidate.stopReason = inline.finish.stopReason;
    const hints = inline.start.extensions?.anthropic?.['$candidate'];
    if (isObject(hints)) candidate.extensions = { anthropic: hints };
    // Only the content and stop fields are read from this body; the message fields come from startMessage.
    const body = encodeAnthropicResponse({ candidates: [candidate], extensions: { anthropic: { $absent: ['id', 'model', 'usage'] } } }, context);
    message['content'] = body['content'];
    if (body['stop_reason'] !== undefined) message['stop_reason'] = body['stop_reason'];
    if (body['stop_sequence'] !== undefined) message['stop_sequence'] = body['stop_sequence'];
    inline = undefined;
    out.push(sse({ type: 'message_start', message }));
  }

  function ensureStarted(out: SseMessage[]): void {
    if (mode !== 'message') start(undefined, out);
  }

  function partEvent(event: StreamEvent & { candidate: number; index: number }, out: SseMessage[]): void {
    if (event.candidate !== 0) {
      if (!otherCandidates.has(event.candidate)) losses.add('dropped_field', pointer('/candidates', event.candidate), 'Anthropic streams have one answer; this candidate was dropped');
      otherCandidates.add(event.candidate);
      return;
    }
    ensureStarted(out);
    blocks.partEvent(event, out);
  }

  function messageDelta(event: UsageEvent | undefined, out: SseMessage[]): void {
    const hints = event?.extensions?.anthropic;
    let body: JsonObject;
    if (pendingFinish !== undefined) body = finishDelta(pendingFinish, losses);
    else if (isObject(hints?.['$delta'])) body = hints['$delta'];
    else {
      losses.add('defaulted', '/candidates/0/stopReason', 'the source gave no stop reason; sent "end_turn"', 'info');
      body = { stop_reason: 'end_turn', stop_sequence: null };
    }
    const data: JsonObject = { type: 'message_delta', delta: body };
    const absent = hints?.['$usageAbsent'];
    if (absent === 'null') data['usage'] = null;
    else if (absent !== true) {
      const full = encodeAnthropicUsage(event?.usage ?? usage ?? {}, '/usage', losses);
      data['usage'] = pickUsage(full, hints?.['$usageKeys'], hints?.['$usageNulls']);
    }
    if (event !== undefined) {
      losses.foreignExtensions(event.extensions, ANTHROPIC, '/usage');
      spreadExtensions(data, event, ANTHROPIC);
    }
    out.push(sse(data));
    pendingFinish = undefined;
    usageDirty = false;
    deltaSent = true;
  }

  function usageEvent(event: UsageEvent, out: SseMessage[]): void {
    ensureStarted(out);
    usage = { ...usage, ...event.usage };
    if (hasHint(event, '$messageDelta')) messageDelta(event, out);
    else {
      losses.foreignExtensions(event.extensions, ANTHROPIC, '/usage');
      usageDirty = true;
    }
  }

  function end(event: StreamEvent & { type: 'end' }, out: SseMessage[]): void {
    if (mode === 'idle' && completed) return;
    ensureStarted(out);
    blocks.closeAll(out);
    // An Anthropic source without a message_delta had none; any other source gets one.
    if (pendingFinish !== undefined || usageDirty || (!deltaSent && !hinted)) messageDelta(undefined, out);
    losses.foreignExtensions(event.extensions, ANTHROPIC, '');
    out.push(sse(spreadExtensions({ type: 'message_stop' }, event, ANTHROPIC)));
    mode = 'idle';
    completed = true;
  }

  function wholeEvent(event: StreamEvent, out: SseMessage[]): void {
    if (whole === undefined) return;
    // The accumulator grows parts in place: give it its own copy, never the caller's event.
    whole.accumulator.push(event.type === 'part_start' ? { ...event, part: { ...event.part } } : event);
    if (event.type !== 'end') return;
    const response = whole.accumulator.response;
    const hints = whole.start.extensions?.anthropic;
    if (whole.start.extensions !== undefined) response.extensions = whole.start.extensions;
    const candidate = response.candidates[0] ?? { index: 0, message: { role: 'assistant', parts: [] } };
    response.candidates[0] = candidate;
    if (isObject(hints?.['$candidate'])) candidate.extensions = { anthropic: hints['$candidate'] };
    out.push({ data: JSON.stringify(encodeAnthropicResponse(response, context)) });
    whole = undefined;
    mode = 'idle';
  }

  function encodeEvent(event: StreamEvent, out: SseMessage[]): void {
    if (inline !== undefined) {
      inlineEvent(event, out);
      return;
    }
    if (mode === 'whole') {
      wholeEvent(event, out);
      return;
    }
    if (event.type === 'start' && hasHint(event, '$whole')) {
      mode = 'whole';
      whole = { accumulator: new Accumulator(), start: event };
      whole.accumulator.push(event);
      return;
    }
    if (mode === 'failed' && event.type !== 'start') return;
    switch (event.type) {
      case 'start':
        start(event, out);
        return;
      case 'part_start':
      case 'text_delta':
      case 'reasoning_delta':
      case 'reasoning_signature':
      case 'tool_call_delta':
      case 'part_end':
        partEvent(event, out);
        return;
      case 'usage':
        usageEvent(event, out);
        return;
      case 'finish':
        if (event.candidate !== 0) return;
        losses.foreignExtensions(event.extensions, ANTHROPIC, '/candidates/0');
        pendingFinish = event;
        return;
      case 'error':
        out.push(sse(encodeAnthropicError(event.error, context)));
        mode = 'failed';
        return;
      case 'end':
        end(event, out);
        return;
      default:
        unreachable(event);
    }
  }

  return {
    encode(event: StreamEvent): SseMessage[] {
      const out: SseMessage[] = [];
      emitBefore(event, out);
      const first = out.length;
      encodeEvent(event, out);
      withEventFields(event, out[first]);
      return out;
    },
    flush(): SseMessage[] {
      if (mode !== 'message' && mode !== 'whole') return [];
      mode = 'failed';
      return [sse({ type: 'error', error: { type: 'api_error', message: 'the source stream ended before it was complete' } })];
    },
  };
}
