/**
 * A strict Anthropic Messages API (`POST /v1/messages`): the conversation,
 * tool and extended-thinking rules the real API enforces, each answered
 * with Anthropic's own status, error type and text (see
 * /work/shared/VENDOR_RULES.md §1 for the sources of each text). Thinking
 * signatures are issued by this emulator and accepted back only unchanged.
 */
import { freshId, header, Issued, object, objects, opaque, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';

/** @see https://docs.claude.com/en/api/errors — the envelope, without `param` or `code`. */
function refuse(rule: string, message: string, status = 400, type = 'invalid_request_error'): Refusal {
  return { status, rule, body: { type: 'error', error: { type, message }, request_id: freshId('req_') } };
}

const THINKING_DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;

/** The content of a message as blocks (a string is one text block). */
function blocks(message: Json): Json[] {
  const content = message['content'];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : objects(content);
}

function thinkingEnabled(body: Json): boolean {
  const type = object(body['thinking'])?.['type'];
  return type === 'enabled' || type === 'adaptive';
}

function checkTools(body: Json): Refusal | undefined {
  const names = new Set<string>();
  for (const [index, tool] of objects(body['tools']).entries()) {
    if (tool['type'] !== undefined && tool['type'] !== 'custom') continue;
    const name = tool['name'];
    // spec Tool.name pattern; modelcontextprotocol/modelcontextprotocol#1345 for the text.
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) return refuse('anthropic.tool.name', `tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    // tailcallhq/forgecode#892
    if (names.has(name)) return refuse('anthropic.tool.unique', 'tools: Tool names must be unique.');
    names.add(name);
    // spec InputSchema.type is the constant "object".
    const schema = object(tool['input_schema']);
    if (schema === undefined) return refuse('anthropic.tool.input_schema', `tools.${index}.custom.input_schema: Field required`);
    if (schema['type'] !== 'object') return refuse('anthropic.tool.input_schema.type', `tools.${index}.custom.input_schema.type: Input should be 'object'`);
  }
  return undefined;
}

function checkThinkingConfig(body: Json): Refusal | undefined {
  const thinking = object(body['thinking']);
  if (thinking?.['type'] !== 'enabled') return undefined;
  const budget = thinking['budget_tokens'];
  // spec ThinkingConfigEnabled.budget_tokens: ≥ 1024 and less than max_tokens (danny-avila/LibreChat#8346).
  if (typeof budget !== 'number' || budget < 1024) return refuse('anthropic.thinking.budget', 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if (typeof body['max_tokens'] === 'number' && budget >= body['max_tokens']) return refuse('anthropic.thinking.max_tokens', '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size');
  // MartialBE/one-hub#529
  const temperature = body['temperature'];
  if (temperature !== undefined && temperature !== 1) return refuse('anthropic.thinking.temperature', '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking');
  // VB/amazon-bedrock-issue-11227-opus-4-5-error.json
  const choice = object(body['tool_choice'])?.['type'];
  if (choice === 'any' || choice === 'tool') return refuse('anthropic.thinking.tool_choice', 'Thinking may not be enabled when tool_choice forces tool use.');
  return undefined;
}

function checkSampling(body: Json): Refusal | undefined {
  // tickernelz/opencode-mem#50
  if (typeof body['max_tokens'] !== 'number') return refuse('anthropic.max_tokens', 'max_tokens: Field required');
  const temperature = body['temperature'];
  // spec CreateMessageParams.temperature: 0..1 (anthropics/anthropic-sdk-python#893).
  if (typeof temperature === 'number' && (temperature < 0 || temperature > 1)) return refuse('anthropic.temperature', 'temperature: range: 0..1');
  return undefined;
}

/** The `tool_use` / `tool_result` pairing and block rules of one conversation. */
function checkConversation(messages: Json[], issued: Issued, thinking: boolean): Refusal | undefined {
  // Blocks of the latest assistant message are checked against what was issued, older ones by signature alone.
  const toolUseIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const role = message['role'];
    // Maol-1997/cursor-claude-connector#3
    if (role === 'system') return refuse('anthropic.role.system', 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.');
    if (role !== 'user' && role !== 'assistant') return refuse('anthropic.role', `messages.${index}.role: Input should be 'user' or 'assistant'`);
    const content = blocks(message);
    const previous = index > 0 ? messages[index - 1] : undefined;
    const previousUses = previous?.['role'] === 'assistant' ? blocks(previous).filter((block) => block['type'] === 'tool_use') : [];
    let leadingResults = 0;
    let leading = true;
    for (const [position, block] of content.entries()) {
      const type = block['type'];
      if (type === 'text') {
        // anthropics/claude-code#59812; continuedev/continue#9605
        if (block['text'] === '') return refuse('anthropic.text.empty', 'messages: text content blocks must be non-empty');
        if (typeof block['text'] === 'string' && block['text'].trim() === '') return refuse('anthropic.text.whitespace', 'messages: text content blocks must contain non-whitespace text');
      }
      if (type === 'tool_use') {
        const id = block['id'];
        // anomalyco/opencode#1279; anthropics/claude-code#20901
        if (typeof id !== 'string' || !ID_PATTERN.test(id)) return refuse('anthropic.tool_use.id', `messages.${index}.content.${position}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
        if (toolUseIds.has(id)) return refuse('anthropic.tool_use.unique', `messages.${index}.content.${position}: \`tool_use\` ids must be unique`);
        toolUseIds.add(id);
      }
      if (type === 'tool_result') {
        const id = block['tool_use_id'];
        // VA/anthropic-issue-17366-error.json: a result answers a call of the immediately previous assistant message.
        if (!previousUses.some((use) => use['id'] === id)) {
          return refuse('anthropic.tool_result.unmatched', `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        }
        if (leading) leadingResults++;
      } else {
        leading = false;
      }
      if ((type === 'thinking' || type === 'redacted_thinking') && role === 'assistant') {
        // anthropics/claude-code#20705: a thinking block anywhere means the message starts with one.
        const first = content[0]?.['type'];
        if (first !== 'thinking' && first !== 'redacted_thinking') return refuse('anthropic.thinking.first', `messages.${index}.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found ${String(first)}.`);
        // anthropics/claude-code#10627: only signatures Anthropic issued, unchanged.
        const valid = type === 'thinking' ? typeof block['signature'] === 'string' && issued.has('anthropic.signature', block['signature']) : typeof block['data'] === 'string' && issued.has('anthropic.redacted', block['data']);
        if (!valid) return refuse('anthropic.thinking.signature', `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`);
      }
    }
    if (previousUses.length > 0) {
      // anthropics/claude-code#1237: every tool_use answered in the next message.
      const answered = new Set(content.filter((block) => block['type'] === 'tool_result').map((block) => block['tool_use_id']));
      const missing = previousUses.filter((use) => !answered.has(use['id'])).map((use) => String(use['id']));
      if (missing.length > 0) return refuse('anthropic.tool_use.unanswered', `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      // Amazon-Q-Developer/language-servers PR #1235
      if (leadingResults < previousUses.length) return refuse('anthropic.tool_result.leading', `messages.${index}: Did not find ${previousUses.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`);
    }
  }
  const last = messages.at(-1);
  const lastIndex = messages.length - 1;
  if (last?.['role'] === 'user' && thinking) {
    // n8n-io/n8n#22550: with thinking on, the assistant turn whose tool_use the last message answers starts with thinking.
    const previous = messages[lastIndex - 1];
    const answersTools = blocks(last).some((block) => block['type'] === 'tool_result');
    const first = previous === undefined ? undefined : blocks(previous)[0]?.['type'];
    if (answersTools && previous?.['role'] === 'assistant' && first !== 'thinking' && first !== 'redacted_thinking') {
      return refuse(
        'anthropic.thinking.continuity',
        `messages.${lastIndex - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${THINKING_DOCS}`,
      );
    }
  }
  if (last?.['role'] === 'assistant' && !thinking) {
    // tailcallhq/forgecode#1853
    const position = blocks(last).findIndex((block) => block['type'] === 'thinking' || block['type'] === 'redacted_thinking');
    if (position >= 0) return refuse('anthropic.thinking.disabled', `messages.${lastIndex}.content.${position}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`);
  }
  return undefined;
}

function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheControl(item), 0);
  const json = object(value);
  if (json === undefined) return 0;
  let count = json['cache_control'] === undefined || json['cache_control'] === null ? 0 : 1;
  for (const [key, item] of Object.entries(json)) if (key !== 'cache_control' && typeof item === 'object') count += countCacheControl(item);
  return count;
}

function validate(request: StrictRequest, issued: Issued): Refusal | undefined {
  // Farama-Foundation/ChatArena#124
  if (header(request, 'anthropic-version') === undefined) return refuse('anthropic.version', 'anthropic-version: header is required');
  const body = request.body;
  if (!Array.isArray(body['messages'])) return refuse('anthropic.messages', 'messages: Field required');
  const refusal = checkSampling(body) ?? checkThinkingConfig(body) ?? checkTools(body) ?? checkConversation(objects(body['messages']), issued, thinkingEnabled(body));
  if (refusal !== undefined) return refusal;
  // tghamm/Anthropic.SDK#50
  const breakpoints = countCacheControl([body['tools'], body['system'], body['messages']]);
  if (breakpoints > 4) return refuse('anthropic.cache_control.count', `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  return undefined;
}

function build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, request: StrictRequest, issued: Issued, model: string): Json {
  const content: Json[] = [];
  // With thinking on, Claude's answers start with a thinking block (and its signature).
  const reasoning = answer.reasoning ?? (thinkingEnabled(request.body) ? 'Thinking about the request.' : undefined);
  if (reasoning !== undefined) content.push({ type: 'thinking', thinking: reasoning, signature: issued.add('anthropic.signature', opaque(64)) });
  if (answer.text !== undefined) content.push({ type: 'text', text: answer.text });
  const calls = answer.kind === 'tool_calls' ? answer.calls : [];
  for (const call of calls) content.push({ type: 'tool_use', id: freshId('toolu_01'), name: call.name, input: call.arguments });
  return {
    id: freshId('msg_01'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 20, output_tokens: 10 },
  };
}

function adopt(body: unknown, issued: Issued): unknown {
  for (const block of objects(object(body)?.['content'])) {
    if (block['type'] === 'thinking' && typeof block['signature'] === 'string') issued.add('anthropic.signature', block['signature']);
    if (block['type'] === 'redacted_thinking' && typeof block['data'] === 'string') issued.add('anthropic.redacted', block['data']);
  }
  return body;
}

export const anthropic: StrictVendor = {
  format: 'anthropic',
  isStream: (request) => request.body['stream'] === true,
  isGeneration: (request) => /\/v1\/messages(\?|$)/.test(request.url),
  validate,
  build,
  adopt,
};
