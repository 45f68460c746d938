/**
 * Request-level rules the encoders share: the settings few formats have
 * (`store`, the prompt-cache key and retention, `verbosity` and stream
 * obfuscation, which OpenAI Chat and Responses carry; a stream's usage every
 * format reports without asking), reported by the encoders of the other
 * formats here in one place, against their IR fields (a conversion points
 * each loss at the field in the source body); the stop sequences a target takes; and the error for a request with no conversation to send.
 */
import { InterlinguaError } from './errors.ts';
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

/**
 * Report the output modalities of `request` that `target` (a format whose
 * answers are text only: Anthropic, Responses, Converse, Ollama) cannot
 * give: audio or images asked for are dropped, so the answer is text.
 */
export function reportOutputModalities(request: Request, losses: LossCollector, target: string): void {
  const modalities = request.outputModalities;
  if (modalities === undefined) return;
  const other = modalities.filter((modality) => modality !== 'text');
  if (other.length > 0) losses.add('dropped_field', '/outputModalities', `${target} answers in text only; the ${other.join(' and ')} output asked for was dropped`);
}

/**
 * The stop sequences `target` takes, at most `max` of them (OpenAI Chat 4,
 * Gemini 5): the first `max`, the rest reported; `undefined` for an empty
 * list, which OpenAI refuses (`minItems` 1) and which stops nothing.
 */
export function stopsWithin(stop: string[], max: number, losses: LossCollector, target: string): string[] | undefined {
  if (stop.length === 0) return undefined;
  if (stop.length <= max) return stop;
  losses.add('dropped_field', '/generation/stop', `${target} takes at most ${max} stop sequences; the last ${stop.length - max} of ${stop.length} were dropped`);
  return stop.slice(0, max);
}

/**
 * The error for a request with no conversation to send (an Ollama model
 * load or unload request, whose `messages` is empty) to a target that
 * refuses one: Chat Completions (`messages` needs an item), Anthropic,
 * Gemini and Converse.
 */
export function noConversation(target: string, path: string): InterlinguaError {
  return new InterlinguaError('missing_field', `the request has no messages, and ${target} needs at least one; send a message (a request that only loads or unloads a model has no ${target} form)`, { path });
}
