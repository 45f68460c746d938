// A strict TypeScript consumer with none of the vendor SDKs installed: the
// package's own declarations must carry every type it needs.
import { LossCollector, convertRequest, isInterlinguaError, type ConvertResult, type FormatId, type Loss } from 'interlingua';
import { createProxy, type ProxyConfig } from 'interlingua/proxy';
import { convertRequest as convertWith, type Codec } from 'interlingua/core';
import { openaiChatCodec } from 'interlingua/openai-chat';
import { anthropicCodec, decodeAnthropicRequest } from 'interlingua/anthropic';

const config: ProxyConfig = {
  upstream: { format: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY' },
  modelMap: { 'gpt-*': 'claude-sonnet-4-5' },
  log: (entry) => console.log(entry.status, entry.ingress ?? 'no route', entry.losses),
};
export const handler: (request: Request) => Promise<Response> = createProxy(config);

export function toAnthropic(body: unknown): ConvertResult {
  const result = convertRequest(body, { from: 'openai-chat', to: 'anthropic' });
  const warnings: Loss[] = result.losses.filter((loss) => loss.severity !== 'info');
  if (warnings.length > 0) console.warn(warnings.map((loss) => loss.code).join(', '));
  return result;
}

// One pair by codec objects from the per-format subpaths, as a lean bundle would.
export function toAnthropicLean(body: unknown): ConvertResult {
  const from: Codec = openaiChatCodec;
  return convertWith(body, { from, to: anthropicCodec });
}

const format: FormatId = anthropicCodec.format;
export const decoded = decodeAnthropicRequest({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [] }, { losses: new LossCollector() });

try {
  // @ts-expect-error 'cohere' is not one of the format ids
  convertRequest({}, { from: format, to: 'cohere' });
} catch (error) {
  if (isInterlinguaError(error)) console.error(error.code, error.message);
}
