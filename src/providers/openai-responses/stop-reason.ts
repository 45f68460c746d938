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
import { FORMAT } from './shared.ts';
import { lookupTable } from '../../core/wire.ts';

/** Response statuses. */
const STATUSES: ReadonlySet<string> = new Set(['completed', 'incomplete', 'failed', 'cancelled', 'in_progress', 'queued']);

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
  if (status === 'incomplete' && reason !== undefined) return { unified: INCOMPLETE_REASONS[reason] ?? 'other', raw: reason, format: FORMAT };
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

/** Neutral reason → the nearest status and incomplete reason. */
const UNIFIED_STATUS: Readonly<Record<UnifiedStopReason, ResponsesStatus>> = {
  end_turn: { status: 'completed' },
  tool_calls: { status: 'completed' },
  refusal: { status: 'completed' },
  stop_sequence: { status: 'completed' },
  max_tokens: { status: 'incomplete', reason: 'max_output_tokens' },
  context_overflow: { status: 'incomplete', reason: 'max_output_tokens' },
  content_filter: { status: 'incomplete', reason: 'content_filter' },
  error: { status: 'failed' },
  pause: { status: 'in_progress' },
  other: { status: 'completed' },
};

/** The status (and incomplete reason) for a stop reason, without reporting anything. */
export function openaiResponsesStatusOf(stop: StopReason | undefined): ResponsesStatus {
  if (stop === undefined) return { status: 'completed' };
  if (stop.format === FORMAT && stop.raw !== undefined) {
    // `raw` is a known incomplete reason, or a status (known or not: an unknown status travels unchanged).
    return isIncompleteReason(stop.raw) ? { status: 'incomplete', reason: stop.raw } : { status: stop.raw };
  }
  return UNIFIED_STATUS[stop.unified];
}

/** Encode a stop reason as a status (and incomplete reason), reporting inexact mappings. */
export function encodeOpenaiResponsesStopReason(stop: StopReason | undefined, losses: LossCollector, path: string): ResponsesStatus {
  const mapped = openaiResponsesStatusOf(stop);
  if (stop === undefined || stop.format === FORMAT) return mapped;
  if (stop.unified === 'stop_sequence' || stop.unified === 'context_overflow' || stop.unified === 'pause' || stop.unified === 'other') {
    losses.add('approximated', path, `stop reason "${stop.raw ?? stop.unified}" sent as status "${mapped.status}"`);
  }
  return mapped;
}
