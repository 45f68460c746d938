/** `interlingua detect [FILE|-]`: print the format and kind of a body. */
import { parseArgs } from 'node:util';
import { detectFormat } from '../core/detect.ts';
import { parseBody } from '../formats/convert.ts';
import { readInput, UsageError } from './io.ts';

export const DETECT_HELP = `Usage: interlingua detect [--path URL_PATH] [FILE|-]

Print the wire format and kind of a JSON body as JSON:
  {"format":"anthropic","kind":"request","certain":true}

Options:
  --path URL_PATH  the endpoint path the body was sent to (makes the format certain)
  -h, --help       show this help
`;

export async function runDetect(args: string[]): Promise<void> {
  const { values, positionals } = parseCli(args);
  if (positionals.length > 1) throw new UsageError('detect takes at most one file');
  const body = parseBody(readInput(positionals[0]));
  const detection = detectFormat(body, values.path === undefined ? {} : { path: values.path });
  if (detection === undefined) throw new UsageError('not a body of any known format (anthropic, openai-chat, openai-responses, gemini, ollama, bedrock-converse)');
  process.stdout.write(`${JSON.stringify(detection)}\n`);
}

function parseCli(args: string[]) {
  try {
    return parseArgs({ args, allowPositionals: true, options: { path: { type: 'string' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
