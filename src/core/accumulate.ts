/**
 * Between streams and whole responses: `accumulate` folds IR stream events
 * into a Response (the same Response that decoding the non-streamed body
 * gives), and `responseToEvents` turns a whole Response into the events of a
 * synthetic stream (for a client that asked for a stream when the upstream
 * answered whole).
 */
import type { ApiError, Candidate, Part, Response } from './ir.ts';
import { checkStreamIndex as checkIndex, type StreamEvent } from './stream-events.ts';
import { argumentsAsText, parseArguments } from './tools.ts';
import { unreachable } from './ir.ts';

/** The result of accumulating a stream: the response so far and the error that ended it, if any. */
export interface Accumulated {
  response: Response;
  error?: ApiError;
  /** True when an `end` event arrived. */
  complete: boolean;
}

function startedPart(part: Part): Part {
  if (part.type === 'reasoning' && part.summary !== undefined) return { ...part, summary: [...part.summary] };
  return { ...part };
}

/** Folds IR stream events into a Response, event by event. */
export class Accumulator {
  readonly response: Response = { candidates: [] };
  error: ApiError | undefined;
  complete = false;

  private candidate(index: number): Candidate {
    checkIndex(index, 'candidate');
    let candidate = this.response.candidates[index];
    if (candidate === undefined) {
      candidate = { index, message: { role: 'assistant', parts: [] } };
      this.response.candidates[index] = candidate;
    }
    return candidate;
  }

  private part(candidate: number, index: number): Part | undefined {
    return this.response.candidates[candidate]?.message.parts[index];
  }

  /** Apply one event. */
  push(event: StreamEvent): void {
    switch (event.type) {
      case 'start':
        if (event.id !== undefined) this.response.id = event.id;
        if (event.model !== undefined) this.response.model = event.model;
        if (event.created !== undefined) this.response.created = event.created;
        if (event.usage !== undefined) this.response.usage = { ...event.usage };
        return;
      case 'part_start':
        // A copy: the accumulator grows the part in place, and the event may be read again by an encoder.
        this.candidate(event.candidate).message.parts[checkIndex(event.index, 'part')] = startedPart(event.part);
        return;
      case 'text_delta': {
        const part = this.part(event.candidate, event.index);
        if (part !== undefined && (part.type === 'text' || part.type === 'refusal')) part.text += event.text;
        return;
      }
      case 'reasoning_delta': {
        const part = this.part(event.candidate, event.index);
        if (part === undefined || part.type !== 'reasoning') return;
        if (event.summaryIndex === undefined) {
          part.text += event.text;
        } else {
          const summary = (part.summary ??= []);
          summary[event.summaryIndex] = (summary[event.summaryIndex] ?? '') + event.text;
        }
        return;
      }
      case 'reasoning_signature': {
        const part = this.part(event.candidate, event.index);
        if (part !== undefined && part.type === 'reasoning') part.state = event.state;
        return;
      }
      case 'tool_call_delta': {
        const part = this.part(event.candidate, event.index);
        if (part !== undefined && part.type === 'tool_call') part.rawArguments = (part.rawArguments ?? '') + event.arguments;
        return;
      }
      case 'part_end':
        this.endPart(event.candidate, event.index, event.part);
        return;
      case 'usage':
        this.response.usage = { ...this.response.usage, ...event.usage };
        return;
      case 'finish':
        this.candidate(event.candidate).stopReason = event.stopReason;
        return;
      case 'error':
        this.error = event.error;
        return;
      case 'end':
        this.complete = true;
        return;
      default:
        unreachable(event);
    }
  }

  private endPart(candidate: number, index: number, final: Part | undefined): void {
    if (final !== undefined) {
      this.candidate(candidate).message.parts[checkIndex(index, 'part')] = final;
      return;
    }
    const part = this.part(candidate, index);
    if (part?.type === 'tool_call' && part.arguments === undefined && part.rawArguments !== undefined) {
      Object.assign(part, parseArguments(part.rawArguments));
    }
  }

  /** The response and error so far. */
  result(): Accumulated {
    const result: Accumulated = { response: this.response, complete: this.complete };
    if (this.error !== undefined) result.error = this.error;
    return result;
  }
}

/** Fold a whole list (or iterable) of IR events into a Response. */
export function accumulate(events: Iterable<StreamEvent>): Accumulated {
  const accumulator = new Accumulator();
  for (const event of events) accumulator.push(event);
  return accumulator.result();
}

function partEvents(candidate: number, index: number, part: Part): StreamEvent[] {
  const address = { candidate, index };
  switch (part.type) {
    case 'text':
    case 'refusal': {
      const { text, ...initial } = part;
      const events: StreamEvent[] = [{ type: 'part_start', ...address, part: { ...initial, text: '' } }];
      if (text !== '') events.push({ type: 'text_delta', ...address, text });
      events.push({ type: 'part_end', ...address });
      return events;
    }
    case 'reasoning': {
      const { text, summary, state, ...initial } = part;
      const events: StreamEvent[] = [{ type: 'part_start', ...address, part: { ...initial, text: '' } }];
      if (text !== '') events.push({ type: 'reasoning_delta', ...address, text });
      summary?.forEach((summaryText, summaryIndex) => events.push({ type: 'reasoning_delta', ...address, text: summaryText, summaryIndex }));
      if (state !== undefined) events.push({ type: 'reasoning_signature', ...address, state });
      events.push({ type: 'part_end', ...address });
      return events;
    }
    case 'tool_call': {
      const { arguments: _arguments, rawArguments: _raw, ...initial } = part;
      return [
        { type: 'part_start', ...address, part: { ...initial, arguments: undefined, rawArguments: '' } },
        { type: 'tool_call_delta', ...address, arguments: argumentsAsText(part) },
        { type: 'part_end', ...address, part },
      ];
    }
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
    case 'tool_result':
    case 'opaque':
      return [{ type: 'part_start', ...address, part }, { type: 'part_end', ...address }];
    default:
      return unreachable(part);
  }
}

/** The events of a synthetic stream that accumulates to `response`. */
export function responseToEvents(response: Response): StreamEvent[] {
  const start: StreamEvent = { type: 'start' };
  if (response.id !== undefined) start.id = response.id;
  if (response.model !== undefined) start.model = response.model;
  if (response.created !== undefined) start.created = response.created;
  if (response.extensions !== undefined) start.extensions = response.extensions;
  const events: StreamEvent[] = [start];
  for (const candidate of response.candidates) {
    candidate.message.parts.forEach((part, index) => events.push(...partEvents(candidate.index, index, part)));
    if (candidate.stopReason !== undefined) events.push({ type: 'finish', candidate: candidate.index, stopReason: candidate.stopReason });
  }
  if (response.usage !== undefined) events.push({ type: 'usage', usage: response.usage });
  events.push({ type: 'end' });
  return events;
}
