// Goal: the datapoint scan micro benchmark keeps running (STYLE §12: a small size runs in
// make test so it cannot rot). Method: run it on 2 000 points and compare the checksums of the
// scan+encode columns and the JSON.parse columns; timings are printed by the full run, never
// asserted.
import t from 'tap';
import { NUMERIC_POINTS_PER_COLLECTION_MAX } from '../engine/limits.ts';
import { makeFloatBody, runDatapointScanBench } from './datapoint-scan.bench.ts';
import { scanDatapointBody } from './datapoint-scan.ts';

t.test('the bench runs small and both paths give the same columns', async (t) => {
  const result = runDatapointScanBench({ points: 2_000, rounds: 3 });
  t.equal(result.points, 2_000);
  t.equal(result.checksum, result.jsonParseChecksum);
  t.match(result.checksum, /^2000:1700001999000:/);
  for (const rate of [result.scanPointsPerSecond, result.scanEncodePointsPerSecond, result.jsonParsePointsPerSecond]) t.ok(rate > 0);
});

t.test('the bench body takes the fast path', async (t) => {
  t.equal(scanDatapointBody(makeFloatBody(10)).scanner, 'bytes');
  t.equal(scanDatapointBody(makeFloatBody(10, true)).scanner, 'bytes', 'value key first too');
});

t.test('past the points per collection cap the bench body is split into items (it crashed there)', async (t) => {
  const scanned = scanDatapointBody(makeFloatBody(NUMERIC_POINTS_PER_COLLECTION_MAX + 1));
  t.same(scanned.items.map((item) => item.pointCount), [NUMERIC_POINTS_PER_COLLECTION_MAX, 1]);
});
