/** `interlingua normalize`: recorded traffic → one JSONL record per exchange, in the IR or one format. */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isFormatId } from '../formats/registry.ts';
import { normalizeFiles } from '../normalize/run.ts';
import { formatSummary } from '../normalize/summary.ts';
import type { Target } from '../normalize/types.ts';
import { UsageError } from './io.ts';

export const NORMALIZE_HELP = `Usage: interlingua normalize INPUT... [--out DIR] [--to ir|FORMAT] [--jobs N] [--blob-threshold CHARS]

Normalize recorded LLM API traffic into one record per exchange. Inputs are
detected per file: HAR 1.2; JSONL with a request and a response per line
(request/response, url, status, body as an object or JSON text); OpenAI
Batch input and output files; Anthropic Message Batches request and result
files; Gemini Batch API request and response files; Bedrock batch inference
records; VCR cassettes (YAML or JSON) and nock recordings; OTLP JSON traces
(GenAI conventions, OpenLLMetry, OpenInference); Langfuse observations;
LiteLLM logging payloads; Bedrock model invocation logs. Gzip (and zstd where
Node has it) is read by its magic bytes. The format of each exchange comes
from its batch container or its URL, else from its bodies.
SSE responses are reassembled into whole responses.

Writes to DIR:
  records.jsonl   one record per exchange: id, source, format, model,
                  request and response (IR or --to format), losses, status, timing
  errors.jsonl    one line per item that could not be converted, with the reason
  blobs/sha256/   base64 media longer than the threshold, stored once by content
  summary.json    counts by format, model, loss code and error reason (also on stderr)

Options:
  --out DIR               output directory (default ./normalized)
  --to ir|FORMAT          ir (default), anthropic, openai-chat, openai-responses, gemini, ollama or bedrock-converse
  --jobs N                worker threads for inputs over 1 MB (default 1); output order does not change
  --blob-threshold CHARS  move base64 strings longer than this to the blob store (default 4096)
  -h, --help              show this help

Exit 0 when the run completes (bad records go to errors.jsonl), 2 on a usage mistake.
`;

function wholeNumber(value: string | undefined, name: string, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum) throw new UsageError(`--${name} must be a whole number of at least ${minimum}, got "${value}"`);
  return number;
}

function targetOption(value: string | undefined): Target {
  if (value === undefined || value === 'ir') return 'ir';
  if (!isFormatId(value)) throw new UsageError(`--to "${value}" is not ir or a format; use ir, anthropic, openai-chat, openai-responses, gemini, ollama or bedrock-converse`);
  return value;
}

function checkInput(file: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!isFile) throw new UsageError(`${file} is not a file`);
}

export async function runNormalize(args: string[]): Promise<void> {
  const { values, positionals } = parseCli(args);
  if (positionals.length === 0) throw new UsageError('normalize needs at least one input file; run "interlingua normalize --help"');
  const to = targetOption(values.to);
  const jobs = wholeNumber(values.jobs, 'jobs', 1, 1);
  const blobThreshold = wholeNumber(values['blob-threshold'], 'blob-threshold', 4096, 0);
  for (const file of positionals) checkInput(file);
  const summary = await normalizeFiles({ inputs: positionals, outDir: values.out ?? 'normalized', to, jobs, blobThreshold, progress: process.stderr });
  process.stderr.write(formatSummary(summary));
}

function parseCli(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        to: { type: 'string' },
        jobs: { type: 'string' },
        'blob-threshold': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
