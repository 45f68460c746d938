/**
 * IR `tool_result` → Gemini `functionResponse`. Gemini needs the tool name
 * and an object `response`: text that is a JSON object goes as that object,
 * other text as `{"output": text}`, an error as `{"error": text}`; media goes
 * into `functionResponse.parts`.
 * @see https://ai.google.dev/gemini-api/docs/function-calling
 */
import { InterlinguaError } from '../../core/errors.ts';
import type { Part, ToolResultPart } from '../../core/ir.ts';
import { extensionsOf, isObject, mayNestTooDeep, tooDeep, type JsonObject } from '../../core/wire.ts';
import { emitsId } from './ids.ts';
import type { EncodePartScope, NestedPartEncoder, ResponseObjectHint, ResponseShape } from './parts.ts';

/** Encode a tool result at IR pointer `path` as a `functionResponse` part, its media with `encodePart`. */
export function encodeGeminiFunctionResponse(part: ToolResultPart, path: string, scope: EncodePartScope, encodePart: NestedPartEncoder): JsonObject {
  const name = part.name ?? scope.names.of(part.callId);
  if (name === undefined) {
    throw new InterlinguaError(
      'invalid_reference',
      `tool result for call "${part.callId}" has no tool name and answers no earlier tool call; Gemini needs the function name`,
      { path, format: 'gemini' },
    );
  }
  const gemini = extensionsOf(part, 'gemini');
  const shape = gemini?.['$response'] as ResponseShape | undefined;
  // The text parts joined (most results are one text part), and how many there were.
  let text = '';
  let texts = 0;
  let media: JsonObject[] | undefined;
  for (let index = 0; index < part.content.length; index++) {
    const inner = part.content[index] as Part;
    if (inner.type === 'text') {
      text = texts === 0 ? inner.text : text + inner.text;
      texts++;
    } else encodeResultPart(inner, `${path}/content/${index}`, scope, encodePart, (media ??= []));
  }
  const wire: JsonObject = { name };
  if (emitsId(part.callId, part.syntheticId, gemini)) wire['id'] = part.callId;
  if (gemini?.['$noResponse'] !== true || texts > 0) {
    const kept = gemini?.['$responseObject'] as ResponseObjectHint | undefined;
    // The object this result was decoded from, while its text is unchanged: what parsing the text would give.
    if (kept !== undefined && shape === 'json' && texts === 1 && part.isError !== true && kept.text === text) wire['response'] = kept.value;
    else wire['response'] = responseObject(text, texts, part.isError === true, shape);
  }
  if ((media !== undefined && media.length > 0) || gemini?.['$emptyParts'] === true) wire['parts'] = media ?? [];
  const rest = gemini?.['functionResponse'];
  if (isObject(rest)) Object.assign(wire, rest);
  return { functionResponse: wire };
}

function responseObject(text: string, texts: number, isError: boolean, shape: ResponseShape | undefined): JsonObject {
  if (isError) return { error: text };
  if (shape === 'output') return { output: text };
  if (texts === 0) return {};
  if (startsObject(text)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed) && (!mayNestTooDeep(text) || tooDeep(parsed) === undefined)) return parsed;
    } catch {
      // not JSON: sent as output text below
    }
  }
  return { output: text };
}

/** Does `text` start with `{` after JSON whitespace? (JSON.parse accepts no other leading whitespace.) */
function startsObject(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7b) return true;
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return false;
  }
  return false;
}

function encodeResultPart(inner: Part, path: string, scope: EncodePartScope, encodePart: NestedPartEncoder, media: JsonObject[]): void {
  switch (inner.type) {
    case 'image':
    case 'audio':
    case 'video':
    case 'document': {
      const wire = encodePart(inner, path, scope);
      if (wire === undefined) return;
      if ('text' in wire) {
        scope.losses.add('moved_content', path, 'text document inside a tool result dropped from Gemini functionResponse.parts');
        return;
      }
      media.push(wire);
      return;
    }
    case 'opaque':
      if (inner.format === 'gemini') {
        media.push(inner.value as JsonObject);
        return;
      }
      scope.losses.add('unsupported_part', path, `${inner.format} "${inner.blockType}" inside a tool result has no Gemini equivalent; dropped`);
      return;
    default:
      scope.losses.add('unsupported_part', path, `a ${inner.type} part inside a tool result cannot go into a Gemini functionResponse; dropped`);
  }
}
