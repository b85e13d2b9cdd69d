// Goal: the probe's perf summary reads `perf script` output as perf writes it and files each
// sample under the right thread and activity. Method: samples copied from a real recording of
// the gateway shape (trimmed stacks), one per kind of thread and activity.
import t from 'tap';
import { activityOf, parsePerfScript, summarizePerf, threadClass } from './perf-profile.ts';

const SCRIPT = `node  9793 
\t    7f50a42372ff JS:*writeLoop file:///checkout/plantdata/engine/ingest/ingest-wal.ts:1:3215 (/tmp/perf-9793.map)
\t          c4993d v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)
\t          9069e1 node::NodeMainInstance::Run (/usr/bin/node)
\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)

node  9793 
\t         15d52ce v8::internal::ScavengerCollector::CollectGarbage (/usr/bin/node)
\t    7f50a4253504 JS:* file:///checkout/plantdata/api/http-server.ts:1:3768 (/tmp/perf-9793.map)
\t          9069e1 node::NodeMainInstance::Run (/usr/bin/node)

node  9812 
\t ffffffff81234567 _raw_spin_unlock_irqrestore ([kernel.kallsyms])
\t ffffffff81234000 futex_wake ([kernel.kallsyms])
\t ffffffff81230000 __x64_sys_futex ([kernel.kallsyms])
\t    7f1de81d298c JS:*scanItem /checkout/plantdata/workers/datapoint-scan.ts:2:5615 (/tmp/perf-9793.map)
\t          a1b2c3 node::worker::Worker::Run (/usr/bin/node)
\t          a1b2c4 node::worker::Worker::StartThread (/usr/bin/node)
\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

node  9803 
\t ffffffff81200000 ext4_sync_file ([kernel.kallsyms])
\t ffffffff81200100 __x64_sys_fdatasync ([kernel.kallsyms])
\t          e1e2e3 fdatasync (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t          14a0000 worker (/usr/bin/node)
\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

node  9797 
\t          1e33c07 v8::internal::compiler::GraphReducer::Reduce (/usr/bin/node)
\t          932ce1 node::(anonymous namespace)::PlatformWorkerThread (/usr/bin/node)
\t           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

MergeMutate  9936 
\t    20eb5d1f [unknown] (/checkout/plantdata/node_modules/chdb/dist/libchdb/libchdb.so)

node  9801 
\t    20eb5d1f [unknown] (/checkout/plantdata/node_modules/chdb/dist/libchdb/libchdb.so)
`;

t.test('each sample under its thread and activity', async (t) => {
  const samples = parsePerfScript(SCRIPT);
  t.equal(samples.length, 7);
  t.same(samples.map((s) => threadClass(s, 9793)), [
    'main thread', 'main thread', 'JS workers (parse)', 'libuv pool (fs, chdb calls)', 'V8 platform (GC, compiler)', 'MergeMutate threads',
    'node threads, stack cut short (libuv pool in chdb code)',
  ]);
  t.same(samples.map(activityOf), [
    'JS writeLoop engine/ingest/ingest-wal.ts', 'GC', 'kernel: futex', 'kernel: fdatasync', 'native v8::internal::compiler::GraphReducer::Reduce', 'native [unknown]', 'native [unknown]',
  ]);
});

t.test('the summary gives each thread its share and its activities', async (t) => {
  const lines = summarizePerf(parsePerfScript(SCRIPT), 9793);
  t.equal(lines[0], '7 samples, share by thread:');
  t.equal(lines[1], '   28.6%  main thread');
  t.ok(lines.includes('main thread (28.6% of all), by activity (share of the thread\'s samples):'));
  t.ok(lines.includes('   50.0%  GC'));
  t.ok(lines.includes('  100.0%  kernel: fdatasync'));
});
