/**
 * Responses has no finish reason: it is derived from `status`,
 * `incomplete_details.reason` and the kinds of output items. The IR keeps
 * the vendor value in `raw`: the incomplete reason when there is one, else
 * the status.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-status
 */
import type { Part, StopReason, UnifiedStopReason } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import { FORMAT } from './shape.ts';
import { lookupTable } from '../../core/wire.ts';

/** `incomplete_details.reason` → neutral reason. */
const INCOMPLETE_REASONS: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  max_output_tokens: 'max_tokens',
  content_filter: 'content_filter',
});

/** Status → neutral reason (`completed` is refined by the output's item kinds). */
const STATUS_REASONS: Readonly<Record<string, UnifiedStopReason>> = lookupTable({
  completed: 'end_turn',
  incomplete: 'other',
  failed: 'error',
  cancelled: 'other',
  in_progress: 'pause',
  queued: 'pause',
});

/** True for the `incomplete_details.reason` values this codec knows. */
export function isIncompleteReason(reason: string): boolean {
  return INCOMPLETE_REASONS[reason] !== undefined;
}

/** Decode the stop reason from the status, the incomplete reason and the output parts. */
export function decodeOpenaiResponsesStopReason(status: string, reason: string | undefined, parts: readonly Part[]): StopReason {
  if (status === 'incomplete' && reason !== undefined) {
    // Filtered with refusal parts in the output: the model refused (what a refusal of another format becomes here).
    const refused = reason === 'content_filter' && parts.some((part) => part.type === 'refusal');
    return { unified: refused ? 'refusal' : (INCOMPLETE_REASONS[reason] ?? 'other'), raw: reason, format: FORMAT };
  }
  let unified = STATUS_REASONS[status] ?? 'other';
  if (unified === 'end_turn') {
    if (parts.some((part) => part.type === 'tool_call')) unified = 'tool_calls';
    else if (parts.some((part) => part.type === 'refusal')) unified = 'refusal';
  }
  return { unified, raw: status, format: FORMAT };
}

/** The wire status and incomplete reason of a Responses response. */
export interface ResponsesStatus {
  status: string;
  reason?: string;
}

/**
 * Neutral reason → the status (and incomplete reason) a Responses caller
 * gets, and whether that says the same thing. The one table for the whole
 * and the streamed encoder: the stream's terminal event is named after the
 * status (`response.completed`, `response.incomplete`, `response.failed`),
 * so no reason may map to a status that has no terminal event
 * (`in_progress`, `queued`).
 */
const UNIFIED_STATUS: Readonly<Record<UnifiedStopReason, readonly [ResponsesStatus, boolean]>> = {
  end_turn: [{ status: 'completed' }, true],
  tool_calls: [{ status: 'completed' }, true],
  stop_sequence: [{ status: 'completed' }, false],
  max_tokens: [{ status: 'incomplete', reason: 'max_output_tokens' }, true],
  context_overflow: [{ status: 'incomplete', reason: 'max_output_tokens' }, false],
  content_filter: [{ status: 'incomplete', reason: 'content_filter' }, true],
  // Responses has no refusal status: the nearest that still tells the caller the answer was withheld.
  refusal: [{ status: 'incomplete', reason: 'content_filter' }, false],
  error: [{ status: 'failed' }, true],
  // A paused turn (Anthropic `pause_turn`, Gemini `TOO_MANY_TOOL_CALLS`) is answered in full so far; `in_progress` would promise a background job.
  pause: [{ status: 'completed' }, false],
  other: [{ status: 'completed' }, false],
};

/** The status (and incomplete reason) for a stop reason, without reporting anything. */
export function openaiResponsesStatusOf(stop: StopReason | undefined): ResponsesStatus {
  if (stop === undefined) return { status: 'completed' };
  if (stop.format === FORMAT && stop.raw !== undefined) {
    // `raw` is a known incomplete reason, or a status (known or not: an unknown status travels unchanged).
    return isIncompleteReason(stop.raw) ? { status: 'incomplete', reason: stop.raw } : { status: stop.raw };
  }
  return UNIFIED_STATUS[stop.unified][0];
}

/**
 * Encode a stop reason as a status (and incomplete reason), reporting inexact
 * mappings. A refusal is exact when the output holds refusal parts: with
 * them, `incomplete`/`content_filter` decodes back as a refusal.
 */
export function encodeOpenaiResponsesStopReason(stop: StopReason | undefined, losses: LossCollector, path: string, refusalParts: boolean): ResponsesStatus {
  const mapped = openaiResponsesStatusOf(stop);
  if (stop === undefined || (stop.format === FORMAT && stop.raw !== undefined)) return mapped;
  if (!UNIFIED_STATUS[stop.unified][1] && !(stop.unified === 'refusal' && refusalParts)) {
    const reason = mapped.reason === undefined ? '' : ` (incomplete_details.reason "${mapped.reason}")`;
    losses.add('approximated', path, `stop reason "${stop.raw ?? stop.unified}" has no OpenAI Responses equivalent; sent as status "${mapped.status}"${reason}`);
  }
  return mapped;
}
