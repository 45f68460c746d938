/**
 * Counting a run: a {@link Tally} per batch of items (mergeable, so worker
 * threads count their own), the final {@link NormalizeSummary}, and its
 * text form for stderr.
 */
import type { Counts, InputSummary, NormalizeSummary, Outcome } from './types.ts';

/** The mergeable counts of some outcomes. */
export interface Tally {
  read: number;
  written: number;
  errored: number;
  skipped: number;
  streams: number;
  byFormat: Counts;
  byModel: Counts;
  byInputKind: Counts;
  lossesByCode: Counts;
  errorsByReason: Counts;
  skippedByReason: Counts;
}

/** A tally of nothing. */
export function emptyTally(): Tally {
  return {
    read: 0, written: 0, errored: 0, skipped: 0, streams: 0,
    byFormat: {}, byModel: {}, byInputKind: {}, lossesByCode: {}, errorsByReason: {}, skippedByReason: {},
  };
}

function bump(counts: Counts, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

/** Count one outcome. */
export function tallyOutcome(tally: Tally, outcome: Outcome): void {
  switch (outcome.kind) {
    case 'record': {
      const record = outcome.record;
      tally.read++;
      tally.written++;
      if (record.stream === true) tally.streams++;
      bump(tally.byFormat, record.format);
      bump(tally.byModel, record.model ?? '(none)');
      bump(tally.byInputKind, record.source.kind);
      for (const loss of record.losses) bump(tally.lossesByCode, loss.code);
      return;
    }
    case 'error':
      tally.read++;
      tally.errored++;
      bump(tally.byInputKind, outcome.error.source.kind);
      bump(tally.errorsByReason, outcome.error.reason.code);
      return;
    case 'skipped':
      tally.skipped++;
      bump(tally.skippedByReason, outcome.reason);
      return;
  }
}

function mergeCounts(into: Counts, from: Counts): void {
  for (const key in from) bump(into, key, from[key] ?? 0);
}

/** Add `from` into `into`. */
export function mergeTally(into: Tally, from: Tally): void {
  into.read += from.read;
  into.written += from.written;
  into.errored += from.errored;
  into.skipped += from.skipped;
  into.streams += from.streams;
  mergeCounts(into.byFormat, from.byFormat);
  mergeCounts(into.byModel, from.byModel);
  mergeCounts(into.byInputKind, from.byInputKind);
  mergeCounts(into.lossesByCode, from.lossesByCode);
  mergeCounts(into.errorsByReason, from.errorsByReason);
  mergeCounts(into.skippedByReason, from.skippedByReason);
}

function sorted(counts: Counts): Counts {
  const out: Counts = {};
  for (const [key, value] of Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) out[key] = value;
  return out;
}

/** The summary of a run from its tally, per-input counts, blob counts and duration. */
export function summarize(
  tally: Tally,
  inputs: InputSummary[],
  blobs: NormalizeSummary['blobs'],
  seconds: number,
): NormalizeSummary {
  return {
    read: tally.read,
    written: tally.written,
    errored: tally.errored,
    skipped: tally.skipped,
    inputs,
    byFormat: sorted(tally.byFormat),
    byModel: sorted(tally.byModel),
    byInputKind: sorted(tally.byInputKind),
    streams: tally.streams,
    lossesByCode: sorted(tally.lossesByCode),
    errorsByReason: sorted(tally.errorsByReason),
    skippedByReason: sorted(tally.skippedByReason),
    blobs,
    seconds: Math.round(seconds * 1000) / 1000,
    recordsPerSecond: seconds > 0 ? Math.round(tally.read / seconds) : tally.read,
    runs: 1,
  };
}

function added(a: Counts | undefined, b: Counts): Counts {
  const out: Counts = { ...a };
  mergeCounts(out, b);
  return sorted(out);
}

/** The summary of an output written by several runs (`--append`): counts added up, inputs listed in run order; the rate is the last run's. */
export function mergeSummaries(previous: NormalizeSummary, current: NormalizeSummary): NormalizeSummary {
  const blobs = previous.blobs ?? { written: 0, referenced: 0, bytesWritten: 0, escaped: 0 };
  return {
    read: previous.read + current.read,
    written: previous.written + current.written,
    errored: previous.errored + current.errored,
    skipped: previous.skipped + current.skipped,
    inputs: [...(previous.inputs ?? []), ...current.inputs],
    byFormat: added(previous.byFormat, current.byFormat),
    byModel: added(previous.byModel, current.byModel),
    byInputKind: added(previous.byInputKind, current.byInputKind),
    streams: previous.streams + current.streams,
    lossesByCode: added(previous.lossesByCode, current.lossesByCode),
    errorsByReason: added(previous.errorsByReason, current.errorsByReason),
    skippedByReason: added(previous.skippedByReason, current.skippedByReason),
    blobs: {
      written: blobs.written + current.blobs.written,
      referenced: blobs.referenced + current.blobs.referenced,
      bytesWritten: blobs.bytesWritten + current.blobs.bytesWritten,
      escaped: (blobs.escaped ?? 0) + current.blobs.escaped,
    },
    seconds: Math.round((previous.seconds + current.seconds) * 1000) / 1000,
    recordsPerSecond: current.recordsPerSecond,
    runs: (previous.runs ?? 1) + 1,
  };
}

/** Longest list printed on one line; summary.json has them all. */
const SHOWN = 10;

function line(label: string, counts: Counts): string {
  const entries = Object.entries(counts);
  if (entries.length === 0) return '';
  const more = entries.length > SHOWN ? `, … ${entries.length - SHOWN} more in summary.json` : '';
  return `  ${label}: ${entries.slice(0, SHOWN).map(([key, value]) => `${key} ${value}`).join(', ')}${more}\n`;
}

/** The summary as a few lines for stderr. */
export function formatSummary(summary: NormalizeSummary): string {
  const skipped = summary.skipped === 0 ? '' : ` (${summary.skipped} HAR entries skipped: not LLM calls)`;
  return (
    `normalized ${summary.read} records: ${summary.written} written, ${summary.errored} errored${skipped} ` +
    `in ${summary.seconds.toFixed(1)}s (${summary.recordsPerSecond}/s)\n` +
    line('formats', summary.byFormat) +
    line('models', summary.byModel) +
    line('losses', summary.lossesByCode) +
    line('errors', summary.errorsByReason) +
    line('skipped', summary.skippedByReason) +
    (summary.streams === 0 ? '' : `  streams reassembled: ${summary.streams}\n`) +
    (summary.blobs.referenced === 0 ? '' : `  blobs: ${summary.blobs.referenced} references, ${summary.blobs.written} new files (${summary.blobs.bytesWritten} bytes)\n`) +
    (summary.blobs.escaped === 0 ? '' : `  escaped: ${summary.blobs.escaped} input objects with a $blob or $literal key of their own, kept as {"$literal": …}\n`)
  );
}
