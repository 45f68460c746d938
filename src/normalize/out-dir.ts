/**
 * Claiming the output directory of a run: a lock file taken with O_EXCL (so
 * two runs never write the same files), a refusal to write into a directory
 * that already holds outputs unless the caller said `overwrite` or `append`,
 * and the lock left behind by a run that did not finish, which marks its
 * outputs as interrupted until a run with `overwrite` replaces them. Shards
 * (`part-K-of-N`) of one dataset share a directory: each takes its own lock
 * and owns only its own files.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** What to do with outputs already in the directory. */
export type ExistingOutputs = 'refuse' | 'overwrite' | 'append';

/** Why the directory cannot be written. */
export class OutputDirError extends Error {
  override readonly name = 'OutputDirError';

  constructor(
    readonly code: 'not_empty' | 'locked' | 'interrupted',
    message: string,
  ) {
    super(message);
  }
}

/** This run's share of the dataset. */
export interface Shard {
  index: number;
  count: number;
}

/** `-part-K-of-N` for a shard, `` for a whole run. */
export function shardSuffix(shard: Shard | undefined): string {
  return shard === undefined ? '' : `-part-${shard.index}-of-${shard.count}`;
}

/** What a lock file says. */
interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

const PART = /part-(\d+)-of-(\d+)/;
const LOCK = /^\.normalize(-part-\d+-of-\d+)?\.lock$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' && typeof info.host === 'string' ? { pid: info.pid, host: info.host, startedAt: String(info.startedAt) } : undefined;
  } catch {
    return undefined;
  }
}

/** Is `name` (a file of the directory or of a partition folder) another shard's of the same dataset (`part-J-of-N`, the same N)? */
function otherShards(name: string, shard: Shard | undefined): boolean {
  const match = PART.exec(name);
  return shard !== undefined && match !== null && Number(match[2]) === shard.count && Number(match[1]) !== shard.index;
}

/** The files and folders of `dir` that are in the way: this run's own outputs, and anything that is not another shard's or the shared blob store. */
function inTheWay(dir: string, shard: Shard | undefined): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const name = entry.name;
    if (LOCK.test(name) || name === 'blobs' || otherShards(name, shard)) continue;
    if (entry.isDirectory() && name.startsWith('date=')) {
      for (const format of readdirSync(join(dir, name), { withFileTypes: true })) {
        const folder = join(name, format.name);
        if (!format.isDirectory()) found.push(folder);
        else for (const file of readdirSync(join(dir, folder))) if (!otherShards(file, shard)) found.push(join(folder, file));
      }
      continue;
    }
    found.push(name);
  }
  return found;
}

/** The claim on a directory; `release` removes the lock once the summary is written. */
export interface OutputClaim {
  /** True when the directory held this run's outputs and they are kept (`append`). */
  appending: boolean;
  release(): void;
}

/**
 * Take the lock of this run (this shard) on `dir`, creating `dir`; then
 * refuse, clear or keep what is in the way, as `existing` says.
 */
export function claimOutputDir(dir: string, shard: Shard | undefined, existing: ExistingOutputs): OutputClaim {
  mkdirSync(dir, { recursive: true });
  const suffix = shardSuffix(shard);
  const lockPath = join(dir, `.normalize${suffix}.lock`);
  const info: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      const descriptor = openSync(lockPath, 'wx');
      writeSync(descriptor, `${JSON.stringify(info)}\n`);
      closeSync(descriptor);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const held = readLock(lockPath);
    const who = held === undefined ? 'a run' : `the run of pid ${held.pid} on ${held.host}, started ${held.startedAt},`;
    if (held === undefined || held.host !== info.host || alive(held.pid)) {
      throw new OutputDirError('locked', `${dir} is being written by ${who} (${lockPath}); wait for it to finish, or remove the lock file if that run is gone`);
    }
    if (existing !== 'overwrite') {
      throw new OutputDirError('interrupted', `${who.replace(/,$/, '')} into ${dir} was interrupted: its outputs are incomplete; rerun with --overwrite to replace them`);
    }
    unlinkSync(lockPath);
  }
  let blocking: string[];
  try {
    blocking = inTheWay(dir, shard);
  } catch (error) {
    unlinkSync(lockPath);
    throw error;
  }
  if (blocking.length > 0 && existing === 'refuse') {
    unlinkSync(lockPath);
    const shown = blocking.slice(0, 3).join(', ') + (blocking.length > 3 ? `, … ${blocking.length - 3} more` : '');
    throw new OutputDirError('not_empty', `${dir} is not empty (${shown}); pass --overwrite to replace its outputs or --append to add to them`);
  }
  if (existing === 'overwrite') clearOwnOutputs(dir, shard);
  return {
    appending: existing === 'append' && blocking.length > 0,
    release: () => {
      if (existsSync(lockPath)) unlinkSync(lockPath);
    },
  };
}

/** The outputs a normalize run writes, by name: the whole run's, or one shard's. */
const OUTPUT_NAME = /^(records|errors|summary|requests)(-part-\d+-of-\d+)?\.(jsonl|json|parquet)$/;

/** Delete this run's earlier outputs (its files, its partition files); other shards' files, blobs and anything else stay. */
function clearOwnOutputs(dir: string, shard: Shard | undefined): void {
  const own = (name: string) => (PART.exec(name)?.[0] ?? '') === shardSuffix(shard).slice(1);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const name = entry.name;
    if (entry.isFile() && OUTPUT_NAME.test(name) && own(name)) rmSync(join(dir, name));
    if (!entry.isDirectory() || !name.startsWith('date=')) continue;
    for (const format of readdirSync(join(dir, name), { withFileTypes: true })) {
      if (!format.isDirectory()) continue;
      const folder = join(dir, name, format.name);
      for (const file of readdirSync(folder)) if (file === partitionFileName(shard)) rmSync(join(folder, file));
    }
  }
}

/** The file name of this run's part in each partition folder: `part-K-of-N.parquet` (`part-1-of-1.parquet` for a whole run). */
export function partitionFileName(shard: Shard | undefined): string {
  return `part-${shard?.index ?? 1}-of-${shard?.count ?? 1}.parquet`;
}
