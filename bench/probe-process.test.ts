// Goal: the probe's heap summary adds each function's sampled bytes wherever it allocates in
// the call tree, and shows them per request. Method: a small tree in the shape V8's
// HeapProfiler.stopSampling returns (a function allocating under two callers, one allocating
// nothing itself), its lines read back.
import t from 'tap';
import { heapSummary, type HeapProfileNode } from './probe-process.ts';

const node = (functionName: string, url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode => ({ callFrame: { functionName, url, lineNumber: 9 }, selfSize, children });

t.test('bytes by allocating function, in all and per request', async (t) => {
  const head = node('(root)', '', 0, [
    node('serveRequest', 'file:///checkout/plantdata/api/http-server.ts', 1024, [
      node('encodedFromWire', 'file:///checkout/plantdata/workers/datapoint-wire.ts', 6144),
    ]),
    node('appendLogged', 'file:///checkout/plantdata/engine/ingest/group-commit.ts', 0, [
      node('encodedFromWire', 'file:///checkout/plantdata/workers/datapoint-wire.ts', 2048),
      node('', 'file:///checkout/plantdata/engine/ingest/read-barriers.ts', 1024),
    ]),
  ]);
  const lines = heapSummary(head, { count: 4, what: 'request' });
  t.equal(lines[0], 'heap: 0.0 MB allocated (sampled), 2.5 KB a request, by allocating function:');
  t.match(lines[1], /^ +2\.0 KB +80\.0% +encodedFromWire workers\/datapoint-wire\.ts:10$/, 'one line for both call sites, largest first, lines 1-based');
  t.match(lines[2], /^ +0\.3 KB +10\.0% +serveRequest api\/http-server\.ts:10$/);
  t.match(lines[3], /^ +0\.3 KB +10\.0% +\(anonymous\) engine\/ingest\/read-barriers\.ts:10$/);
  t.equal(lines.length, 4, 'a function that allocates nothing itself is not listed');
});
