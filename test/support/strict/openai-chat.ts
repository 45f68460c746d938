/**
 * A strict OpenAI Chat Completions API (`POST /v1/chat/completions`): tool
 * messages answer the calls of the assistant message before them, every
 * call is answered, and the field bounds of openai-limits.ts (sources in
 * /work/shared/VENDOR_RULES.md §2).
 */
import { checkCommonFields, checkFunctionName, refuseOpenai } from './openai-limits.ts';
import { freshId, object, objects, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';

function checkTools(body: Json): Refusal | undefined {
  const tools = objects(body['tools']);
  // cgoinglove/better-chatbot#197
  if (tools.length > 128) return refuseOpenai('openai-chat.tools.count', `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools.length} instead.`, 'tools', 'array_above_max_length');
  for (const [index, tool] of tools.entries()) {
    if (tool['type'] !== 'function') continue;
    const refusal = checkFunctionName(`tools[${index}].function.name`, object(tool['function'])?.['name']);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

function checkMessages(messages: Json[]): Refusal | undefined {
  // EC/chat-no-messages.yaml
  if (messages.length === 0) return refuseOpenai('openai-chat.messages.empty', "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  let open: { index: number; ids: string[]; answered: Set<string> } | undefined;
  const close = (at: number): Refusal | undefined => {
    if (open === undefined) return undefined;
    const missing = open.ids.filter((id) => !open?.answered.has(id));
    // router-for-me/CLIProxyAPI#2798
    if (missing.length > 0) return refuseOpenai('openai-chat.tool_calls.unanswered', `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`, `messages.[${at}].role`, null);
    open = undefined;
    return undefined;
  };
  for (const [index, message] of messages.entries()) {
    const role = message['role'];
    if (role === 'tool') {
      // miurla/morphic#136: a tool message answers a call of the assistant message before the run of tool messages.
      const id = message['tool_call_id'];
      if (open === undefined || typeof id !== 'string' || !open.ids.includes(id)) {
        return refuseOpenai('openai-chat.tool.unmatched', "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${index}].role`, null);
      }
      open.answered.add(id);
      continue;
    }
    const refusal = close(index);
    if (refusal !== undefined) return refusal;
    if (role === 'assistant') {
      const calls = objects(message['tool_calls']);
      for (const [position, call] of calls.entries()) {
        // spec: names replayed in tool_calls follow the same pattern.
        const named = checkFunctionName(`messages[${index}].tool_calls[${position}].function.name`, object(call['function'])?.['name']);
        if (named !== undefined) return named;
      }
      if (calls.length > 0) open = { index, ids: calls.map((call) => String(call['id'])), answered: new Set() };
    }
  }
  return close(messages.length);
}

function validate(request: StrictRequest): Refusal | undefined {
  const body = request.body;
  if (typeof body['model'] !== 'string') return refuseOpenai('openai-chat.model', "you must provide a model parameter", null, null);
  if (!Array.isArray(body['messages'])) return refuseOpenai('openai-chat.messages', "Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  return checkCommonFields(body) ?? checkTools(body) ?? checkMessages(objects(body['messages']));
}

function build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, _request: StrictRequest, _issued: unknown, model: string): Json {
  const calls = answer.kind === 'tool_calls' ? answer.calls : [];
  const message: Json = { role: 'assistant', content: answer.text ?? null, refusal: null, annotations: [] };
  // OpenAI's own Chat API returns no reasoning; `reasoning` is for the formats that do.
  if (calls.length > 0) message['tool_calls'] = calls.map((call) => ({ id: freshId('call_'), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
  return {
    id: freshId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
  };
}

export const openaiChat: StrictVendor = {
  format: 'openai-chat',
  isStream: (request) => request.body['stream'] === true,
  isGeneration: (request) => /\/chat\/completions(\?|$)/.test(request.url),
  validate,
  build,
  adopt: (body) => body,
};
