/**
 * What the proxy keeps of an answer whose reasoning state its caller cannot
 * carry, and how that record goes back into the caller's assistant turn.
 *
 * The record is the upstream's own assistant message in the IR (reasoning
 * parts with their signatures, redacted thinking, encrypted reasoning and
 * its ids, Gemini `thoughtSignature`s on calls and text), with its origin:
 * the upstream format, its dialect and the model family. It goes back only
 * to that origin, since no other vendor accepts it.
 */
import { hasReasoningSlot } from '../core/carried-state.ts';
import type { FormatId, Part, ToolCallPart } from '../core/ir.ts';

/** One kept assistant message and where it came from. */
export interface ReasoningRecord {
  /** The record's layout; a record of another is ignored. */
  v: 1;
  /** The upstream format that made the state. */
  format: FormatId;
  /** The upstream's dialect of its format, when it has one. */
  dialect?: string;
  /** The model family that made it ({@link modelFamily}). */
  family: string;
  /** The upstream's assistant message parts as it answered them. */
  parts: Part[];
}

/** Where a request goes, against which a record's origin is checked. */
export interface ReasoningOrigin {
  format: FormatId;
  dialect: string | undefined;
  model: string | undefined;
}

/**
 * The family of a model: its name up to the end of its first number, after
 * any path (`models/`) and lower-cased: `claude-sonnet-4-5-20250929` is
 * `claude-sonnet-4`, `gemini-3-pro-preview` `gemini-3`, `gemini-2.5-flash`
 * `gemini-2`. A signature of one generation is not offered to another
 * (Gemini 3 and 2.5 sign differently); a dated snapshot of the same one is.
 */
export function modelFamily(model: string | undefined): string {
  if (model === undefined) return '';
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  const match = /^\D*\d+/.exec(name);
  return match === null ? name : match[0];
}

/** Whether `part` holds state only its vendor can read, and needs back. */
function holdsState(part: Part, upstream: FormatId): boolean {
  switch (part.type) {
    case 'reasoning':
      // A Responses reasoning id alone names reasoning OpenAI stored (`store: true`).
      return part.state !== undefined || part.redacted === true || (upstream === 'openai-responses' && part.id !== undefined);
    case 'tool_call':
    case 'text':
      return typeof part.extensions?.gemini?.['thoughtSignature'] === 'string';
    default:
      return false;
  }
}

/**
 * Whether an answer's message holds reasoning state that a `caller` will
 * not carry back: any, for a caller with no opaque slot (Chat, Ollama); for
 * the others, a Gemini signature on a text part, which rides in no slot.
 * Only a message with tool calls is kept: vendors check reasoning state on
 * the tool loop in progress (Anthropic's thinking continuity, Gemini 3's
 * signed calls), and a final answer is followed by a user turn that starts
 * a new one.
 */
export function needsKeeping(parts: readonly Part[], caller: FormatId, upstream: FormatId): boolean {
  if (caller === upstream || !parts.some((part) => part.type === 'tool_call')) return false;
  const slot = hasReasoningSlot(caller);
  for (const part of parts) {
    if (!holdsState(part, upstream)) continue;
    if (!slot || (part.type === 'text' && caller !== 'gemini')) return true;
  }
  return false;
}

/** The record of `parts` answered by `origin`, as stored. */
export function encodeRecord(parts: readonly Part[], origin: ReasoningOrigin): string {
  const record: ReasoningRecord = { v: 1, format: origin.format, family: modelFamily(origin.model), parts: [...parts] };
  if (origin.dialect !== undefined) record.dialect = origin.dialect;
  return JSON.stringify(record);
}

/** The record a stored value holds; `undefined` when it is none this version wrote. */
export function decodeRecord(text: string | undefined): ReasoningRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ReasoningRecord> | null;
    if (value === null || typeof value !== 'object' || value.v !== 1 || typeof value.format !== 'string' || typeof value.family !== 'string' || !Array.isArray(value.parts)) return undefined;
    return value as ReasoningRecord;
  } catch {
    return undefined;
  }
}

/** Why `record` may not go to `origin`; `undefined` when it may. */
export function originMismatch(record: ReasoningRecord, origin: ReasoningOrigin): string | undefined {
  if (record.format !== origin.format) return `it was made by a ${record.format} upstream, and this request goes to ${origin.format}`;
  if ((record.dialect ?? '') !== (origin.dialect ?? '')) return `it was made by the ${record.dialect ?? 'plain'} dialect of ${record.format}, and this request goes to ${origin.dialect ?? 'the plain one'}`;
  const family = modelFamily(origin.model);
  if (record.family !== family) return `it was made by the ${record.family || 'unnamed'} model family, and this request goes to ${family || 'an unnamed model'}`;
  return undefined;
}

/**
 * The caller's assistant message parts with the record's put back: the
 * upstream's own parts in its order, each tool call keeping the id the
 * caller's request pairs its result with (an Ollama caller's are made up
 * again on every request), and the caller's cache breakpoint on the last
 * part. `undefined` when the calls do not line up (the hash said they
 * would; a record of another layout may not).
 */
export function restoredParts(caller: readonly Part[], record: readonly Part[]): Part[] | undefined {
  const calls = caller.filter((part): part is ToolCallPart => part.type === 'tool_call');
  const out: Part[] = [];
  let next = 0;
  for (const part of record) {
    if (part.type !== 'tool_call') {
      out.push(part);
      continue;
    }
    const own = calls[next++];
    if (own === undefined || own.name !== part.name) return undefined;
    const call: ToolCallPart = { ...part, id: own.id };
    if (own.syntheticId === true) call.syntheticId = true;
    else delete call.syntheticId;
    out.push(call);
  }
  if (next !== calls.length || out.length === 0) return undefined;
  const cache = caller.at(-1)?.cache;
  if (cache !== undefined) out[out.length - 1] = { ...(out.at(-1) as Part), cache };
  return out;
}
