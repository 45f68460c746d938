/**
 * A strict Gemini API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent`), as Gemini 3 behaves: the first function call
 * of each model step in the current turn carries a `thoughtSignature` this
 * emulator issued; function response turns answer the call turn before
 * them, one response per call; `parameters` is the closed `Schema` subset.
 * Sources in /work/shared/VENDOR_RULES.md §4.
 *
 * Gemini pairs function responses with calls by position (ids are
 * optional and most answers have none): a response whose name is not its
 * call's is read as that call's answer, with no error. The emulator refuses
 * that mismatch instead, with a message that says it is the emulator's
 * check, so a test sees the wrong pairing a real Gemini would hide.
 */
import { freshId, Issued, isBase64, object, objects, opaque, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';

/** The google.rpc.Status envelope: `{"error": {code, message, status}}`. */
function refuse(rule: string, message: string, status = 400, state = 'INVALID_ARGUMENT'): Refusal {
  return { status, rule, body: { error: { code: status, message, status: state } } };
}

/** Both spellings a proto-JSON reader accepts (`functionCall`, `function_call`). */
function field(json: Json, camel: string): unknown {
  return json[camel] ?? json[camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
}

/** googleapis `google/ai/generativelanguage/v1beta/content.proto` `message Schema`: its fields, nothing else. */
const SCHEMA_FIELDS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'minItems', 'maxItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default']);
const camel = (key: string): string => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The first key of a `Schema` outside the proto (BerriAI/litellm#14330), or a list where `type` is one value (zed-industries/zed#53919). */
function checkSchema(schema: Json, at: string): Refusal | undefined {
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_FIELDS.has(camel(key))) return refuse('gemini.schema.field', `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`);
    if (key === 'type' && Array.isArray(value)) return refuse('gemini.schema.type', `Invalid JSON payload received. Unknown name "type" at '${at}': Proto field is not repeating, cannot start list.`);
  }
  const type = typeof schema['type'] === 'string' ? schema['type'].toUpperCase() : undefined;
  const properties = object(schema['properties']);
  // langchain-ai/langchainjs PR #7935
  if (type === 'OBJECT' && (properties === undefined || Object.keys(properties).length === 0)) {
    return refuse('gemini.schema.object', `* GenerateContentRequest.${at}.properties: should be non-empty for OBJECT type\n`);
  }
  for (const [name, property] of Object.entries(properties ?? {})) {
    const inner = object(property);
    const refusal = inner === undefined ? undefined : checkSchema(inner, `${at}.properties[${name}].value`);
    if (refusal !== undefined) return refusal;
  }
  const items = object(schema['items']);
  if (items !== undefined) return checkSchema(items, `${at}.items`);
  for (const [index, option] of objects(schema['anyOf'] ?? schema['any_of']).entries()) {
    const refusal = checkSchema(option, `${at}.any_of[${index}]`);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

function checkTools(body: Json): Refusal | undefined {
  for (const [toolIndex, tool] of objects(body['tools']).entries()) {
    for (const [index, declaration] of objects(field(tool, 'functionDeclarations')).entries()) {
      const at = `tools[${toolIndex}].function_declarations[${index}]`;
      const parameters = object(declaration['parameters']);
      // generative_service.proto / content.proto: `parameters_json_schema` is mutually exclusive with `parameters` (text paraphrased).
      if (parameters !== undefined && field(declaration, 'parametersJsonSchema') !== undefined) return refuse('gemini.schema.exclusive', `* GenerateContentRequest.${at}: parameters and parameters_json_schema cannot both be set.\n`);
      const refusal = parameters === undefined ? undefined : checkSchema(parameters, `${at}.parameters`);
      if (refusal !== undefined) return refusal;
    }
  }
  return undefined;
}

const parts = (content: Json): Json[] => objects(content['parts']);
const calls = (content: Json): Json[] => parts(content).flatMap((part) => (object(field(part, 'functionCall')) === undefined ? [] : [part]));
const responses = (content: Json): Json[] => parts(content).flatMap((part) => {
  const response = object(field(part, 'functionResponse'));
  return response === undefined ? [] : [response];
});

/** Documented placeholders that skip the check (ai.google.dev/gemini-api/docs/thought-signatures). */
const PLACEHOLDERS = new Set(['context_engineering_is_the_way_to_go', 'skip_thought_signature_validator']);

function checkSignatures(contents: Json[], issued: Issued): Refusal | undefined {
  for (const [index, content] of contents.entries()) {
    for (const [position, part] of parts(content).entries()) {
      const signature = field(part, 'thoughtSignature');
      if (signature === undefined) continue;
      // google-gemini/gemini-cli#8003: proto bytes.
      if (typeof signature !== 'string' || !isBase64(signature)) return refuse('gemini.thought_signature.base64', `Invalid value at 'contents[${index}].parts[${position}].thought_signature' (TYPE_BYTES), Base64 decoding failed for "${String(signature).slice(0, 10)}…"`);
      // google-gemini/gemini-cli#13467: a signature Gemini did not issue.
      if (!PLACEHOLDERS.has(signature) && !issued.has('gemini.thought_signature', signature)) return refuse('gemini.thought_signature.corrupted', 'Corrupted thought signature.');
    }
  }
  // lbjlaq/Antigravity-Manager#733: in the current turn (since the last user text), each step's first call needs its signature.
  let start = 0;
  for (const [index, content] of contents.entries()) if (content['role'] !== 'model' && parts(content).some((part) => typeof part['text'] === 'string')) start = index;
  for (let index = start; index < contents.length; index++) {
    const content = contents[index] as Json;
    const first = calls(content)[0];
    if (content['role'] !== 'model' || first === undefined || field(first, 'thoughtSignature') !== undefined) continue;
    const name = String(object(field(first, 'functionCall'))?.['name']);
    return refuse(
      'gemini.thought_signature.missing',
      `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }
  return undefined;
}

function checkTurns(contents: Json[]): Refusal | undefined {
  // vercel/ai#3775; langchain-ai/langchain-google#691
  if (contents.length === 0) return refuse('gemini.contents.empty', '* GenerateContentRequest.contents: contents is not specified\n');
  for (const [index, content] of contents.entries()) {
    const role = content['role'] ?? 'user';
    // langgenius/dify-official-plugins#566
    if (role !== 'user' && role !== 'model') return refuse('gemini.role', 'Please use a valid role: user, model.');
    if (parts(content).length === 0) return refuse('gemini.parts.empty', `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`);
    const previous = contents[index - 1];
    // google-gemini/gemini-cli#11814; langchain-ai/langchain#27799
    if (calls(content).length > 0 && (previous === undefined || previous['role'] === 'model')) return refuse('gemini.turn.call', 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    const answered = responses(content);
    if (answered.length === 0) continue;
    const asked = previous === undefined ? [] : calls(previous).map((part) => object(field(part, 'functionCall')) as Json);
    if (asked.length === 0) return refuse('gemini.turn.response', 'Please ensure that function response turn comes immediately after a function call turn.');
    // google-gemini/gemini-cli#4217
    if (answered.length !== asked.length) return refuse('gemini.turn.count', 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    for (const [position, response] of answered.entries()) {
      const call = asked[position] as Json;
      const mismatch = response['name'] !== call['name'] || (typeof response['id'] === 'string' && typeof call['id'] === 'string' && response['id'] !== call['id']);
      if (mismatch) {
        return refuse('gemini.turn.pairing', `[strict emulator] contents[${index}] function response ${position} (${String(response['name'])}${typeof response['id'] === 'string' ? ` ${response['id']}` : ''}) is not the answer to function call ${position} of contents[${index - 1}] (${String(call['name'])}${typeof call['id'] === 'string' ? ` ${call['id']}` : ''}): Gemini pairs responses with calls by position and would read it as that call's answer.`);
      }
    }
  }
  return undefined;
}

function validate(request: StrictRequest, issued: Issued): Refusal | undefined {
  const contents = objects(request.body['contents']);
  return checkTurns(contents) ?? checkSignatures(contents, issued) ?? checkTools(request.body);
}

function build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, request: StrictRequest, issued: Issued, model: string): Json {
  const out: Json[] = [];
  const config = object(object(request.body['generationConfig'])?.['thinkingConfig']);
  if (answer.reasoning !== undefined && config?.['includeThoughts'] === true) out.push({ text: answer.reasoning, thought: true });
  if (answer.text !== undefined) out.push({ text: answer.text });
  for (const [index, call] of (answer.kind === 'tool_calls' ? answer.calls : []).entries()) {
    const part: Json = { functionCall: { name: call.name, args: call.arguments } };
    // Gemini 3 signs the first function call of a step (ai.google.dev/gemini-api/docs/thought-signatures).
    if (index === 0) part['thoughtSignature'] = issued.add('gemini.thought_signature', opaque(64));
    out.push(part);
  }
  return {
    candidates: [{ content: { role: 'model', parts: out }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 10, totalTokenCount: 30 },
    modelVersion: model,
    responseId: freshId('', 22),
  };
}

/** A served body's signatures are Gemini's own; a first function call without one gets one, as Gemini 3 always signs it. */
function adopt(body: unknown, issued: Issued): unknown {
  const copy = structuredClone(body);
  for (const candidate of objects(object(copy)?.['candidates'])) {
    let signed = false;
    for (const part of objects(object(candidate['content'])?.['parts'])) {
      const signature = field(part, 'thoughtSignature');
      if (typeof signature === 'string') issued.add('gemini.thought_signature', signature);
      if (object(field(part, 'functionCall')) === undefined) continue;
      if (!signed && signature === undefined) part['thoughtSignature'] = issued.add('gemini.thought_signature', opaque(64));
      signed = true;
    }
  }
  return copy;
}

export const gemini: StrictVendor = {
  format: 'gemini',
  isStream: (request) => request.url.includes(':streamGenerateContent'),
  isGeneration: (request) => /\/models\/[^/:]+:(generateContent|streamGenerateContent)(\?|$)/.test(request.url),
  validate,
  build,
  adopt,
};
