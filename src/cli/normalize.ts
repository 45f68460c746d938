/** `interlingua normalize`: recorded traffic → one JSONL record per exchange, in the IR or one format. */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isFormatId } from '../formats/registry.ts';
import { OutputDirError, type ExistingOutputs, type Shard } from '../normalize/out-dir.ts';
import type { OutFormat } from '../normalize/process.ts';
import { normalizeFiles } from '../normalize/run.ts';
import { formatSummary } from '../normalize/summary.ts';
import type { Target } from '../normalize/types.ts';
import { UsageError } from './io.ts';

export const NORMALIZE_HELP = `Usage: interlingua normalize INPUT... [--out DIR] [--to ir|FORMAT] [--out-format jsonl|parquet|requests]
                            [--partition] [--keep-hints] [--shard K/N] [--overwrite | --append]
                            [--jobs N] [--blob-threshold CHARS]

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

Writes to DIR (docs/NORMALIZE.md documents every field and column):
  records.jsonl    one record per exchange: id, source, format, model,
                   request and response (IR or --to format), losses, status, timing
  records.parquet  with --out-format parquet: one row per exchange, flat columns
                   (time, duration, tokens, tools, stop reason, error, losses, bodies as JSON text);
                   with --partition, date=YYYY-MM-DD/format=F/part-K-of-N.parquet instead
  requests.jsonl   with --out-format requests: {id, method, path, model, stream, body} per
                   request, in the --to format, ready to send (media inline)
  errors.jsonl     one line per item that could not be converted, with the reason
  blobs/sha256/    base64 media longer than the threshold, stored once by content
  summary.json     counts by format, model, loss code and error reason (also on stderr), written last
A shard's files are named records-part-K-of-N.jsonl and so on, so N shards can share DIR.
Record ids are a hash of the recorded exchange: the same exchange has the same id in every run and shard.

Options:
  --out DIR               output directory (default ./normalized); a non-empty one is refused
                          unless --overwrite or --append; a lock keeps a second run out, and a
                          run that did not finish leaves it, so the next run says so
  --to ir|FORMAT          ir (default), anthropic, openai-chat, openai-responses, gemini, ollama or bedrock-converse
  --out-format F          jsonl (default), parquet, or requests (needs --to FORMAT)
  --partition             Parquet in a Hive layout by day and format
  --keep-hints            keep the IR's $ shape hints (extensions keys such as $contentString) in records
  --shard K/N             process only share K of N of the inputs (by file, and by 64 MiB byte
                          ranges of large JSONL files); N runs give one dataset
  --overwrite             replace this run's earlier outputs in DIR (other shards' files and blobs stay)
  --append                add to this run's earlier JSONL outputs in DIR; summary.json adds up the runs
  --jobs N                worker threads for inputs over 1 MB (default 1); output order does not change
  --blob-threshold CHARS  move base64 strings longer than this to the blob store (default 4096)
  -h, --help              show this help

Exit 0 when the run completes (bad records go to errors.jsonl), 2 on a usage mistake
or an --out that is not empty, locked, or left by an interrupted run.
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

function outFormatOption(value: string | undefined, to: Target): OutFormat {
  if (value === undefined || value === 'jsonl') return 'jsonl';
  if (value !== 'parquet' && value !== 'requests') throw new UsageError(`--out-format "${value}" is not jsonl, parquet or requests`);
  if (value === 'requests' && to === 'ir') throw new UsageError('--out-format requests writes request bodies in a wire format: add --to FORMAT');
  return value;
}

function shardOption(value: string | undefined): Shard | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) throw new UsageError(`--shard must be K/N with 1 <= K <= N, got "${value}"`);
  return { index, count };
}

function existingOption(overwrite: boolean | undefined, append: boolean | undefined, outFormat: OutFormat): ExistingOutputs {
  if (overwrite === true && append === true) throw new UsageError('--overwrite and --append exclude each other');
  if (append === true && outFormat === 'parquet') throw new UsageError('Parquet files cannot be appended to: use --overwrite, another --out, or --shard');
  return overwrite === true ? 'overwrite' : append === true ? 'append' : 'refuse';
}

export async function runNormalize(args: string[]): Promise<void> {
  const { values, positionals } = parseCli(args);
  if (positionals.length === 0) throw new UsageError('normalize needs at least one input file; run "interlingua normalize --help"');
  const to = targetOption(values.to);
  const outFormat = outFormatOption(values['out-format'], to);
  if (values.partition === true && outFormat !== 'parquet') throw new UsageError('--partition applies to --out-format parquet');
  const shard = shardOption(values.shard);
  const existing = existingOption(values.overwrite, values.append, outFormat);
  const jobs = wholeNumber(values.jobs, 'jobs', 1, 1);
  const blobThreshold = wholeNumber(values['blob-threshold'], 'blob-threshold', 4096, 0);
  for (const file of positionals) checkInput(file);
  let summary;
  try {
    summary = await normalizeFiles({
      inputs: positionals,
      outDir: values.out ?? 'normalized',
      to,
      outFormat,
      partition: values.partition === true,
      keepHints: values['keep-hints'] === true,
      ...(shard === undefined ? {} : { shard }),
      existing,
      jobs,
      blobThreshold,
      progress: process.stderr,
    });
  } catch (error) {
    if (error instanceof OutputDirError) throw new UsageError(error.message);
    throw error;
  }
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
        'out-format': { type: 'string' },
        partition: { type: 'boolean' },
        'keep-hints': { type: 'boolean' },
        shard: { type: 'string' },
        overwrite: { type: 'boolean' },
        append: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
