/**
 * Parquet output: the rows of {@link COLUMNS} into one file, or into a Hive
 * layout by day and format (`date=YYYY-MM-DD/format=F/part-K-of-N.parquet`,
 * `__HIVE_DEFAULT_PARTITION__` for exchanges without a start time), which
 * DuckDB, pyarrow and Spark read as one dataset. Rows are buffered and
 * written a row group at a time (10,000 rows or 32 MB of text), so memory
 * stays bounded. The writer (hyparquet-writer, pure JavaScript) is loaded
 * only when Parquet is asked for.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { COLUMNS, type Column, type ExchangeRow } from './columns.ts';
import { partitionFileName, shardSuffix, type Shard } from './out-dir.ts';

type Writer = typeof import('hyparquet-writer');
type SchemaElement = import('hyparquet-writer').SchemaElement;
type ParquetWriter = InstanceType<Writer['ParquetWriter']>;

/** Where rows go. */
export interface RowSink {
  write(rows: readonly ExchangeRow[]): void;
  /** Write what is buffered and close every file; resolves with the files written, relative to the output directory. */
  close(): Promise<string[]>;
}

/** The Hive partition value of a missing key, as Hive, Spark and DuckDB spell it. */
export const HIVE_NULL = '__HIVE_DEFAULT_PARTITION__';

const ROWS_PER_GROUP = 10_000;
const TEXT_PER_GROUP = 32 * 1024 * 1024;

function schemaOf(column: Column): SchemaElement[] {
  const repetition_type = column.name === 'id' ? 'REQUIRED' : 'OPTIONAL';
  switch (column.type) {
    case 'string':
      return [{ name: column.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type }];
    case 'int32':
      return [{ name: column.name, type: 'INT32', repetition_type }];
    case 'int64':
      return [{ name: column.name, type: 'INT64', repetition_type }];
    case 'double':
      return [{ name: column.name, type: 'DOUBLE', repetition_type }];
    case 'boolean':
      return [{ name: column.name, type: 'BOOLEAN', repetition_type }];
    case 'timestamp':
      return [{ name: column.name, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', repetition_type }];
    case 'string-list':
      return [
        { name: column.name, repetition_type, converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      ];
  }
}

/** A value as the writer takes it: 64-bit integers as bigint, times as Date. */
function cell(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'int64') return BigInt(Math.trunc(value as number));
  if (column.type === 'int32') return Math.trunc(value as number);
  if (column.type === 'timestamp') return new Date(value as number);
  return value;
}

/** One Parquet file being written: its columns' buffered values. */
class PartFile {
  private readonly writer: ParquetWriter;
  private buffered: unknown[][];
  private rows = 0;
  private text = 0;

  constructor(
    library: Writer,
    path: string,
    private readonly columns: readonly Column[],
  ) {
    const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }, ...columns.flatMap(schemaOf)];
    this.writer = new library.ParquetWriter({ writer: library.fileWriter(path), schema, createdBy: 'interlingua normalize' });
    this.buffered = columns.map(() => []);
  }

  add(row: ExchangeRow): void {
    this.columns.forEach((column, index) => this.buffered[index]?.push(cell(column, row[column.name])));
    this.rows++;
    this.text += (row.request_json?.length ?? 0) + (row.response_json?.length ?? 0) + (row.error_json?.length ?? 0);
    if (this.rows >= ROWS_PER_GROUP || this.text >= TEXT_PER_GROUP) this.flush();
  }

  flush(): void {
    if (this.rows === 0) return;
    const columnData = this.columns.map((column, index) => ({ name: column.name, data: this.buffered[index] ?? [] }));
    void this.writer.write({ columnData, rowGroupSize: this.rows });
    this.buffered = this.columns.map(() => []);
    this.rows = 0;
    this.text = 0;
  }

  async finish(): Promise<void> {
    this.flush();
    await this.writer.finish();
  }
}

function day(startedAt: number | null): string {
  return startedAt === null ? HIVE_NULL : new Date(startedAt).toISOString().slice(0, 10);
}

/** A sink writing `records.parquet` (`records-part-K-of-N.parquet` for a shard), or the Hive layout when `partition` is set. */
export async function openParquetSink(dir: string, shard: Shard | undefined, partition: boolean): Promise<RowSink> {
  const library: Writer = await import('hyparquet-writer');
  const files = new Map<string, PartFile>();
  if (!partition) {
    const name = `records${shardSuffix(shard)}.parquet`;
    files.set(name, new PartFile(library, join(dir, name), COLUMNS));
  }
  // In the Hive layout the format is the folder's, not a column of the file (Spark refuses a column that is both).
  const columns = COLUMNS.filter((column) => column.name !== 'format');
  const fileFor = (row: ExchangeRow): PartFile => {
    if (!partition) return files.values().next().value as PartFile;
    const folder = join(`date=${day(row.started_at)}`, `format=${row.format}`);
    const name = join(folder, partitionFileName(shard));
    let file = files.get(name);
    if (file === undefined) {
      mkdirSync(join(dir, folder), { recursive: true });
      file = new PartFile(library, join(dir, name), columns);
      files.set(name, file);
    }
    return file;
  };
  return {
    write(rows) {
      for (const row of rows) fileFor(row).add(row);
    },
    async close() {
      for (const file of files.values()) await file.finish();
      return [...files.keys()];
    },
  };
}
