/**
 * Claude Code (`@anthropic-ai/claude-code`, its native binary from the
 * platform package) headless — `-p … --output-format stream-json` — through
 * `interlingua serve` to a strict upstream of each format: one Read call,
 * two parallel Read calls, a final text, streamed (Claude Code always
 * streams), with thinking off and on (MAX_THINKING_TOKENS).
 */
import { suite } from 'uvu';
import { agentSuite, cellProblems, runCell, UPSTREAMS, type Cell } from './harness.ts';
import { CLAUDE_READ, claudeBinary, claudeRun } from './clients.ts';

const test = suite('Claude Code through the proxy to strict upstreams');
const binary = claudeBinary();

const cells: Cell[] = UPSTREAMS.flatMap((format) =>
  [false, true].map((reasoning): Cell => {
    const name = `Claude Code → ${format}, one call then two parallel, streamed, thinking ${reasoning ? 'on' : 'off'}`;
    if (binary.path === undefined) return { name, skip: binary.skip ?? 'no binary' };
    const path = binary.path;
    return { name, run: async () => cellProblems(await runCell(format, CLAUDE_READ, reasoning, claudeRun(path)), CLAUDE_READ) };
  }),
);

agentSuite(test, cells);
test.run();
