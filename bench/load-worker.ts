// runIngest on a thread of its own (load.ts runIngestApart): the senders' event loop and heap
// apart from the thread that times the queries sent while the load runs.
import { parentPort, workerData } from 'node:worker_threads';
import { runIngest, type IngestOptions } from './load.ts';

const port = parentPort;
if (!port) throw new Error('load-worker.ts runs as a worker thread');
runIngest(workerData as IngestOptions, () => port.postMessage({ started: true })).then(
  (figures) => port.postMessage({ figures }),
  (error: Error) => port.postMessage({ error: { message: error.message, stack: error.stack } }),
);
