/**
 * Converse responses: `output.message`, `stopReason`, `usage`, `metrics`.
 * A response has no id and no model (the model is the URL's: `context.model`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Candidate, Response } from '../../core/ir.ts';
import { expectObject, expectString, extend, extensionsOf, hint, isObject, required, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { decodeBedrockBlocks } from './blocks-decode.ts';
import { encodeBedrockParts } from './blocks-encode.ts';
import { messageExtras } from './messages-decode.ts';
import { BEDROCK } from './shape.ts';
import { decodeBedrockStopReason, encodeBedrockStopReason } from './stop-reason.ts';
import { bedrockTier, decodeBedrockUsage, encodeBedrockUsage, readBedrockTier } from './usage.ts';
import { reportModalityBreakdown } from '../../core/usage.ts';

/** The keys of a response body this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function responseExtras(object: JsonObject, tierRead: boolean): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'output':
      case 'stopReason':
      case 'usage':
      case 'metrics':
        continue;
      case 'serviceTier':
        if (tierRead) continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

const OUTPUT_KEYS: ReadonlySet<string> = new Set(['message']);

/** Decode a Converse response body into the IR. */
export function decodeBedrockResponse(body: unknown, context: CodecContext): Response {
  const object = expectObject(body, '', BEDROCK);
  const output = expectObject(required(object, 'output', '', BEDROCK), '/output', BEDROCK);
  const wire = expectObject(required(output, 'message', '/output', BEDROCK), '/output/message', BEDROCK);
  const role = expectString(required(wire, 'role', '/output/message', BEDROCK), '/output/message/role', BEDROCK);
  const parts = decodeBedrockBlocks(required(wire, 'content', '/output/message', BEDROCK), '/output/message/content', { losses: context.losses, role: 'assistant' });
  const candidate: Candidate = { index: 0, message: context.losses.origin({ role: 'assistant', parts }, '/output/message') };
  if (role !== 'assistant') hint(candidate.message, BEDROCK, '$role', role);
  extend(candidate.message, BEDROCK, messageExtras(wire));
  const outputRest = unknownKeys(output, OUTPUT_KEYS);
  if (outputRest !== undefined) extend(candidate, BEDROCK, { output: outputRest });
  if (object['stopReason'] !== undefined) candidate.stopReason = context.losses.origin(decodeBedrockStopReason(expectString(object['stopReason'], '/stopReason', BEDROCK)), '/stopReason');
  const response: Response = { candidates: [candidate] };
  // Anthropic models on Bedrock name the stop sequence that matched in the model's own fields.
  const fields = object['additionalModelResponseFields'];
  if (candidate.stopReason !== undefined && isObject(fields) && typeof fields['stop_sequence'] === 'string') candidate.stopReason.sequence = fields['stop_sequence'];
  if (context.model !== undefined) response.model = context.model;
  if (object['usage'] !== undefined) response.usage = context.losses.anchor(decodeBedrockUsage(object['usage'], '/usage'), '/usage');
  else hint(response, BEDROCK, '$noUsage', true);
  // The tier that served the answer is the usage's (it prices the tokens); without usage it stays the body's own.
  const tierRead = response.usage !== undefined && object['serviceTier'] !== undefined && readBedrockTier(response.usage, object['serviceTier']);
  hint(response, BEDROCK, '$source', true);
  // Latency says how long Bedrock took, nothing about the answer: a hint, not a field other formats lose.
  if (object['metrics'] !== undefined) hint(response, BEDROCK, '$metrics', object['metrics']);
  extend(response, BEDROCK, responseExtras(object, tierRead));
  return response;
}

/** Encode an IR response as a Converse response body. */
export function encodeBedrockResponse(response: Response, context: CodecContext): JsonObject {
  const losses = context.losses;
  losses.foreignExtensions(response.extensions, BEDROCK, '');
  const candidate = response.candidates[0];
  if (response.candidates.length > 1) losses.add('dropped_field', '/candidates', `Converse has one answer; ${response.candidates.length - 1} more candidates were dropped`);
  const message = candidate?.message;
  if (candidate !== undefined) losses.foreignExtensions(candidate.extensions, BEDROCK, '/candidates/0');
  if (message !== undefined) losses.foreignExtensions(message.extensions, BEDROCK, '/candidates/0/message');
  const content = message === undefined ? [] : encodeBedrockParts(message.parts, losses, '/candidates/0/message/parts', 'response');
  const role = message === undefined ? undefined : extensionsOf(message, BEDROCK)?.['$role'];
  const wireMessage: JsonObject = { role: typeof role === 'string' ? role : 'assistant', content };
  const messageFields = message === undefined ? undefined : extensionsOf(message, BEDROCK);
  if (messageFields !== undefined) for (const key in messageFields) if (key.charCodeAt(0) !== 36 && !(key in wireMessage)) wireMessage[key] = messageFields[key];
  const outputRest = candidate === undefined ? undefined : extensionsOf(candidate, BEDROCK)?.['output'];
  const body: JsonObject = { output: { ...(isObject(outputRest) ? outputRest : {}), message: wireMessage } };
  if (candidate?.stopReason !== undefined) body['stopReason'] = encodeBedrockStopReason(candidate.stopReason, losses, '/candidates/0/stopReason');
  else {
    losses.add('defaulted', '/candidates/0/stopReason', 'Converse responses need a stopReason; sent as end_turn', 'info');
    body['stopReason'] = 'end_turn';
  }
  const fields = extensionsOf(response, BEDROCK);
  if (response.usage !== undefined || fields?.['$noUsage'] !== true) {
    if (response.usage !== undefined) {
      losses.foreignExtensions(response.usage.extensions, BEDROCK, '/usage');
      reportModalityBreakdown(response.usage, losses, '/usage', 'Converse');
    }
    else losses.add('defaulted', '/usage', 'Converse responses carry usage; the source had none, so zero tokens were sent', 'info');
    body['usage'] = encodeBedrockUsage(response.usage);
    const tier = bedrockTier(response.usage, losses);
    if (tier !== undefined) body['serviceTier'] = tier;
  }
  if (fields !== undefined) for (const key in fields) if (key.charCodeAt(0) !== 36 && !(key in body)) body[key] = fields[key];
  const sequence = candidate?.stopReason?.sequence;
  if (sequence !== undefined && fields?.['additionalModelResponseFields'] === undefined && body['stopReason'] === 'stop_sequence') {
    body['additionalModelResponseFields'] = { stop_sequence: sequence };
  }
  if (fields?.['$metrics'] !== undefined) body['metrics'] = fields['$metrics'];
  else if (fields?.['$source'] !== true) {
    losses.add('defaulted', '/metrics', 'Converse responses carry metrics.latencyMs; sent as 0', 'info');
    body['metrics'] = { latencyMs: 0 };
  }
  if (response.id !== undefined) losses.add('dropped_field', '/id', 'Converse responses have no id; dropped', 'info');
  return body;
}
