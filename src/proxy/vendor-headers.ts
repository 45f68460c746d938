/**
 * Vendor headers a caller sends that change what a request means
 * (`anthropic-beta`, `anthropic-version`, `OpenAI-Beta`): forwarded to an
 * upstream of the same vendor, mapped where the target has a place for
 * their meaning, and otherwise reported as losses. Headers that only
 * describe the client (`x-goog-api-client`, `user-agent`, the SDKs'
 * `x-stainless-*`) change nothing and are not forwarded.
 */
import type { FormatId, Request } from '../core/ir.ts';
import type { LossCollector } from '../core/losses.ts';
import { extensionsOf, extend } from '../core/wire.ts';
import { sanitizeHeaderValue } from './auth.ts';

/** What the caller's vendor headers become for one request: headers to add, and an adjustment of the converted request. */
export interface VendorHeaders {
  /** The headers to send, `undefined` when there are none. */
  headers: Record<string, string> | undefined;
  /** Applied to the IR before it is encoded for the upstream (a converted request only). */
  adjust?: (request: Request, losses: LossCollector) => void;
  /** Reported for a converted request. */
  report: (losses: LossCollector) => void;
}

/**
 * The `anthropic-beta` flags Bedrock takes for Claude models in the body's
 * `additionalModelRequestFields.anthropic_beta`, the ones whose meaning
 * matters to a translated request: context size, interleaved thinking and
 * output length (docs.aws.amazon.com/bedrock, "Anthropic Claude Messages
 * API", request `anthropic_beta`). Bedrock refuses flags it does not enable
 * (`ValidationException: invalid beta flag`, shared/VENDOR_RULES.md §1.4),
 * so no other flag is sent there.
 */
const BEDROCK_BETAS = /^(context-1m-|interleaved-thinking-|output-128k-)/;

/**
 * Betas whose effect another target has without a flag: an output-length
 * beta only lifts Anthropic's cap on `max_tokens`, which travels as the
 * target's own output limit.
 */
const CARRIED_ELSEWHERE = /^output-128k-/;

/** The comma-separated flags of a beta header, trimmed, without empties. */
function flags(value: string): string[] {
  return value
    .split(',')
    .map((flag) => flag.trim())
    .filter((flag) => flag !== '');
}

/** True for a Bedrock model id (or inference profile or ARN) of an Anthropic model. */
function isBedrockClaude(model: string | undefined): boolean {
  return model !== undefined && /anthropic\.|claude/i.test(model);
}

/**
 * The vendor headers of a request from a `caller`-format client to an
 * `upstream`-format upstream (`dialect`: the upstream's OpenAI-compatible
 * dialect, which is not OpenAI). `header` reads the caller's headers.
 */
export function vendorHeaders(header: (name: string) => string | null, caller: FormatId, upstream: FormatId, dialect: string | undefined): VendorHeaders {
  const headers: Record<string, string> = {};
  const dropped: { name: string; flag: string; why: string }[] = [];
  let bedrockBetas: string[] = [];

  const beta = caller === 'anthropic' ? header('anthropic-beta') : null;
  if (beta !== null) {
    if (upstream === 'anthropic') headers['anthropic-beta'] = sanitizeHeaderValue(beta);
    else {
      for (const flag of flags(beta)) {
        if (upstream === 'bedrock-converse' && BEDROCK_BETAS.test(flag)) bedrockBetas.push(flag);
        else if (!CARRIED_ELSEWHERE.test(flag)) dropped.push({ name: 'anthropic-beta', flag, why: upstream === 'bedrock-converse' ? 'Bedrock refuses the beta flags it does not enable' : `${upstream} has no such feature flag` });
      }
    }
  }
  const version = caller === 'anthropic' ? header('anthropic-version') : null;
  if (version !== null && upstream === 'anthropic') headers['anthropic-version'] = sanitizeHeaderValue(version);

  const openaiBeta = caller === 'openai-chat' || caller === 'openai-responses' ? header('openai-beta') : null;
  if (openaiBeta !== null) {
    if ((upstream === 'openai-chat' || upstream === 'openai-responses') && dialect === undefined) headers['openai-beta'] = sanitizeHeaderValue(openaiBeta);
    else for (const flag of flags(openaiBeta)) dropped.push({ name: 'OpenAI-Beta', flag, why: `${dialect ?? upstream} is not OpenAI` });
  }

  const report = (losses: LossCollector) => {
    for (const { name, flag, why } of dropped) losses.add('dropped_field', '', `the ${name} header's ${flag} has no meaning upstream (${why}); dropped`, 'warning');
  };
  const sent = Object.keys(headers).length === 0 ? undefined : headers;
  if (bedrockBetas.length === 0) return { headers: sent, report };
  const adjust = (request: Request, losses: LossCollector) => {
    if (!isBedrockClaude(request.model)) {
      for (const flag of bedrockBetas) losses.add('dropped_field', '', `the anthropic-beta header's ${flag} has no meaning for ${request.model ?? 'this model'} (Bedrock takes beta flags for Claude models only); dropped`, 'warning');
      bedrockBetas = [];
      return;
    }
    const own = extensionsOf(request, 'bedrock-converse');
    const fields = own?.['additionalModelRequestFields'];
    const merged = typeof fields === 'object' && fields !== null && !Array.isArray(fields) ? { ...(fields as Record<string, unknown>) } : {};
    merged['anthropic_beta'] = bedrockBetas;
    extend(request, 'bedrock-converse', { additionalModelRequestFields: merged });
  };
  return { headers: sent, adjust, report };
}
