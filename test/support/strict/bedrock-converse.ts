/**
 * A strict Bedrock Converse API (`POST /model/{modelId}/converse` and
 * `/converse-stream`): roles alternate starting with a user message,
 * `toolResult` blocks answer the `toolUse` blocks of the turn before,
 * `toolConfig` is set whenever the history holds tool blocks, names and
 * `inferenceConfig` within their Smithy constraints, and reasoning
 * signatures are the ones this emulator issued. Answers Bedrock's
 * `ValidationException` (sources in /work/shared/VENDOR_RULES.md §5).
 */
import { Issued, object, objects, opaque, type Json, type Refusal, type ScriptedAnswer, type StrictRequest, type StrictVendor } from './core.ts';

/** HTTP 400 with `x-amzn-ErrorType: ValidationException:…` and a body that is only the message. */
function refuse(rule: string, message: string): Refusal {
  return { status: 400, rule, headers: { 'x-amzn-ErrorType': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' }, body: { message } };
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;
const content = (message: Json): Json[] => objects(message['content']);

function checkMessage(message: Json, index: number, previous: Json | undefined, issued: Issued): Refusal | undefined {
  const blocks = content(message);
  // VB/amazon-bedrock-empty-message-validation-error.json
  if (blocks.length === 0) return refuse('bedrock.content.empty', `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`);
  const uses = previous === undefined ? [] : content(previous).flatMap((block) => (object(block['toolUse']) === undefined ? [] : [object(block['toolUse']) as Json]));
  const results = blocks.flatMap((block) => (object(block['toolResult']) === undefined ? [] : [object(block['toolResult']) as Json]));
  const ids = new Set<string>();
  for (const [position, block] of blocks.entries()) {
    // OpenHands/OpenHands#5339
    if (typeof block['text'] === 'string' && block['text'].trim() === '') return refuse('bedrock.text.blank', `The text field in the ContentBlock object at messages.${index}.content.${position} is blank. Add text to the text field, and try again.`);
    const use = object(block['toolUse']);
    if (use !== undefined) {
      // VB/bedrock-invalid-tool-name-validation-error.json
      if (typeof use['name'] !== 'string' || !NAME_PATTERN.test(use['name'])) return refuse('bedrock.toolUse.name', `1 validation error detected: Value at 'messages.${index}.member.content.${position}.member.toolUse.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`);
      // VB/amazon-bedrock-mistral-duplicate-tool-call-ids-error.json
      if (ids.has(String(use['toolUseId']))) return refuse('bedrock.toolUse.unique', `The toolUse blocks at messages.${index}.content contain duplicate Ids: ${String(use['toolUseId'])}`);
      ids.add(String(use['toolUseId']));
    }
    const reasoning = object(block['reasoningContent']);
    if (reasoning !== undefined) {
      // VB/issue-7034-error.json
      if (message['role'] === 'user') return refuse('bedrock.reasoning.user', 'User messages cannot contain reasoning content. Please remove the reasoning content and try again.');
      const signature = object(reasoning['reasoningText'])?.['signature'];
      // The Claude rule, wrapped as Bedrock wraps model errors (anthropics/claude-code#10627).
      if (typeof signature === 'string' && !issued.has('bedrock.signature', signature)) return refuse('bedrock.reasoning.signature', `The model returned the following errors: messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`);
    }
    const result = object(block['toolResult']);
    // aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15
    if (result !== undefined && result['status'] === 'error' && objects(result['content']).length === 0) return refuse('bedrock.toolResult.error', `The content field at messages.${index}.content.${position}.toolResult cannot be empty when status value is error.`);
  }
  // pydantic/pydantic-ai#2327
  if (results.length > uses.length) return refuse('bedrock.toolResult.count', `The number of toolResult blocks at messages.${index}.content exceeds the number of toolUse blocks of previous turn.`);
  const answered = new Set(results.map((result) => result['toolUseId']));
  const missing = uses.filter((use) => !answered.has(use['toolUseId'])).map((use) => String(use['toolUseId']));
  // genkit-ai/aws-bedrock-js-plugin#664
  if (missing.length > 0) return refuse('bedrock.toolResult.missing', `Expected toolResult blocks at messages.${index}.content for the following Ids: ${missing.join(', ')}`);
  return undefined;
}

function checkMessages(messages: Json[], body: Json, issued: Issued): Refusal | undefined {
  // elastic/kibana PR #246393
  if (messages[0]?.['role'] !== 'user') return refuse('bedrock.start', 'A conversation must start with a user message. Try again with a conversation that starts with a user message.');
  for (const [index, message] of messages.entries()) {
    // microsoft/semantic-kernel#10281
    if (index > 0 && message['role'] === messages[index - 1]?.['role']) return refuse('bedrock.alternate', 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.');
    const refusal = checkMessage(message, index, index > 0 ? messages[index - 1] : undefined, issued);
    if (refusal !== undefined) return refusal;
  }
  const tools = messages.some((message) => content(message).some((block) => block['toolUse'] !== undefined || block['toolResult'] !== undefined));
  // langgenius/dify#17545
  if (tools && object(body['toolConfig']) === undefined) return refuse('bedrock.toolConfig', 'The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  return undefined;
}

function checkConfig(body: Json): Refusal | undefined {
  const config = object(body['inferenceConfig']) ?? {};
  // stdapi-ai/stdapi.ai#224; Smithy InferenceConfiguration ranges.
  for (const [name, min, max] of [['temperature', 0, 1], ['topP', 0, 1]] as const) {
    const value = config[name];
    if (typeof value !== 'number') continue;
    if (value > max) return refuse(`bedrock.inferenceConfig.${name}`, `1 validation error detected: Value '${value}' at 'inferenceConfig.${name}' failed to satisfy constraint: Member must have value less than or equal to ${max}`);
    if (value < min) return refuse(`bedrock.inferenceConfig.${name}`, `1 validation error detected: Value '${value}' at 'inferenceConfig.${name}' failed to satisfy constraint: Member must have value greater than or equal to ${min}`);
  }
  if (typeof config['maxTokens'] === 'number' && config['maxTokens'] < 1) return refuse('bedrock.inferenceConfig.maxTokens', `1 validation error detected: Value '${config['maxTokens']}' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1`);
  for (const [index, tool] of objects(object(body['toolConfig'])?.['tools']).entries()) {
    const name = object(tool['toolSpec'])?.['name'];
    // Smithy ToolSpecification.name: [a-zA-Z0-9_-]+, 1–64.
    if (typeof name === 'string' && (!NAME_PATTERN.test(name) || name.length > 64)) return refuse('bedrock.toolSpec.name', `1 validation error detected: Value '${name}' at 'toolConfig.tools.${index + 1}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`);
  }
  return undefined;
}

function validate(request: StrictRequest, issued: Issued): Refusal | undefined {
  return checkConfig(request.body) ?? checkMessages(objects(request.body['messages']), request.body, issued);
}

function build(answer: Extract<ScriptedAnswer, { kind: 'text' | 'tool_calls' }>, _request: StrictRequest, issued: Issued): Json {
  const blocks: Json[] = [];
  if (answer.reasoning !== undefined) blocks.push({ reasoningContent: { reasoningText: { text: answer.reasoning, signature: issued.add('bedrock.signature', opaque(64)) } } });
  if (answer.text !== undefined) blocks.push({ text: answer.text });
  const calls = answer.kind === 'tool_calls' ? answer.calls : [];
  for (const call of calls) blocks.push({ toolUse: { toolUseId: `tooluse_${opaque(16).replace(/[^A-Za-z0-9]/g, '')}`, name: call.name, input: call.arguments } });
  return {
    output: { message: { role: 'assistant', content: blocks } },
    stopReason: calls.length > 0 ? 'tool_use' : 'end_turn',
    usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    metrics: { latencyMs: 40 },
  };
}

function adopt(body: unknown, issued: Issued): unknown {
  for (const block of objects(object(object(object(body)?.['output'])?.['message'])?.['content'])) {
    const signature = object(object(block['reasoningContent'])?.['reasoningText'])?.['signature'];
    if (typeof signature === 'string') issued.add('bedrock.signature', signature);
  }
  return body;
}

export const bedrockConverse: StrictVendor = {
  format: 'bedrock-converse',
  isStream: (request) => request.url.split('?')[0]?.endsWith('/converse-stream') === true,
  isGeneration: (request) => /\/model\/[^/]+\/(converse|converse-stream)(\?|$)/.test(request.url),
  validate,
  build,
  adopt,
};
