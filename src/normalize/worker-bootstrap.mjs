// Starts a normalize worker thread. The worker's entry is TypeScript when
// interlingua runs from source, so register tsx's loader in this thread
// first (loaders registered in the main thread do not reach workers).
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
