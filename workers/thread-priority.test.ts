// Goal: a parse worker runs at PARSE_WORKER_NICE while the event loop keeps the process'
// priority (a lowered main thread would take the whole process with it), and the real pool's
// workers take it as they load their task.
// Method: the kernel's own record (/proc/self/task/<tid>/stat, field 19: nice) read for the
// main thread after the call, and for the threads a real datapoint pool started (its .ts task
// loaded through tsx, as in the service) after it ran a task. Linux only (the service's platform).
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { createDatapointPool } from './datapoint-pool.ts';
import { currentThreadId, lowerWorkerThreadPriority, PARSE_WORKER_NICE } from './thread-priority.ts';

/** The nice value of a thread of this process. */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  // Fields after the command (which may hold spaces) start at the last ')': state is field 3, nice field 19.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const mainNice = niceOf(process.pid);

t.test('the main thread never lowers itself', async (t) => {
  t.equal(lowerWorkerThreadPriority(PARSE_WORKER_NICE), false, 'refused on the main thread');
  t.equal(niceOf(process.pid), mainNice, 'its priority is untouched');
  t.equal(currentThreadId(), process.pid, 'the main thread\'s id is the process id');
});

t.test('the datapoint pool\'s workers run at the lower priority', async (t) => {
  const before = new Set(readdirSync('/proc/self/task'));
  const pool = createDatapointPool({ maxThreads: 1, maxQueue: 1 });
  t.teardown(() => pool.close());
  await pool.scan(new TextEncoder().encode('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":1}]}]}'));
  const lowered = readdirSync('/proc/self/task').filter((tid) => !before.has(tid) && niceOf(Number(tid)) === PARSE_WORKER_NICE);
  t.ok(lowered.length >= 1, `a new thread at nice ${PARSE_WORKER_NICE} (${lowered.length})`);
  t.equal(niceOf(process.pid), mainNice, 'the main thread keeps its priority');
});
