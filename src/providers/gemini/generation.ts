/**
 * What the `generationConfig` decoder and encoder agree on: the number
 * fields and their IR names, and the `responseMimeType` an output format is
 * written with (the decoder hints only a mime type that differs from it).
 * @see https://ai.google.dev/api/generate-content#generationconfig
 */
import type { GenerationConfig } from '@google/genai';
import type { Generation, OutputFormat } from '../../core/ir.ts';

/** Number fields of `generationConfig` and their IR names. */
export const NUMBER_FIELDS = [
  ['maxOutputTokens', 'maxTokens'],
  ['temperature', 'temperature'],
  ['topP', 'topP'],
  ['topK', 'topK'],
  ['candidateCount', 'candidateCount'],
  ['seed', 'seed'],
  ['presencePenalty', 'presencePenalty'],
  ['frequencyPenalty', 'frequencyPenalty'],
  ['logprobs', 'topLogprobs'],
] as const satisfies readonly (readonly [keyof GenerationConfig, keyof Generation])[];

/** The `responseMimeType` the encoder writes for an output format. */
export function canonicalMimeType(output: OutputFormat | undefined): string | undefined {
  if (output === undefined) return undefined;
  return output.type === 'text' ? 'text/plain' : 'application/json';
}
