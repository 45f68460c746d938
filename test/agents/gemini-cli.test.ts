/**
 * Gemini CLI (`@google/gemini-cli`) headless — `gemini -p` — through
 * `interlingua serve` to a strict upstream of each format: one read_file
 * call, two parallel calls, a final text, streamed (the CLI always
 * streams), with the upstream answering without and with reasoning.
 */
import { suite } from 'uvu';
import { agentSuite, cellProblems, runCell, UPSTREAMS, type Cell } from './harness.ts';
import { GEMINI_READ, geminiRun, geminiScript } from './clients.ts';

const test = suite('Gemini CLI through the proxy to strict upstreams');
const script = geminiScript();

const cells: Cell[] = UPSTREAMS.flatMap((format) =>
  [false, true].map((reasoning): Cell => {
    const name = `Gemini CLI → ${format}, one call then two parallel, streamed, reasoning ${reasoning ? 'on (gemini-3, thinkingLevel HIGH)' : 'off (upstream answers without)'}`;
    if (script.path === undefined) return { name, skip: script.skip ?? 'no Gemini CLI' };
    const path = script.path;
    return { name, run: async () => cellProblems(await runCell(format, GEMINI_READ, reasoning, geminiRun(path)), GEMINI_READ) };
  }),
);

agentSuite(test, cells);
test.run();
