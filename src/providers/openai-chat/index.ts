import type { Codec } from '../../core/codec.ts';

/** The openai-chat codec. Not implemented yet: the registry reports it as such. */
export const openaiChatCodec: Codec | undefined = undefined;
