/**
 * Running tasks: in this thread, or on a pool of worker threads. Either
 * way `run` returns a promise per task; the caller awaits them in the order
 * it submitted them, which keeps the output order stable whatever finishes
 * first.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TaskProcessor, type ProcessOptions, type Task, type TaskResult } from './process.ts';

/** Runs tasks somewhere. */
export interface TaskRunner {
  run(task: Task): Promise<TaskResult>;
  close(): Promise<void>;
}

/** A worker's answer to one task. */
export type WorkerReply = { ok: true; result: TaskResult } | { ok: false; sequence: number; message: string };

/** Runs tasks in the calling thread. */
export class InlineRunner implements TaskRunner {
  private readonly processor: TaskProcessor;

  constructor(options: ProcessOptions) {
    this.processor = new TaskProcessor(options);
  }

  run(task: Task): Promise<TaskResult> {
    return Promise.resolve(this.processor.run(task));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface Pending {
  task: Task;
  resolve: (result: TaskResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  current: Pending | undefined;
}

/** Runs tasks on `size` worker threads, each task on the first idle worker. */
export class WorkerPool implements TaskRunner {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private failure: Error | undefined;
  private closing = false;
  private inline: TaskProcessor | undefined;

  constructor(size: number, private readonly options: ProcessOptions) {
    // Compiled (dist/), the worker is plain JavaScript. From source (tests,
    // under tsx) it is TypeScript, and the bootstrap registers tsx's loader
    // in the worker thread first; the bootstrap is not shipped.
    const fromSource = extname(fileURLToPath(import.meta.url)) === '.ts';
    const entry = new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url);
    const script = fromSource ? new URL('./worker-bootstrap.mjs', import.meta.url) : entry;
    for (let index = 0; index < size; index++) {
      const slot: Slot = { worker: new Worker(script, { workerData: { entry: entry.href, options } }), current: undefined };
      slot.worker.on('message', (reply: WorkerReply) => this.answered(slot, reply));
      slot.worker.on('error', (error) => this.fail(error));
      slot.worker.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`a worker thread exited with code ${code}`));
      });
      this.slots.push(slot);
    }
  }

  run(task: Task): Promise<TaskResult> {
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) {
        reject(this.failure);
        return;
      }
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      while (slot.current === undefined) {
        const next = this.queue.shift();
        if (next === undefined) return;
        try {
          slot.worker.postMessage(next.task);
          slot.current = next;
        } catch {
          // A task that cannot be copied to a worker (a value the structured
          // clone cannot take) runs here, where each item fails on its own.
          this.runHere(next);
        }
      }
    }
  }

  private runHere(pending: Pending): void {
    try {
      this.inline ??= new TaskProcessor(this.options);
      pending.resolve(this.inline.run(pending.task));
    } catch (error) {
      pending.reject(error as Error);
    }
  }

  private answered(slot: Slot, reply: WorkerReply): void {
    const pending = slot.current;
    slot.current = undefined;
    if (pending !== undefined) {
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new Error(`task ${reply.sequence} failed in a worker: ${reply.message}`));
    }
    this.dispatch();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const slot of this.slots) {
      slot.current?.reject(error);
      slot.current = undefined;
    }
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }
}
