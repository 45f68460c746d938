/**
 * Gemini `GenerateContentResponse` ↔ IR response: every candidate, its finish
 * reason and metadata, `usageMetadata`, `modelVersion` (→ model) and
 * `responseId` (→ id). A prompt blocked before generation (`promptFeedback`
 * and no candidates) becomes one empty candidate stopped by `content_filter`,
 * so other formats see the block; the Gemini encoder leaves it out again.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
import type { CodecContext } from '../../core/codec.ts';
import type { Candidate, Message, Part, Response } from '../../core/ir.ts';
import { expectArray, expectNumber, expectObject, expectString, extend, extensionsOf, hint, isObject, pointer, spreadExtensions, type JsonObject } from '../../core/wire.ts';
import { decodeGeminiUsage, encodeGeminiUsage } from './usage.ts';
import { decodeGeminiBlockReason, decodeGeminiFinishReason, encodeGeminiFinishReason } from './stop-reason.ts';
import { decodeGeminiCandidateContent, encodeGeminiCandidateContent } from './candidate-content.ts';
import { idScope } from './ids.ts';
import { decodeGeminiGrounding, dropCarriedGrounding, GroundingWriter } from './grounding.ts';
import { dropResponseCacheBreakpoints } from '../../core/cache-points.ts';
import { modalityOrigins } from '../../core/usage.ts';

/** The keys of a response this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function responseExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'candidates':
      case 'usageMetadata':
      case 'modelVersion':
      case 'responseId':
      case 'createTime':
        continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** The keys of a candidate this file does not read, or `undefined` (a switch: cheaper than a set lookup per key). */
function candidateExtras(object: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in object) {
    switch (key) {
      case 'content':
      case 'finishReason':
      case 'index':
        continue;
    }
    (rest ??= {})[key] = object[key];
  }
  return rest;
}

/** Decode a Gemini response body into the IR. */
export function decodeGeminiResponse(body: unknown, context: CodecContext): Response {
  const object = expectObject(body, '', 'gemini');
  // Headed for another format: skip the hints only a trip back to Gemini needs.
  const lean = context.target !== undefined && context.target !== 'gemini';
  const response: Response = { candidates: [] };
  const responseId = object['responseId'];
  if (responseId !== undefined) response.id = expectString(responseId, '/responseId', 'gemini');
  const model = object['modelVersion'];
  if (model !== undefined) response.model = expectString(model, '/modelVersion', 'gemini');
  else if (context.model !== undefined) {
    response.model = context.model;
    hint(response, 'gemini', '$noModelVersion', true);
  }
  const createTime = object['createTime'];
  if (createTime !== undefined) {
    const text = expectString(createTime, '/createTime', 'gemini');
    const milliseconds = Date.parse(text);
    if (Number.isFinite(milliseconds)) response.created = Math.floor(milliseconds / 1000);
    hint(response, 'gemini', '$createTime', text);
  }
  const candidates = object['candidates'];
  if (candidates === undefined) hint(response, 'gemini', '$noCandidates', true);
  else {
    const list = expectArray(candidates, '/candidates', 'gemini');
    for (let index = 0; index < list.length; index++) {
      response.candidates.push(decodeCandidate(list[index], `/candidates/${index}`, index, response.id, context, lean));
    }
  }
  const usage = object['usageMetadata'];
  if (usage !== undefined) {
    response.usage = context.losses.anchor(decodeGeminiUsage(usage, '/usageMetadata', lean), '/usageMetadata');
    modalityOrigins(response.usage, context.losses, '/usageMetadata/promptTokensDetails', '/usageMetadata/candidatesTokensDetails');
    if (response.usage.cacheReadTokensByModality !== undefined) context.losses.originField(response.usage, 'cacheReadTokensByModality', '/usageMetadata/cacheTokensDetails');
    if (response.usage.toolUseTokensByModality !== undefined) context.losses.originField(response.usage, 'toolUseTokensByModality', '/usageMetadata/toolUsePromptTokensDetails');
  }
  extend(response, 'gemini', responseExtras(object));
  addPromptBlock(response, object['promptFeedback']);
  return response;
}

function decodeCandidate(value: unknown, path: string, position: number, responseId: string | undefined, context: CodecContext, lean: boolean): Candidate {
  const wire = expectObject(value, path, 'gemini');
  const indexValue = wire['index'];
  const index = indexValue === undefined ? position : expectNumber(indexValue, `${path}/index`, 'gemini');
  const message = decodeGeminiCandidateContent(wire['content'], `${path}/content`, idScope(responseId, index), context.losses, lean);
  const candidate: Candidate = context.losses.origin({ index, message }, path);
  if (indexValue === undefined && !lean) hint(candidate, 'gemini', '$noIndex', true);
  const finish = wire['finishReason'];
  if (finish !== undefined) {
    let hasToolCalls = false;
    for (let part = 0; part < message.parts.length && !hasToolCalls; part++) hasToolCalls = (message.parts[part] as Part).type === 'tool_call';
    candidate.stopReason = decodeGeminiFinishReason(finish, `${path}/finishReason`, hasToolCalls);
    if (context.losses.recording) context.losses.origin(candidate.stopReason, `${path}/finishReason`);
  }
  const extras = candidateExtras(wire);
  const grounding = extras?.['groundingMetadata'];
  const carried = grounding !== undefined && decodeGeminiGrounding(grounding, message, `${path}/groundingMetadata`, context.losses);
  // Headed elsewhere, the supports and chunks travel as the citations: only the rest of the metadata is the target's to report.
  if (carried && context.target !== undefined && context.target !== 'gemini') dropCarriedGrounding(extras!);
  extend(candidate, 'gemini', extras);
  return candidate;
}

function addPromptBlock(response: Response, feedback: unknown): void {
  if (response.candidates.length > 0 || !isObject(feedback)) return;
  const stopReason = decodeGeminiBlockReason(feedback['blockReason'], '/promptFeedback/blockReason');
  if (stopReason === undefined) return;
  const candidate: Candidate = { index: 0, message: { role: 'assistant', parts: [] }, stopReason };
  hint(candidate, 'gemini', '$promptBlocked', true);
  response.candidates.push(candidate);
}

/** Encode an IR response as a Gemini response body. */
export function encodeGeminiResponse(response: Response, context: CodecContext): JsonObject {
  const losses = context.losses;
  const gemini = extensionsOf(response, 'gemini');
  losses.foreignExtensions(response.extensions, 'gemini', '');
  dropResponseCacheBreakpoints(response, losses, 'gemini');
  const candidates: JsonObject[] = [];
  for (let index = 0; index < response.candidates.length; index++) {
    const candidate = response.candidates[index] as Candidate;
    if (extensionsOf(candidate, 'gemini')?.['$promptBlocked'] === true) continue;
    candidates.push(encodeCandidate(candidate, `/candidates/${index}`, context));
  }
  const body: JsonObject = {};
  if (gemini?.['$noCandidates'] !== true || candidates.length > 0) body['candidates'] = candidates;
  if (response.usage !== undefined) body['usageMetadata'] = encodeGeminiUsage(response.usage, losses, '/usage');
  if (response.model !== undefined && gemini?.['$noModelVersion'] !== true) body['modelVersion'] = response.model;
  if (response.id !== undefined) body['responseId'] = response.id;
  // Only Vertex AI sends createTime: written back when the source had it, not invented for other formats.
  const rawCreateTime = gemini?.['$createTime'];
  if (response.created !== undefined && typeof rawCreateTime === 'string') body['createTime'] = createTime(response.created, rawCreateTime);
  return spreadExtensions(body, response, 'gemini');
}

function createTime(created: number, raw: string): string {
  if (Math.floor(Date.parse(raw) / 1000) === created) return raw;
  return new Date(created * 1000).toISOString();
}

function encodeCandidate(candidate: Candidate, path: string, context: CodecContext): JsonObject {
  const wire: JsonObject = {};
  const gemini = extensionsOf(candidate, 'gemini');
  const grounding = new GroundingWriter(gemini?.['groundingMetadata'] !== undefined, context.losses);
  const content = encodeGeminiCandidateContent(candidate.message as Message, `${path}/message`, context.losses, grounding);
  if (content !== undefined) wire['content'] = content;
  const metadata = grounding.metadata();
  if (metadata !== undefined) wire['groundingMetadata'] = metadata;
  if (candidate.stopReason !== undefined) {
    wire['finishReason'] = encodeGeminiFinishReason(candidate.stopReason, context.losses, pointer(path, 'stopReason'));
  }
  if (gemini?.['$noIndex'] !== true) wire['index'] = candidate.index;
  context.losses.foreignExtensions(candidate.extensions, 'gemini', path);
  return spreadExtensions(wire, candidate, 'gemini');
}
