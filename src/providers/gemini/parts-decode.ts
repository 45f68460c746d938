/**
 * Gemini `Part` → IR part. A part holds one data field (`text`, `inlineData`,
 * `fileData`, `functionCall`, `functionResponse`, …) plus metadata
 * (`thought`, `thoughtSignature`, `videoMetadata`, …).
 * @see https://ai.google.dev/api/caching#Part
 */
import type { Part as GeminiPart } from '@google/genai';
import type { MediaSource, OpaquePart, Part, ReasoningPart, TextPart, ToolCallPart } from '../../core/ir.ts';
import { mediaKind, expectMediaType, sniffBase64 } from '../../core/media.ts';
import { expectBoolean, expectObject, expectString, extend, hint, isObject, pointer, unknownKeys, type JsonObject } from '../../core/wire.ts';
import { knownKeys, snakeCase, Spelling } from './spelling.ts';
import { syntheticCallId } from './ids.ts';
import { missing } from './json.ts';
import { isGeminiFileUri, type PartScope } from './parts.ts';
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

const KNOWN_INLINE_DATA = knownKeys(['mimeType', 'data']);
const KNOWN_FILE_DATA = knownKeys(['mimeType', 'fileUri']);

/** The keys of a `functionCall` other than `id`, `name` and `args` (the same in both spellings), or `undefined` (a switch: cheaper than a set lookup per key). */
function functionCallExtras(call: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in call) {
    switch (key) {
      case 'id':
      case 'name':
      case 'args':
        continue;
    }
    (rest ??= {})[key] = call[key];
  }
  return rest;
}

const THOUGHT = DATA_KEYS.length;
const SIGNATURE = DATA_KEYS.length + 1;

/** A known part key, in either spelling → its index in `DATA_KEYS`, or `THOUGHT` / `SIGNATURE`; `undefined` for another key (a switch: cheaper than a map lookup per key). */
function partField(key: string): number | undefined {
  switch (key) {
    case 'text':
      return 0;
    case 'inlineData':
    case 'inline_data':
      return 1;
    case 'fileData':
    case 'file_data':
      return 2;
    case 'functionCall':
    case 'function_call':
      return 3;
    case 'functionResponse':
    case 'function_response':
      return 4;
    case 'executableCode':
    case 'executable_code':
      return 5;
    case 'codeExecutionResult':
    case 'code_execution_result':
      return 6;
    case 'toolCall':
    case 'tool_call':
      return 7;
    case 'toolResponse':
    case 'tool_response':
      return 8;
    case 'thought':
      return THOUGHT;
    case 'thoughtSignature':
    case 'thought_signature':
      return SIGNATURE;
    default:
      return undefined;
  }
}

/** Is `part` only a `videoMetadata` (either spelling)? */
function isVideoMetadataPart(part: JsonObject): boolean {
  let seen = false;
  for (const key in part) {
    if ((key !== 'videoMetadata' && key !== 'video_metadata') || !isObject(part[key])) return false;
    seen = true;
  }
  return seen;
}

/** Decode one Gemini part at `path` (index `partIndex` within its content). */
export function decodeGeminiPart(value: unknown, path: string, partIndex: number, scope: PartScope): Part {
  const part = expectObject(value, path, 'gemini');
  // One pass over the part's own keys finds the data field (the first of `DATA_KEYS` present, in either
  // spelling) and the unknown keys, instead of probing every known name in both spellings.
  let rank: number = DATA_KEYS.length;
  let signatureKey: string | undefined;
  let rest: JsonObject | undefined;
  for (const name in part) {
    const field = partField(name);
    if (field === undefined) (rest ??= {})[name] = part[name];
    else if (part[name] === undefined) continue;
    else if (field < rank) rank = field;
    else if (field === SIGNATURE && signatureKey !== 'thoughtSignature') signatureKey = name;
  }
  if (rank === DATA_KEYS.length) {
    const blockType = Object.keys(part)[0] ?? 'empty';
    // `videoMetadata` (clip offsets, frame rate) sent as a part of its own after the video part it
    // describes, which the Gemini API accepts: a known Gemini part, kept whole for Gemini without a warning
    // (another target reports it where it drops it, as it does the metadata on a video part).
    if (isVideoMetadataPart(part)) return { type: 'opaque', format: 'gemini', blockType, value: part };
    scope.losses.add('unknown_block', path, `Gemini part without a known data field ("${blockType}"); kept as an opaque part`);
    return { type: 'opaque', format: 'gemini', blockType, value: part };
  }
  const key = DATA_KEYS[rank] as DataKey;
  let snake: string[] | undefined;
  let dataKey: string = key;
  let data = part[key];
  if (data === undefined) {
    dataKey = snakeCase(key);
    data = part[dataKey];
    snake = [key];
  }
  const thought = part['thought'];
  const signature = signatureKey === undefined ? undefined : part[signatureKey];
  if (signatureKey !== undefined && signatureKey !== 'thoughtSignature') (snake ??= []).push('thoughtSignature');
  if (thought !== undefined && typeof thought !== 'boolean') expectBoolean(thought, `${path}/thought`, 'gemini');
  if (signature !== undefined && typeof signature !== 'string') expectString(signature, `${path}/${signatureKey}`, 'gemini');
  let result: Part;
  switch (key) {
    case 'text':
      result = decodeText(typeof data === 'string' ? data : expectString(data, `${path}/${dataKey}`, 'gemini'), thought === true, signature as string | undefined);
      break;
    case 'inlineData': {
      const spelling = new Spelling();
      spelling.snake = snake;
      result = decodeInlineData(data, `${path}/${dataKey}`, spelling);
      snake = spelling.snake;
      break;
    }
    case 'fileData': {
      const spelling = new Spelling();
      spelling.snake = snake;
      result = decodeFileData(data, `${path}/${dataKey}`, spelling);
      snake = spelling.snake;
      break;
    }
    case 'functionCall':
      result = decodeFunctionCall(data, path, dataKey, partIndex, scope);
      break;
    case 'functionResponse':
      if (scope.role === 'model') return opaque(part, key);
      result = decodeGeminiFunctionResponse(data, path, dataKey, partIndex, scope, decodeGeminiPart);
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
  if (rest !== undefined) extend(result, 'gemini', rest);
  if (snake !== undefined) hint(result, 'gemini', '$snake', snake);
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

/** Decode the `functionCall` at `partPath`/`key`; its pointer is built only for an error. */
function decodeFunctionCall(value: unknown, partPath: string, key: string, partIndex: number, scope: PartScope): ToolCallPart {
  const call = isObject(value) ? value : expectObject(value, `${partPath}/${key}`, 'gemini');
  const name = call['name'];
  if (typeof name !== 'string') {
    if (name === undefined) throw missing(`${partPath}/${key}/name`, 'name');
    expectString(name, `${partPath}/${key}/name`, 'gemini');
  }
  const args = call['args'];
  const id = call['id'];
  const part: ToolCallPart = {
    type: 'tool_call',
    id: '',
    name: name as string,
    arguments: args === undefined ? {} : isObject(args) ? args : expectObject(args, `${partPath}/${key}/args`, 'gemini'),
  };
  if (id === undefined) {
    part.id = syntheticCallId(scope.idScope, partIndex);
    part.syntheticId = true;
  } else {
    part.id = typeof id === 'string' ? id : expectString(id, `${partPath}/${key}/id`, 'gemini');
    if (scope.lean !== true) hint(part, 'gemini', '$id', true);
  }
  if (args === undefined && scope.lean !== true) hint(part, 'gemini', '$noArgs', true);
  scope.pending.add(name as string, part.id);
  const rest = functionCallExtras(call);
  if (rest !== undefined) extend(part, 'gemini', { functionCall: rest });
  return part;
}
