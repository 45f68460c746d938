import type { Codec } from '../../core/codec.ts';

/** The gemini codec. Not implemented yet: the registry reports it as such. */
export const geminiCodec: Codec | undefined = undefined;
