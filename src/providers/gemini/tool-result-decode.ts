/**
 * Gemini `functionResponse` → IR `tool_result`. Gemini's `response` is a JSON
 * object; the IR holds result content as parts, so `{"output": "<text>"}`
 * becomes that text, `{"error": "<text>"}` an error result, and any other
 * object its JSON text. A hint says which, so the encoder rebuilds the object.
 * @see https://ai.google.dev/api/caching#FunctionResponse
 */
import type { Part, ToolResultPart } from '../../core/ir.ts';
import { expectArray, expectObject, expectString, extend, hint, isObject, pointer, type JsonObject } from '../../core/wire.ts';
import { syntheticCallId } from './ids.ts';
import { missing } from './json.ts';
import type { NestedPartDecoder, PartScope, ResponseObjectHint, ResponseShape } from './parts.ts';

/** The keys of a `functionResponse` other than `id`, `name`, `response` and `parts` (the same in both spellings), or `undefined` (a switch: cheaper than a set lookup per key). */
function functionResponseExtras(response: JsonObject): JsonObject | undefined {
  let rest: JsonObject | undefined;
  for (const key in response) {
    switch (key) {
      case 'id':
      case 'name':
      case 'response':
      case 'parts':
        continue;
    }
    (rest ??= {})[key] = response[key];
  }
  return rest;
}

/** Decode the `functionResponse` object at `partPath`/`key` in a user turn, its nested `parts` with `decodePart`; its pointer is built only for an error or nested parts. */
export function decodeGeminiFunctionResponse(
  value: unknown,
  partPath: string,
  key: string,
  partIndex: number,
  scope: PartScope,
  decodePart: NestedPartDecoder,
): ToolResultPart {
  const response = isObject(value) ? value : expectObject(value, `${partPath}/${key}`, 'gemini');
  const name = response['name'];
  if (typeof name !== 'string') {
    if (name === undefined) throw missing(`${partPath}/${key}/name`, 'name');
    expectString(name, `${partPath}/${key}/name`, 'gemini');
  }
  const result: ToolResultPart = { type: 'tool_result', callId: '', name: name as string, content: [] };
  const id = response['id'];
  if (id === undefined) {
    const paired = scope.pending.take(name as string);
    result.callId = paired ?? syntheticCallId(scope.idScope, partIndex);
    result.syntheticId = true;
  } else {
    result.callId = typeof id === 'string' ? id : expectString(id, `${partPath}/${key}/id`, 'gemini');
    if (scope.lean !== true) hint(result, 'gemini', '$id', true);
    scope.pending.answer(name as string, result.callId);
  }
  const body = response['response'];
  if (body === undefined) {
    if (scope.lean !== true) hint(result, 'gemini', '$noResponse', true);
  } else decodeResponseObject(isObject(body) ? body : expectObject(body, `${partPath}/${key}/response`, 'gemini'), result, scope);
  // `parts` has no snake_case spelling of its own.
  const parts = response['parts'];
  if (parts !== undefined) {
    const path = `${partPath}/${key}`;
    const list = expectArray(parts, pointer(path, 'parts'), 'gemini');
    if (list.length === 0 && scope.lean !== true) hint(result, 'gemini', '$emptyParts', true);
    const nested: PartScope = { ...scope, role: 'model' };
    for (let index = 0; index < list.length; index++) {
      result.content.push(decodePart(list[index], pointer(path, 'parts', index), index, nested) as Part);
    }
  }
  const rest = functionResponseExtras(response);
  if (rest !== undefined) extend(result, 'gemini', { functionResponse: rest });
  return result;
}

function decodeResponseObject(body: Record<string, unknown>, result: ToolResultPart, scope: PartScope): void {
  const lean = scope.lean === true;
  let only: string | undefined;
  let count = 0;
  // Only whether there is exactly one key matters: stop at the second.
  for (const key in body) {
    only = key;
    if (++count > 1) break;
  }
  if (count === 1 && only === 'output' && typeof body['output'] === 'string') {
    result.content = [{ type: 'text', text: body['output'] }];
    if (!lean) hint(result, 'gemini', '$response', 'output' satisfies ResponseShape);
    return;
  }
  if (count === 1 && only === 'error' && typeof body['error'] === 'string') {
    result.content = [{ type: 'text', text: body['error'] }];
    result.isError = true;
    if (!lean) hint(result, 'gemini', '$response', 'error' satisfies ResponseShape);
    return;
  }
  const text = JSON.stringify(body);
  result.content = [{ type: 'text', text }];
  if (!lean) hint(result, 'gemini', '$response', 'json' satisfies ResponseShape);
  // Back to Gemini: the encoder sends this object again while the text is still this one, instead of parsing the text.
  if (scope.same === true) hint(result, 'gemini', '$responseObject', { text, value: body } satisfies ResponseObjectHint);
}
