/**
 * Request settings few formats have: `store`, the prompt-cache key and
 * retention, `verbosity` and stream obfuscation (OpenAI Chat and Responses
 * carry them; a stream's usage every format reports without asking). The
 * encoders of the other formats report each one a request sets, here in one
 * place, against its IR field (a conversion points the loss at the field in
 * the source body).
 */
import type { Request } from './ir.ts';
import type { LossCollector } from './losses.ts';

/** Report the settings of `request` that `target` (a format's display name) has no field for. */
export function reportUncarriedSettings(request: Request, losses: LossCollector, target: string): void {
  if (request.store !== undefined) {
    // Asking not to be stored loses nothing where no answer is kept for retrieval; asking to be stored does.
    losses.add('dropped_field', '/store', `${target} keeps no answers for later retrieval; store: ${request.store} dropped`, request.store ? 'warning' : 'info');
  }
  if (request.promptCacheKey !== undefined) {
    losses.add('dropped_field', '/promptCacheKey', `${target} has no prompt-cache key (a routing hint: caching works without it); dropped`, 'info');
  }
  if (request.promptCacheRetention !== undefined) {
    losses.add('dropped_field', '/promptCacheRetention', `${target} has no prompt-cache retention setting; "${request.promptCacheRetention}" dropped`, 'info');
  }
  if (request.verbosity !== undefined) {
    losses.add('dropped_field', '/verbosity', `${target} has no verbosity setting; "${request.verbosity}" dropped, so the answer's length is the model's default`);
  }
  if (request.streamObfuscation === true) {
    losses.add('dropped_field', '/streamObfuscation', `${target} does not pad stream events against length side channels; dropped`, 'info');
  }
}
