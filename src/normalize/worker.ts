/** A normalize worker thread: receives tasks, answers with their results, in the order received. */
import { parentPort, workerData } from 'node:worker_threads';
import { reasonOf } from './failure.ts';
import { TaskProcessor, type ProcessOptions, type Task } from './process.ts';
import type { WorkerReply } from './pool.ts';

const port = parentPort;
if (port === null) throw new Error('worker.ts runs only as a worker thread');
const processor = new TaskProcessor((workerData as { options: ProcessOptions }).options);
port.on('message', (task: Task) => {
  let reply: WorkerReply;
  try {
    reply = { ok: true, result: processor.run(task) };
  } catch (error) {
    reply = { ok: false, sequence: task.sequence, message: reasonOf(error).message };
  }
  port.postMessage(reply);
});
