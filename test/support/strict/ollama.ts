/**
 * A strict Ollama (`POST /api/chat`). Ollama itself is lenient (it checks
 * no tool pairing or role alternation; ollama/ollama `server/routes.go`):
 * it refuses a missing body and a missing model, and then renders the
 * messages through the model's template in order. So tool results are
 * read by position: the n-th `tool` message after an assistant message
 * with `tool_calls` is the answer to the n-th call, whatever its
 * `tool_call_id` says. The emulator refuses a result out of that order
 * (by id where both have one, else by `tool_name`), with a message that
 * says it is the emulator's check: a real Ollama would answer from the
 * wrong result. Answers carry call ids as newer servers do (`api/types.go`
 * `ToolCall.ID`).
 */
import { freshId, object, objects, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';

/** `{"error": "<text>"}` (ollama `docs/api/errors.mdx`). */
function refuse(rule: string, message: string, status = 400): Refusal {
  return { status, rule, body: { error: message } };
}

function checkPairing(messages: Json[]): Refusal | undefined {
  for (const [index, message] of messages.entries()) {
    if (message['role'] !== 'assistant') continue;
    const calls = objects(message['tool_calls']);
    for (let position = 0; position < calls.length; position++) {
      const answer = messages[index + 1 + position];
      if (answer?.['role'] !== 'tool') break;
      const call = calls[position] as Json;
      const callId = call['id'];
      const name = object(call['function'])?.['name'];
      const answerId = answer['tool_call_id'];
      const byId = typeof callId === 'string' && typeof answerId === 'string';
      const wrong = byId ? answerId !== callId : typeof answer['tool_name'] === 'string' && answer['tool_name'] !== name;
      if (wrong) {
        return refuse('ollama.tool.pairing', `[strict emulator] messages[${index + 1 + position}] (tool ${String(byId ? answerId : answer['tool_name'])}) is not the answer to tool call ${position} of messages[${index}] (${String(byId ? callId : name)}): Ollama renders tool messages in order, and the model would read it as that call's answer.`);
      }
    }
  }
  return undefined;
}

function validate(request: StrictRequest): Refusal | undefined {
  // server/routes.go ChatHandler
  if (request.text === '') return refuse('ollama.body', 'missing request body');
  const model = request.body['model'];
  // langchain-ai/langchain PR #20354
  if (typeof model !== 'string' || model === '') return refuse('ollama.model', 'model is required');
  if (!Array.isArray(request.body['messages'])) return undefined;
  return checkPairing(objects(request.body['messages']));
}

function build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, request: StrictRequest, _issued: unknown, model: string): Json {
  const message: Json = { role: 'assistant', content: answer.text ?? '' };
  // `thinking` comes back when the request sets `think` (docs/api.md, "Chat request (with thinking)").
  if (answer.reasoning !== undefined && request.body['think'] !== undefined && request.body['think'] !== false) message['thinking'] = answer.reasoning;
  const calls = answer.kind === 'tool_calls' ? answer.calls : [];
  if (calls.length > 0) message['tool_calls'] = calls.map((call, index) => ({ id: freshId('call_', 8).toLowerCase(), function: { index, name: call.name, arguments: call.arguments } }));
  return {
    model,
    created_at: new Date().toISOString(),
    message,
    done_reason: 'stop',
    done: true,
    total_duration: 40_000_000,
    load_duration: 1_000_000,
    prompt_eval_count: 20,
    prompt_eval_duration: 10_000_000,
    eval_count: 10,
    eval_duration: 20_000_000,
  };
}

export const ollama: StrictVendor = {
  format: 'ollama',
  isStream: (request) => request.body['stream'] !== false,
  isGeneration: (request) => request.url.split('?')[0] === '/api/chat',
  validate,
  build,
  adopt: (body) => body,
};
