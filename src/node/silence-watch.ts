/**
 * The time limits of the proxy's upstream calls on Node (the first byte, and
 * silence within an answer), kept by one sweep for every call, whichever
 * client carries it (node:http for streams, undici for whole answers).
 */

/** The error a whole body that went silent for `timeoutMs` ends with (forward.ts answers it with 504). */
export function silence(timeoutMs: number): Error {
  return new Error(`the upstream went silent for ${timeoutMs} ms mid-answer`);
}

/** One upstream call under the {@link SilenceWatch}. */
export interface Watched {
  /** Set by every sign of life (the request written, the answer's head, each chunk); each sweep clears it. */
  active: boolean;
  /** The time of the first sweep that found the call quiet, ms (`performance.now()`). */
  quietSince: number;
  /** Held back by the reader's back-pressure: a slow caller is not a silent upstream, but one that stops reading for `stalledMs` is {@link stalled}. */
  paused: boolean;
  timeoutMs: number;
  /** While a large request body is going out: the bytes the socket has written so far (progress is a sign of life). */
  written?: (() => number) | undefined;
  /** What {@link written} said at the last sweep. */
  lastWritten?: number;
  /** The call was silent for `timeoutMs`: it ends here (it is no longer watched). */
  silent: () => void;
  /** How long the reader may hold the call paused (it stopped reading) before {@link stalled} ends it; unset, never. */
  stalledMs?: number | undefined;
  /** The reader held the call paused for `stalledMs`: it ends here (it is no longer watched). */
  stalled?: (() => void) | undefined;
}

/**
 * The first-byte limit and the silence limit of every upstream call, kept
 * by one sweep instead of a timer per call. The socket's own timeout (the
 * request's `timeout` option) costs two timer updates and a listener per
 * request on a keep-alive socket (set when the agent hands the socket over,
 * cleared when the answer ends); here a call is an entry in a set and a
 * flag its events set. A sweep every eighth of the shortest limit (at most
 * every second) marks a call that showed life since the last sweep as quiet
 * from now, and ends one quiet for its whole limit: a silence ends at
 * least `timeoutMs` after the last byte, and at most two sweep periods
 * later. The sweep stops when no call is left.
 */
export class SilenceWatch {
  readonly #calls = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #period = 0;

  add(call: Watched): void {
    this.#calls.add(call);
    const period = Math.max(1, Math.min(1000, Math.floor(call.timeoutMs / 8)));
    if (this.#timer !== undefined && period >= this.#period) return;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#period = period;
    this.#timer = setInterval(this.#sweep, period);
    this.#timer.unref();
  }

  delete(call: Watched): void {
    this.#calls.delete(call);
  }

  readonly #sweep = (): void => {
    if (this.#calls.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = performance.now();
    for (const call of this.#calls) {
      if (call.written !== undefined) {
        const written = call.written();
        if (written !== call.lastWritten) {
          call.lastWritten = written;
          call.active = true;
        }
      }
      if (call.active) {
        call.active = false;
        call.quietSince = now;
      } else if (call.paused) {
        // A slow caller is not a silent upstream; one that stopped reading for `stalledMs` no longer holds the upstream open.
        if (call.stalled !== undefined && call.stalledMs !== undefined && now - call.quietSince >= call.stalledMs) {
          this.#calls.delete(call);
          call.stalled();
        }
      } else if (now - call.quietSince >= call.timeoutMs) {
        this.#calls.delete(call);
        call.silent();
      }
    }
  };
}

/** A request body this long (in UTF-16 units) marks the call active once it is written. */
export const LARGE_BODY = 64 * 1024;

