/**
 * Gemini `functionCall.id` is optional. The IR needs one on every call, so the
 * decoder synthesises ids deterministically from the position of the part
 * (same input, same ids; parallel calls to one tool get distinct ids), and
 * pairs a `functionResponse` without id with the earliest unanswered call of
 * the same name.
 */

/** The prefix of every id interlingua synthesises for Gemini; the encoder never sends such ids. */
export const SYNTHETIC_ID_PREFIX = 'call_gemini_';

/** A deterministic id for the call at `scope` / `partIndex` (`scope` names the message or candidate). */
export function syntheticCallId(scope: string, partIndex: number): string {
  return `${SYNTHETIC_ID_PREFIX}${scope}_${partIndex}`;
}

/** A response id cut down to characters every other format accepts in a call id. */
export function idScope(responseId: string | undefined, candidateIndex: number): string {
  if (responseId === undefined) return `r${candidateIndex}`;
  return `${responseId.replace(/[^A-Za-z0-9]/g, '').slice(0, 12)}_${candidateIndex}`;
}

/**
 * True when the Gemini encoder sends the id: only ids Gemini itself produced
 * (marked `$id` by the decoder). Synthesised ids and other vendors' ids are
 * left out, since some Gemini endpoints reject request-side ids they did not
 * issue; Gemini pairs calls and responses by name and order.
 */
export function emitsId(id: string, syntheticId: boolean | undefined, gemini: Record<string, unknown> | undefined): boolean {
  return syntheticId !== true && !id.startsWith(SYNTHETIC_ID_PREFIX) && gemini?.['$id'] === true;
}

/** Calls waiting for their response, by tool name, in order. */
export class PendingCalls {
  private readonly byName = new Map<string, string[]>();

  /** Remember a call. */
  add(name: string, id: string): void {
    const queue = this.byName.get(name);
    if (queue === undefined) this.byName.set(name, [id]);
    else queue.push(id);
  }

  /** The earliest unanswered call id for `name`, removed from the queue. */
  take(name: string): string | undefined {
    return this.byName.get(name)?.shift();
  }

  /** Mark the call `id` answered (a response that carried its id). */
  answer(name: string, id: string): void {
    const queue = this.byName.get(name);
    if (queue === undefined) return;
    const index = queue.indexOf(id);
    if (index >= 0) queue.splice(index, 1);
  }
}
