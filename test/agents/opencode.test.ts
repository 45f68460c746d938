/**
 * opencode (`opencode-ai`, its native binary from the platform package)
 * headless — `opencode run --format json` — with each of its built-in
 * ai-sdk providers (Anthropic, OpenAI (Responses), Google, OpenAI-compatible
 * (Chat)) pointed at `interlingua serve`, to a strict upstream of each
 * format: one read call, two parallel calls, a final text, streamed (the
 * providers stream), with the model's reasoning options off and on.
 */
import { suite } from 'uvu';
import { agentSuite, cellProblems, runCell, UPSTREAMS, type Cell } from './harness.ts';
import { OPENCODE_PROVIDERS, OPENCODE_READ, opencodeBinary, opencodeRun, type OpencodeProvider } from './clients.ts';

const test = suite('opencode through the proxy to strict upstreams');
const binary = opencodeBinary();

const cells: Cell[] = (Object.keys(OPENCODE_PROVIDERS) as OpencodeProvider[]).flatMap((provider) =>
  UPSTREAMS.flatMap((format) =>
    [false, true].map((reasoning): Cell => {
      const name = `opencode (${OPENCODE_PROVIDERS[provider].npm}) → ${format}, one call then two parallel, streamed, reasoning ${reasoning ? 'on' : 'off'}`;
      if (binary.path === undefined) return { name, skip: binary.skip ?? 'no binary' };
      const path = binary.path;
      return { name, run: async () => cellProblems(await runCell(format, OPENCODE_READ, reasoning, opencodeRun(path, provider)), OPENCODE_READ) };
    }),
  ),
);

agentSuite(test, cells);
test.run();
