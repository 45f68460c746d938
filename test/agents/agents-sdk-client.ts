/**
 * The OpenAI Agents SDK client of the agent cells, run as its own process
 * (test/agents/agents-sdk.test.ts): an `Agent` with one function tool that
 * reads a file, its model an OpenAI Responses or Chat Completions model on
 * an OpenAI client whose baseURL is the proxy, run streamed or not; prints
 * the final output. Settings come from the environment.
 */
import { readFileSync } from 'node:fs';
import { Agent, OpenAIProvider, run, setTracingDisabled, tool } from '@openai/agents';

const env = (name: string) => process.env[name] ?? '';
setTracingDisabled(true);
// The provider makes the SDK's own OpenAI client (its `openai` version) with this baseURL; `useResponses` picks OpenAIResponsesModel or OpenAIChatCompletionsModel.
const provider = new OpenAIProvider({ apiKey: 'dummy-key', baseURL: `${env('AGENT_PROXY')}/v1`, useResponses: env('AGENT_API') !== 'chat' });
const model = await provider.getModel('gpt-5.1');
const readFile = tool({
  name: 'read_file',
  description: 'Read a text file and return its content.',
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'Absolute path of the file.' } }, required: ['path'], additionalProperties: false } as const,
  execute: (input) => readFileSync(String((input as { path?: unknown }).path), 'utf8'),
});
const agent = new Agent({
  name: 'reader',
  instructions: 'Read the files the user names with read_file, then say what they hold.',
  model,
  tools: [readFile],
  modelSettings: { parallelToolCalls: true, ...(env('AGENT_REASONING') === '1' ? { reasoning: { effort: 'high', summary: 'auto' } } : {}) },
});
const prompt = env('AGENT_PROMPT');
if (env('AGENT_STREAM') === '1') {
  const result = await run(agent, prompt, { stream: true, maxTurns: 6 });
  for await (const _event of result) {
    // drain the events
  }
  await result.completed;
  console.log(String(result.finalOutput));
} else {
  const result = await run(agent, prompt, { maxTurns: 6 });
  console.log(String(result.finalOutput));
}
