/**
 * The table of codecs by format id. Every conversion looks its codecs up
 * here, so an unknown or unimplemented format is one clear error.
 */
import { InterlinguaError } from '../core/errors.ts';
import { FORMAT_IDS, type FormatId } from '../core/ir.ts';
import type { Codec } from '../core/codec.ts';
import { anthropicCodec } from '../providers/anthropic/index.ts';
import { openaiChatCodec } from '../providers/openai-chat/index.ts';
import { openaiResponsesCodec } from '../providers/openai-responses/index.ts';
import { geminiCodec } from '../providers/gemini/index.ts';
import { ollamaCodec } from '../providers/ollama/index.ts';
import { bedrockConverseCodec } from '../providers/bedrock-converse/index.ts';

const CODECS: { readonly [F in FormatId]: Codec | undefined } = {
  anthropic: anthropicCodec,
  'openai-chat': openaiChatCodec,
  'openai-responses': openaiResponsesCodec,
  gemini: geminiCodec,
  ollama: ollamaCodec,
  'bedrock-converse': bedrockConverseCodec,
};

/** True when `value` is a format id interlingua knows. */
export function isFormatId(value: unknown): value is FormatId {
  return typeof value === 'string' && (FORMAT_IDS as readonly string[]).includes(value);
}

/** The formats whose codec is implemented. */
export function implementedFormats(): FormatId[] {
  return FORMAT_IDS.filter((format) => CODECS[format] !== undefined);
}

/** The codec for `format`, or an error that says which formats exist. */
export function codecFor(format: unknown): Codec {
  // A switch, not a table without a prototype: such a table is a dictionary, a hash lookup per conversion.
  switch (format) {
    case 'anthropic':
      return anthropicCodec;
    case 'openai-chat':
      return openaiChatCodec;
    case 'openai-responses':
      return openaiResponsesCodec;
    case 'gemini':
      return geminiCodec;
    case 'ollama':
      return ollamaCodec;
    case 'bedrock-converse':
      return bedrockConverseCodec;
  }
  if (!isFormatId(format)) {
    throw new InterlinguaError(
      'unknown_format',
      `unknown format ${JSON.stringify(format)}; use one of ${FORMAT_IDS.join(', ')}`,
    );
  }
  const codec = CODECS[format];
  if (codec === undefined) {
    throw new InterlinguaError(
      'not_implemented',
      `the ${format} codec is not implemented yet; implemented: ${implementedFormats().join(', ') || 'none'}`,
      { format },
    );
  }
  return codec;
}

