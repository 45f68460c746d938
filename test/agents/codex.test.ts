/**
 * Codex CLI (`@openai/codex`) headless — `codex exec --json` — through
 * `interlingua serve` to a strict upstream of each format, over its
 * Responses wire (and Chat, while the installed version still takes
 * `wire_api = "chat"`): one shell call, two parallel calls, a final text,
 * streamed (Codex always streams), with reasoning effort none and high.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { agentSuite, cellProblems, isolatedEnv, runCell, UPSTREAMS, type Cell } from './harness.ts';
import { CODEX_SHELL, codexRun, codexScript } from './clients.ts';

const test = suite('Codex CLI through the proxy to strict upstreams');
const script = codexScript();

/** Why this Codex refuses `wire_api = "chat"`, if it does (asked of the installed binary, which says so before any request). */
function chatRefusal(path: string): string | undefined {
  const home = mkdtempSync(join(tmpdir(), 'interlingua-codex-'));
  try {
    writeFileSync(join(home, 'config.toml'), 'model_provider = "p"\n[model_providers.p]\nname = "p"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "chat"\n');
    const probe = spawnSync(process.execPath, [path, 'exec', '--skip-git-repo-check', 'hi'], { env: { ...isolatedEnv(home), CODEX_HOME: home }, encoding: 'utf8', timeout: 20_000 });
    const text = `${probe.stdout}${probe.stderr}`;
    return /wire_api = "chat"` is no longer supported/.test(text) ? `codex ${text.match(/codex-cli [\d.]+/)?.[0] ?? ''}refuses the config: ${text.match(/Error loading config.toml: [^\n]+/)?.[0] ?? text.slice(0, 200)}` : undefined;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const chatSkip = script.path === undefined ? undefined : chatRefusal(script.path);
const cells: Cell[] = (['responses', 'chat'] as const).flatMap((wire) =>
  UPSTREAMS.flatMap((format) =>
    [false, true].map((reasoning): Cell => {
      const name = `Codex (${wire} wire) → ${format}, one call then two parallel, streamed, reasoning ${reasoning ? 'high' : 'none'}`;
      if (script.path === undefined) return { name, skip: script.skip ?? 'no Codex' };
      if (wire === 'chat' && chatSkip !== undefined) return { name, skip: chatSkip };
      const path = script.path;
      return { name, run: async () => cellProblems(await runCell(format, CODEX_SHELL, reasoning, codexRun(path, wire)), CODEX_SHELL) };
    }),
  ),
);

agentSuite(test, cells);
test.run();
