/**
 * Gemini `Part` → IR part. A part holds one data field (`text`, `inlineData`,
 * `fileData`, `functionCall`, `functionResponse`, …) plus metadata
 * (`thought`, `thoughtSignature`, `videoMetadata`, …).
 * @see https://ai.google.dev/api/caching#Part
 */
import type { Part as GeminiPart } from '@google/genai';
import { InterlinguaError } from '../../core/errors.ts';
import type { LossCollector } from '../../core/losses.ts';
import type { MediaSource, OpaquePart, Part, ReasoningPart, TextPart, ToolCallPart } from '../../core/ir.ts';
import { mediaKind, expectMediaType, sniffBase64 } from '../../core/media.ts';
import { expectBoolean, expectObject, expectString, extend, hint, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { knownKeys, Spelling } from './spelling.ts';
import { PendingCalls, syntheticCallId } from './ids.ts';
import { decodeGeminiFunctionResponse } from './tool-result-decode.ts';

/** The data fields of a part, in the order they are looked for. */
const DATA_KEYS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
] as const satisfies readonly (keyof GeminiPart)[];

type DataKey = (typeof DATA_KEYS)[number];

const KNOWN_PART = knownKeys([...DATA_KEYS, 'thought', 'thoughtSignature']);
const KNOWN_INLINE_DATA = knownKeys(['mimeType', 'data']);
const KNOWN_FILE_DATA = knownKeys(['mimeType', 'fileUri']);
const KNOWN_FUNCTION_CALL = knownKeys(['id', 'name', 'args']);

/** What decoding a part needs to know about where it stands. */
export interface PartScope {
  losses: LossCollector;
  /** `user` or `model`: a `functionResponse` in a model turn is a server-side result, kept opaque. */
  role: 'user' | 'model';
  /** Names the message or candidate, for synthesised call ids. */
  idScope: string;
  pending: PendingCalls;
}

function dataKeyOf(part: JsonObject): DataKey | undefined {
  for (const key of DATA_KEYS) if (Spelling.has(part, key)) return key;
  return undefined;
}

/** Decode one Gemini part at `path` (index `partIndex` within its content). */
export function decodeGeminiPart(value: unknown, path: string, partIndex: number, scope: PartScope): Part {
  const part = expectObject(value, path, 'gemini');
  const key = dataKeyOf(part);
  if (key === undefined) {
    const blockType = Object.keys(part)[0] ?? 'empty';
    scope.losses.add('unknown_block', path, `Gemini part without a known data field ("${blockType}"); kept as an opaque part`);
    return { type: 'opaque', format: 'gemini', blockType, value: part };
  }
  const spelling = new Spelling();
  const data = spelling.read(part, key);
  const thought = spelling.read(part, 'thought');
  const signature = spelling.read(part, 'thoughtSignature');
  if (thought !== undefined) expectBoolean(thought, pointer(path, 'thought'), 'gemini');
  if (signature !== undefined) expectString(signature, pointer(path, Spelling.key(part, 'thoughtSignature')), 'gemini');
  const dataPath = pointer(path, Spelling.key(part, key));
  let result: Part;
  switch (key) {
    case 'text':
      result = decodeText(expectString(data, dataPath, 'gemini'), thought === true, signature as string | undefined);
      break;
    case 'inlineData':
      result = decodeInlineData(data, dataPath, spelling);
      break;
    case 'fileData':
      result = decodeFileData(data, dataPath, spelling);
      break;
    case 'functionCall':
      result = decodeFunctionCall(data, dataPath, partIndex, scope);
      break;
    case 'functionResponse':
      if (scope.role === 'model') return opaque(part, key);
      result = decodeGeminiFunctionResponse(data, dataPath, partIndex, scope, spelling);
      break;
    case 'executableCode':
    case 'codeExecutionResult':
    case 'toolCall':
    case 'toolResponse':
      return opaque(part, key);
  }
  if (key !== 'text') {
    if (thought !== undefined) extend(result, 'gemini', { thought });
    if (signature !== undefined) extend(result, 'gemini', { thoughtSignature: signature });
  } else if (thought === false) {
    hint(result, 'gemini', '$thought', false);
  }
  extend(result, 'gemini', unknownKeys(part, KNOWN_PART));
  if (spelling.snake !== undefined) hint(result, 'gemini', '$snake', spelling.snake);
  return result;
}

function opaque(part: JsonObject, key: DataKey): OpaquePart {
  return { type: 'opaque', format: 'gemini', blockType: key, value: part };
}

function decodeText(text: string, thought: boolean, signature: string | undefined): TextPart | ReasoningPart {
  if (!thought) {
    const part: TextPart = { type: 'text', text };
    if (signature !== undefined) extend(part, 'gemini', { thoughtSignature: signature });
    return part;
  }
  const reasoning: ReasoningPart = { type: 'reasoning', text };
  if (signature !== undefined) reasoning.state = { format: 'gemini', kind: 'thought_signature', value: signature };
  // Marks a thought part as Gemini's own, so the encoder sends it back only to Gemini.
  else hint(reasoning, 'gemini', '$thought', true);
  return reasoning;
}

function decodeInlineData(value: unknown, path: string, spelling: Spelling): Part {
  const blob = expectObject(value, path, 'gemini');
  const dataValue = spelling.read(blob, 'data');
  if (dataValue === undefined) throw missing(pointer(path, 'data'), 'data');
  const data = expectString(dataValue, pointer(path, 'data'), 'gemini');
  const mimeType = spelling.read(blob, 'mimeType');
  let mediaType: string;
  if (mimeType === undefined) mediaType = sniffBase64(data);
  else mediaType = expectGeminiMediaType(mimeType, pointer(path, Spelling.key(blob, 'mimeType')));
  const source: MediaSource = { kind: 'base64', data, mediaType };
  const part = mediaPart(mediaType, source);
  if (mimeType === undefined) hint(part, 'gemini', '$noMimeType', true);
  const rest = unknownKeys(blob, KNOWN_INLINE_DATA);
  if (rest !== undefined) extend(part, 'gemini', { inlineData: rest });
  return part;
}

/** True for a Gemini Files API URI (`…/v1beta/files/…`), a vendor-scoped file id. */
export function isGeminiFileUri(uri: string): boolean {
  return uri.startsWith('https://generativelanguage.googleapis.com/') && uri.includes('/files/');
}

function decodeFileData(value: unknown, path: string, spelling: Spelling): Part {
  const file = expectObject(value, path, 'gemini');
  const uriValue = spelling.read(file, 'fileUri');
  if (uriValue === undefined) throw missing(pointer(path, 'fileUri'), 'fileUri');
  const uri = expectString(uriValue, pointer(path, Spelling.key(file, 'fileUri')), 'gemini');
  const mimeType = spelling.read(file, 'mimeType');
  const mediaType = mimeType === undefined ? undefined : expectGeminiMediaType(mimeType, pointer(path, Spelling.key(file, 'mimeType')));
  const source: MediaSource = isGeminiFileUri(uri) ? { kind: 'file', id: uri, format: 'gemini' } : { kind: 'url', url: uri };
  if (mediaType !== undefined) source.mediaType = mediaType;
  const part = mediaPart(mediaType ?? '', source);
  if (mediaType === undefined) hint(part, 'gemini', '$noMimeType', true);
  const rest = unknownKeys(file, KNOWN_FILE_DATA);
  if (rest !== undefined) extend(part, 'gemini', { fileData: rest });
  return part;
}

/** A media type, parameters allowed (Gemini audio output is `audio/L16;codec=pcm;rate=24000`). */
function expectGeminiMediaType(value: unknown, path: string): string {
  const text = expectString(value, path, 'gemini');
  const semicolon = text.indexOf(';');
  expectMediaType(semicolon < 0 ? text : text.slice(0, semicolon).trim(), path);
  return text;
}

function mediaPart(mediaType: string, source: MediaSource): Part {
  const kind = mediaType === '' ? 'document' : mediaKind(mediaType);
  return { type: kind, source };
}

function decodeFunctionCall(value: unknown, path: string, partIndex: number, scope: PartScope): ToolCallPart {
  const call = expectObject(value, path, 'gemini');
  if (call['name'] === undefined) throw missing(pointer(path, 'name'), 'name');
  const name = expectString(call['name'], pointer(path, 'name'), 'gemini');
  const args = call['args'];
  const id = call['id'];
  const part: ToolCallPart = {
    type: 'tool_call',
    id: '',
    name,
    arguments: args === undefined ? {} : expectObject(args, pointer(path, 'args'), 'gemini'),
  };
  if (id === undefined) {
    part.id = syntheticCallId(scope.idScope, partIndex);
    part.syntheticId = true;
  } else {
    part.id = expectString(id, pointer(path, 'id'), 'gemini');
    hint(part, 'gemini', '$id', true);
  }
  if (args === undefined) hint(part, 'gemini', '$noArgs', true);
  scope.pending.add(name, part.id);
  const rest = unknownKeys(call, KNOWN_FUNCTION_CALL);
  if (rest !== undefined) extend(part, 'gemini', { functionCall: rest });
  return part;
}

/** A `missing_field` error for `key` at `path`. */
export function missing(path: string, key: string): InterlinguaError {
  return new InterlinguaError('missing_field', `"${key}" is required`, { path, format: 'gemini' });
}
