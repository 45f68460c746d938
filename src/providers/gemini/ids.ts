/**
 * Gemini `functionCall.id` is optional. The IR needs one on every call, so the
 * decoder synthesises ids deterministically from the position of the part
 * (same input, same ids; parallel calls to one tool get distinct ids), and
 * pairs a `functionResponse` without id with the earliest unanswered call of
 * the same name.
 */
import { MadeUpIds } from '../../core/tools.ts';

/** The prefix of every id interlingua synthesises for Gemini; the encoder never sends such ids. */
export const SYNTHETIC_ID_PREFIX = 'call_gemini_';

/** A deterministic id for the call at `scope` / `partIndex` (`scope` names the message or candidate). */
export function syntheticCallId(scope: string | number, partIndex: number): string {
  return MADE_UP.of(scope, partIndex);
}

const MADE_UP = new MadeUpIds(SYNTHETIC_ID_PREFIX);

/** A response id cut down to characters every other format accepts in a call id. */
export function idScope(responseId: string | undefined, candidateIndex: number): string {
  if (responseId === undefined) return `r${candidateIndex}`;
  // The first 12 ASCII letters and digits of the id: one slice when they lead the id (as they do in Gemini's ids).
  let kept = '';
  let count = 0;
  let index = 0;
  for (; index < responseId.length && count < 12; index++) {
    const code = responseId.charCodeAt(index);
    if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) count++;
    else {
      kept = leadingAlphanumerics(responseId, index);
      break;
    }
  }
  if (index === responseId.length || count === 12) kept = responseId.slice(0, index);
  return `${kept}_${candidateIndex}`;
}

/** {@link idScope}'s kept characters the slow way, from the first one that is dropped (`from`). */
function leadingAlphanumerics(responseId: string, from: number): string {
  let kept = responseId.slice(0, from);
  for (let index = from; index < responseId.length && kept.length < 12; index++) {
    const code = responseId.charCodeAt(index);
    if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) kept += responseId[index];
  }
  return kept;
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

/**
 * Calls waiting for their response, in order. A list scanned by name, as the
 * Ollama decoder keeps its own: a response mostly answers one of the few
 * calls of the turn before, and a compare per waiting call costs less than a
 * map entry and a queue per name.
 */
export class PendingCalls {
  // Name and id of each waiting call, side by side.
  private readonly names: string[] = [];
  private readonly ids: string[] = [];

  /** Remember a call. */
  add(name: string, id: string): void {
    this.names.push(name);
    this.ids.push(id);
  }

  /** The earliest unanswered call id for `name`, removed from the queue. */
  take(name: string): string | undefined {
    const names = this.names;
    for (let index = 0; index < names.length; index++) {
      if (names[index] !== name) continue;
      const id = this.ids[index];
      this.remove(index);
      return id;
    }
    return undefined;
  }

  /** Mark the call `id` answered (a response that carried its id). */
  answer(name: string, id: string): void {
    const names = this.names;
    const ids = this.ids;
    for (let index = 0; index < names.length; index++) {
      if (ids[index] === id && names[index] === name) {
        this.remove(index);
        return;
      }
    }
  }

  private remove(index: number): void {
    if (index === 0) {
      this.names.shift();
      this.ids.shift();
    } else {
      this.names.splice(index, 1);
      this.ids.splice(index, 1);
    }
  }
}
