/**
 * `interlingua normalize` as a library: recorded traffic (HAR, JSONL
 * exchanges, OpenAI, Anthropic, Gemini and Bedrock batch files) → one record per exchange in
 * the IR or one target format, media in a content-addressed blob store.
 * Node only (files, worker threads); the pure parts take values, not paths.
 */
export { normalizeFiles, OUTPUT_FILES, outputName, type NormalizeOptions } from './run.ts';
export { OutputDirError, type ExistingOutputs, type Shard } from './out-dir.ts';
export { COLUMNS, rowOf, endpointKind, type Column, type ColumnType, type ExchangeRow } from './columns.ts';
export { replayOf, replayPath, type ReplayRequest } from './replay.ts';
export type { OutFormat } from './process.ts';
export { resolveBlobs, blobPath, BlobStore } from './blob-store.ts';
export { BlobExtractor, isBlobReference, isEscaped, LITERAL_KEY, type BlobReference, type BlobSink } from './blob-refs.ts';
export { buildOutcome, type ItemIdentity } from './record.ts';
export { exchangeFromItem, genericExchange } from './exchange.ts';
export { exchangeFromHarEntry } from './har.ts';
export { classifyItem, detectLayout, type FileLayout } from './input-kind.ts';
export { parseSseText, accumulateStream } from './body.ts';
export { formatSummary } from './summary.ts';
export { stableId } from './process.ts';
export type * from './types.ts';
