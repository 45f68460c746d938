/**
 * What `serve` says out loud at start-up about a configuration that works
 * but is likely not what was meant: a non-loopback address without an
 * inbound token, an upstream without a key, a URL whose path the format
 * adds again.
 */
import type { FormatId } from '../core/ir.ts';
import { upstreamUrl } from '../proxy/routes.ts';
import type { GatewayConfig, GatewayUpstream } from './config.ts';

/** Formats whose vendors refuse a request without a key. */
const KEYED: ReadonlySet<FormatId> = new Set(['anthropic', 'openai-chat', 'openai-responses', 'gemini']);

/** The path each format adds to its API root, and what a root that already ends in part of it looks like. */
const ADDED: Record<FormatId, RegExp> = {
  anthropic: /\/v1(\/messages)?\/?$/,
  'openai-chat': /\/(v1\/v1|chat\/completions)\/?$/,
  'openai-responses': /\/(v1\/v1|responses)\/?$/,
  gemini: /\/(v1beta|v1|v1alpha)(\/models)?\/?$/,
  ollama: /\/api(\/chat|\/generate)?\/?$/,
  'bedrock-converse': /\/model\/?$/,
};

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

function upstreamWarnings(name: string, upstream: GatewayUpstream): string[] {
  const warnings: string[] = [];
  if (upstream.key === undefined && upstream.passThroughAuth !== true && KEYED.has(upstream.format)) {
    warnings.push(`upstream "${name}" (${upstream.format}) has no key: its requests go without credentials, which the vendor refuses; set key: "\${...}" or passThroughAuth: true`);
  }
  const url = upstream.url;
  if (url !== undefined && ADDED[upstream.format].test(new URL(url).pathname)) {
    const sent = upstreamUrl(url, upstream.format, 'MODEL', false);
    warnings.push(`upstream "${name}" has the url ${url}, and ${upstream.format} adds its own path to it: requests go to ${sent}; give the API root as the vendor's SDK spells it`);
  }
  if (url !== undefined && (upstream.format === 'openai-chat' || upstream.format === 'openai-responses') && /^https:\/\/api\.openai\.com\/?$/.test(url)) {
    warnings.push(`upstream "${name}" has the url ${url}: OpenAI's API root is https://api.openai.com/v1`);
  }
  return warnings;
}

/** The warnings for `config` served on `host`. */
export function gatewayWarnings(config: GatewayConfig, host: string): string[] {
  const warnings: string[] = [];
  if (!isLoopback(host) && config.inboundToken === undefined) {
    warnings.push(`listening on ${host}, which is not a loopback address, without an inbound token: anyone who reaches it spends your upstream keys; set inboundToken (or --inbound-token-env)`);
  }
  for (const [name, upstream] of Object.entries(config.upstreams)) warnings.push(...upstreamWarnings(name, upstream));
  return warnings;
}
