/**
 * A strict OpenAI Responses API (`POST /v1/responses`): function call
 * outputs answer calls in the input or the previous response, reasoning
 * items and their `encrypted_content` are the ones this emulator issued,
 * item ids carry their type's prefix, and the field bounds of
 * openai-limits.ts (sources in /work/shared/VENDOR_RULES.md §3).
 */
import { checkCommonFields, checkFunctionName, refuseOpenai } from './openai-limits.ts';
import { freshId, Issued, object, objects, opaque, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';

const ROLES = ['assistant', 'system', 'developer', 'user'];
const PREFIX: Record<string, string> = { function_call: 'fc', message: 'msg', reasoning: 'rs' };

function itemType(item: Json): string {
  return typeof item['type'] === 'string' ? item['type'] : 'message';
}

function checkItem(item: Json, index: number, issued: Issued, store: boolean): Refusal | undefined {
  const type = itemType(item);
  const id = item['id'];
  const prefix = PREFIX[type];
  // continuedev/continue PR #11785 (3p): an item id begins with its type's prefix.
  if (prefix !== undefined && typeof id === 'string' && !id.startsWith(prefix)) return refuseOpenai('openai-responses.id.prefix', `Invalid 'input[${index}].id': '${id}'. Expected an ID that begins with '${prefix}'.`, `input[${index}].id`, 'invalid_value');
  switch (type) {
    case 'message':
      // Chevey339/kelivo PR #281
      if (!ROLES.includes(String(item['role']))) return refuseOpenai('openai-responses.role', `Invalid value: '${String(item['role'])}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`, `input[${index}].role`, 'invalid_value');
      return undefined;
    case 'function_call':
      // VR/openai-issue-17402-error.1.json
      if (typeof item['arguments'] !== 'string') return refuseOpenai('openai-responses.function_call.arguments', `Missing required parameter: 'input[${index}].arguments'.`, `input[${index}].arguments`, 'missing_required_parameter');
      return checkCallId(item, index) ?? checkFunctionName(`input[${index}].name`, item['name']);
    case 'function_call_output':
      return checkCallId(item, index);
    case 'reasoning': {
      // can1357/oh-my-pi#41: a reasoning item's id must be one the API gave (none persist with store: false).
      if (typeof id === 'string' && !issued.has('responses.reasoning_id', id)) {
        const tail = store ? '' : ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.';
        return refuseOpenai('openai-responses.reasoning.id', `Item with id '${id}' not found.${tail}`, 'input', null, 404);
      }
      const encrypted = item['encrypted_content'];
      // smallmain/vscode-unify-chat-provider#178
      if (typeof encrypted === 'string' && !issued.has('responses.encrypted_content', encrypted)) {
        return refuseOpenai('openai-responses.reasoning.encrypted_content', `The encrypted content for item ${String(id ?? `input[${index}]`)} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`, null, 'invalid_encrypted_content');
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function checkCallId(item: Json, index: number): Refusal | undefined {
  const callId = item['call_id'];
  // AnswerDotAI/fastllm#45; spec FunctionCallOutputItemParam.call_id 1–64.
  if (typeof callId !== 'string' || callId.length === 0) return refuseOpenai('openai-responses.call_id', `Missing required parameter: 'input[${index}].call_id'.`, `input[${index}].call_id`, 'missing_required_parameter');
  if (callId.length > 64) return refuseOpenai('openai-responses.call_id.length', `Invalid 'input[${index}].call_id': string too long. Expected a string with maximum length 64, but got a string with length ${callId.length} instead.`, `input[${index}].call_id`, 'string_above_max_length');
  return undefined;
}

function checkInput(items: Json[], issued: Issued, body: Json): Refusal | undefined {
  const store = body['store'] !== false;
  const previous = typeof body['previous_response_id'] === 'string' ? (issued.callsOfResponse.get(body['previous_response_id']) ?? []) : [];
  const calls = new Set(previous);
  const outputs = new Set<string>();
  for (const item of items) if (itemType(item) === 'function_call_output') outputs.add(String(item['call_id']));
  for (const [index, item] of items.entries()) {
    const refusal = checkItem(item, index, issued, store);
    if (refusal !== undefined) return refusal;
    const type = itemType(item);
    if (type === 'reasoning') {
      const next = items[index + 1];
      // continuedev/continue#8933: a reasoning item comes with the item it produced.
      if (next === undefined || itemType(next) === 'reasoning') return refuseOpenai('openai-responses.reasoning.following', `Item '${String(item['id'] ?? `input[${index}]`)}' of type 'reasoning' was provided without its required following item.`, 'input', null);
    }
    if (type === 'function_call') {
      calls.add(String(item['call_id']));
      const id = item['id'];
      const reasoning = typeof id === 'string' ? issued.reasoningOfCall.get(id) : undefined;
      // mastra-ai/mastra#8738: a call whose id came with a reasoning item needs that item before it.
      if (reasoning !== undefined && !items.slice(0, index).some((earlier) => earlier['id'] === reasoning)) {
        return refuseOpenai('openai-responses.function_call.reasoning', `Item '${String(id)}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoning}'.`, 'input', null);
      }
      // github/copilot-cli#4572 (3p)
      if (!outputs.has(String(item['call_id']))) return refuseOpenai('openai-responses.function_call.unanswered', `No tool output found for function call ${String(item['call_id'])}.`, 'input', null);
    }
    // VR/openai-issue-18537-error.1.json
    if (type === 'function_call_output' && !calls.has(String(item['call_id']))) {
      return refuseOpenai('openai-responses.function_call_output.unmatched', `No tool call found for function call output with call_id ${String(item['call_id'])}.`, 'input', null);
    }
  }
  return undefined;
}

function validate(request: StrictRequest, issued: Issued): Refusal | undefined {
  const body = request.body;
  const previous = body['previous_response_id'];
  // maximhq/bifrost#2441
  if (typeof previous === 'string' && !issued.has('responses.response_id', previous)) return refuseOpenai('openai-responses.previous_response_id', `Previous response with id '${previous}' not found.`, 'previous_response_id', 'previous_response_not_found');
  const max = body['max_output_tokens'];
  // LS/simpleRequestTruncated/responses/error.json
  if (typeof max === 'number' && max < 16) return refuseOpenai('openai-responses.max_output_tokens', `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${max} instead.`, 'max_output_tokens', 'integer_below_min_value');
  for (const [index, tool] of objects(body['tools']).entries()) {
    if (tool['type'] !== 'function') continue;
    const refusal = checkFunctionName(`tools[${index}].name`, tool['name']);
    if (refusal !== undefined) return refusal;
  }
  const input = typeof body['input'] === 'string' ? [] : objects(body['input']);
  return checkCommonFields(body) ?? checkInput(input, issued, body);
}

function build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, request: StrictRequest, issued: Issued, model: string): Json {
  const output: Json[] = [];
  const reasoning = answer.reasoning ?? (object(request.body['reasoning']) !== undefined ? 'Thinking about the request.' : undefined);
  let reasoningId: string | undefined;
  if (reasoning !== undefined) {
    reasoningId = issued.add('responses.reasoning_id', freshId('rs_', 40));
    const item: Json = { type: 'reasoning', id: reasoningId, summary: [{ type: 'summary_text', text: reasoning }] };
    // The encrypted reasoning comes back only when asked for (`include: ["reasoning.encrypted_content"]`).
    const include = Array.isArray(request.body['include']) ? request.body['include'] : [];
    if (include.includes('reasoning.encrypted_content')) item['encrypted_content'] = issued.add('responses.encrypted_content', `gAAAAA${opaque(96)}`);
    output.push(item);
  }
  if (answer.text !== undefined) {
    output.push({ type: 'message', id: freshId('msg_', 40), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: answer.text, annotations: [], logprobs: [] }] });
  }
  const callIds: string[] = [];
  for (const call of answer.kind === 'tool_calls' ? answer.calls : []) {
    const id = freshId('fc_', 40);
    const callId = freshId('call_');
    callIds.push(callId);
    if (reasoningId !== undefined) issued.reasoningOfCall.set(id, reasoningId);
    output.push({ type: 'function_call', id, call_id: callId, name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed' });
  }
  const id = issued.add('responses.response_id', freshId('resp_', 40));
  issued.callsOfResponse.set(id, callIds);
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model,
    output,
    usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 30 },
    error: null,
    incomplete_details: null,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
  };
}

function adopt(body: unknown, issued: Issued): unknown {
  const json = object(body);
  if (json === undefined) return body;
  let reasoningId: string | undefined;
  const callIds: string[] = [];
  for (const item of objects(json['output'])) {
    if (item['type'] === 'reasoning' && typeof item['id'] === 'string') reasoningId = issued.add('responses.reasoning_id', item['id']);
    if (item['type'] === 'reasoning' && typeof item['encrypted_content'] === 'string') issued.add('responses.encrypted_content', item['encrypted_content']);
    if (item['type'] === 'function_call') {
      callIds.push(String(item['call_id']));
      if (reasoningId !== undefined && typeof item['id'] === 'string') issued.reasoningOfCall.set(item['id'], reasoningId);
    }
  }
  if (typeof json['id'] === 'string') issued.callsOfResponse.set(issued.add('responses.response_id', json['id']), callIds);
  return body;
}

export const openaiResponses: StrictVendor = {
  format: 'openai-responses',
  isStream: (request) => request.body['stream'] === true,
  isGeneration: (request) => /\/responses(\?|$)/.test(request.url),
  validate,
  build,
  adopt,
};
