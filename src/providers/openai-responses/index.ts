import type { Codec } from '../../core/codec.ts';

/** The openai-responses codec. Not implemented yet: the registry reports it as such. */
export const openaiResponsesCodec: Codec | undefined = undefined;
