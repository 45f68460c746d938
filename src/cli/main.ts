#!/usr/bin/env node
/**
 * The `interlingua` command line. Output is JSON (or SSE) on stdout; losses
 * and messages on stderr; exit 0 on success, 1 on bad input, 2 on a usage
 * mistake.
 */
import { readFileSync } from 'node:fs';
import { reportFailure, UsageError } from './io.ts';

const HELP = `interlingua — convert LLM API bodies between wire formats

Usage: interlingua <command> [options]
       interlingua --version

Commands:
  convert   convert a request, response, error body or SSE stream to another format
  detect    print the format and kind of a body
  serve     run the translating proxy on a local HTTP server
  normalize turn recorded traffic (HAR, JSONL, batch files) into one record per exchange

Formats: anthropic, openai-chat, openai-responses, gemini, ollama, bedrock-converse
Run "interlingua <command> --help" for the options of a command.
`;

interface Command {
  help: string;
  run(args: string[]): Promise<void>;
}

/**
 * Each command's module, loaded only when that command runs: `interlingua
 * --help` loads no codec, which keeps start-up near Node's own.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  convert: async () => {
    const { runConvert, CONVERT_HELP } = await import('./convert.ts');
    return { help: CONVERT_HELP, run: runConvert };
  },
  detect: async () => {
    const { runDetect, DETECT_HELP } = await import('./detect.ts');
    return { help: DETECT_HELP, run: runDetect };
  },
  serve: async () => {
    const { runServe, SERVE_HELP } = await import('./serve.ts');
    return { help: SERVE_HELP, run: runServe };
  },
  normalize: async () => {
    const { runNormalize, NORMALIZE_HELP } = await import('./normalize.ts');
    return { help: NORMALIZE_HELP, run: runNormalize };
  },
};

/** The version in the package's own package.json (dist/cli/main.js and src/cli/main.ts both sit two folders below it). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

// A reader that stops early (`interlingua convert … | head`) closes the pipe: that ends the output, not the program with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined) throw new UsageError(`unknown command "${name}"; run "interlingua --help"`);
  const command = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  await command.run(rest);
  return 0;
}


main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportFailure(error);
  },
);
