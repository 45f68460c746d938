/**
 * How each agent client is found and run headless for a cell (see
 * harness.ts). Every flag and variable here was checked against the
 * installed package (its --help or its bundle).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isolatedEnv, ROOT, type CellSetup, type ClientRun, type ReadTool } from './harness.ts';

const require = createRequire(join(ROOT, 'package.json'));

/** The directory of an installed package, or `undefined`. */
export function packageDir(name: string): string | undefined {
  // By the lookup paths, not `require.resolve(name/package.json)`: packages whose exports map leaves package.json out (`@openai/agents`) refuse that.
  for (const base of require.resolve.paths(name) ?? []) if (existsSync(join(base, name, 'package.json'))) return join(base, name);
  return undefined;
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

/** opencode's native binary from its platform package (`opencode-ai`'s bin is a launcher its postinstall sets up). */
export function opencodeBinary(): { path?: string; skip?: string } {
  const platform = `opencode-${process.platform}-${process.arch}`;
  const dir = packageDir(platform);
  // opencode-ai is not a dev dependency: its macOS and Windows platform packages are missing from the registry this project installs from, so npm cannot lock it and `npm ci` refuses the lock file. Installed by hand (`npm install --no-save opencode-ai`), its cells run.
  if (dir === undefined) return { skip: `${platform} is not installed: opencode-ai is no dev dependency (its macOS and Windows platform packages are missing from this registry, so npm ci refuses a lock with it); npm install --no-save opencode-ai to run these cells` };
  const path = join(dir, 'bin', process.platform === 'win32' ? 'opencode.exe' : 'opencode');
  return existsSync(path) ? { path } : { skip: `${path} is missing` };
}

export const OPENCODE_READ: ReadTool = { name: 'read', args: (path) => ({ filePath: path }) };

/** The ai-sdk providers opencode has built in, each speaking its vendor's format to the proxy. */
export const OPENCODE_PROVIDERS = {
  anthropic: { npm: '@ai-sdk/anthropic', path: '/v1', model: 'claude-sonnet-4-5', thinking: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
  openai: { npm: '@ai-sdk/openai', path: '/v1', model: 'gpt-5.1', thinking: { reasoningEffort: 'high', reasoningSummary: 'auto' } },
  google: { npm: '@ai-sdk/google', path: '/v1beta', model: 'gemini-3-flash-preview', thinking: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'high' } } },
  'openai-compatible': { npm: '@ai-sdk/openai-compatible', path: '/v1', model: 'gpt-5.1', thinking: { reasoningEffort: 'high' } },
} as const;
export type OpencodeProvider = keyof typeof OPENCODE_PROVIDERS;

/**
 * `opencode run --format json` with one provider in OPENCODE_CONFIG_CONTENT
 * pointed at the proxy, every permission allowed, and the models.dev fetch,
 * autoupdate, sharing, default plugins and LSP downloads off.
 */
export function opencodeRun(binary: string, provider: OpencodeProvider) {
  return (setup: CellSetup): ClientRun => {
    const spec = OPENCODE_PROVIDERS[provider];
    const config = {
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      permission: { '*': 'allow' },
      provider: {
        interlingua: {
          npm: spec.npm,
          name: 'interlingua',
          options: { baseURL: `${setup.proxy}${spec.path}`, apiKey: 'dummy-key' },
          models: { [spec.model]: { name: spec.model, tool_call: true, reasoning: setup.reasoning, limit: { context: 200000, output: 8192 }, ...(setup.reasoning ? { options: spec.thinking } : {}) } },
        },
      },
    };
    return {
      command: binary,
      args: ['run', ...(process.env['OC_DEBUG'] ? ['--print-logs', '--log-level', 'DEBUG'] : []), '--format', 'json', '-m', `interlingua/${spec.model}`, setup.prompt],
      env: {
        ...isolatedEnv(setup.home),
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_SHARE: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_CLAUDE_CODE: '1',
        OPENCODE_DISABLE_PROJECT_CONFIG: '1',
        OPENCODE_PURE: '1',
      },
      cwd: setup.work,
    };
  };
}

/** The Agents SDK's read tool (agents-sdk-client.ts). */
export const AGENTS_READ: ReadTool = { name: 'read_file', args: (path) => ({ path }) };

/** The OpenAI Agents SDK script, with tsx, over the Responses or Chat model, streamed or not. */
export function agentsRun(api: 'responses' | 'chat', stream: boolean) {
  return (setup: CellSetup): ClientRun => ({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'test/agents/agents-sdk-client.ts')],
    env: { ...isolatedEnv(setup.home), AGENT_PROXY: setup.proxy, AGENT_API: api, AGENT_STREAM: stream ? '1' : '0', AGENT_REASONING: setup.reasoning ? '1' : '0', AGENT_PROMPT: setup.prompt.replace('alpha.txt', `${setup.work}/alpha.txt`).replace('bravo.txt', `${setup.work}/bravo.txt`).replace('charlie.txt', `${setup.work}/charlie.txt`), OPENAI_AGENTS_DISABLE_TRACING: '1' },
    cwd: ROOT,
  });
}
