/**
 * How each agent client is found and run headless for a cell (see
 * harness.ts). Every flag and variable here was checked against the
 * installed package (its --help or its bundle).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isolatedEnv, ROOT, type CellSetup, type ClientRun, type ReadTool } from './harness.ts';

const require = createRequire(join(ROOT, 'package.json'));

/** The directory of an installed package, or `undefined`. */
export function packageDir(name: string): string | undefined {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** Claude Code's native binary from its platform package (the main package's bin is a placeholder its postinstall replaces). */
export function claudeBinary(): { path?: string; skip?: string } {
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  const dir = packageDir(platform);
  if (dir === undefined) return { skip: `${platform} is not installed (no Claude Code binary for this platform)` };
  const path = join(dir, process.platform === 'win32' ? 'claude.exe' : 'claude');
  return existsSync(path) ? { path } : { skip: `${path} is missing` };
}

export const CLAUDE_READ: ReadTool = { name: 'Read', args: (path) => ({ file_path: path }) };

export function claudeRun(binary: string) {
  return (setup: CellSetup): ClientRun => {
    const env = {
      ...isolatedEnv(setup.home),
      ANTHROPIC_BASE_URL: setup.proxy,
      ANTHROPIC_API_KEY: 'sk-ant-dummy-key',
      CLAUDE_CONFIG_DIR: join(setup.home, '.claude'),
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      IS_SANDBOX: '1',
      ...(setup.reasoning ? { MAX_THINKING_TOKENS: '2048' } : { MAX_THINKING_TOKENS: '0' }),
    };
    return {
      command: binary,
      args: ['-p', setup.prompt, '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--allowedTools', 'Read', '--permission-mode', 'bypassPermissions', '--max-turns', '8'],
      env,
      cwd: setup.work,
    };
  };
}

/** Codex CLI: `bin/codex.js` runs the binary of its platform package. */
export function codexScript(): { path?: string; skip?: string } {
  const dir = packageDir('@openai/codex');
  if (dir === undefined) return { skip: '@openai/codex is not installed' };
  const platform = packageDir(`@openai/codex-${process.platform}-${process.arch}`);
  if (platform === undefined) return { skip: `@openai/codex-${process.platform}-${process.arch} is not installed (no Codex binary for this platform)` };
  return { path: join(dir, 'bin/codex.js') };
}

/** Codex's shell tool (`exec_command`, the only one it offers for running commands in 0.171). */
export const CODEX_SHELL: ReadTool = { name: 'exec_command', args: (path) => ({ cmd: `cat ${path}` }) };

/**
 * Codex `exec` against a custom model provider at the proxy (config.toml in a
 * temporary CODEX_HOME), approvals and sandbox bypassed so its shell tool
 * runs, events as JSON lines on stdout.
 */
export function codexRun(script: string, wire: 'responses' | 'chat') {
  return (setup: CellSetup): ClientRun => {
    const codexHome = join(setup.home, 'codex');
    mkdirSync(codexHome, { recursive: true });
    const config = [
      'model = "gpt-5.1-codex"',
      'model_provider = "interlingua"',
      `model_reasoning_effort = "${setup.reasoning ? 'high' : 'none'}"`,
      '[model_providers.interlingua]',
      'name = "interlingua"',
      `base_url = "${setup.proxy}/v1"`,
      'env_key = "INTERLINGUA_TEST_KEY"',
      `wire_api = "${wire}"`,
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '[analytics]',
      'enabled = false',
      '[otel]',
      'exporter = "none"',
    ].join('\n');
    writeFileSync(join(codexHome, 'config.toml'), `${config}\n`);
    return {
      command: process.execPath,
      args: [script, 'exec', '--skip-git-repo-check', '--json', '--ephemeral', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', setup.prompt],
      env: { ...isolatedEnv(setup.home), CODEX_HOME: codexHome, INTERLINGUA_TEST_KEY: 'dummy-key' },
      cwd: setup.work,
    };
  };
}

/** Gemini CLI's bundle (`bin: bundle/gemini.js`, Node ≥ 20). */
export function geminiScript(): { path?: string; skip?: string } {
  const dir = packageDir('@google/gemini-cli');
  if (dir === undefined) return { skip: '@google/gemini-cli is not installed' };
  const [major] = process.versions.node.split('.').map(Number);
  if ((major ?? 0) < 20) return { skip: `Gemini CLI needs Node ≥ 20, this is ${process.versions.node}` };
  return { path: join(dir, 'bundle/gemini.js') };
}

export const GEMINI_READ: ReadTool = { name: 'read_file', args: (path) => ({ file_path: path }) };

/**
 * Gemini CLI headless (`-p`), with the API-key auth (settings
 * `security.auth.selectedType`: with GOOGLE_GEMINI_BASE_URL alone it picks
 * the `gateway` auth type, which 0.61 refuses as "Invalid auth method
 * selected."), GOOGLE_GEMINI_BASE_URL at the proxy, the folder trusted for
 * the session (`--skip-trust`, else `--yolo` falls back to prompting) and
 * usage statistics and telemetry off. It asks for thoughts with every
 * model; `reasoning` picks a Gemini 3 model (thinkingLevel HIGH) over 2.5.
 */
export function geminiRun(script: string) {
  return (setup: CellSetup): ClientRun => {
    const dir = join(setup.home, '.gemini');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, security: { auth: { selectedType: 'gemini-api-key' } } }));
    return {
      command: process.execPath,
      args: [script, '-p', setup.prompt, '--yolo', '--skip-trust', '-m', setup.reasoning ? 'gemini-3-flash-preview' : 'gemini-2.5-flash', '-o', 'text'],
      env: { ...isolatedEnv(setup.home), GEMINI_API_KEY: 'dummy-key', GOOGLE_GEMINI_BASE_URL: setup.proxy, GEMINI_CLI_NO_RELAUNCH: 'true' },
      cwd: setup.work,
    };
  };
}
