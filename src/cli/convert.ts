/** `interlingua convert`: convert a body or an SSE stream from one format to another. */
import { parseArgs } from 'node:util';
import { Readable, Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { convertError, convertRequest, convertResponse, convertTokenCountRequest, convertTokenCountResponse, parseBody } from '../formats/convert.ts';
import { convertStream } from '../formats/stream.ts';
import { detectFormat } from '../core/detect.ts';
import { codecFor, isFormatId } from '../formats/registry.ts';
import type { Loss } from '../core/losses.ts';
import { throwIfStrict } from '../core/losses.ts';
import { FORMAT_IDS, type FormatId } from '../core/ir.ts';
import { readInput, UsageError } from './io.ts';

export const CONVERT_HELP = `Usage: interlingua convert --to FORMAT [--from FORMAT] [--kind KIND] [--dialect NAME] [--strict] [--model MODEL] [FILE|-]

Convert a JSON body (or, with --kind stream, a stream in the format's own
framing: SSE, or Bedrock's binary event stream) from one wire format to another. The result goes to stdout; losses go to stderr, one per line.

Options:
  --from FORMAT   source format; may be omitted when detection is certain
  --to FORMAT     target format (required)
  --kind KIND     request, response, error or stream (default: detected; stream needs --from),
                  or count-request and count-response: a token-counting body and its answer
                  (anthropic, openai-responses, gemini and bedrock-converse have them; need --from)
  --dialect NAME  write the target's dialect: for openai-chat deepseek, openrouter, gemini-openai,
                  vllm, ollama-openai or openai (default: the source's own dialect, else plain OpenAI)
  --strict        fail (exit 1) instead of converting with losses
  --model MODEL   the model, for Gemini and Bedrock bodies whose model lives in the URL
  -h, --help      show this help

Formats: ${FORMAT_IDS.join(', ')}
`;

const KINDS = ['request', 'response', 'error', 'stream', 'count-request', 'count-response'] as const;
type Kind = (typeof KINDS)[number];

function formatOption(value: string | undefined, name: string): FormatId | undefined {
  if (value === undefined) return undefined;
  if (!isFormatId(value)) throw new UsageError(`--${name} "${value}" is not a format; use one of ${FORMAT_IDS.join(', ')}`);
  return value;
}

function printLosses(losses: readonly Loss[]): void {
  for (const loss of losses) process.stderr.write(`loss ${loss.severity} ${loss.code} ${loss.path || '/'}: ${loss.message}\n`);
}

export async function runConvert(args: string[]): Promise<void> {
  const { values, positionals } = parseCli(args);
  if (positionals.length > 1) throw new UsageError('convert takes at most one file');
  const to = formatOption(values.to, 'to');
  if (to === undefined) throw new UsageError('--to is required');
  let from = formatOption(values.from, 'from');
  const kindValue = values.kind;
  if (kindValue !== undefined && !(KINDS as readonly string[]).includes(kindValue)) {
    throw new UsageError(`--kind "${kindValue}" is not one of ${KINDS.join(', ')}`);
  }
  let kind = kindValue as Kind | undefined;
  const model = values.model;
  const dialect = dialectOption(values.dialect, to);
  if (kind === 'stream') {
    if (from === undefined) throw new UsageError('--kind stream needs --from');
    await convertStreamFile(positionals[0], { from, to, strict: values.strict === true, model, dialect });
    return;
  }
  const body = parseBody(readInput(positionals[0]));
  if (kind === 'count-request' || kind === 'count-response') {
    if (from === undefined) throw new UsageError(`--kind ${kind} needs --from`);
    const count = kind === 'count-request' ? convertTokenCountRequest : convertTokenCountResponse;
    const result = count(body, { from, to, strict: values.strict === true, ...(model === undefined ? {} : { model }) });
    process.stdout.write(`${JSON.stringify(result.body, null, 2)}\n`);
    printLosses(result.losses);
    return;
  }
  if (from === undefined || kind === undefined) {
    const detection = detectFormat(body);
    if (detection === undefined) throw new UsageError('cannot detect the format of the input; pass --from and --kind');
    if (from === undefined && !detection.certain) {
      throw new UsageError(`the input could be more than one format (most likely ${detection.format}); pass --from`);
    }
    from ??= detection.format;
    kind ??= detection.kind;
  }
  const convert = kind === 'request' ? convertRequest : kind === 'response' ? convertResponse : convertError;
  const result = convert(body, { from, to, strict: values.strict === true, ...(model === undefined ? {} : { model }), ...(dialect === undefined ? {} : { dialect }) });
  process.stdout.write(`${JSON.stringify(result.body, null, 2)}\n`);
  printLosses(result.losses);
}

async function convertStreamFile(
  file: string | undefined,
  options: { from: FormatId; to: FormatId; strict: boolean; model: string | undefined; dialect: string | undefined },
): Promise<void> {
  const input =
    file === undefined || file === '-'
      ? (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>)
      : new Blob([readFileSync(file)]).stream();
  const output = convertStream(input, {
    from: options.from,
    to: options.to,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
  });
  await output.pipeTo(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, { preventClose: true });
  const losses = await output.losses;
  printLosses(losses);
  throwIfStrict(losses, options.strict);
}

/** The `--dialect` of the target format, checked against the dialects its codec writes. */
export function dialectOption(value: string | undefined, format: FormatId): string | undefined {
  if (value === undefined) return undefined;
  const dialects = codecFor(format).dialects ?? [];
  if (!dialects.includes(value)) {
    throw new UsageError(`--dialect "${value}" is not a dialect of ${format}${dialects.length === 0 ? '' : `; use one of ${dialects.join(', ')}`}`);
  }
  return value;
}

function parseCli(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        kind: { type: 'string' },
        model: { type: 'string' },
        dialect: { type: 'string' },
        strict: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
