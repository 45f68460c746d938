/**
 * Where the proxy's request and answer paths meet the kept reasoning state
 * (`src/state/reasoning-keeper.ts`): the origin a request goes to, and the
 * accumulator that keeps a streamed answer's state at the stream's end.
 */
import { Accumulator } from '../core/accumulate.ts';
import type { StreamEvent } from '../core/stream-events.ts';
import { candidateParts } from '../state/reasoning-keeper.ts';
import type { ReasoningOrigin } from '../state/reasoning-record.ts';
import type { ForwardOptions } from './forward-options.ts';

/** The upstream a request goes to, as a kept record's origin is checked against (`model`: the upstream model). */
export function reasoningOrigin(options: ForwardOptions, model: string | undefined): ReasoningOrigin {
  return { format: options.upstream, dialect: options.dialect, model };
}

/**
 * A watcher of a converted stream's upstream events (before anything is
 * carried for the caller) that keeps the answer's reasoning state once the
 * stream has ended whole; `undefined` when nothing of it can need keeping.
 */
export function streamKeeper(options: ForwardOptions, model: string | undefined): ((event: StreamEvent) => void) | undefined {
  const reasoning = options.reasoning;
  if (reasoning === undefined || !reasoning.watches(options.upstream)) return undefined;
  let accumulator: Accumulator | undefined = new Accumulator();
  return (event) => {
    if (accumulator === undefined) return;
    try {
      accumulator.push(event);
    } catch {
      // An event the accumulator cannot place is the encoder's to report; nothing of this answer is kept.
      accumulator = undefined;
      return;
    }
    if (event.type !== 'end') return;
    const { response, error } = accumulator;
    accumulator = undefined;
    if (error === undefined) void reasoning.keep(candidateParts(response), reasoningOrigin(options, model), options.losses);
  };
}
