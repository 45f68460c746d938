/**
 * The OpenAI Agents SDK (`@openai/agents`): an Agent with a function tool,
 * on a Responses model and on a Chat Completions model whose client's
 * baseURL is `interlingua serve`, streamed and not, reasoning off and on,
 * to a strict upstream of each format: one call, two parallel calls, a
 * final text.
 */
import { suite } from 'uvu';
import { agentSuite, cellProblems, runCell, UPSTREAMS, type Cell } from './harness.ts';
import { AGENTS_READ, agentsRun, packageDir } from './clients.ts';

const test = suite('OpenAI Agents SDK through the proxy to strict upstreams');
const installed = packageDir('@openai/agents') !== undefined;

const cells: Cell[] = (['responses', 'chat'] as const).flatMap((api) =>
  [false, true].flatMap((stream) =>
    UPSTREAMS.flatMap((format) =>
      [false, true].map((reasoning): Cell => {
        const name = `Agents SDK (${api === 'chat' ? 'OpenAIChatCompletionsModel' : 'OpenAIResponsesModel'}${stream ? ', streamed' : ''}) → ${format}, one call then two parallel, reasoning ${reasoning ? 'high' : 'off'}`;
        if (!installed) return { name, skip: '@openai/agents is not installed' };
        return { name, run: async () => cellProblems(await runCell(format, AGENTS_READ, reasoning, agentsRun(api, stream)), AGENTS_READ) };
      }),
    ),
  ),
);

agentSuite(test, cells);
test.run();
