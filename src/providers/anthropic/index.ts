import type { Codec } from '../../core/codec.ts';

/** The anthropic codec. Not implemented yet: the registry reports it as such. */
export const anthropicCodec: Codec | undefined = undefined;
