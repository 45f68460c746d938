/**
 * A one-line progress bar on stderr for long runs: share of input bytes
 * read, records so far, rate and errors. Redrawn at most ten times a second,
 * and only on a terminal, so logs and pipes stay clean.
 */

/** Where the bar is drawn. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** The numbers the bar shows. */
export interface ProgressState {
  bytesRead: number;
  records: number;
  errors: number;
}

const WIDTH = 24;
const INTERVAL_MS = 100;

/** Draws progress on a terminal; does nothing elsewhere. */
export class ProgressBar {
  private last = 0;
  private drawn = false;
  private readonly started = performance.now();

  constructor(
    private readonly output: ProgressOutput,
    private readonly totalBytes: number,
    private readonly enabled = output.isTTY === true,
  ) {}

  /** Redraw if enough time has passed. */
  update(state: ProgressState): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < INTERVAL_MS) return;
    this.last = now;
    this.output.write(`\r${this.render(state, now)}\u001b[K`);
    this.drawn = true;
  }

  /** Erase the bar. */
  done(): void {
    if (this.drawn) this.output.write('\r\u001b[K');
    this.drawn = false;
  }

  /** The bar's text for `state` at time `now` (milliseconds). */
  render(state: ProgressState, now: number): string {
    const share = this.totalBytes > 0 ? Math.min(1, state.bytesRead / this.totalBytes) : 0;
    const filled = Math.round(share * WIDTH);
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = Math.round(state.records / seconds);
    const text = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ` +
      `${state.records.toLocaleString('en-US')} records  ${rate.toLocaleString('en-US')}/s  ${state.errors.toLocaleString('en-US')} errors`;
    const columns = this.output.columns ?? 80;
    return text.length >= columns ? text.slice(0, columns - 1) : text;
  }
}
