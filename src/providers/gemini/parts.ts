/**
 * What the Gemini part decoder (`parts-decode.ts`) and encoder
 * (`parts-encode.ts`) share with the files around them: the scope each
 * direction carries through a turn, the shape of the part codec a tool
 * result is handed for the parts nested in its `functionResponse` (handed,
 * not imported, so every import between these files runs one way), the
 * `$response` hint the tool-result decoder writes and its encoder reads, and
 * which URIs name Gemini Files API files.
 * @see https://ai.google.dev/api/caching#Part
 */
import type { Part } from '../../core/ir.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { CallNames } from '../../core/tools.ts';
import type { JsonObject } from '../../core/wire.ts';
import type { GroundingWriter } from './grounding.ts';
import type { PendingCalls } from './ids.ts';

/** What decoding a part needs to know about where it stands. */
export interface PartScope {
  losses: LossCollector;
  /** `user` or `model`: a `functionResponse` in a model turn is a server-side result, kept opaque. */
  role: 'user' | 'model';
  /** Names the message or candidate, for synthesised call ids (a content's index, or a string). */
  idScope: string | number;
  pending: PendingCalls;
  /** The IR is headed for another format: skip the hints only a trip back to Gemini needs. */
  lean?: boolean;
  /** The IR is headed back to Gemini: keep wire objects the encoder can send again as they came. */
  same?: boolean;
}

/** Decodes one part nested in another (`functionResponse.parts`): `decodeGeminiPart`. */
export type NestedPartDecoder = (value: unknown, path: string, partIndex: number, scope: PartScope) => Part;

/** What encoding a part needs besides the part. */
export interface EncodePartScope {
  losses: LossCollector;
  /** The calls written so far, for a `tool_result` without a name (it takes its call's). */
  names: CallNames;
  /** A candidate's: where its text parts' citations go (requests have no place for them). */
  grounding?: GroundingWriter;
}

/** Encodes one part nested in another (`functionResponse.parts`): `encodeGeminiPart`. */
export type NestedPartEncoder = (part: Part, path: string, scope: EncodePartScope) => JsonObject | undefined;

/** How the `response` object was shaped, so the encoder rebuilds it exactly. */
export type ResponseShape = 'output' | 'error' | 'json';

/** The decoded `response` object and the text it became, for a trip back to Gemini. */
export interface ResponseObjectHint {
  text: string;
  value: Record<string, unknown>;
}

/** True for a Gemini Files API URI (`…/v1beta/files/…`), a vendor-scoped file id. */
export function isGeminiFileUri(uri: string): boolean {
  return uri.startsWith('https://generativelanguage.googleapis.com/') && uri.includes('/files/');
}
