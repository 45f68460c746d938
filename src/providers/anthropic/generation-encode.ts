/**
 * Sampling and length settings: `max_tokens` (required on the wire),
 * `temperature`, `top_p`, `top_k`, `stop_sequences`. Anthropic has no seed,
 * penalties, candidate count or logprobs: those are reported.
 *
 * @see https://docs.anthropic.com/en/api/messages#body-max-tokens
 */
import type { Generation } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { JsonObject } from '../../core/wire.ts';

/** `max_tokens` sent when the IR has none (Anthropic requires it). */
export const DEFAULT_MAX_TOKENS = 4096;

/** The message of the loss for a defaulted `max_tokens`, which most requests from other formats report (made once). */
const DEFAULTED_MAX_TOKENS = `Anthropic requires max_tokens; sent the default ${DEFAULT_MAX_TOKENS}`;

/** Write the generation settings onto the wire body; `exact` skips the range checks meant for other formats' values; `maxTokens` is sent when the IR names none (default {@link DEFAULT_MAX_TOKENS}). */
export function encodeAnthropicGeneration(generation: Generation | undefined, body: JsonObject, exact: boolean, losses: LossCollector, maxTokens?: number): void {
  if (generation?.maxTokens !== undefined) body['max_tokens'] = generation.maxTokens;
  else if (maxTokens === undefined || maxTokens === DEFAULT_MAX_TOKENS) {
    body['max_tokens'] = DEFAULT_MAX_TOKENS;
    losses.add('defaulted', '/generation/maxTokens', DEFAULTED_MAX_TOKENS);
  } else {
    body['max_tokens'] = maxTokens;
    losses.add('defaulted', '/generation/maxTokens', `Anthropic requires max_tokens; sent the default ${maxTokens}`);
  }
  if (generation === undefined) return;
  // Its range (0–1) was fitted by the request encoder (`core/bounds.ts`).
  if (generation.temperature !== undefined) body['temperature'] = generation.temperature;
  if (generation.topP !== undefined) body['top_p'] = generation.topP;
  if (generation.topK !== undefined) body['top_k'] = generation.topK;
  if (generation.stop !== undefined) body['stop_sequences'] = generation.stop;
  if (generation.candidateCount !== undefined && generation.candidateCount > 1) {
    losses.add('dropped_field', '/generation/candidateCount', `Anthropic returns one answer; candidateCount ${generation.candidateCount} was dropped`);
  }
  // Named reads, not a loop over the keys: a keyed read per key costs more than the rest of this function.
  if (generation.seed !== undefined) reportUnsupported('seed', 'seed', losses);
  if (generation.presencePenalty !== undefined) reportUnsupported('presencePenalty', 'presence penalty', losses);
  if (generation.frequencyPenalty !== undefined) reportUnsupported('frequencyPenalty', 'frequency penalty', losses);
  if (generation.logprobs !== undefined) reportUnsupported('logprobs', 'logprobs', losses);
  if (generation.topLogprobs !== undefined) reportUnsupported('topLogprobs', 'top logprobs', losses);
}

function reportUnsupported(key: keyof Generation, label: string, losses: LossCollector): void {
  losses.add('dropped_field', `/generation/${key}`, `Anthropic has no ${label}; dropped`);
}
