/**
 * Tool results in the order of their calls, for formats that pair them by
 * position (Gemini `functionResponse` parts, Ollama `tool` messages): an
 * agent returns results in the order they finish (Claude Code does, with
 * the right ids), and written in that order the upstream would read the
 * output of call B as the answer to call A. The encoders of those formats
 * write the results of a run of tool messages in the order of the calls of
 * the assistant message before the run, matched by id; what matches no
 * call goes after, reported, as is a call without a result.
 */
import type { LossCollector } from './losses.ts';
import type { Message, Part } from './ir.ts';
import { messagePointer, partPointer } from './ir-pointers.ts';

/** One part of a run of tool messages: the message and part indexes in the IR. */
export type PartAt = readonly [message: number, part: number];

/** The parts of the run of tool messages at `start`, in the order to write them, and the index after the run. */
export interface ResultOrder {
  order: PartAt[];
  end: number;
}

/**
 * The order in which to write the parts of the tool messages from `start`
 * (up to the first message that is not a tool message): results by the
 * calls of the assistant message just before, then everything else in its
 * own order. `target` names the format in the losses.
 */
export function resultsInCallOrder(messages: readonly Message[], start: number, losses: LossCollector, target: string): ResultOrder {
  let end = start;
  while (end < messages.length && (messages[end] as Message).role === 'tool') end++;
  const order: PartAt[] = [];
  const previous = start > 0 ? (messages[start - 1] as Message) : undefined;
  const calls = previous?.role === 'assistant' ? previous.parts : [];
  let results = 0;
  for (let index = start; index < end; index++) results += (messages[index] as Message).parts.length;
  // The common case: one call, one result, nothing to sort.
  if (results <= 1 && calls.filter((part) => part.type === 'tool_call').length <= 1) {
    for (let index = start; index < end; index++) for (let part = 0; part < (messages[index] as Message).parts.length; part++) order.push([index, part]);
    return { order, end };
  }
  const taken = new Set<string>();
  for (let callIndex = 0; callIndex < calls.length; callIndex++) {
    const call = calls[callIndex] as Part;
    if (call.type !== 'tool_call') continue;
    const found = find(messages, start, end, call.id, taken);
    if (found === undefined) {
      losses.add('approximated', partPointer(messagePointer(start - 1), start - 1, callIndex), `tool call "${call.id}" has no result in the tool messages after it; ${target} pairs results with calls by position, so the results after it may be read as the wrong calls' answers`);
      continue;
    }
    taken.add(`${found[0]}/${found[1]}`);
    order.push(found);
  }
  for (let index = start; index < end; index++) {
    const parts = (messages[index] as Message).parts;
    for (let part = 0; part < parts.length; part++) {
      if (taken.has(`${index}/${part}`)) continue;
      const result = parts[part] as Part;
      if (result.type === 'tool_result') {
        losses.add('approximated', partPointer(messagePointer(index), index, part), `tool result for "${result.callId}" answers no call of the assistant turn before it; ${target} pairs results with calls by position, so it is sent after the matched ones and may be read as another call's answer`);
      }
      order.push([index, part]);
    }
  }
  return { order, end };
}

function find(messages: readonly Message[], start: number, end: number, id: string, taken: ReadonlySet<string>): PartAt | undefined {
  for (let index = start; index < end; index++) {
    const parts = (messages[index] as Message).parts;
    for (let part = 0; part < parts.length; part++) {
      const result = parts[part] as Part;
      if (result.type === 'tool_result' && result.callId === id && !taken.has(`${index}/${part}`)) return [index, part];
    }
  }
  return undefined;
}
